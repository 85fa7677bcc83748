"""`wikiq serve`: one page to ask the vault, and the JSON endpoints it is built on.

GET  /                      the page (static HTML, CSS and JS; no build step)
GET  /api/info              the vault: name, page counts, languages, Obsidian vault name
GET  /api/search?q=&k=      ranked pages, as `wikiq search --json`
GET  /api/page?path=        one page: frontmatter, body rendered as safe HTML, links
GET  /api/graph?q=&cited=   the graph behind a question: results, PPR neighbours, links
POST /api/ask               {question, history} -> server-sent events (see asking.py)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

import anyio
from fastapi import FastAPI, Query, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sse_starlette.sse import EventSourceResponse
from starlette.types import ASGIApp

from wikiq.errors import PageNotFound, WikiqError
from wikiq.http_gate import AccessGate
from wikiq.vault import access as pages
from wikiq.web.asking import AnswerEvents, parse_question
from wikiq.web.graph import answer_graph
from wikiq.web.render import Resolve, SafeMarkdown
from wikiq.wiki import Wiki

STATIC = Path(__file__).parent / "static"
# Answers wait on a model; this many may hold a worker thread at once, the rest queue.
ASK_THREADS = 32
PAGE_PREVIEW_CHARS = 60_000

# Nothing from a page can run: scripts only from this server, no inline script or handlers.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
_SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def create_app(
    wiki: Wiki,
    *,
    model: str | None = None,
    token: str | None = None,
    loopback: bool = True,
) -> ASGIApp:
    """The web app over one opened vault, behind the access gate (token or loopback Host).

    `model`: a `provider:model` spec; None uses the configured model, else quoting answers.
    """
    markdown = SafeMarkdown(_resolver(wiki))
    limiter = anyio.CapacityLimiter(ASK_THREADS)
    answers = AnswerEvents(wiki, model=model, limiter=limiter)

    chosen: dict[str, Any] = {"model": None, "model_source": None}

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # Build the lazy indexes and open the model once, before concurrent questions race.
        chosen.update(await anyio.to_thread.run_sync(_warm, wiki, model))
        stop_watching = wiki.watch()  # pages edited while the page is open are seen
        try:
            yield
        finally:
            stop_watching()

    app = FastAPI(title="wikiq", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Any:
        response = await call_next(request)
        for name, value in _SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    @app.exception_handler(WikiqError)
    async def user_error(request: Request, err: WikiqError) -> JSONResponse:
        status = 404 if isinstance(err, PageNotFound) else 400
        if isinstance(err, pages.PathRefused):
            status = 403
        return JSONResponse({"error": str(err)}, status_code=status)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/info")
    async def info() -> dict[str, Any]:
        await anyio.to_thread.run_sync(wiki.keep_fresh)
        catalog = wiki.catalog
        if chosen.get("summary_of") is not catalog:  # once per catalog: languages per page
            chosen["summary"] = await anyio.to_thread.run_sync(pages.vault_summary, catalog)
            chosen["summary_of"] = catalog
        return {
            **chosen["summary"].to_dict(),
            "link_prefix": wiki.location.link_prefix,
            "obsidian_vault": wiki.location.vault.name,
            "model": chosen["model"],
            "model_source": chosen["model_source"],
            "model_error": chosen.get("model_error"),
            "embeddings": await anyio.to_thread.run_sync(wiki.embeddings_summary),
        }

    @app.get("/api/search")
    async def search(
        q: Annotated[str, Query(min_length=1, max_length=4000)],
        k: Annotated[int, Query(ge=1, le=50)] = 8,
    ) -> dict[str, Any]:
        result = await anyio.to_thread.run_sync(lambda: wiki.search(q, k=k))
        return result.to_dict(str(wiki.location.vault), wiki.location.wiki_folder)

    @app.get("/api/page")
    async def page(path: Annotated[str, Query(min_length=1, max_length=1000)]) -> dict[str, Any]:
        await anyio.to_thread.run_sync(wiki.keep_fresh)
        catalog = wiki.catalog
        content = await anyio.to_thread.run_sync(
            lambda: pages.read_page(catalog, path, max_chars=PAGE_PREVIEW_CHARS)
        )
        data = content.to_dict()
        data["html"] = markdown.render(content.body)
        data["obsidian_url"] = pages.obsidian_url(catalog, content.path)
        data["link"] = pages.link_in_vault(catalog, content.path)
        return data

    @app.get("/api/graph")
    async def graph(
        q: Annotated[str, Query(min_length=1, max_length=4000)],
        cited: Annotated[list[str] | None, Query()] = None,
        k: Annotated[int, Query(ge=1, le=50)] = 8,
    ) -> dict[str, Any]:
        def build() -> dict[str, Any]:
            retrieval = wiki.search(q, k=k)
            catalog = wiki.catalog
            paths = []
            for target in cited or []:
                i = catalog.find(target)
                if i is not None:
                    paths.append(catalog.pages[i].path)
            return answer_graph(wiki.retriever, retrieval, paths)

        return await anyio.to_thread.run_sync(build)

    @app.post("/api/ask")
    async def ask(request: Request) -> Any:
        if "application/json" not in request.headers.get("content-type", ""):
            # A JSON body cannot be sent cross-site without the browser asking first.
            return JSONResponse({"error": "Send the question as JSON."}, status_code=415)
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "The request body is not valid JSON."}, status_code=400)
        question = parse_question(body)
        return EventSourceResponse(
            answers.stream(question), ping=10, headers={"Cache-Control": "no-store"}
        )

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return AccessGate(app, token=token, loopback=loopback)


def _resolver(wiki: Wiki) -> Resolve:
    def resolve(target: str) -> str | None:
        i = wiki.catalog.resolver.resolve(target)
        return wiki.catalog.pages[i].path if i is not None else None

    return resolve


def _warm(wiki: Wiki, model: str | None) -> dict[str, Any]:
    """Build what every question needs; say which model answers (None: quoted from pages)."""
    wiki.warm()
    try:
        choice = wiki.choose_model(model)
    except WikiqError as err:  # shown on the page; each question reports it again
        return {"model": None, "model_source": None, "model_error": str(err)}
    return {"model": choice.spec, "model_source": choice.source}
