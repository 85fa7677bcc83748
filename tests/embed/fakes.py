"""A tiny deterministic embedder for tests: bags of words (and CJK characters) hashed into a
small vector, with a synonym table so "cat" and "feline" land in the same place — enough to
test semantic search without the real model."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from wikiq.errors import ModelError

_WORD = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")
SYNONYMS = {
    "cats": "cat",
    "feline": "cat",
    "felines": "cat",
    "猫": "cat",
    "kitten": "cat",
    "dogs": "dog",
    "canine": "dog",
    "狗": "dog",
}


class FakeEmbedder:
    """Bag-of-words vectors; counts what it embedded; can fail after `fail_after` texts."""

    def __init__(self, name: str = "fake:bow", dim: int = 512, fail_after: int | None = None):
        self._name = name
        self._dim = dim
        self.fail_after = fail_after
        self.passages: list[str] = []
        self.queries: list[str] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.queries.extend(texts)
        return self._vectors(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail_after is not None and len(self.passages) + len(texts) > self.fail_after:
            raise ModelError("The fake embedding server went away.")
        self.passages.extend(texts)
        return self._vectors(texts)

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                word = SYNONYMS.get(word, word)
                slot = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest())
                out[row, slot % self._dim] += 1.0
            out[row, -1] += 0.01  # never an all-zero row
        return out / np.linalg.norm(out, axis=1, keepdims=True)
