"""Where sentences end: the stop marks, defined once, and the rules built from them.

Each reader of sentences wants a different rule, for a reason, so there are four rules here
side by side (changing one changes answers or chunks: measure before merging them):

- `SENTENCE_END` splits quoted text into sentences (the extractive answer): a Latin stop
  counts only before a capital or a digit, so "e.g. this" and "Dr. Watson" stay whole.
- `CLAUSE_END` chooses where a chunk may end (embeddings): semicolons and "…" end a clause
  too, and the space after the mark goes with the sentence it ends.
- `CUT_POINT` chooses where a loaded page may be cut (the answer's context): any stop
  followed by a space, a closing quote or the end of the text.
- `SHORT_END` ends a short description (the `## References` lines): a Latin stop before a
  space, or a CJK stop.
"""

from __future__ import annotations

import re

STOPS = ".!?"  # Latin full stop, exclamation and question marks
CJK_STOPS = "。！？"  # their full-width forms, which need no space after them
ELLIPSIS = "…"
SEMICOLONS = ";；"
# Marks that close a quotation or a parenthesis and belong to the sentence they follow.
CLOSERS = "\"'”’)\\]"
QUOTE_CLOSERS = "\"”’)\\]"  # without "'", which is an apostrophe as often as a quote
CJK_CLOSERS = "\"”’」』）)"

SENTENCE_END = re.compile(
    f"[{STOPS}][{QUOTE_CLOSERS}]*(?=\\s+[\"“‘(\\[*]?[A-Z0-9])|[{CJK_STOPS}][{CJK_CLOSERS}]*"
)
ENDS_WITH_CJK_STOP = re.compile(f"[{CJK_STOPS}][{CJK_CLOSERS}]*$")
CLAUSE_END = re.compile(
    f"[{STOPS}{SEMICOLONS[0]}{CJK_STOPS}{SEMICOLONS[1]}{ELLIPSIS}](?:[{CLOSERS}]*)(?:\\s+|(?=\\S))"
)
CUT_POINT = re.compile(f"[{STOPS}{ELLIPSIS}](?=[\\s{CLOSERS}]|$)|[{CJK_STOPS}]")
SHORT_END = re.compile(f"[{STOPS}](?=\\s)|[{CJK_STOPS}]")


def split_sentences(text: str) -> list[str]:
    """`text` as its sentences (by `SENTENCE_END`), stripped, empty ones left out."""
    out: list[str] = []
    pos = 0
    for m in SENTENCE_END.finditer(text):
        out.append(text[pos : m.end()].strip())
        pos = m.end()
    out.append(text[pos:].strip())
    return [s for s in out if s]
