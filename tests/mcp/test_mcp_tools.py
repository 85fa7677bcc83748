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
