"""The `ChatStream` every provider returns: hides reasoning, fills usage, survives early drops.

A provider supplies a function that opens its stream and yields events: text deltas (`str`) and
`UsageUpdate`s. If the connection drops before any visible text reached the caller, the stream
is opened again; once the caller has seen text, a drop is an error (a retry would repeat text).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from wikiq.llm import failures
from wikiq.llm.base import Usage
from wikiq.llm.thinking import ThinkFilter
from wikiq.llm.transport import StreamCutOff, Transport


@dataclass(frozen=True)
class UsageUpdate:
    """Token counts a stream reported; `None` leaves the earlier count in place."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None


Event = str | UsageUpdate


# Bounds on one answer, whatever the server does: an endless stream stops at this many
# characters of visible text (a few times what the answer budget allows), and a stream that
# drips a byte at a time (never idle long enough for the read timeout) stops at this deadline.
CHARS_PER_TOKEN_CAP = 16  # ~4 characters a token, times 4
DEFAULT_MAX_CHARS = 200_000
DEFAULT_DEADLINE_S = 600.0


class TextStream:
    """Text deltas without `<think>` blocks; `usage` and `text` are complete once iteration ends."""

    def __init__(
        self,
        open_events: Callable[[], Iterator[Event]],
        transport: Transport,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        deadline_s: float | None = None,
    ) -> None:
        self.usage = Usage()
        self.text = ""
        self._open_events = open_events
        self._transport = transport
        self._started = False
        self._max_chars = max_chars
        self._deadline_s = DEFAULT_DEADLINE_S if deadline_s is None else deadline_s

    def __repr__(self) -> str:
        return f"TextStream({self._transport.endpoint.where!r}, started={self._started})"

    def __iter__(self) -> Iterator[str]:
        if self._started:
            raise RuntimeError("A ChatStream can be read only once.")
        self._started = True
        return self._run()

    def _run(self) -> Iterator[str]:
        retry = self._transport.retry
        attempt = 0
        ends = time.monotonic() + self._deadline_s
        while True:
            attempt += 1
            think = ThinkFilter()
            self.usage.prompt_tokens = self.usage.completion_tokens = 0
            try:
                for event in self._open_events():
                    if time.monotonic() > ends:
                        raise failures.too_slow(self._transport.endpoint, self._deadline_s)
                    if isinstance(event, UsageUpdate):
                        self._count(event)
                        continue
                    visible = think.feed(event)
                    if visible:
                        room = self._max_chars - len(self.text)
                        if len(visible) >= room:
                            self.text += visible[: max(room, 0)]
                            yield visible[: max(room, 0)]
                            raise failures.too_long(self._transport.endpoint, self._max_chars)
                        self.text += visible
                        yield visible
            except StreamCutOff as err:
                if self.text or attempt >= retry.attempts:
                    raise failures.cut_off(self._transport.endpoint) from err
                retry.sleep(retry.backoff(attempt))
                continue
            tail = think.finish()
            if tail:
                self.text += tail
                yield tail
            return

    def _count(self, update: UsageUpdate) -> None:
        if update.prompt_tokens is not None:
            self.usage.prompt_tokens = update.prompt_tokens
        if update.completion_tokens is not None:
            self.usage.completion_tokens = update.completion_tokens


def json_object(text: str) -> dict[str, Any] | None:
    """The JSON object a stream line or event holds, or None (not JSON, or not an object):
    servers send keep-alives and other lines a reader passes over."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def iter_sse(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """Server-sent events as `(event, data)`; comments skipped, a last unterminated event kept."""
    event, data = "", list[str]()
    for line in lines:
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "", []
        elif line.startswith(":"):
            continue
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif line.startswith("event:"):
            event = line[6:].strip()
    if data:
        yield event, "\n".join(data)
