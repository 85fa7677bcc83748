"""Web tests: a scripted model, the demo vault, and the real app served by uvicorn in a thread."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from tests.support.fake_llm import FakeLLM, Reply
from wikiq.web.app import create_app
from wikiq.wiki import Wiki

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-vault"
_LOADED = re.compile(r"__WIKI_FOLDER__/([^\]\s|]+)")


@dataclass
class LiveServer:
    url: str
    wiki: Wiki


@pytest.fixture
def model_env(fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> FakeLLM:
    """Point wikiq's configured model at the scripted server (as a user's config would)."""
    monkeypatch.setenv("WIKIQ_MODEL", "local:fake-model")
    monkeypatch.setenv("WIKIQ_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("WIKIQ_DETECT_OLLAMA", "0")
    monkeypatch.setenv("WIKIQ_KEYWORD_MODEL", "none")
    return fake_llm


def last_question(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def citing_responder(delay: float = 0.0) -> Callable[[dict[str, Any]], Reply]:
    """A model that cites the first two pages it was given, or admits it has none."""

    def respond(body: dict[str, Any]) -> Reply:
        if "You rewrite a follow-up question" in body["messages"][0]["content"]:
            data = json.loads(body["messages"][-1]["content"])  # a follow-up, made standalone
            return Reply.text(f"{data['follow_up']} (about: {data['earlier_questions'][-1]})")
        loaded = list(dict.fromkeys(_LOADED.findall(last_question(body))))
        if not loaded:
            text = "Sourdough pizza needs a long, cold fermentation; your vault says nothing on it."
        else:
            a, b = loaded[0], loaded[1] if len(loaded) > 1 else loaded[0]
            text = (
                "A **gravity assist** lets a spacecraft borrow a planet's orbital momentum to "
                f"change speed and direction without fuel [[__WIKI_FOLDER__/{a}]]. "
                f"The same idea appears in [[__WIKI_FOLDER__/{b}]].\n\n"
                "- the craft passes behind the moving planet\n"
                "- it leaves faster in the Sun's frame\n\n"
                f"## References\n\n- [[__WIKI_FOLDER__/{a}]] — the manoeuvre\n"
                f"- [[__WIKI_FOLDER__/{b}]] — related\n"
            )
        return Reply.text(chunks=re.findall(r".{1,9}", text, flags=re.S), delay=delay)

    return respond


DOCKED = "How long were the Apollo and Soyuz crews docked together?"
SPACE_RACE_NOTE = "notes/Reading notes on a history of the space race"


def note_citing_responder() -> Callable[[dict[str, Any]], Reply]:
    """A model that cites the first source note whose excerpt it was given."""

    def respond(body: dict[str, Any]) -> Reply:
        notes = re.findall(r'<source-note path="([^"]+)"', last_question(body))
        cite = f" [[{notes[0]}]]" if notes else ""
        return Reply.text(f"The crews stayed docked for about 44 hours{cite}.")

    return respond


@contextlib.contextmanager
def serve(app: Any) -> Iterator[str]:
    """Run an ASGI app with uvicorn on a free loopback port until the test ends."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test web server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def live(model_env: FakeLLM) -> Iterator[LiveServer]:
    """`wikiq serve` on the demo vault, answering with the scripted model."""
    model_env.responder = citing_responder()
    wiki = Wiki.open(DEMO)
    with serve(create_app(wiki)) as url:
        yield LiveServer(url, wiki)
    wiki.close()


@dataclass
class Stream:
    status: int
    events: list[tuple[str, Any]]

    def of(self, kind: str) -> list[Any]:
        return [data for event, data in self.events if event == kind]

    @property
    def text(self) -> str:
        return "".join(d["text"] for d in self.of("token"))

    @property
    def done(self) -> Any:
        (done,) = self.of("done")
        return done


def parse_sse(lines: list[str]) -> list[tuple[str, Any]]:
    events: list[tuple[str, Any]] = []
    event, data = "message", []
    for line in [*lines, ""]:
        if not line:
            if data:
                events.append((event, json.loads("\n".join(data))))
            event, data = "message", []
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    return events


def ask(url: str, question: str, history: list[dict[str, str]] | None = None) -> Stream:
    with httpx.stream(
        "POST",
        url + "/api/ask",
        json={"question": question, "history": history or []},
        timeout=60,
    ) as response:
        lines = list(response.iter_lines())
    return Stream(response.status_code, parse_sse(lines))
