"""The best few of many scores, chosen the same way whatever the partition does."""

from __future__ import annotations

import numpy as np


def best_places(scores: np.ndarray, limit: int) -> np.ndarray:
    """The places of the `limit` best scores, in place order; of the places tied with the
    last one kept, the first ones, so the choice never depends on how a partition fell.
    Linear in `len(scores)`: no sort of the whole array."""
    if limit <= 0:
        return np.empty(0, dtype=np.int64)
    if limit >= len(scores):
        return np.arange(len(scores))
    cut = np.partition(scores, len(scores) - limit)[len(scores) - limit]
    above = np.nonzero(scores > cut)[0]
    tied = np.nonzero(scores == cut)[0][: limit - len(above)]
    return np.sort(np.concatenate([above, tied]))
