"""What every HTTP provider shares: its name, its context window, its connection's lifetime,
and how a streamed answer is opened and read (each provider supplies its request and its
wire format)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import httpx

from wikiq.llm.base import Completion, Message, Usage
from wikiq.llm.context_windows import default_context_window
from wikiq.llm.failures import Endpoint, display_url
from wikiq.llm.streaming import CHARS_PER_TOKEN_CAP, DEFAULT_MAX_CHARS, Event, TextStream
from wikiq.llm.thinking import join_reasoning, split_thinking
from wikiq.llm.transport import RetryPolicy, Transport


@dataclass(frozen=True)
class Request:
    """One request to a chat model, as every provider receives it to write its own body."""

    messages: Sequence[Message]
    max_tokens: int | None
    temperature: float | None
    json_mode: bool = False  # ask for a JSON object (where the API can)
    stream: bool = False


@dataclass(frozen=True)
class Reply:
    """What a provider's whole (not streamed) answer holds, read from its wire format."""

    text: str  # as the model wrote it, <think> blocks and all
    usage: Usage
    model: Any = None  # the model the server says answered; None: the one asked for
    reasoning: str = ""  # reasoning the server returned apart from the text


class HttpChatModel:
    """Base of the providers; subclasses supply their requests (`_post_completion`,
    `_open_stream`) and read their wire formats (`_read_reply`, `_events`)."""

    def __init__(self, label: str, model: str, transport: Transport, context_window: int) -> None:
        self.model = model
        self._label = label
        self._transport = transport
        self._context_window = context_window

    def _connect(
        self,
        label: str,
        model: str,
        base_url: str,
        headers: dict[str, str],
        *,
        api_key: str | None,
        key_env: str | None,
        context_window: int | None,
        timeout: float,
        retry: RetryPolicy | None,
    ) -> None:
        """`__init__` for a provider that sends an API key in `headers` (every hosted one):
        the connection, and the context window (given, else known for the model)."""
        transport = keyed_transport(
            base_url, model, api_key=api_key, key_env=key_env, headers=headers, timeout=timeout,
            retry=retry,
        )
        window = context_window or default_context_window(label, model)
        HttpChatModel.__init__(self, label, model, transport, window)

    @property
    def name(self) -> str:
        return f"{self._label}:{self.model}"

    @property
    def context_window(self) -> int:
        return self._context_window

    @property
    def base_url(self) -> str:
        return self._transport.endpoint.where

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        json_mode: bool = False,
    ) -> Completion:
        """The whole answer at once (keywords and other short tasks)."""
        data = self._post_completion(Request(messages, max_tokens, temperature, json_mode))
        if not isinstance(data, dict):
            data = {}  # a body that is not an object holds no answer: read as empty
        reply = self._read_reply(data)
        text, thought = split_thinking(reply.text)
        return Completion(
            text=text,
            usage=reply.usage,
            model=str(reply.model or self.model),
            reasoning=join_reasoning(reply.reasoning, thought),
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> TextStream:
        """The answer's text as it arrives. The request goes out when iteration starts, and
        again if the connection drops before the first token (TextStream retries)."""

        def open_events() -> Iterator[Event]:
            response = self._open_stream(Request(messages, max_tokens, temperature, stream=True))
            return self._events(self._transport.lines(response))

        limit = (
            max_tokens * CHARS_PER_TOKEN_CAP if max_tokens else DEFAULT_MAX_CHARS
        )  # a few times the answer budget
        return TextStream(open_events, self._transport, max_chars=limit)

    def _post_completion(self, request: Request) -> Any:
        """Send the provider's request for a whole answer; the decoded JSON body."""
        raise NotImplementedError

    def _read_reply(self, data: dict[str, Any]) -> Reply:
        """A whole answer's body as a `Reply`; raises when it reports an error instead."""
        raise NotImplementedError

    def _open_stream(self, request: Request) -> httpx.Response:
        """Send the provider's streaming request; the open response."""
        raise NotImplementedError

    def _events(self, lines: Iterator[str]) -> Iterator[Event]:
        """The provider's stream, line by line, as text, usage and end events."""
        raise NotImplementedError

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        # Never the headers: they hold the API key.
        return f"{type(self).__name__}({self.name!r}, base_url={self.base_url!r})"


def keyed_transport(
    base_url: str,
    model: str,
    *,
    api_key: str | None,
    key_env: str | None,
    headers: dict[str, str],
    timeout: float,
    retry: RetryPolicy | None,
) -> Transport:
    """The connection of a provider that authenticates with an API key (sent in `headers`).

    The key is registered as a secret, so no error message or log line can ever show it."""
    endpoint = Endpoint(
        where=display_url(base_url),
        model=model,
        key_env=key_env,
        has_key=bool(api_key),
        secrets=(api_key,) if api_key else (),
    )
    return Transport(base_url, endpoint, headers=headers, timeout=timeout, retry=retry)


def as_int(value: Any) -> int | None:
    """A token count from JSON, or None when absent or not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    return None


def split_system(messages: Sequence[Message]) -> tuple[str, list[Message]]:
    """System messages joined into one prompt, and the rest in order (for Anthropic, Gemini)."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    return system, [m for m in messages if m.role != "system"]
