"""The MCP tools' contracts, checked in-process (fast): paging, caps, errors, resources."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.support.vaults import VaultFactory, index_md
from wikiq.mcp_server import build_server, page_uri
from wikiq.wiki import Wiki

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-vault"


@pytest.fixture(scope="module")
def demo() -> Wiki:
    return Wiki.open(DEMO, use_cache=False)


def run(wiki: Wiki, session: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(build_server(wiki)) as client:
            return await session(client)

    return asyncio.run(main())


def data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return dict(result.structured_content)


def test_list_pages_pages_through_every_page_once(demo: Wiki) -> None:
    async def session(client: Client) -> list[str]:
        seen: list[str] = []
        offset: int | None = 0
        while offset is not None:
            page = data(await client.call_tool("list_pages", {"offset": offset, "limit": 10}))
            seen += [p["path"] for p in page["pages"]]
            offset = page["next_offset"]
        return seen

    seen = run(demo, session)

    assert len(seen) == len(set(seen)) == 49


def test_read_page_is_size_capped_and_reads_on(demo: Wiki) -> None:
    async def session(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        first = data(
            await client.call_tool("read_page", {"path": "concepts/orbit", "max_chars": 200})
        )
        rest = data(
            await client.call_tool(
                "read_page", {"path": "concepts/orbit", "offset": 200, "max_chars": 100000}
            )
        )
        return first, rest

    first, rest = run(demo, session)

    assert first["truncated"] and len(first["body"]) == 200
    assert not rest["truncated"]
    assert len(first["body"]) + len(rest["body"]) == first["total_chars"]


def test_empty_questions_are_tool_errors_with_one_sentence(demo: Wiki) -> None:
    async def session(client: Client) -> list[Any]:
        return [
            await client.call_tool("search", {"question": "  "}),
            await client.call_tool("ask", {"question": ""}),
        ]

    for result in run(demo, session):
        assert result.is_error
        assert "Give a question" in result.content[0].text


def test_search_reports_a_question_the_vault_does_not_cover(demo: Wiki) -> None:
    result = run(demo, lambda c: c.call_tool("search", {"question": "sourdough pizza recipe"}))

    out = data(result)
    assert out["pure_llm"] and out["arm"] == "LLM+KB" and out["results"] == []


def test_page_resources_resolve_and_refuse_traversal(demo: Wiki) -> None:
    async def session(client: Client) -> dict[str, Any]:
        templates = await client.list_resource_templates()
        chinese = await client.read_resource(page_uri("entities/张衡"))
        errors = []
        for uri in (
            "wikiq://page/../../etc/passwd",
            "wikiq://page/%2E%2E/%2E%2E/etc/passwd",
            "wikiq://page/concepts/warp-drive",
        ):
            try:
                await client.read_resource(uri)
                errors.append(None)
            except MCPError as err:
                errors.append(str(err))
        return {"templates": templates, "chinese": chinese, "errors": errors}

    got = run(demo, session)

    assert [t.uri_template for t in got["templates"].resource_templates] == ["wikiq://page/{+path}"]
    assert "张衡" in got["chinese"].contents[0].text
    assert all(got["errors"]), got["errors"]
    assert "root:" not in " ".join(got["errors"])
    assert "No page 'concepts/warp-drive'" in got["errors"][2]


def test_a_page_resource_that_links_out_of_the_vault_is_refused(
    make_vault: VaultFactory, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("the password is hunter2\n")
    vault = make_vault(
        {
            "wiki/index.md": index_md("- [[concepts/orbit|orbit]]"),
            "wiki/concepts/orbit.md": "---\ntype: concept\n---\n# Orbit\nA path.\n",
        }
    )
    (vault / "wiki" / "concepts" / "leak.md").symlink_to(secret)
    wiki = Wiki.open(vault, use_cache=False)

    async def session(client: Client) -> tuple[Any, str]:
        tool = await client.call_tool("read_page", {"path": "concepts/leak"})
        try:
            await client.read_resource(page_uri("concepts/leak"))
            return tool, ""
        except MCPError as err:
            return tool, str(err)

    tool, resource_error = run(wiki, session)

    # A symlink out of the wiki is never a page: not listed, not readable, never quoted.
    assert tool.is_error and "No page 'concepts/leak'" in tool.content[0].text
    assert "hunter2" not in tool.content[0].text
    assert resource_error and "hunter2" not in resource_error


NOTE = "notes/Reading notes on a history of the space race"


def test_search_returns_note_excerpts_and_read_page_reads_the_note(demo: Wiki) -> None:
    async def session(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        found = data(
            await client.call_tool(
                "search", {"question": "How long were the Apollo and Soyuz crews docked?"}
            )
        )
        return found, data(await client.call_tool("read_page", {"path": NOTE}))

    found, note = run(demo, session)

    assert found["sources"][0]["path"] == NOTE and "44 hours" in found["sources"][0]["text"]
    assert note["path"] == NOTE and note["type"] == "source-note"
    assert "44 hours" in note["body"]
    assert "sources/reading-notes-on-a-history-of-the-space-race_dcf678" in note["links_in"]


def test_read_page_never_reads_a_note_that_links_out_of_the_vault(
    make_vault: VaultFactory, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("the password is hunter2\n")
    vault = make_vault(
        {
            "wiki/index.md": index_md("- [[concepts/orbit|orbit]]"),
            "wiki/concepts/orbit.md": "---\ntype: concept\n---\n# Orbit\nA path. [[raw/leak]]\n",
            "raw/kept.md": "# Kept\n\nA note inside the vault.\n",
        }
    )
    (vault / "raw" / "leak.md").symlink_to(secret)
    wiki = Wiki.open(vault, use_cache=False)

    async def session(client: Client) -> tuple[Any, Any, dict[str, Any]]:
        leak = await client.call_tool("read_page", {"path": "raw/leak"})
        found = data(await client.call_tool("search", {"question": "What is the password?"}))
        kept = data(await client.call_tool("read_page", {"path": "raw/kept"}))
        return leak, found, kept

    leak, found, kept = run(wiki, session)

    assert leak.is_error and "hunter2" not in leak.content[0].text
    assert "hunter2" not in str(found)
    assert kept["type"] == "source-note" and "inside the vault" in kept["body"]


def test_a_server_warming_the_indexes_and_a_first_question_build_them_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`wikiq mcp` warms the indexes on a thread while the client connects; a question that
    arrives meanwhile waits for that build instead of starting a second one beside it."""
    import threading
    import time

    monkeypatch.setenv("WIKIQ_EMBED", "off")
    wiki = Wiki.open(DEMO, use_cache=False)
    builds: list[int] = []
    new_retriever = Wiki._new_retriever

    def slow_build(self: Wiki, catalog: object) -> object:
        builds.append(1)
        time.sleep(0.3)  # long enough for the question below to arrive during the build
        return new_retriever(self, catalog)

    monkeypatch.setattr(Wiki, "_new_retriever", slow_build)
    build_server(wiki, warm=True)
    found = wiki.search("gravity assist")  # a Python caller: it does not wait for the warm-up
    for thread in threading.enumerate():
        if thread.name == "wikiq-warm":
            thread.join(timeout=30)

    assert found.results[0].path == "concepts/gravity-assist"
    assert builds == [1]
