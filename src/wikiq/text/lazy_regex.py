"""Regular expressions compiled on their first use instead of at import.

`re` compiles a character class by walking every code point of its ranges in Python: a class
spanning the CJK blocks (~40,000 code points) costs ~2 ms, and wikiq's modules held a dozen
of them, ~25 ms of every process whether it met CJK text or not."""

from __future__ import annotations

import re
from typing import Any, cast

# What wikiq calls on its patterns: bound to the instance on first use, so later calls are
# one attribute lookup, as on a compiled pattern.
_METHODS = ("search", "match", "fullmatch", "findall", "finditer", "split", "sub", "subn")


class _LazyPattern:
    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:  # only for names not yet on the instance
        if self._compiled is None:
            self._compiled = re.compile(*self._source)
            for method in _METHODS:
                setattr(self, method, getattr(self._compiled, method))
        return getattr(self._compiled, name)


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, done when the pattern is first used. Only its methods
    may be used (`search`, `findall`, `sub`…): it cannot be handed to `re.sub` and friends."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
