"""Parsing the plugin's `index.md`, the routing file that lists every page.

Line format (seed 003, mirrors the plugin's `parseIndexForPages`):
    - [[<type>/<basename>|<basename>]] `aliases: A, B` - <summary>
Headings and other lines are ignored, so localised headings (`## 实体`) need no special case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Same shape as the plugin's regex, so any line it reads we read identically.
_INDEX_LINE = re.compile(
    r"^- \[\[([^\]|]+)(?:\|[^\]]+)?\]\]\s*(?:`aliases:\s*([^`]+)`)?(?:\s*-\s*(.+))?$"
)
EMPTY_MARKER = "> No pages yet."


@dataclass(frozen=True)
class IndexEntry:
    path: str  # wiki-relative, no ".md": "entities/neil-armstrong"
    aliases: tuple[str, ...]
    summary: str
    line: int  # 1-based line number in index.md, for error messages and ordering


def parse_index(text: str) -> list[IndexEntry]:
    """Every page line of index.md, in file order; malformed lines are skipped."""
    entries: list[IndexEntry] = []
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        line = raw.rstrip()
        if not line.startswith("- [["):
            continue
        m = _INDEX_LINE.match(line)
        if m is None:
            continue
        path = m.group(1).strip()
        if path.endswith(".md"):
            path = path[:-3]
        aliases = tuple(a.strip() for a in (m.group(2) or "").split(",") if a.strip())
        entries.append(IndexEntry(path, aliases, (m.group(3) or "").strip(), number))
    return entries


def is_empty_index(text: str) -> bool:
    """True for a missing-content index: blank, or the plugin's "No pages yet" marker."""
    stripped = text.lstrip("\ufeff").strip()
    return not stripped or (EMPTY_MARKER in stripped and not parse_index(stripped))
