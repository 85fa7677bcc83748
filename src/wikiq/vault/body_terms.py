"""A page's body counts, worked out from its passages' counts instead of kept in the cache.

`page_terms` counts the body as its passages end to end, and each passage with the title's
terms added once: the body is the sum of the page's passage rows less the title's counts once a
passage row. Kept, the body was 368 MB of a million pages' cache (term numbers and counts,
page by page), read only to build the indexes, by a refresh and by an edit; worked out, it
costs ~8 s at a million pages (scipy's sparse product, rows sorted by two counting sorts), where
it is read.
The body's own vocabulary is kept (its term numbers, in the order a first read gave them), so
the matrix worked out is the one that was built, entry for entry.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wikiq.sparse import CSR
from wikiq.vault.store import release_pages
from wikiq.vault.terms import TWO_BYTES, TermIndex, narrowest_counts

# Pages worked out at a time: their passages' counts widened to int32 (a million pages' are
# ~190 million) would be GBs at once.
PAGES_AT_ONCE = 1 << 16


def body_from_passages(passages: TermIndex, title: TermIndex, vocab: Sequence[str]) -> TermIndex:
    """The body counts (in `vocab`'s numbering) of the pages whose passages and title terms
    these are; ValueError when they cannot be a body's (a damaged or mismatched cache)."""
    import scipy.sparse as sp

    pages = title.matrix.shape[0]
    if passages.entries != pages:
        raise ValueError("passages and titles of different pages")
    ids = {term: j for j, term in enumerate(vocab)}
    width = len(vocab) + 1  # terms the body does not hold go to column len(vocab): they must net 0
    from_passages = _column_map(passages.vocab, ids, width - 1)
    from_title = _column_map(title.vocab, ids, width - 1)
    starts = passages.entry_bounds()
    p, t = passages.matrix, title.matrix
    index_parts, count_parts, lengths = [], [], []
    for a in range(0, pages, PAGES_AT_ONCE):
        b = min(a + PAGES_AT_ONCE, pages)
        r0, r1 = int(starts[a]), int(starts[b])
        e0, e1, t0, t1 = int(p.indptr[r0]), int(p.indptr[r1]), int(t.indptr[a]), int(t.indptr[b])
        # The pages' passage rows, then their title rows counted once a passage row, negative.
        passage_rows = np.diff(starts[a : b + 1]).astype(np.int32)
        title_counts = t.data[t0:t1].astype(np.int32)
        title_counts *= -np.repeat(passage_rows, np.diff(t.indptr[a : b + 1]))
        rows = sp.csr_matrix(
            (
                np.concatenate([p.data[e0:e1].astype(np.int32), title_counts]),
                np.concatenate([from_passages[p.indices[e0:e1]], from_title[t.indices[t0:t1]]]),
                np.concatenate([p.indptr[r0:r1] - e0, t.indptr[a : b + 1] - t0 + (e1 - e0)]),
            ),
            shape=(r1 - r0 + b - a, width),
        )
        # Each page's rows added up: a product with a pages × rows matrix of ones.
        owner = np.concatenate([np.repeat(np.arange(b - a), passage_rows), np.arange(b - a)])
        ones = sp.csr_matrix(
            (np.ones(len(owner), dtype=np.int32), (owner, np.arange(len(owner)))),
            shape=(b - a, len(owner)),
        )
        body = ones @ rows
        body.eliminate_zeros()  # a term only the title brought
        body = body.tocsc().tocsr()  # each row's terms ascending: two counting sorts
        release_pages(p.indices[e0:e1])  # read once (a cache's: its pages go)
        release_pages(p.data[e0:e1])
        if body.nnz and (int(body.data.min()) <= 0 or int(body.indices.max()) >= width - 1):
            raise ValueError("passages and titles that add up to no body")
        index_parts.append(body.indices.astype(_index_type(len(vocab))))
        count_parts.append(narrowest_counts(body.data))
        lengths.append(np.diff(body.indptr))
    indptr = np.zeros(pages + 1, dtype=np.int64)
    if lengths:
        np.cumsum(np.concatenate(lengths), out=indptr[1:])
    indices = _joined(index_parts, _index_type(len(vocab)))
    counts = _joined(count_parts, np.result_type(np.uint8, *(c.dtype for c in count_parts)))
    if counts.dtype.kind != "u":  # past two bytes: float32, as a first read keeps them
        counts = counts.astype(np.float32)
    return TermIndex(list(vocab), CSR(indptr, indices, counts, (pages, len(vocab))))


def _index_type(terms: int) -> type:
    """Term numbers in two bytes while they fit, as a first read keeps them."""
    return np.uint16 if terms <= TWO_BYTES + 1 else np.int32


def _column_map(terms: Sequence[str], ids: dict[str, int], missing: int) -> np.ndarray:
    """Each of `terms`' column in the body's vocabulary (`missing` for a term it lacks)."""
    return np.fromiter((ids.get(term, missing) for term in terms), dtype=np.int32, count=len(terms))


def _joined(parts: list[np.ndarray], dtype: type | np.dtype) -> np.ndarray:
    if not parts:
        return np.empty(0, dtype=dtype)
    return np.concatenate([part.astype(dtype, copy=False) for part in parts])
