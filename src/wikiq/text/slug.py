"""Page slugs, computed exactly as the LLM Wiki plugin's `computeSlug` does."""

from __future__ import annotations

import re

# JavaScript's `\s` and `String.prototype.trim` use this set (WhiteSpace + LineTerminator).
# Python's `str.isspace`/`re` `\s` differ (they include U+001C-U+001F and U+0085 but not
# U+FEFF), so the set is spelled out to stay byte-compatible with slugs the plugin wrote.
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_CONTROL = re.compile(r"[\x00-\x1f]")
_UNSAFE = re.compile(r"[/\\:*?\"<>|,()'!、，。；：！？（）【】《》]")
_SPACE_OR_DOT = re.compile(f"[{re.escape(_JS_SPACE)}.]+")
_DASHES = re.compile(r"-+")
# A name that is its own slug already (most file names): the steps below would return it.
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")

UNTITLED = "untitled"


def slugify(name: str) -> str:
    """The plugin's slug for a page name: `GPT-4.5 Turbo` → `gpt-4-5-turbo`, `对比学习` kept."""
    if _SLUG.fullmatch(name):
        return name
    trimmed = name.strip(_JS_SPACE)
    if not trimmed:
        return UNTITLED
    # Control characters are deleted (not turned into dashes) before spaces are, as in the
    # plugin: "a\tb" → "ab".
    cleaned = _UNSAFE.sub("", _CONTROL.sub("", trimmed))
    dashed = _DASHES.sub("-", _SPACE_OR_DOT.sub("-", cleaned))
    if dashed.startswith("-"):
        dashed = dashed[1:]
    if dashed.endswith("-"):
        dashed = dashed[:-1]
    # The plugin returns `untitled-<Date.now()>` here; wikiq only reads vaults and must be
    # deterministic (cache keys, tests), so it uses the same `untitled` as for empty input.
    if not dashed:
        return UNTITLED
    return dashed.lower()


def slug_key(name: str) -> str:
    """Key for case-insensitive name comparison: two names denote one page iff keys match."""
    return slugify(name)
