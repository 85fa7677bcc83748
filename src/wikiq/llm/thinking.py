"""Keep a reasoning model's `<think>…</think>` blocks away from callers.

Streams deliver text in arbitrary pieces, so a tag can arrive split (`<thi` + `nk>`): the filter
holds back only the few characters that could still become a tag and releases everything else
at once.
"""

from __future__ import annotations

OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"


class ThinkFilter:
    """Feed text chunks in order, get back the visible part; call `finish()` once at the end."""

    def __init__(self) -> None:
        self._pending = ""  # held back: may be the start of a tag
        self._thinking = False
        self._thought: list[str] = []  # the reasoning seen so far, kept apart from the answer
        self._emitted = False
        # After a think block that opens the answer, the model's "\n\n" is not part of the answer.
        self._trim_leading = False

    def feed(self, chunk: str) -> str:
        text = self._pending + chunk
        self._pending = ""
        visible: list[str] = []
        while text:
            tag = CLOSE_TAG if self._thinking else OPEN_TAG
            at = text.find(tag)
            if at >= 0:
                if not self._thinking:
                    visible.append(self._emit(text[:at]))
                else:
                    self._thought += (text[:at], "\n")
                    if not self._emitted:
                        self._trim_leading = True
                text = text[at + len(tag) :]
                self._thinking = not self._thinking
                continue
            held = _partial_tag_suffix(text, tag)
            if not self._thinking:
                visible.append(self._emit(text[: len(text) - held]))
            else:
                self._thought.append(text[: len(text) - held])
            self._pending = text[len(text) - held :]
            break
        return "".join(visible)

    @property
    def thought(self) -> str:
        """The reasoning seen so far (pieces are joined only when asked: streams never ask)."""
        return "".join(self._thought)

    def finish(self) -> str:
        """Release held-back text; an unterminated think block is dropped."""
        if self._thinking:
            self._thought.append(self._pending)
        rest = "" if self._thinking else self._pending
        self._pending = ""
        self._thinking = False
        return self._emit(rest)

    def _emit(self, text: str) -> str:
        if self._trim_leading:
            text = text.lstrip()
            if text:
                self._trim_leading = False
        if text:
            self._emitted = True
        return text


def strip_thinking(text: str) -> str:
    """The answer part of a whole completion, without reasoning blocks."""
    return split_thinking(text)[0]


def split_thinking(text: str) -> tuple[str, str]:
    """A whole completion as (answer, reasoning): `<think>` blocks go to the second part."""
    head, close, tail = text.partition(CLOSE_TAG)
    prelude = ""
    if close and OPEN_TAG not in head:
        # Some chat templates put `<think>` into the prompt, so only the closing tag comes back.
        prelude, text = head.strip(), tail.lstrip()
    think = ThinkFilter()
    answer = think.feed(text) + think.finish()
    return answer, join_reasoning(prelude, think.thought.strip())


def join_reasoning(*parts: str) -> str:
    """A model's reasoning from several places (native fields, `<think>` blocks), one per line."""
    return "\n".join(p for p in parts if p)


def _partial_tag_suffix(text: str, tag: str) -> int:
    """Length of the longest end of `text` that is a proper start of `tag`."""
    for size in range(min(len(text), len(tag) - 1), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0
