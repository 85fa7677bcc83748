"""Parsing the plugin's `index.md`, the routing file that lists every page.

Line format (seed 003, mirrors the plugin's `parseIndexForPages`):
    - [[<type>/<basename>|<basename>]] `aliases: A, B` - <summary>
Headings and other lines are ignored, so localised headings (`## 实体`) need no special case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

# Same shape as the plugin's regex, so any line it reads we read identically.
_INDEX_LINE = re.compile(
    r"^- \[\[([^\]|]+)(?:\|[^\]]+)?\]\]\s*(?:`aliases:\s*([^`]+)`)?(?:\s*-\s*(.+))?$"
)
EMPTY_MARKER = "> No pages yet."


class IndexEntry(NamedTuple):
    """(A tuple: a frozen dataclass a line made reading a million pages' index 2.1 -> 2.4 s.)"""

    path: str  # wiki-relative, no ".md": "entities/neil-armstrong"
    aliases: tuple[str, ...]
    summary: str
    line: int  # 1-based line number in index.md, for error messages and ordering


def parse_index(text: str) -> list[IndexEntry]:
    """Every page line of index.md, in file order; malformed lines are skipped."""
    return list(index_entries(text.splitlines()))


def index_entries(lines: Iterable[str]) -> Iterator[IndexEntry]:
    """The page lines among `lines` (an open index.md, read as it goes: a million pages'
    index is ~170 MB, and its text, lines and entries were all held at once)."""
    number = 0
    for chunk in lines:
        # A file splits only at \n and \r; `splitlines` also at \x85, \u2028 and the like:
        # split again so the lines (and their numbers) are those of `text.splitlines()`.
        for raw in chunk.splitlines() or [""]:
            number += 1
            line = raw.rstrip()
            if number == 1:
                line = line.lstrip("\ufeff")
            if not line.startswith("- [["):
                continue
            m = _INDEX_LINE.match(line)
            if m is None:
                continue
            path = m.group(1).strip()
            if path.endswith(".md"):
                path = path[:-3]
            aliases = tuple(a.strip() for a in (m.group(2) or "").split(",") if a.strip())
            yield IndexEntry(path, aliases, (m.group(3) or "").strip(), number)


def is_empty_index(text: str) -> bool:
    """True for a missing-content index: blank, or the plugin's "No pages yet" marker."""
    stripped = text.lstrip("\ufeff").strip()
    return not stripped or (EMPTY_MARKER in stripped and not parse_index(stripped))
