"""`wikiq mcp`: the vault as an MCP server, so any agent can ask it (seed 003's skill, as tools).

Tools: `ask` (a cited answer), `search` (ranked pages, as `wikiq search --json`), `read_page`
and `list_pages`; every page is also a resource `wikiq://page/<path>`. The server's
instructions describe the vault. A failure is a tool error of one sentence, never a crash.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import quote

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources import FunctionResource, ResourceSecurity
from mcp_types import ToolAnnotations

from wikiq import __version__
from wikiq.errors import PageNotFound, WikiqError
from wikiq.vault import access as pages
from wikiq.vault.catalog import Catalog
from wikiq.vault.note_access import find_note, read_note
from wikiq.wiki import Wiki

log = logging.getLogger("wikiq.mcp")

T = TypeVar("T")

PAGE_URI = "wikiq://page/"
# Past this many pages, clients get the URI template instead of one resource per page.
MAX_LISTED_RESOURCES = 2000

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)


def page_uri(path: str) -> str:
    return PAGE_URI + quote(path, safe="/")


def instructions_for(wiki: Wiki) -> str:
    """What an agent should know before calling a tool: which vault, its size and languages."""
    summary = pages.vault_summary(wiki.catalog)
    folder = wiki.location.link_prefix
    return (
        f"wikiq answers questions from the Obsidian vault '{summary.name}' — "
        f"{summary.describe().split(': ', 1)[1]}.\n"
        "Use `ask` for an answer grounded only in the vault, with [[wiki-link]] citations "
        f"(links look like [[{folder}concepts/<page>]]) and a ## References section; "
        '`covered` says whether the vault covers the question: "yes"; "uncertain" (the '
        'answer comes from pages that may cover it only in part, and says so); or "no" '
        "(`pure_llm` true: the answer says it is not from the vault — do not present it as "
        "coming from the vault; `search` still lists the closest pages). "
        "Use `search` to see which pages match a question and why, `read_page` to read one page "
        "(paths like 'concepts/orbit', as search and list_pages return them), and `list_pages` "
        "to browse. Pages are also resources at wikiq://page/<path>. The vault is read-only: "
        "nothing here changes it. Ask in any language; answers come in the question's language.\n"
        f"Semantic search (embeddings): {wiki.embeddings_summary()}."
    )


def build_server(wiki: Wiki, *, model: str | None = None, warm: bool = False) -> MCPServer:
    """An MCP server over one opened vault. `model`: a `provider:model` spec, else the
    configured one. `warm`: build the indexes now, on a thread, while the client connects."""
    ready = _warm_in_background(wiki) if warm else _nothing
    server: MCPServer = MCPServer(
        name="wikiq",
        title=f"wikiq — {wiki.location.vault.name}",
        version=__version__,
        instructions=instructions_for(wiki),
        resource_security=ResourceSecurity(),
        warn_on_duplicate_resources=False,
        log_level="WARNING",
    )
    catalog = wiki.catalog
    location = wiki.location

    @server.tool(
        description=(
            "Answer a question from the vault only, with [[wiki-link]] citations and a "
            "## References section. Returns the answer text, the retrieval arm, covered "
            "(yes / uncertain / no), pure_llm (true when the vault does not cover the question: "
            "then the answer is not from the vault), the cited pages and the pages read. "
            "`history`: earlier turns of this conversation, oldest first, as {question, "
            "answer} objects, for follow-up questions. `details`: also the whole retrieval, "
            "timings and token usage."
        ),
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False),
    )
    def ask(
        question: str, history: list[dict[str, str]] | None = None, details: bool = False
    ) -> dict[str, Any]:
        return _guard("answer the question", lambda: _ask(wiki, question, history, model, details), ready)

    @server.tool(
        description=(
            "Find the pages that answer a question, without writing an answer: the arm, "
            "covered (yes / uncertain / no, with the evidence behind it), the seed pages and "
            "why they matched, and the ranked pages with their signals — always the closest "
            "pages, even when the vault does not cover it. Same JSON as `wikiq search --json`."
        ),
        annotations=_READ_ONLY,
    )
    def search(question: str, k: int = 8) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            if not question.strip():
                raise WikiqError("Give a question to search for.")
            result = wiki.search(question, k=max(1, min(int(k), 50)))
            return result.to_dict(str(location.vault), location.wiki_folder)

        return _guard("search the vault", run, ready)

    @server.tool(
        description=(
            "Read one page of the vault: its frontmatter and Markdown body (cut at max_chars; "
            "`truncated` says so and `offset` reads on), plus its links in and out. `path` is a "
            "page path such as 'concepts/orbit' (a basename, title or alias also works), or the "
            "path of a source note from search's `sources` such as 'raw/papers/orca'."
        ),
        annotations=_READ_ONLY,
    )
    def read_page(
        path: str, max_chars: int = pages.DEFAULT_MAX_CHARS, offset: int = 0
    ) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            catalog = _fresh(wiki)
            scan = wiki.source_notes()
            if find_note(scan, path) is not None and scan is not None:
                # A source note's exact path (`raw/papers/orca`): before the pages, whose
                # name fallback would answer with a page called `orca`.
                return read_note(catalog, scan, path, max_chars=max_chars, offset=offset).to_dict()
            return pages.read_page(catalog, path, max_chars=max_chars, offset=offset).to_dict()

        return _guard("read the page", run, ready)

    @server.tool(
        description=(
            "List the vault's pages (path, title, type, aliases, stub), optionally only one "
            "type (entity, concept, source, …) or paths starting with a prefix such as "
            "'concepts/'. Paged: `offset` and `limit` (at most 500); `next_offset` is null at "
            "the end."
        ),
        annotations=_READ_ONLY,
    )
    def list_pages(
        type: str | None = None, prefix: str | None = None, offset: int = 0, limit: int = 100
    ) -> dict[str, Any]:
        return _guard(
            "list pages",
            lambda: pages.list_pages(
                _fresh(wiki), type=type, prefix=prefix, offset=offset, limit=limit
            ),
            ready,
        )

    @server.resource(
        "wikiq://page/{+path}",
        name="page",
        description="A page of the vault as Markdown (frontmatter and body), by page path.",
        mime_type="text/markdown",
    )
    def page_resource(path: str) -> str:
        ready()
        return _page_text(wiki, path)

    if len(catalog) <= MAX_LISTED_RESOURCES:
        for page in catalog.pages:
            server.add_resource(
                FunctionResource(
                    uri=page_uri(page.path),
                    name=page.path,
                    title=page.title,
                    description=f"{page.type or 'page'}: {page.summary}"[:200],
                    mime_type="text/markdown",
                    fn=_page_reader(wiki, page.path, ready),
                )
            )
    return server


def _page_reader(wiki: Wiki, path: str, ready: Callable[[], None]) -> Callable[[], str]:
    def read() -> str:
        ready()
        return _page_text(wiki, path)

    return read


def _warm_in_background(wiki: Wiki) -> Callable[[], None]:
    """Start building what every question needs (seconds on a large vault) while the client
    connects; returns what a tool call waits on first. Waiting, rather than working beside it,
    means one build, and no two threads importing the same modules at once (scipy's imports
    fail half-done then). A failure is left for the call to meet again and report."""

    def warm() -> None:
        try:
            wiki.warm()
        except Exception:
            log.debug("wikiq: warming the indexes failed", exc_info=True)

    thread = threading.Thread(target=warm, name="wikiq-warm", daemon=True)
    thread.start()
    return thread.join


def _nothing() -> None:
    return None


def _fresh(wiki: Wiki) -> Catalog:
    """The catalog as the vault is now (pages edited under a running server are seen)."""
    wiki.keep_fresh()
    return wiki.catalog


def _page_text(wiki: Wiki, path: str) -> str:
    try:
        i = pages.find_page(_fresh(wiki), path)
    except PageNotFound as err:
        raise ResourceNotFoundError(str(err)) from None
    except WikiqError as err:
        raise ResourceError(str(err)) from None
    text = wiki.catalog.read_text(i)
    if len(text) > pages.MAX_CHARS_LIMIT:
        cut = pages.MAX_CHARS_LIMIT
        text = text[:cut] + f"\n\n[… cut at {cut} characters; read_page reads on with offset]"
    return text


# What an agent needs from an answer; the rest (the whole retrieval, the raw text, timings,
# token counts) comes only with `details`, so a short answer is not 8 KB of JSON.
ASK_FIELDS = (
    "answer",
    "arm",
    "covered",
    "pure_llm",
    "extractive",
    "model",
    "citations",
    "loaded",
    "notes",
)


def _ask(
    wiki: Wiki,
    question: str,
    history: list[dict[str, str]] | None,
    model: str | None,
    details: bool = False,
) -> dict[str, Any]:
    # the answering layer loads only when asked
    from wikiq.answer.conversation import history_turns

    if not question.strip():
        raise WikiqError("Give a question to ask.")
    turns = history_turns(history if isinstance(history, list) else [])
    answer = wiki.ask(question, model=model, history=turns)
    data: dict[str, Any] = answer.to_dict()
    if details:
        return data
    return {k: data[k] for k in ASK_FIELDS if k in data}


def _guard(doing: str, run: Callable[[], T], ready: Callable[[], None]) -> T:
    """Run a tool body once the server is `ready`; a user-fixable error or a crash becomes
    one sentence for the client."""
    try:
        ready()
        return run()
    except ToolError:
        raise
    except WikiqError as err:
        raise ToolError(str(err)) from None
    except Exception as err:
        log.exception("wikiq MCP tool failed")
        raise ToolError(
            f"wikiq could not {doing}: {type(err).__name__}: {err}".rstrip(": ") + "."
        ) from None


def run_stdio(server: MCPServer) -> None:
    """Serve over stdin/stdout until the client closes the pipe. Logs go to stderr only."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    server.run("stdio")


def run_http(server: MCPServer, *, host: str, port: int, token: str | None) -> None:
    """Serve streamable HTTP at `/mcp`; off loopback every request must carry the token."""
    import uvicorn

    from wikiq.http_gate import AccessGate, is_loopback

    app = server.streamable_http_app(host=host)
    gated = AccessGate(app, token=token, loopback=is_loopback(host))
    uvicorn.run(gated, host=host, port=port, log_level="warning")
