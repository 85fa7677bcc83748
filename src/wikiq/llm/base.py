"""The one small interface every language model sits behind.

Everything outside `llm/` talks only to `ChatModel`; providers (OpenAI-compatible servers,
Ollama, Anthropic, Gemini) implement it. Tests talk to a real local HTTP server.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str


@dataclass
class Usage:
    """Token usage of one call, as reported by the provider (zeros when it reports nothing)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens


@dataclass
class Completion:
    """A whole (non-streamed) answer. `text` never contains `<think>` reasoning."""

    text: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    reasoning: str = ""  # what the model "thought" (<think> blocks, reasoning_content), kept apart


class ChatStream(Protocol):
    """Text deltas as they arrive; `usage` is filled once iteration ends."""

    usage: Usage

    def __iter__(self) -> Iterator[str]: ...


@runtime_checkable
class ChatModel(Protocol):
    """A chat model: `complete` for short tasks (keywords), `stream` for answers."""

    @property
    def name(self) -> str:
        """The model spec shown to users, e.g. `openai:gpt-4.1-mini`."""
        ...

    @property
    def context_window(self) -> int:
        """Tokens the model accepts (prompt + answer); used to size the context budget."""
        ...

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        json_mode: bool = False,
    ) -> Completion: ...

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> ChatStream: ...
