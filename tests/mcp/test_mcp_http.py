"""`wikiq mcp --http`: streamable HTTP at /mcp, and a token when one is set."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-vault"
TOKEN = "test-token-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "WIKIQ_CACHE_DIR": str(tmp_path_factory.mktemp("cache")),
        "WIKIQ_CONFIG_DIR": str(tmp_path_factory.mktemp("config")),
        "WIKIQ_DETECT_OLLAMA": "0",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wikiq",
            "mcp",
            "--http",
            "--port",
            str(port),
            "--token",
            TOKEN,
            "--vault",
            str(DEMO),
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(url, timeout=1)
            break
        except httpx.TransportError as err:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                output = proc.stderr.read().decode() if proc.stderr else ""
                raise RuntimeError(f"wikiq mcp --http did not start: {output}") from err
            time.sleep(0.1)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_http_transport_serves_the_tools_to_a_client_with_the_token(http_server: str) -> None:
    async def main() -> Any:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            transport = streamable_http_client(http_server, http_client=http)
            async with Client(transport) as client:
                return await client.call_tool("search", {"question": "Voyager program"})

    result = asyncio.run(main())

    assert not result.is_error
    assert result.structured_content["results"][0]["path"] == "entities/voyager-program"


def test_http_transport_refuses_requests_without_the_token(http_server: str) -> None:
    bare = httpx.post(http_server, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    wrong = httpx.post(
        http_server,
        json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        headers={"Authorization": "Bearer not-the-token"},
    )

    assert bare.status_code == 401 and wrong.status_code == 401
    assert "token" in bare.json()["error"]
