"""A function's results kept in a dict, so a map or filter over many words looks each one
up in C instead of calling Python for it.

Text repeats its words: a page of 400 tokens has ~150 distinct ones, and a vault's vocabulary
is small next to its token count. `map(memo.__getitem__, words)` costs a dict lookup a word
where a comprehension (or an `lru_cache`d function) costs a Python call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")

# Entries a memo holds before it is emptied and starts again (a vault has millions of
# distinct words; the common ones come back within a few pages).
MEMO_SIZE = 1 << 18


class Memo(dict[K, V]):
    """`function(key)` for every key looked up, computed the first time."""

    def __init__(self, function: Callable[[K], V]) -> None:
        super().__init__()
        self.function = function

    def __missing__(self, key: K) -> V:
        if len(self) >= MEMO_SIZE:
            self.clear()
        value = self[key] = self.function(key)
        return value
