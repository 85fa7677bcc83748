"""`wikiq mcp` as an agent sees it: the SDK's own client, over stdio, against the demo vault."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.fake_llm import FakeLLM, Reply
from wikiq import __version__

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-vault"


def server_params(extra_env: dict[str, str] | None = None) -> StdioServerParameters:
    env = {
        "WIKIQ_CACHE_DIR": os.environ["WIKIQ_CACHE_DIR"],
        "WIKIQ_CONFIG_DIR": os.environ["WIKIQ_CONFIG_DIR"],
        "WIKIQ_DETECT_OLLAMA": "0",
        "WIKIQ_QUERY_LOG": "0",
        **(extra_env or {}),
    }
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "wikiq", "mcp", "--vault", str(DEMO)],
        env=env,
        cwd=str(ROOT),
    )


def run(session: Callable[[Client], Awaitable[Any]], env: dict[str, str] | None = None) -> Any:
    async def main() -> Any:
        async with Client(server_params(env), read_timeout_seconds=60) as client:
            return await session(client)

    return asyncio.run(main())


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return dict(result.structured_content)
    return json.loads(result.content[0].text)


def test_an_agent_lists_the_tools_and_calls_each_one() -> None:
    async def session(client: Client) -> dict[str, Any]:
        tools = await client.list_tools()
        out: dict[str, Any] = {
            "tools": {t.name: t for t in tools.tools},
            "instructions": client.instructions,
            "search": structured(
                await client.call_tool("search", {"question": "Hohmann transfer"})
            ),
            "page": structured(await client.call_tool("read_page", {"path": "concepts/orbit"})),
            "list": structured(await client.call_tool("list_pages", {"type": "source"})),
            "ask": structured(await client.call_tool("ask", {"question": "Who was Yuri Gagarin?"})),
        }
        resource = await client.read_resource("wikiq://page/entities/neil-armstrong")
        out["resource"] = resource.contents[0]
        out["resources"] = (await client.list_resources()).resources
        return out

    got = run(session)

    assert set(got["tools"]) == {"ask", "search", "read_page", "list_pages"}
    assert got["tools"]["read_page"].annotations.read_only_hint
    assert "demo-vault" in got["instructions"] and "49 pages" in got["instructions"]
    assert "中文" in got["instructions"]

    search = got["search"]
    assert search["arm"] == "Lex+PPR" and not search["pure_llm"]
    assert search["results"][0]["path"] == "concepts/hohmann-transfer-orbit"
    assert {"lex", "ppr"} <= set(search["results"][0]["signals"])
    assert search["vault"] == str(DEMO.resolve()) and search["wiki_folder"] == "wiki"

    page = got["page"]
    assert page["title"] == "Orbit" and page["type"] == "concept"
    assert page["frontmatter"]["type"] == "concept" and "orbit" in page["body"].lower()

    assert got["list"]["total"] == 7
    assert all(p["path"].startswith("sources/") for p in got["list"]["pages"])

    ask = got["ask"]  # no model configured: an extractive answer quoting the vault
    assert ask["extractive"] and not ask["pure_llm"]
    assert "entities/yuri-gagarin" in [c["path"] for c in ask["citations"]]
    assert "[[wiki/entities/yuri-gagarin" in ask["answer"]
    # The answer and what an agent acts on; the whole retrieval only when asked for details.
    assert ask["covered"] == "yes" and "retrieval" not in ask and "raw_answer" not in ask

    assert got["resource"].text.startswith("---")
    assert "Armstrong" in got["resource"].text
    assert len(got["resources"]) == 49


def test_read_page_refuses_paths_that_leave_the_wiki_folder() -> None:
    attempts = ["../../etc/passwd", "/etc/passwd", "concepts/../../../etc/hosts", "..\\index"]

    async def session(client: Client) -> list[Any]:
        results = [await client.call_tool("read_page", {"path": p}) for p in attempts]
        missing = await client.call_tool("read_page", {"path": "concepts/warp-drive"})
        still_fine = await client.call_tool("read_page", {"path": "concepts/delta-v"})
        return [*results, missing, still_fine]

    *refused, missing, still_fine = run(session)

    for result in refused:
        assert result.is_error
        text = result.content[0].text
        assert "Refused" in text and "passwd" not in text.split("Refused", 1)[0]
        assert "root:" not in text
    assert missing.is_error and "No page 'concepts/warp-drive'" in missing.content[0].text
    assert structured(still_fine)["title"] == "Delta-v"


def test_ask_answers_with_the_configured_model_and_cites_the_vault(fake_llm: FakeLLM) -> None:
    def respond(body: dict[str, Any]) -> Reply:
        loaded = re.findall(r"__WIKI_FOLDER__/([^\]\s|]+)", body["messages"][-1]["content"])
        if not loaded:
            return Reply.text("I cannot find this in your notes.")
        return Reply.text(
            f"Neil Armstrong walked on the Moon first [[__WIKI_FOLDER__/{loaded[0]}]]."
        )

    fake_llm.responder = respond
    env = {
        "WIKIQ_MODEL": "local:fake-model",
        "WIKIQ_BASE_URL": fake_llm.base_url,
        "WIKIQ_KEYWORD_MODEL": "none",
    }

    async def session(client: Client) -> tuple[Any, Any]:
        covered = await client.call_tool("ask", {"question": "Who was Neil Armstrong?"})
        uncovered = await client.call_tool("ask", {"question": "Best sourdough pizza recipe?"})
        detailed = await client.call_tool("ask", {"question": "Who was Neil Armstrong?", "details": True})
        version = client.server_info.version if client.server_info else ""
        return covered, uncovered, detailed, version

    covered, uncovered, detailed, version = run(session, env)

    answer = structured(covered)
    assert answer["model"] == "local:fake-model" and not answer["extractive"]
    assert answer["arm"] == "Lex+PPR" and not answer["pure_llm"]
    assert "[[wiki/entities/neil-armstrong]]" in answer["answer"]
    assert [c["path"] for c in answer["citations"]] == ["entities/neil-armstrong"]
    pure = structured(uncovered)
    assert pure["pure_llm"] and pure["arm"] == "LLM+KB" and pure["citations"] == []
    assert "Not from your vault" in pure["answer"]
    assert len(json.dumps(answer)) < 2500 < len(json.dumps(structured(detailed)))
    assert structured(detailed)["retrieval"]["arm"] == "Lex+PPR"
    assert version == __version__


def test_an_unreachable_model_is_a_tool_error_not_a_crash() -> None:
    env = {
        "WIKIQ_MODEL": "local:fake-model",
        "WIKIQ_BASE_URL": "http://127.0.0.1:9/v1",
        "WIKIQ_TIMEOUT": "2",
    }

    async def session(client: Client) -> tuple[Any, Any]:
        failed = await client.call_tool("ask", {"question": "Who was Neil Armstrong?"})
        after = await client.call_tool("search", {"question": "Neil Armstrong"})
        return failed, after

    failed, after = run(session, env)

    assert failed.is_error
    message = failed.content[0].text
    assert "Traceback" not in message and message.count("\n") == 0
    assert structured(after)["results"][0]["path"] == "entities/neil-armstrong"
