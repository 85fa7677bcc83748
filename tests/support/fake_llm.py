"""A real, scripted model server for tests, on 127.0.0.1 and an ephemeral port.

It speaks OpenAI's `/v1/chat/completions` (JSON and SSE with usage) and `/v1/models`, Ollama's
`/api/chat`, `/api/tags`, `/api/show`, Anthropic's `/v1/messages` and Gemini's
`/v1beta/models/M:generateContent` / `:streamGenerateContent`. Each chat request takes the next
scripted reply; when the script is empty, `responder` answers.

    with FakeLLM() as llm:
        llm.script(Reply.text("Paris.", chunks=["Par", "is."]), Reply.error(401))
        model = open_model("local:fake", base_url=llm.base_url)
        assert model.complete([Message("user", "Capital of France?")]).text == "Paris."
        assert llm.requests[-1].json["model"] == "fake"
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.support.fake_llm_wire import (
    AnthropicDialect,
    Dialect,
    GeminiDialect,
    OllamaDialect,
    OpenAIDialect,
)

DEFAULT_ANSWER = "This is the fake model's answer."
Responder = Callable[[dict[str, Any]], "Reply | str"]


@dataclass
class Reply:
    """One scripted answer. `sent` lists the chunks the server has written so far."""

    content: str = ""
    chunks: list[str] | None = None
    delay: float = 0.0  # seconds before each chunk (before the whole answer when not streaming)
    usage: tuple[int, int] | None = None  # (prompt, completion); default: word counts
    reasoning: str = ""  # sent in the dialect's reasoning field, never as answer text
    status: int = 200
    message: str = ""  # error message; `{model}` is filled in
    code: str | None = None
    body: str | None = None  # raw error body instead of the dialect's error JSON
    headers: dict[str, str] = field(default_factory=dict)
    drop_after: int | None = None  # close the connection after this many chunks
    finish: bool = True  # False: end the stream cleanly but without the "done" frames
    sent: list[str] = field(default_factory=list)

    @classmethod
    def text(
        cls,
        content: str = "",
        *,
        chunks: list[str] | None = None,
        delay: float = 0.0,
        usage: tuple[int, int] | None = None,
        reasoning: str = "",
        drop_after: int | None = None,
    ) -> Reply:
        content = content or "".join(chunks or [])
        return cls(content, chunks, delay, usage, reasoning, drop_after=drop_after)

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "",
        *,
        code: str | None = None,
        body: str | None = None,
        retry_after: float | str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        headers = dict(headers or {})
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
        return cls(
            status=status,
            message=message or f"Error {status}.",
            code=code,
            body=body,
            headers=headers,
        )

    @classmethod
    def dropped(cls, *chunks: str) -> Reply:
        """Sends `chunks`, then closes the connection before the answer is complete."""
        return cls.text(chunks=list(chunks), drop_after=len(chunks))

    @classmethod
    def thinking(cls, thought: str, answer: str, *, chunks: list[str] | None = None) -> Reply:
        """An answer preceded by a `<think>` block in the text itself."""
        return cls.text(f"<think>{thought}</think>\n\n{answer}", chunks=chunks)

    @classmethod
    def context_length(cls) -> Reply:
        return cls.error(
            400,
            "This model's maximum context length is 8192 tokens. However, "
            "your messages resulted in 9314 tokens.",
            code="context_length_exceeded",
        )

    @classmethod
    def model_not_found(cls) -> Reply:
        return cls.error(404, "The model `{model}` does not exist.", code="model_not_found")

    def pieces(self) -> list[str]:
        return list(self.chunks) if self.chunks is not None else [self.content]


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    json: Any

    @property
    def prompt(self) -> str:
        return prompt_text(self.json)


def prompt_text(body: Any) -> str:
    """All message text of a chat request in any of the four dialects, joined by newlines."""
    if not isinstance(body, dict):
        return ""
    texts: list[str] = []

    def add(content: Any) -> None:
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for part in content:
                add(part.get("text") if isinstance(part, dict) else part)

    add(body.get("system"))
    add((body.get("systemInstruction") or {}).get("parts"))
    for message in body.get("messages") or []:
        add(message.get("content"))
    for content in body.get("contents") or []:
        add(content.get("parts"))
    return "\n".join(texts)


class FakeLLM:
    """The server. Use as a context manager or call `start()` / `stop()`."""

    def __init__(self, responder: Responder | None = None, *, models: list[str] | None = None):
        self.responder: Responder = responder or (lambda body: Reply.text(DEFAULT_ANSWER))
        self.models = models or ["fake-model"]
        self.tags: list[dict[str, Any]] | None = None  # `/api/tags` entries; default: `models`
        self.context_length = 32768  # what `/api/show` reports
        self.requests: list[Request] = []
        self._queue: deque[Reply | Responder] = deque()
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = _Server(("127.0.0.1", 0), handler)
        # A short poll interval makes `stop()` (and so every test's teardown) quick.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def root_url(self) -> str:
        """The server root: Ollama's and Anthropic's base URL."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (ends in `/v1`)."""
        return self.root_url + "/v1"

    @property
    def gemini_url(self) -> str:
        return self.root_url + "/v1beta"

    def script(self, *replies: Reply | Responder | str) -> FakeLLM:
        """Queue replies for the next chat requests, in order (a `str` is a text reply)."""
        with self._lock:
            self._queue.extend(Reply.text(r) if isinstance(r, str) else r for r in replies)
        return self

    @property
    def pending(self) -> int:
        """Scripted replies not used yet."""
        return len(self._queue)

    @property
    def chat_requests(self) -> list[Request]:
        return [r for r in self.requests if r.method == "POST" and r.path != "/api/show"]

    def start(self) -> FakeLLM:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            item = self._queue.popleft() if self._queue else self.responder
        reply = item if isinstance(item, Reply) else item(body)
        return Reply.text(reply) if isinstance(reply, str) else reply

    def _tags(self) -> list[dict[str, Any]]:
        if self.tags is not None:
            return self.tags
        details = {"format": "gguf", "family": "qwen2", "parameter_size": "7.6B"}
        return [
            {"name": m, "model": m, "size": 4_683_087_332, "details": details} for m in self.models
        ]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that hang up (a test that stops reading, a closed keep-alive) are normal here.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeLLM

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        path = urlsplit(self.path).path
        headers = {k.lower(): v for k, v in self.headers.items()}
        with self.fake._lock:
            self.fake.requests.append(Request(self.command, path, headers, body))
        try:
            self._route(path, body if isinstance(body, dict) else {})
        except (BrokenPipeError, ConnectionResetError):  # the client went away: fine
            self.close_connection = True

    def _route(self, path: str, body: dict[str, Any]) -> None:
        gemini = re.fullmatch(
            r"/v1beta/models/([^:]+):(generateContent|streamGenerateContent)", path
        )
        if path == "/v1/models":
            self._json(
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": m, "object": "model", "owned_by": "fake"} for m in self.fake.models
                    ],
                },
            )
        elif path == "/api/tags":
            self._json(200, {"models": self.fake._tags()})
        elif path == "/api/show":
            info = {"general.architecture": "fake", "fake.context_length": self.fake.context_length}
            self._json(200, {"model_info": info, "details": {"family": "fake"}})
        elif path == "/v1/chat/completions":
            self._chat(OpenAIDialect(), body, str(body.get("model")), bool(body.get("stream")))
        elif path == "/api/chat":
            self._chat(
                OllamaDialect(), body, str(body.get("model")), body.get("stream") is not False
            )
        elif path == "/v1/messages":
            self._chat(AnthropicDialect(), body, str(body.get("model")), bool(body.get("stream")))
        elif gemini:
            stream = gemini.group(2) == "streamGenerateContent"
            self._chat(GeminiDialect(), body, gemini.group(1), stream)
        else:
            self._json(404, {"error": {"message": f"No route for {path}."}})

    def _chat(self, dialect: Dialect, body: dict[str, Any], model: str, stream: bool) -> None:
        reply = self.fake._next_reply(body)
        if reply.status >= 400:
            message = reply.message.replace("{model}", model)
            error = (
                reply.body
                if reply.body is not None
                else json.dumps(dialect.error(reply.status, message, reply.code))
            )
            self._send(reply.status, error.encode(), "application/json", reply.headers)
            return
        usage = reply.usage or (len(prompt_text(body).split()), len(reply.content.split()))
        if not stream:
            if reply.drop_after is not None:
                return self._drop()
            time.sleep(reply.delay)
            self._json(200, dialect.whole(reply, model, usage), reply.headers)
            return
        self.send_response(200)
        self.send_header("Content-Type", dialect.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        for frame in dialect.head(reply, model, usage):
            self._chunk(frame)
        for index, piece in enumerate(reply.pieces()):
            if reply.drop_after is not None and index >= reply.drop_after:
                return self._drop()
            time.sleep(reply.delay)
            self._chunk(dialect.delta(reply, piece, model, usage))
            reply.sent.append(piece)
        if reply.drop_after is not None:
            return self._drop()
        for frame in dialect.tail(reply, model, usage, body) if reply.finish else []:
            self._chunk(frame)
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, data: str) -> None:
        encoded = data.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(encoded), encoded))

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode(), "application/json", headers or {})

    def _send(self, status: int, data: bytes, kind: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
