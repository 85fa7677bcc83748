"""A fast reader for the frontmatter the LLM Wiki plugin writes, with PyYAML as the authority.

Nearly every page's frontmatter is flat: `key: value`, block lists of `  - "item"`, `[]`. Reading
that shape by hand is about ten times faster than building a YAML document, which matters on
a first read of 100,000 pages. Anything outside the shape — nested maps, flow lists with
quotes, block scalars, anchors, tags, plain scalars YAML would read as something other than a
string — returns None, and the caller uses PyYAML. Where this returns a value it is exactly
what `yaml.safe_load` returns (a property test holds it to that).
"""

from __future__ import annotations

import datetime
import re
from typing import Any

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_\-]*):(?:[ \t]+(.*?))?[ \t]*$")
_ITEM = re.compile(r"^[ ]{0,4}-[ \t]+(.*?)[ \t]*$")
# Plain scalars YAML reads as plain strings: no leading indicator character, no ": " or " #"
# inside, and not a word YAML 1.1 turns into a bool, null, number or date.
_PLAIN_START = re.compile(r"^[^\-?:,\[\]{}#&*!|>'\"%@`\s]")
_NON_STRING = re.compile(
    r"^(?:[yY](?:es)?|[nN]o?|YES|NO|[tT]rue|TRUE|[fF]alse|FALSE|[oO]n|ON|[oO]ff|OFF"
    r"|~|[nN]ull|NULL|[-+]?[0-9_.,:eExXoObB]+(?:[-+][0-9]+)?|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*)$"
)
_BOOLS = {"true": True, "false": False}
_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")
# One item of a flow list: a double- or single-quoted string, or a plain run without
# flow indicators; followed by a comma or the end.
_FLOW_ITEM = re.compile(r"""\s*("[^"\\]*"|'[^']*'|[^,"'\[\]{}#]+?)\s*(?:,|$)""")


def load_simple(text: str) -> dict[str, Any] | None:
    """The mapping in `text` if it has the plugin's flat shape, else None (use PyYAML)."""
    data: dict[str, Any] = {}
    open_lists: set[str] = set()  # `key:` lines, whose value is the items that follow
    current: list[Any] | None = None
    for line in text.split("\n"):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        if not line.isprintable() or line.lstrip().startswith("#"):
            return None  # control characters and comments: YAML's rules, not ours
        m = _KEY.match(line)
        if m:
            key, raw = m.group(1), m.group(2)
            if key in data:
                return None
            if not raw:
                current = data[key] = []
                open_lists.add(key)
                continue
            current = None
            value = _scalar(raw)
            if value is _NOT_SIMPLE:
                return None
            data[key] = value
            continue
        item = _ITEM.match(line)
        if item is None or current is None:
            return None
        value = _scalar(item.group(1))
        if value is _NOT_SIMPLE:
            return None
        current.append(value)
    for key in open_lists:
        if not data[key]:
            data[key] = None  # `key:` with nothing under it is null in YAML
    return data


_NOT_SIMPLE = object()


def _flow_list(inner: str) -> Any:
    """`[a, "b c"]` — simple items only; anything nested or odd is left to YAML."""
    if not inner.strip():
        return []
    items: list[Any] = []
    pos = 0
    while pos < len(inner):
        m = _FLOW_ITEM.match(inner, pos)
        if m is None or m.end() == pos:
            return _NOT_SIMPLE
        value = _scalar(m.group(1).strip())
        if value is _NOT_SIMPLE or isinstance(value, list):
            return _NOT_SIMPLE
        items.append(value)
        pos = m.end()
    if inner.rstrip().endswith(","):
        return _NOT_SIMPLE  # a trailing comma: YAML's rules differ
    return items


def _scalar(raw: str) -> Any:
    if not raw:
        return _NOT_SIMPLE
    if raw.startswith("[") and raw.endswith("]"):
        return _flow_list(raw[1:-1])
    if raw in _BOOLS:
        return _BOOLS[raw]
    if raw[0] in "\"'":
        quote = raw[0]
        if len(raw) < 2 or not raw.endswith(quote):
            return _NOT_SIMPLE
        inner = raw[1:-1]
        if quote in inner or "\\" in inner:
            return _NOT_SIMPLE
        return inner
    if raw.isdigit() and raw.isascii() and (raw == "0" or not raw.startswith("0")):
        return int(raw)
    date = _DATE.match(raw)
    if date:  # `created: 2026-05-02`, on nearly every page the plugin writes
        try:
            return datetime.date(int(date[1]), int(date[2]), int(date[3]))
        except ValueError:
            return _NOT_SIMPLE
    if not _PLAIN_START.match(raw) or ": " in raw or " #" in raw or raw.endswith(":"):
        return _NOT_SIMPLE
    if raw == "=" or _NON_STRING.match(raw):
        return _NOT_SIMPLE
    return raw
