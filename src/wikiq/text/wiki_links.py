"""Obsidian's `[[wiki-link]]` syntax, defined once for every reader of links (pages, passages,
context, citations, the web page).

`[[target#heading|label]]`, with an optional leading `!` for an embed. The target may not hold
brackets, `|` or `#`; the heading (`#^id` is a block reference) may not hold brackets or `|`;
the label may hold `|` (Obsidian writes `[[target\\|label]]` inside tables). No part spans a
line. Any text between `[[` and the first `]]` without brackets or newlines is one link.
"""

from __future__ import annotations

import re

_LINK = r"\[\[([^\[\]|#\n]*)(#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]"
WIKI_LINK = re.compile(r"(!?)" + _LINK)
# The groups of a WIKI_LINK match.
EMBED, TARGET, HEADING, LABEL = 1, 2, 3, 4
# The same links without the embed mark, for readers that want only their parts: the same
# matches, each starting one character later when it is an embed. A pattern that starts with
# the literal `[[` is searched for by `re`'s fast scan for it, instead of trying the pattern
# at every character: ~10x quicker over a page (a sixth of parsing one went into it).
# Groups: target, heading, label (TARGET - 1, HEADING - 1, LABEL - 1).
LINK_PARTS = re.compile(_LINK)


def link_inner(m: re.Match[str]) -> str:
    """Everything between the brackets: `target#heading|label` as written."""
    return m.group(0)[len(m.group(EMBED)) + 2 : -2]


def target_with_heading(m: re.Match[str]) -> str:
    """The target with its `#heading`, if any (no label)."""
    return m.group(TARGET) + (m.group(HEADING) or "")
