"""Pages edited since the indexes were built, searchable at once: the indexes with a few
pages' counts replaced, until the next full build. Used by a running server's watcher for each
edit, and by any process opening a large vault whose cache misses a few edits (wiki.py).

A refresh rebuilds every index from the catalog: under a second on ob-wiki, ~46 s at a million
pages (docs/BENCHMARKS.md, "Freshness under a running server"). An edit that keeps a page's
names and frontmatter changes only that page's counts, so only its entries change: each term
row of the text and lead indexes is read with the edited pages' entries taken out and their new
ones put in (`PatchedRows`), and the page's passages are new rows after the stored ones
(`PatchedPassages`). The vault's statistics stay those of the last build (each term's IDF, the
average length), as a search engine's segments keep theirs until they merge; a term no page
had gets its IDF from the edited pages. The watcher builds the exact indexes once the vault is
quiet (watching.py), and they replace these. What else an edit changes (a summary, tags, links
to other pages, Stage 0's vector) is the old row's until then.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from wikiq.retrieve.body import B, BodyIndex, idf_of_df, length_norms
from wikiq.retrieve.indexes import NAME_REPEAT, terms_of_names
from wikiq.retrieve.passage_bm25 import PassageIndex
from wikiq.sparse import CSR, SplitCSR, positions_in
from wikiq.vault.page import page_path_for
from wikiq.vault.reading import read_one
from wikiq.vault.scan import stat_file
from wikiq.vault.terms import FieldTerms

if TYPE_CHECKING:
    from wikiq.retrieve.cascade import Retriever
    from wikiq.vault.catalog import Catalog

# What an edit must leave as it was to be taken in place: the page's identity, its names (the
# name index and the text index's title terms), what the cascade reads per page without its
# text, and where its body starts (answers read the body from there).
KEPT_FIELDS = ("path", "title", "aliases", "type", "stub", "body_offset", "reviewed")

Counts = dict[str, int]


def read_edits(
    catalog: Catalog, files: Iterable[Path], rows: Mapping[Path, int] | None = None
) -> dict[int, FieldTerms] | None:
    """Each edited page's number and its new counts, read from disk now; None when an edit
    cannot be taken in place (a file that is not one of the catalog's pages, gone, unreadable,
    or with other names or frontmatter): the whole vault is refreshed then. `rows`: the page
    numbers of `files` when the caller knows them (else looked up by path)."""
    root = catalog.location.wiki_root
    edits: dict[int, FieldTerms] = {}
    for path in files:
        try:
            file = path.relative_to(root).as_posix()
        except ValueError:
            return None
        i = rows.get(path) if rows is not None else catalog.by_path.get(page_path_for(file))
        if i is None:
            return None
        old, st = catalog.pages[i], stat_file(path)
        if old.file != file or st is None:
            return None
        page, terms = read_one(root, file, st)
        if page.problem or any(getattr(page, f) != getattr(old, f) for f in KEPT_FIELDS):
            return None
        edits[i] = terms
    return edits


def patched_retriever(
    retriever: Retriever, catalog: Catalog, edits: dict[int, FieldTerms]
) -> Retriever | None:
    """`retriever` (built over `catalog`) with the pages of `edits` searched as they are now;
    None when its indexes are not built yet or cannot be patched."""
    ix = retriever.built_indexes
    if ix is None or not edits:
        return None
    body, lead, passages = (catalog.field_terms(f) for f in ("body", "lead", "passages"))
    names = {
        p: Counter(terms_of_names((catalog.pages[p].title, *catalog.pages[p].aliases)))
        for p in edits
    }
    text = patched_body(
        ix.text,
        {p: _titled(body.row(p), names[p]) for p in edits},
        {p: _titled(e["body"], names[p]) for p, e in edits.items()},  # type: ignore[arg-type]
    )
    lead_ix = patched_body(
        ix.lead,
        {p: lead.row(p) for p in edits},
        {p: e["lead"] for p, e in edits.items()},  # type: ignore[misc]
    )
    old_rows = {p: passages.entry_rows(p) for p in edits}
    new_rows = {p: e["passages"] for p, e in edits.items()}
    passage_ix = PatchedPassages.of(retriever.passages, old_rows, new_rows)  # type: ignore[arg-type]
    if text is None or lead_ix is None or passage_ix is None:
        return None
    return replace(
        retriever,
        _indexes=replace(ix, text=text, lead=lead_ix),
        _passages=passage_ix,
        replaces=None,
    )


def _titled(counts: Counts, names: Counter[str]) -> Counts:
    """A page's counts as the text index holds them: its names' terms NAME_REPEAT times in."""
    out = dict(counts)
    for term, n in names.items():
        out[term] = out.get(term, 0) + NAME_REPEAT * n
    return out


class ExtendedIds(Mapping[str, int]):
    """A vocabulary with some terms added after its own (numbered from its length on)."""

    def __init__(self, base: Mapping[str, int], size: int, added: Iterable[str]) -> None:
        self._base = base
        self.added = {t: size + k for k, t in enumerate(added)}

    def get(self, key: str, default: Any = None) -> Any:
        found = self._base.get(key)
        return found if found is not None else self.added.get(key, default)

    def __getitem__(self, key: str) -> int:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return int(found)

    def __contains__(self, key: object) -> bool:
        return key in self._base or key in self.added

    def __iter__(self) -> Iterator[str]:
        yield from self._base
        yield from self.added

    def __len__(self) -> int:
        return len(self._base) + len(self.added)


def _new_terms(base: Mapping[str, int], pages: Iterable[Counts]) -> Counter[str]:
    """The terms `base` lacks, with how many of `pages` hold each (their document frequency)."""
    df: Counter[str] = Counter()
    for counts in pages:
        df.update(t for t in counts if t not in base)
    return df


def _average_length(norm: np.ndarray, k1: float, known: Iterable[tuple[int, float]]) -> float | None:
    """The average length the stored norms were computed with, from a row whose length is
    known: norm = k1 (1 - b + b length / average), solved for the average (None when no row
    given has a length to solve with)."""
    for row, length in known:
        spare = float(norm[row]) / k1 - (1.0 - B)
        if length > 0 and spare > 0:
            return B * length / spare
    return None


def _norms(lengths: Iterable[float], average: float, k1: float) -> np.ndarray:
    return length_norms(np.fromiter(lengths, dtype=np.float32), average, k1, B)


def patched_body(
    index: BodyIndex, old: dict[int, Counts], new: dict[int, Counts]
) -> BodyIndex | None:
    """`index` with pages `old` (their counts as built) holding `new` counts instead."""
    k1 = index.k1
    lengths = {p: float(sum(c.values())) for p, c in old.items()}
    average = _average_length(index.norm, k1, lengths.items())
    if average is None:
        return None
    added = _new_terms(index.term_ids, new.values())
    ids = ExtendedIds(index.term_ids, len(index.idf), added)
    n = index.n_docs
    idf = np.concatenate(
        [index.idf, np.asarray([idf_of_df(n, df) for df in added.values()], dtype=np.float32)]
    )
    share = np.asarray([df / max(n, 1) for df in added.values()], dtype=index.doc_share.dtype)
    norm = index.norm.copy()  # 4 MB at a million pages
    pages = sorted(new)
    norm[pages] = _norms((sum(new[p].values()) for p in pages), average, k1)
    # term -> page -> new weight, or count for an index that weighs them as a question reads
    # them (nan: none). Either way each edited page's weights are what a build with the
    # patched lengths and IDFs gives, and every other page's are as stored.
    changes: dict[int, dict[int, float]] = {}
    for p in pages:
        for term in old[p]:
            j = ids.get(term)
            if j is not None:
                changes.setdefault(j, {})[p] = math.nan
        tf_of = new[p]
        terms = list(tf_of)
        tf = np.asarray([tf_of[t] for t in terms], dtype=np.float32)
        col = np.asarray([ids[t] for t in terms], dtype=np.int64)
        # The stored weights' own operations on float32 values (body.py, `_weights`).
        values = tf * np.float32(k1 + 1.0) / (tf + norm[p]) * idf[col] if index.weighed else tf
        for j, w in zip(col.tolist(), values.tolist(), strict=True):
            changes.setdefault(j, {})[p] = w
    patched = copy.copy(index)
    patched.term_ids = ids  # type: ignore[assignment]
    patched.idf = idf
    patched.doc_share = np.concatenate([index.doc_share, share])
    patched.norm = norm
    patched.postings = PatchedRows(index.postings, changes, len(idf))  # type: ignore[assignment]
    # The largest weights of the changed rows (and of rows an earlier edit changed) are
    # worked out when a search first needs them (BodyIndex._bound).
    before: dict[int, float] = getattr(index, "_stale_bounds", None) or {}
    patched._stale_bounds = dict.fromkeys([*before, *changes], math.nan)  # type: ignore[attr-defined]
    return patched


class PatchedRows:
    """A by-term matrix read with some rows changed: row j is the stored row with the edited
    pages' entries taken out and their new ones put in, in page order. Worked out when a row
    is read: a common term's row at a million pages is megabytes, and only a question that
    reads it pays for the copy (two passes over it). A changed row's values are float32 (a
    new count may not fit the stored ones' type)."""

    def __init__(self, base: SplitCSR, changes: dict[int, dict[int, float]], n_rows: int) -> None:
        self._base = base
        self.shape = (n_rows, base.shape[1])
        self._changes: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._sizes: dict[int, int] = {}
        for j, by_page in changes.items():
            pages = np.asarray(sorted(by_page), dtype=np.int32)  # as `row` gives them
            weights = np.asarray([by_page[p] for p in pages.tolist()], dtype=np.float32)
            self._changes[j] = (pages, weights)
            stored, _ = self._stored(j)
            held = _held(stored, pages)
            self._sizes[j] = len(stored) - int(held.sum()) + int((~np.isnan(weights)).sum())
        self._last: tuple[int, np.ndarray, np.ndarray] | None = None

    def _stored(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        if j < self._base.shape[0]:
            return self._base.row(j), self._base.row_values(j)
        return np.empty(0, dtype=np.int32), self._base.data[:0]

    def row(self, j: int) -> np.ndarray:
        return self._entries(j)[0]

    def row_values(self, j: int) -> np.ndarray:
        return self._entries(j)[1]

    def row_size(self, j: int) -> int:
        size = self._sizes.get(j)
        if size is not None:
            return size
        return self._base.row_size(j) if j < self._base.shape[0] else 0

    def _entries(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        change = self._changes.get(j)
        if change is None:
            return self._stored(j)
        last = self._last  # a search reads a row's pages, then its weights
        if last is not None and last[0] == j:
            return last[1], last[2]
        rows, values = self._stored(j)
        pages, weights = change
        keep = ~_held_mask(rows, pages)
        rows, values = rows[keep], values[keep].astype(np.float32)
        put = ~np.isnan(weights)
        at = np.searchsorted(rows, pages[put])
        rows = np.insert(rows, at, pages[put])
        values = np.insert(values, at, weights[put])
        self._last = (j, rows, values)
        return rows, values


def _held(sorted_rows: np.ndarray, pages: np.ndarray) -> np.ndarray:
    """Which of `pages` the sorted `sorted_rows` hold."""
    if not len(sorted_rows):
        return np.zeros(len(pages), dtype=bool)
    return positions_in(sorted_rows, pages)[1]


def _held_mask(sorted_rows: np.ndarray, pages: np.ndarray) -> np.ndarray:
    """A mask over `sorted_rows`: True where the entry is one of `pages`."""
    mask = np.zeros(len(sorted_rows), dtype=bool)
    if len(sorted_rows):
        at, held = positions_in(sorted_rows, pages)
        mask[at[held]] = True
    return mask


class PatchedPassages(PassageIndex):
    """The passage index with the edited pages' passages replaced by new rows, numbered after
    the stored ones (the stored rows stay as they are: a page's rows are only reached through
    `page_rows`)."""

    base: PassageIndex
    fresh: PassageIndex  # the new rows alone, numbered from 0
    first_new: int
    rows_of: dict[int, np.ndarray]

    @classmethod
    def of(
        cls,
        base: PassageIndex,
        old_rows: dict[int, tuple[int, int]],
        new: dict[int, list[Counts]],
    ) -> PatchedPassages | None:
        """`base` with page p's rows old_rows[p] = (start, end) replaced by passages new[p]."""
        if isinstance(base, PatchedPassages):
            return None  # patches are made over the built index, never over a patch
        m = base.counts
        known = [
            (r, float(m.row_values(r).astype(np.float64).sum()))
            for start, end in old_rows.values()
            for r in range(start, end)
        ]
        average = _average_length(base.norm, base.k1, sorted(known, key=lambda x: -x[1]))
        if average is None:  # the edited pages had no passages: any stored one will do
            average = _average_length(base.norm, base.k1, _some_rows(m))
        if average is None:
            return None
        passages = [c for p in sorted(new) for c in new[p]]
        n_passages = len(base.norm)
        added = _new_terms(base.term_ids, passages)
        ids = ExtendedIds(base.term_ids, len(base.idf), added)
        counts = [(np.asarray([ids[t] for t in c]), np.asarray(list(c.values()))) for c in passages]
        indptr = np.concatenate([[0], np.cumsum([len(c) for c, _ in counts])]).astype(np.int64)
        cols = np.concatenate([c for c, _ in counts] or [np.empty(0)]).astype(np.int64)
        tf = np.concatenate([v for _, v in counts] or [np.empty(0)]).astype(np.float32)
        fresh = PassageIndex.__new__(PassageIndex)
        fresh.term_ids = ids  # type: ignore[assignment]
        fresh.idf = np.concatenate(
            [base.idf, np.asarray([idf_of_df(n_passages, df) for df in added.values()], np.float32)]
        )
        fresh.norm = _norms((float(v.sum()) for _, v in counts), average, base.k1)
        fresh.k1 = base.k1
        fresh.counts = CSR(indptr, cols, tf, (len(passages), len(ids)))
        patched = cls.__new__(cls)
        patched.base, patched.fresh, patched.first_new = base, fresh, n_passages
        patched.term_ids, patched.idf, patched.norm, patched.k1 = (
            base.term_ids,
            base.idf,
            base.norm,
            base.k1,
        )
        patched.counts, patched.starts = base.counts, base.starts
        patched.rows_of, at = {}, n_passages
        for p in sorted(new):
            patched.rows_of[p] = np.arange(at, at + len(new[p]), dtype=np.int64)
            at += len(new[p])
        return patched

    def page_rows(self, pages: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not any(p in self.rows_of for p in pages.tolist()):
            return self.base.page_rows(pages)
        kept, pieces, heads, n = [], [], [], 0
        for p in pages.tolist():
            rows = self.rows_of.get(p)
            if rows is None:
                rows = np.arange(self.starts[p], self.starts[p + 1], dtype=np.int64)
            if len(rows):
                kept.append(p)
                heads.append(n)
                pieces.append(rows)
                n += len(rows)
        if not kept:
            return pages[:0], np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        return (
            np.asarray(kept, dtype=pages.dtype),
            np.concatenate(pieces),
            np.asarray(heads, dtype=np.int64),
        )

    def score_rows(self, query_terms: list[str], rows: np.ndarray) -> np.ndarray:  # type: ignore[override]
        new = rows >= self.first_new
        if not new.any():
            return self.base.score_rows(query_terms, rows)
        scores = np.zeros(len(rows))
        scores[~new] = self.base.score_rows(query_terms, rows[~new])
        scores[new] = self.fresh.score_rows(query_terms, rows[new] - self.first_new)
        return scores


def _some_rows(m: CSR, wanted: int = 8) -> Iterator[tuple[int, float]]:
    """A few stored rows with their lengths (summed counts)."""
    for r in range(min(m.shape[0], 1000)):
        size = m.row_size(r)
        if size:
            yield r, float(m.row_values(r).astype(np.float64).sum())
            wanted -= 1
            if not wanted:
                return
