"""What every HTTP provider shares: its name, its context window, its connection's lifetime."""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self

from wikiq.llm.base import Message
from wikiq.llm.transport import Transport


class HttpChatModel:
    """Base of the providers; subclasses add `complete` and `stream`."""

    def __init__(self, label: str, model: str, transport: Transport, context_window: int) -> None:
        self.model = model
        self._label = label
        self._transport = transport
        self._context_window = context_window

    @property
    def name(self) -> str:
        return f"{self._label}:{self.model}"

    @property
    def context_window(self) -> int:
        return self._context_window

    @property
    def base_url(self) -> str:
        return self._transport.endpoint.where

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
