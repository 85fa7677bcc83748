"""BM25 over passages, read a few pages' passages at a time.

The passage channel scores only the text channel's candidate pages (cascade.py,
`_passage_pages`), so it reads passages by row, never a term's postings across the vault. The
counts are the catalog's own, row by row, as its cache keeps them (whole numbers in two bytes
where they fit), and a weight is computed when a row is read, with the same operations on the
same values as `BodyIndex` (the same bits). A by-term weight matrix, as the text index keeps,
was 1.5 GB of a million pages' cache and the largest step of building the indexes; a copy of
the counts in the retrieval cache was 1.2 GB.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wikiq import sparse
from wikiq.retrieve.body import K1, B, bm25_parameters
from wikiq.sparse import CSR, row_entries
from wikiq.vault import store
from wikiq.vault.terms import TermIndex, compact_counts


@dataclass(frozen=True)
class PassageWeights:
    """What BM25 needs of the whole vault's passages, beyond their counts: kept with the
    retrieval indexes, while the counts stay in the catalog's cache (one copy of them)."""

    idf: np.ndarray  # per term
    norm: np.ndarray  # per passage: k1 * (1 - b + b * length / average length)
    k1: float


def passage_weights(terms: TermIndex, *, k1: float = K1, b: float = B) -> PassageWeights:
    """The passages' BM25 parameters, from their counts (`terms`: the "passages" field)."""
    m, n = terms.matrix, terms.matrix.nnz
    df = np.zeros(m.shape[1], dtype=np.int64)  # how many passages hold each term
    for at in range(0, n, sparse.ENTRY_SLICE):  # bincount widens what it counts to int64
        end = min(at + sparse.ENTRY_SLICE, n)
        df += np.bincount(m.indices[at:end], minlength=m.shape[1])
        store.release_pages(m.indices[at:end])  # read once (a cache's: its pages go)
    idf, norm = bm25_parameters(df.astype(np.float32), terms.lengths(), k1, b)
    return PassageWeights(idf, norm, k1)


class PassageIndex:
    """BM25 weights of every passage of a vault, computed for the passages asked for."""

    def __init__(self, weights: PassageWeights, terms: TermIndex) -> None:
        if (len(weights.norm), len(weights.idf)) != terms.matrix.shape:
            raise ValueError("passage weights of other passages than these counts")
        m, n = terms.matrix, terms.matrix.nnz
        self.term_ids = terms.term_ids
        self.idf, self.norm, self.k1 = weights.idf, weights.norm, weights.k1
        # The cache's counts as they are (views of its map); a first read's in two bytes.
        self.counts = CSR(m.indptr, m.indices[:n], compact_counts(m.data[:n]), m.shape)
        self.starts = terms.entry_bounds()  # page i's passages are rows starts[i]:starts[i + 1]

    def page_rows(self, pages: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The passages of `pages`, one page's after another: (pages that have passages, the
        rows, where each of those pages' rows begin among them)."""
        rows, heads = row_entries(self.starts, pages)
        held = np.diff(heads, append=len(rows)) > 0
        return pages[held], rows, heads[held]

    def score_rows(self, query_terms: Sequence[str], rows: np.ndarray) -> np.ndarray:
        """The BM25 score of each of `rows` (distinct passages), its terms added in the
        question's order, as a full search over by-term weights adds them."""
        scores = np.zeros(len(rows))
        known = (self.term_ids.get(t) for t in dict.fromkeys(query_terms))
        ids = [j for j in known if j is not None]
        if not len(rows) or not ids:
            return scores
        m = self.counts
        at, heads = row_entries(m.indptr, rows)
        held = m.indices[at]
        # Each entry's term among the question's, by a binary search in its few terms.
        by_id = np.argsort(ids)
        sorted_ids = np.asarray(ids)[by_id]
        slot = np.minimum(np.searchsorted(sorted_ids, held), len(ids) - 1)
        hit = np.nonzero(sorted_ids[slot] == held)[0]
        owner = np.searchsorted(heads, hit, side="right") - 1  # which of `rows`
        tf = m.data[at[hit]].astype(np.float32)
        norm = self.norm[rows[owner]]
        # BodyIndex's weight, with the same operations on the same values.
        weights = tf * (self.k1 + 1.0) / (tf + norm) * self.idf[held[hit]]
        # Added in the question's order within each row, as a search by terms adds them.
        order = np.argsort(by_id[slot[hit]], kind="stable")
        np.add.at(scores, owner[order], weights[order])
        return scores
