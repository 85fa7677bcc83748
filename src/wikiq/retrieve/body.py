"""Body search (the skill's Tier C): BM25 over page text, from the catalog's term counts.

Each term's postings are kept by term, their page numbers in two bytes (`sparse.SplitCSR`),
with either the BM25 weights precomputed (float32: the text and lead indexes every question
reads) or the counts (one byte where they fit: the source notes' index), weighed when a
question reads them with the operations the precomputed weights were made with: the same bits.
A question costs one slice per term and a sum. Besides the BM25 score, each hit carries its *coverage*: the share of the
question's IDF weight the page contains. Coverage is absolute (it does not depend on the other
results), which is what deciding "the vault does not cover this" needs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wikiq import sparse
from wikiq.retrieve.topk import best_places, kth_largest
from wikiq.sparse import BLOCK, CSR, SplitCSR, positions_in
from wikiq.vault.terms import TermIndex, narrowest_counts

K1 = 1.2
B = 0.75
# Questions whose terms' postings hold more entries than this are scored with MaxScore's
# pruning (`BodyIndex._score_pruned`): below it, adding up every posting costs less.
PRUNE_FROM = 200_000
# ... and only while the candidates' postings are at most this share of all the question's:
# each candidate is looked up in every term's postings (a binary search, ~20 times a sum).
PRUNE_SHARE = 16
# ... with the candidates taken from at most this many of the rarest terms (each one read
# lowers the bound of the rest and narrows the candidates; the share above stops it first).
PRUNE_TERMS = 8
# ... and once the bound is beaten, one more term is taken while more than this many times
# `limit` candidates could still join the best (each is looked up in every term's postings).
PRUNE_NARROW = 8
# A full scoring of more postings than this adds them block by block of the split page
# numbers (`_add_weights`); fewer are joined and counted by one bincount. Per question at 1M
# pages, median of 200 questions: above 400,000 postings 11.3 against 14.3 ms, below it the
# bincount 10-25% quicker; at 100,000 pages the bincount always (2026-12-05).
BLOCKS_FROM = 400_000
# Looking a candidate up in one term's postings (a binary search) costs about as much as
# adding this many postings into the scores: past that, scoring every posting is cheaper.
LOOKUP_COST = 4


@dataclass(frozen=True)
class BodyHits:
    pages: np.ndarray  # page numbers with at least one query term, best first
    scores: np.ndarray  # BM25
    coverage: np.ndarray  # share of the question's IDF weight present in the page, [0, 1]
    terms: tuple[str, ...]  # the question terms that exist in the vault

    @classmethod
    def empty(cls) -> BodyHits:
        none = np.empty(0)
        return cls(none.astype(np.int64), none, none, ())

    def as_dict(self) -> dict[int, float]:
        """page -> BM25 score."""
        return {int(p): float(s) for p, s in zip(self.pages, self.scores, strict=True)}

    def best_coverage(self, first: int = 1) -> float:
        """The largest share of the question's IDF weight among the first `first` hits."""
        return float(self.coverage[:first].max()) if len(self.coverage) else 0.0

    def standout(self) -> float:
        """How far the best score stands above the mean of the next nine, as a share of it
        (0 with fewer than two hits): the coverage decision's `text_gap`."""
        scores = self.scores
        if len(scores) < 2 or scores[0] <= 0:
            return 0.0
        return float((scores[0] - np.mean(scores[1:10])) / scores[0])


def idf_of_df(n_docs: int, df: int) -> float:
    """BM25's IDF of a term `df` of `n_docs` documents hold (as `bm25_parameters` computes it)."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def bm25_parameters(
    df: np.ndarray, doc_len: np.ndarray, k1: float, b: float
) -> tuple[np.ndarray, np.ndarray]:
    """Each term's IDF from how many documents hold it (`df`, float32), and each document's
    length normalisation (k1 scaled by its length over the mean), both float32: a weight is
    then tf * (k1 + 1) / (tf + norm) * idf."""
    n_docs = len(doc_len)
    avg = float(doc_len.mean()) if n_docs else 1.0
    idf = np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
    return idf, length_norms(doc_len, avg, k1, b)


def length_norms(doc_len: np.ndarray, average: float, k1: float, b: float) -> np.ndarray:
    """Each document's k1 (1 - b + b length / average), float32."""
    return (k1 * (1.0 - b + b * doc_len / max(average, 1e-9))).astype(np.float32)


def _weights(counts: CSR, norm: np.ndarray, idf: np.ndarray, k1: float) -> np.ndarray:
    """tf * (k1 + 1) / (tf + norm) * idf for every entry of the by-term `counts`, a slice of
    terms at a time: a million pages' ~120 million entries at once took ~3 GB of temporaries
    (each entry's term number alone 1 GB)."""
    indptr, nnz = counts.indptr, counts.nnz
    out = np.empty(nnz, dtype=np.float32)
    first_terms = np.searchsorted(indptr, np.arange(0, nnz, sparse.ENTRY_SLICE), side="right") - 1
    cuts = np.unique(np.concatenate([[0], first_terms, [counts.shape[0]]])).tolist()
    for j0, j1 in itertools.pairwise(cuts):
        a, b = int(indptr[j0]), int(indptr[j1])
        term_of = np.repeat(np.arange(j0, j1), np.diff(indptr[j0 : j1 + 1]))
        tf = counts.data[a:b].astype(np.float32, copy=False)
        out[a:b] = tf * (k1 + 1.0) / (tf + norm[counts.indices[a:b]]) * idf[term_of]
    return out


def _row_maxima(matrix: CSR, values: np.ndarray) -> np.ndarray:
    """The largest of `values` (one per entry of `matrix`) in each row; 0 for an empty row."""
    out = np.zeros(matrix.shape[0], dtype=values.dtype)
    rows = np.nonzero(np.diff(matrix.indptr) > 0)[0]
    if len(rows):
        out[rows] = np.maximum.reduceat(values, matrix.indptr[rows])
    return out


class BodyIndex:
    """BM25 over every (page, term) pair of a vault: the counts by term, and the parameters
    that weigh them."""

    def __init__(
        self,
        terms: TermIndex,
        *,
        k1: float = K1,
        b: float = B,
        weighed: bool = False,
        bounds: bool = True,
    ) -> None:
        """`weighed`: keep every posting's weight (float32) rather than its count (one byte
        where they fit). Weighing a common term's postings as a question reads them cost the
        cascade at a million pages ~5 ms of ~27 (p50), the lead index's ~1.5 ms more: both
        keep their weights; the source notes' index, built per process, its counts.
        `bounds=False`: each term's largest weight (MaxScore's bound, `_bound`) is worked out
        the first time a search needs it, not here: the source notes' index, built in every
        process, scores every chunk and never needs it (weighing ob-wiki's notes for it was
        40 ms of each `wikiq search`)."""
        # Kept by term (each term's postings), the layout a question reads: every weight is
        # worked out per entry, so it is the same bit for bit whichever way entries are ordered.
        by_term = terms.by_term()
        n_docs = by_term.shape[1]
        self.n_docs = n_docs
        self.term_ids = terms.term_ids
        df = np.diff(by_term.indptr).astype(np.float32)
        # The lengths are kept with the source notes' index (vault/terms.py).
        lengths = terms.lengths()
        self.idf, norm = bm25_parameters(df, lengths, k1, b)
        self.total_terms = float(lengths.sum())  # how much text: what a vault may be expected to hold
        self.doc_share = df / max(n_docs, 1)  # share of pages containing each term
        self.unseen_idf = float(math.log(1.0 + (n_docs + 0.5) / 0.5))
        self.k1 = k1
        self.norm = norm  # per page: recovers term counts (search_groups)
        nnz = by_term.nnz
        data = narrowest_counts(by_term.data[:nnz])
        counts = CSR(by_term.indptr, by_term.indices[:nnz], data, by_term.shape)
        weights = _weights(counts, norm, self.idf, k1) if weighed or bounds else None
        # Each term's largest weight (MaxScore's bound), so that a common term's postings
        # need not all be weighed to find it.
        self.max_weight = _row_maxima(counts, weights) if weights is not None else None
        self.weighed = weighed
        # Page numbers in two bytes (sparse.SplitCSR): half the postings' bytes at 1M pages.
        values = weights if weighed and weights is not None else data
        self.postings = SplitCSR.of(CSR(counts.indptr, counts.indices, values, counts.shape))

    def weight_matrix(self) -> CSR:
        """Every term's postings weighed at once (by term): what `_postings` gives a term."""
        c = self.postings.joined()
        if self.weighed:
            return c
        return CSR(c.indptr, c.indices, _weights(c, self.norm, self.idf, self.k1), c.shape)

    def _postings(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """The pages holding term `j` and its BM25 weight in each."""
        pages = self.postings.row(j)
        return pages, self._weigh(j, pages, self.postings.row_values(j))

    def _weigh(
        self, j: int, pages: np.ndarray, counts: np.ndarray, norm: np.ndarray | None = None
    ) -> np.ndarray:
        """Term `j`'s BM25 weights in `pages`, from its `counts` there: float32, as `_weights`
        computes them (the same operations on the same values, so the same bits), into two
        new arrays rather than five (a common term's postings are megabytes). `norm`: the
        length normalisations `pages` index (all of them by default; one block's, for pages
        numbered within it). A weighed index's values are the weights themselves."""
        if self.weighed:
            return counts
        weights = counts.astype(np.float32)
        held = (self.norm if norm is None else norm)[pages]
        held += weights  # tf + norm: the same sum either way round
        weights *= self.k1 + 1.0
        weights /= held
        weights *= self.idf[j]
        return weights

    def _bound(self, j: int) -> float:
        """The largest weight term `j` has in any page."""
        if self.max_weight is None:  # bounds=False: every term's, once, when first needed
            c = self.weight_matrix()
            self.max_weight = _row_maxima(c, c.data)
        stale: dict[int, float] | None = getattr(self, "_stale_bounds", None)
        if stale is None or j not in stale:
            return float(self.max_weight[j])
        if math.isnan(stale[j]):  # a row an edit changed (retrieve/delta.py): weighed once
            stale[j] = float(self._postings(j)[1].max(initial=0.0))
        return stale[j]

    def idf_of(self, term: str) -> float:
        j = self.term_ids.get(term)
        return float(self.idf[j]) if j is not None else self.unseen_idf

    def share_of(self, term: str) -> float:
        """The share of pages whose text contains `term` (0 for a word the vault lacks)."""
        j = self.term_ids.get(term)
        return float(self.doc_share[j]) if j is not None else 0.0

    def known_share(self, query_terms: Sequence[str]) -> float:
        """The share of the question's IDF weight carried by terms the vault has at all."""
        unique = list(dict.fromkeys(query_terms))
        total = sum(self.idf_of(t) for t in unique)
        known = sum(self.idf_of(t) for t in unique if t in self.term_ids)
        return known / total if total > 0 else 0.0

    def pages_share_all(self, terms: Sequence[str]) -> float:
        """The share of pages containing every one of `terms` (1.0 for no terms: a name made
        only of stop-words is no evidence)."""
        if not terms or self.n_docs == 0:
            return 1.0
        return len(self.pages_holding_all(terms)) / self.n_docs

    def pages_holding_all(self, terms: Sequence[str]) -> np.ndarray:
        """The pages whose text contains every one of `terms` (none for no terms)."""
        unique = list(dict.fromkeys(terms))
        if not unique:
            return np.empty(0, dtype=np.int64)
        postings = sorted((self.pages_with(t) for t in unique), key=len)
        common = postings[0]
        for other in postings[1:]:
            if len(common) == 0:
                break
            common = np.intersect1d(common, other, assume_unique=True)
        return common

    def pages_with(self, term: str) -> np.ndarray:
        """The pages whose text contains `term` (its postings)."""
        j = self.term_ids.get(term)
        if j is None:
            return np.empty(0, dtype=np.int64)
        return self.postings.row(j)

    def search(
        self,
        query_terms: Sequence[str],
        *,
        limit: int = 100,
        coverage_of: int | None = None,
        evidence: Sequence[str] | None = None,
    ) -> BodyHits:
        """Pages containing the question's terms, ranked by BM25. `coverage_of`: the share of
        the question's weight is looked up for this many best hits only (the rest read 0), for
        a caller that ranks every hit but reads only the best few's coverage. `evidence`: the
        terms whose weight that share counts (all of them by default)."""
        unique = list(dict.fromkeys(query_terms))
        ids = [self.term_ids[t] for t in unique if t in self.term_ids]
        if not ids or self.n_docs == 0:
            return BodyHits.empty()
        scored = None
        if self._posting_count(ids) > PRUNE_FROM and 0 < limit < self.n_docs:
            scored = self._score_pruned(ids, limit)
        if scored is None:
            scored = self._score_all(ids)
        hit, scores = scored
        if len(hit) > limit:
            top = best_places(scores, limit)
            hit, scores = hit[top], scores[top]
        order = np.lexsort((hit, -scores))  # ties broken by page number
        hit, scores = hit[order], scores[order]
        coverage = np.zeros(len(hit))
        looked = len(hit) if coverage_of is None else min(coverage_of, len(hit))
        coverage[:looked] = self.coverage_of(hit[:looked], unique if evidence is None else evidence)
        known = tuple(t for t in unique if t in self.term_ids)
        return BodyHits(hit.astype(np.int64), scores, coverage, known)

    def coverage_of(self, pages: np.ndarray, terms: Sequence[str]) -> np.ndarray:
        """The share of `terms`' IDF weight (a word the vault lacks weighs the most) that each
        of `pages` holds, in [0, 1]."""
        weighed = list(dict.fromkeys(terms))
        total = sum(self.idf_of(t) for t in weighed)
        ids = [self.term_ids[t] for t in weighed if t in self.term_ids]
        return np.minimum(self._matched(ids, pages) / max(total, 1e-9), 1.0)

    def score_every(self, query_terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Every page holding one of the terms and its BM25 score (the sums `search` makes),
        in page order, unsorted: for a caller that groups the pages before ranking them, as
        the source notes group their chunks by note."""
        ids = [self.term_ids[t] for t in dict.fromkeys(query_terms) if t in self.term_ids]
        if not ids or self.n_docs == 0:
            return np.empty(0, dtype=np.int64), np.empty(0)
        hit, scores = self._score_all(ids)
        return hit.astype(np.int64), scores

    def _matched(self, ids: Sequence[int], pages: np.ndarray) -> np.ndarray:
        """The IDF weight of the terms `ids` that each of `pages` holds, added in the terms'
        order: looked up for the few pages a search returns, not summed for every page that
        holds a term (at a million pages that sum was a quarter of a search)."""
        matched = np.zeros(len(pages))
        if len(pages) == 0:
            return matched
        matrix = self.postings  # the pages alone: their weights are not needed
        for j in ids:
            held = matrix.row(j)
            if len(held):
                matched[positions_in(held, pages)[1]] += self.idf[j]
        return matched

    def _posting_count(self, ids: Sequence[int]) -> int:
        return sum(self.postings.row_size(j) for j in ids)

    def _score_all(self, ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Every page holding a term: (pages, BM25 scores), in page order."""
        # Walk the postings of the question's terms directly (CSC columns): cost grows with
        # how many pages contain the terms, never with the size of the vault.
        if self._posting_count(ids) > BLOCKS_FROM:
            # Each page's weights added term by term, in the question's order, from 0: the
            # sums the bincount below makes, bit for bit.
            scores: np.ndarray = np.zeros(self.n_docs)
            for j in ids:
                self._add_weights(j, scores)
        else:
            postings = [self._postings(j) for j in ids]
            rows = np.concatenate([pages for pages, _ in postings])
            vals = np.concatenate([weights for _, weights in postings])
            scores = np.bincount(rows, weights=vals, minlength=self.n_docs)
        hit = np.nonzero(scores > 0)[0]
        return hit, scores[hit]

    def _add_weights(self, j: int, scores: np.ndarray) -> None:
        """Add term `j`'s weights into `scores` (one per page). Block by block of the split
        page numbers, each numbered within its block: they index that block's lengths and
        scores as they are, never widened to page numbers (a common term's postings at a
        million pages are ~0.5 million)."""
        c = self.postings
        if not isinstance(c, SplitCSR):  # an edit's patched rows (retrieve/delta.py)
            pages, weights = self._postings(j)
            scores[pages] += weights
            return
        first = int(c.indptr[j])
        starts = c.block_starts[j].tolist()
        for b, (s, e) in enumerate(itertools.pairwise(starts)):
            if e > s:
                at = slice(b * BLOCK, (b + 1) * BLOCK)
                low, counts = c.low[first + s : first + e], c.data[first + s : first + e]
                scores[at][low] += self._weigh(j, low, counts, self.norm[at])

    def _score_pruned(self, ids: Sequence[int], limit: int) -> tuple[np.ndarray, np.ndarray] | None:
        """MaxScore's pruning (Turtle and Flood, 1995): the pages holding the question's rarer
        terms are the candidates, scored in full; a page holding only the common terms cannot
        score more than their largest possible weights together, so once the `limit`-th
        candidate scores more than that, no other page can enter the top `limit`. In a large
        vault a common term's postings hold hundreds of thousands of pages, of which only the
        candidates are looked up. Of the candidates, only those whose own bound (their rarer
        terms' weights plus the common terms' largest) reaches the `limit`-th best are scored.
        None when the common terms' bound is never beaten, or when looking the candidates up
        would cost more than scoring every posting.

        Every candidate's score adds the same float weights in the same order as `_score_all`,
        so the top pages and their scores are the same, bit for bit."""
        entries = [(self.postings.row(j), self.postings.row_values(j)) for j in ids]
        rarest_first = sorted(range(len(ids)), key=lambda i: len(entries[i][0]))
        # A term adds at most its largest weight in any page (kept with the index: a common
        # term's postings are weighed only where a candidate holds it).
        bound = [self._bound(ids[i]) for i in rarest_first]
        total = sum(len(pages) for pages, _ in entries)
        # Each candidate's rarer-term part of its score, a lower bound of the whole, added
        # one term at a time into one array (a page never touched costs nothing).
        partial = np.zeros(self.n_docs)
        found: list[np.ndarray] = []  # the candidates, in the order they were met
        kept: np.ndarray | None = None
        read = added = 0  # postings read; terms added into `partial`
        for i in rarest_first[:PRUNE_TERMS]:
            pages, counts = entries[i]
            read += len(pages)
            if read * PRUNE_SHARE > total:
                break  # more candidates than can be looked up cheaply
            found.append(pages[partial[pages] == 0])  # weights are positive: 0 is unmet
            partial[pages] += self._weigh(ids[i], pages, counts)
            added += 1
            if sum(len(f) for f in found) <= limit:
                continue
            candidates = np.concatenate(found)
            lower = partial[candidates]
            kth, rest = kth_largest(lower, limit), sum(bound[added:])
            if kth > rest:
                # `limit` candidates score at least `kth`; one whose rarer terms and every
                # common term's largest weight together stay below it cannot join them.
                # (The margin covers the rounding of sums added in another order.)
                kept = candidates[lower + rest >= kth * (1.0 - 1e-6)]
                if len(kept) <= limit * PRUNE_NARROW:
                    break  # few enough; one more term would only narrow them further
        if kept is None:
            return None  # the common terms' bound is never beaten: score every posting
        if len(kept) > limit * PRUNE_NARROW:
            # Still many: the `limit` best by their rarer terms, scored in full, raise the bar
            # from their lower bounds to their scores (never lower), and most fall below it.
            head = np.sort(kept[best_places(partial[kept], limit)])
            bar = kth_largest(self._score_candidates(ids, entries, head), limit)
            kept = kept[partial[kept] + sum(bound[added:]) >= bar * (1.0 - 1e-6)]
        if len(kept) * len(ids) * LOOKUP_COST > total:
            return None  # looking each one up would cost more than adding every posting
        kept = np.sort(kept)  # each page was met once
        return kept, self._score_candidates(ids, entries, kept)

    def _score_candidates(
        self, ids: Sequence[int], entries: list[tuple[np.ndarray, np.ndarray]], cand: np.ndarray
    ) -> np.ndarray:
        """BM25 scores of the pages `cand` (sorted), each term added in the question's
        order, as `_score_all` adds them; a term is weighed only where a candidate holds it."""
        scores = np.zeros(len(cand))
        for j, (pages, counts) in zip(ids, entries, strict=True):
            if len(pages) < len(cand):  # find the term's pages among the candidates
                at, holds = positions_in(cand, pages)
                at, where = at[holds], np.nonzero(holds)[0]
            else:  # find the candidates among the term's pages
                where, holds = positions_in(pages, cand)
                at, where = np.nonzero(holds)[0], where[holds]
            scores[at] += self._weigh(j, pages[where], counts[where])
        return scores

    def search_groups(self, groups: Sequence[Sequence[str]], *, limit: int = 100) -> BodyHits:
        """BM25 where each group of terms counts as one word (a word's translations): the
        group's count in a page is the sum of its terms' counts, and its IDF comes from the
        pages holding any of them (Pirkola's structured query), so a word with many senses
        weighs no more than a word with one, and a rare stray sense cannot outweigh the
        common one."""
        kept = [ids for g in groups if (ids := [self.term_ids[t] for t in g if t in self.term_ids])]
        if not kept or self.n_docs == 0:
            return BodyHits.empty()
        known = tuple(dict.fromkeys(t for g in groups for t in g if t in self.term_ids))
        unseen = self.unseen_idf * (len(groups) - len(kept))
        postings = [[self._postings(j) for j in ids] for ids in kept]
        size = sum(len(rows) for group in postings for rows, _ in group)
        if size > PRUNE_FROM and 0 < limit < self.n_docs:
            pruned = self._groups_pruned(kept, postings, limit)
            if pruned is not None:
                pages, scores, matched, idfs = pruned
                total = unseen
                for idf in idfs:  # added as the whole-vault passes add them: the same bits
                    total += idf
                return _best_hits(pages, scores, matched, total, known, limit)
        k1 = self.k1
        scores = np.zeros(self.n_docs)
        matched = np.zeros(self.n_docs)
        total = unseen
        for ids, group in zip(kept, postings, strict=True):
            tf = np.zeros(self.n_docs)
            for j, (rows, weights) in zip(ids, group, strict=True):
                tf[rows] += self._count(j, rows, weights)
            has = tf > 0
            idf = self._idf_of_df(int(np.count_nonzero(has)))
            scores += np.where(has, tf * (k1 + 1.0) / (tf + self.norm) * idf, 0.0)
            matched += idf * has
            total += idf
        hit = np.nonzero(scores > 0)[0]
        return _best_hits(hit, scores[hit], matched[hit], total, known, limit)

    def _count(self, j: int, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Term `j`'s count in the pages `rows`, from its stored weights there."""
        wt = weights.astype(np.float64)
        # Invert the stored weight: w = tf (k1 + 1) / (tf + norm) · idf.
        return wt * self.norm[rows] / np.maximum((self.k1 + 1.0) * self.idf[j] - wt, 1e-9)

    def _groups_pruned(
        self, kept: list[list[int]], postings: list[list[tuple[np.ndarray, np.ndarray]]], limit: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[float]] | None:
        """`search_groups` by MaxScore, as `_score_pruned` does for terms: the pages of the
        rarer groups are the candidates, and a group adds at most (k1 + 1) · its IDF to a page.
        Returns the candidates that can reach the best (in page order) with their scores and
        matched IDF, each added group by group as the whole-vault passes add them, and each
        group's IDF; None when the bound is never beaten or the look-ups cost more."""
        n, k1 = self.n_docs, self.k1
        held = np.zeros(n, dtype=bool)
        idf: list[float | None] = [None] * len(kept)  # each group's, once it is needed
        sizes = [sum(len(rows) for rows, _ in group) for group in postings]
        total_size = sum(sizes)
        rarest_first = sorted(range(len(kept)), key=sizes.__getitem__)
        # A group adds less than (k1 + 1) · its IDF, and its IDF is at most that of its most
        # common term alone (a group is held by at least that term's pages).
        bound = [
            (k1 + 1.0) * self._idf_of_df(max(len(r) for r, _ in postings[g])) for g in rarest_first
        ]
        partial = np.zeros(n)
        found: list[np.ndarray] = []
        candidates: np.ndarray | None = None
        read = added = 0
        for g in rarest_first[:PRUNE_TERMS]:
            read += sizes[g]
            if read * PRUNE_SHARE > total_size:
                break
            pages, counts = self._group_counts(kept[g], postings[g], held)
            idf[g] = self._idf_of_df(len(pages))
            found.append(pages[partial[pages] == 0])  # contributions are positive
            partial[pages] += counts * (k1 + 1.0) / (counts + self.norm[pages]) * idf[g]
            added += 1
            met = np.concatenate(found)
            if len(met) <= limit:
                continue
            lower = partial[met]
            kth, rest = kth_largest(lower, limit), sum(bound[added:])
            if kth > rest:
                candidates = met[lower + rest >= kth * (1.0 - 1e-6)]
                if len(candidates) <= limit * PRUNE_NARROW:
                    break
        if candidates is None:
            return None
        terms = sum(len(ids) for ids in kept)
        if len(candidates) * terms * LOOKUP_COST > total_size:
            return None
        exact = [
            x if x is not None else self._group_idf(group, held)
            for x, group in zip(idf, postings, strict=True)
        ]
        candidates = np.sort(candidates)
        scores = np.zeros(len(candidates))
        matched = np.zeros(len(candidates))
        norm = self.norm[candidates]
        for g, (ids, group) in enumerate(zip(kept, postings, strict=True)):
            tf = np.zeros(len(candidates))
            for j, (rows, weights) in zip(ids, group, strict=True):
                where, holds = positions_in(rows, candidates)
                at = np.nonzero(holds)[0]
                tf[at] += self._count(j, rows[where[at]], weights[where[at]])
            has = tf > 0
            scores += np.where(has, tf * (k1 + 1.0) / (tf + norm) * exact[g], 0.0)
            matched += exact[g] * has
        return candidates, scores, matched, exact

    def _group_idf(self, group: list[tuple[np.ndarray, np.ndarray]], held: np.ndarray) -> float:
        """The IDF of a group: from the pages holding any of its terms (`held`: scratch
        flags, one per page, all False, and left so)."""
        if len(group) == 1:
            return self._idf_of_df(len(group[0][0]))
        for rows, _ in group:
            held[rows] = True
        df = int(np.count_nonzero(held))
        for rows, _ in group:
            held[rows] = False
        return self._idf_of_df(df)

    def _idf_of_df(self, df: int) -> float:
        return idf_of_df(self.n_docs, df)

    def _group_counts(
        self, ids: list[int], group: list[tuple[np.ndarray, np.ndarray]], held: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The pages holding a group (in order) and the group's count in each (`held`: scratch
        flags, as for `_group_idf`)."""
        if len(group) == 1:
            rows, weights = group[0]
            return rows, self._count(ids[0], rows, weights)
        for rows, _ in group:
            held[rows] = True
        pages = np.flatnonzero(held)  # the union in order, without sorting the postings
        held[pages] = False
        counts = np.zeros(len(pages))
        for j, (rows, weights) in zip(ids, group, strict=True):
            counts[np.searchsorted(pages, rows)] += self._count(j, rows, weights)
        return pages, counts


def _best_hits(
    pages: np.ndarray,
    scores: np.ndarray,
    matched: np.ndarray,
    total: float,
    known: tuple[str, ...],
    limit: int,
) -> BodyHits:
    """The `limit` best of scored pages (in page order), best first, ties by page number."""
    hit = scores > 0
    pages, scores, matched = pages[hit], scores[hit], matched[hit]
    if len(pages) > limit:
        top = best_places(scores, limit)
        pages, scores, matched = pages[top], scores[top], matched[top]
    order = np.lexsort((pages, -scores))
    coverage = np.minimum(matched[order] / max(total, 1e-9), 1.0)
    return BodyHits(pages[order].astype(np.int64), scores[order], coverage, known)
