"""Per-page term counts, gathered while a page is read so its body never has to be read twice.

Stored as one sparse page × term matrix (CSR) plus the vocabulary. Retrieval turns it into a
BM25 index; the catalog cache keeps it so an unchanged vault never re-reads a body, and an
edited page replaces just its own row.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from wikiq import sparse
from wikiq.sparse import CSR
from wikiq.text.memo import Memo
from wikiq.text.stemming import stem
from wikiq.text.tokenize import tokenize
from wikiq.vault.spill import SpilledArray
from wikiq.vault.store import StrIds, Strings, release_pages

# Term fields gathered per page: the whole body, its lead paragraph (where a page says what it
# is about; the plugin's index summary is a 100-character cut of it), its passages (the body
# cut at headings and paragraphs, each with the title's terms: a long page whose one section
# answers is ranked by that section, not held down by its length), and the title's terms
# (each passage holds them once: the cache works the body out from the passages and these).
TERM_FIELDS = ("body", "lead", "passages", "title")
# The largest count one and two bytes hold (`compact_counts`, `TermBuffer`, the text index's
# sums), and the most terms a vocabulary may have for its column numbers to take two bytes.
ONE_BYTE = int(np.iinfo(np.uint8).max)
TWO_BYTES = int(np.iinfo(np.uint16).max)
# A page's counts in each field: one row, or (passages) a row per passage.
FieldTerms = dict[str, "dict[str, int] | list[dict[str, int]]"]


# Each token's stem, memoised: a vault's vocabulary is small next to its token count, and a
# lookup in C (`map(_stem, tokens)`) takes half the time of a call a token through a cache.
_stem = Memo(stem).__getitem__


def match_terms(text: str) -> list[str]:
    """The terms pages are indexed by and questions are matched with: stemmed tokens, in order."""
    return list(map(_stem, tokenize(text)))


def count_terms(text: str) -> dict[str, int]:
    """Term frequencies of a page body, with the same terms questions go through: the
    tokens are counted first and each distinct one stemmed once (a page repeats its words;
    the same counts, in the same order, as counting `match_terms`)."""
    counts: dict[str, int] = {}
    for token, n in Counter(tokenize(text)).items():
        term = _stem(token)
        counts[term] = counts.get(term, 0) + n
    return counts


@dataclass
class TermIndex:
    """Rows are pages in catalog order (or several rows a page: see `entry_starts`); columns
    are `vocab` terms; values are counts."""

    vocab: list[str]  # or `store.Strings`, from a cache: decoded as looked up
    matrix: CSR  # shape (rows, len(vocab)), float32 counts
    # The same counts by term (each term's pages), when a cache kept them: BM25 reads terms.
    postings: CSR | None = field(default=None, repr=False, compare=False)
    # Each row's number of tokens, when a cache kept them (`lengths`).
    row_lengths: np.ndarray | None = field(default=None, repr=False, compare=False)
    # Entry (page) i's rows are entry_starts[i]:entry_starts[i + 1]; None: row i alone.
    entry_starts: np.ndarray | None = field(default=None, repr=False, compare=False)
    _ids: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    def by_term(self) -> CSR:
        """The counts transposed: row j lists the pages holding term j, in page order."""
        if self.postings is None:
            self.postings = self.matrix.transpose()
        return self.postings

    def lengths(self) -> np.ndarray:
        """Each row's number of tokens (float32): BM25's document lengths. Counts are whole
        numbers, so their float64 sums are exact and equal scipy's float32 row sums (below 2^24
        tokens a page): the same lengths, bit for bit, whichever way they are summed."""
        if self.row_lengths is None:
            # Row by row, in storage order (a scatter over the postings took three times as
            # long: 0.36 s a field at 100,000 pages).
            # Whole rows of about sparse.ENTRY_SLICE counts at a time: a million pages'
            # passages are ~200 million counts, 1.5 GB as float64 at once.
            m = self.matrix
            sums = np.zeros(m.shape[0])
            rows = np.nonzero(np.diff(m.indptr) > 0)[0]
            starts = m.indptr[rows]
            cuts = np.searchsorted(starts, np.arange(0, m.nnz, sparse.ENTRY_SLICE))
            cuts = np.unique(np.concatenate([cuts, [len(rows)]])).tolist()
            for a, b in itertools.pairwise(cuts):
                some = rows[a:b]
                first, end = int(m.indptr[some[0]]), int(m.indptr[some[-1] + 1])
                data = m.data[first:end].astype(np.float64)
                sums[some] = np.add.reduceat(data, m.indptr[some] - first)
                release_pages(m.data[first:end])  # read once (a cache's: its pages go)
            self.row_lengths = sums.astype(np.float32)
        return self.row_lengths

    @property
    def term_ids(self) -> dict[str, int]:
        if self._ids is None:
            if isinstance(self.vocab, Strings):  # a term's id is its place: found in the bytes
                ids: Any = StrIds(self.vocab, np.arange(len(self.vocab)))
                self._ids = ids
            else:
                self._ids = {t: i for i, t in enumerate(self.vocab)}
        return self._ids

    @property
    def entries(self) -> int:
        """How many entries (pages) the rows belong to."""
        if self.entry_starts is None:
            return self.matrix.shape[0]
        return len(self.entry_starts) - 1

    def entry_rows(self, i: int) -> tuple[int, int]:
        """The rows of entry `i`: [start, end)."""
        return _entry_span(self.entry_starts, i)

    def entry_bounds(self) -> np.ndarray:
        """Where each entry's rows start, and the end: `entry_starts`, or one row an entry."""
        if self.entry_starts is not None:
            return self.entry_starts
        return np.arange(self.matrix.shape[0] + 1, dtype=np.int64)

    def row(self, i: int) -> dict[str, int]:
        start, end = self.matrix.indptr[i], self.matrix.indptr[i + 1]
        return {
            self.vocab[j]: int(c)
            for j, c in zip(
                self.matrix.indices[start:end], self.matrix.data[start:end], strict=True
            )
        }


def compact_counts(counts: np.ndarray) -> np.ndarray:
    """Whole-number term counts in the fewest bytes that hold every one: one byte (a generated
    million-page vault's largest count is 117 in a page, 65 in a passage: 0.5 GB less cache
    than two bytes), else two, else as they are (float32: a count of 65,536 of one word in
    one row). Counts already in one or two bytes are kept as they are, not read through (a
    cache's may be a map of a million pages' counts). Every reader converts them as it reads
    them, exactly."""
    if counts.dtype in (np.uint8, np.uint16):
        return counts
    return narrowest_counts(counts)


def narrowest_counts(counts: np.ndarray) -> np.ndarray:
    """`counts` in the fewest bytes that hold every one, reading them through (see
    `compact_counts`)."""
    top = float(counts.max()) if len(counts) else 0.0
    if top <= ONE_BYTE:
        return counts.astype(np.uint8, copy=False)
    if top <= TWO_BYTES:
        return counts.astype(np.uint16, copy=False)
    return counts


class Vocab:
    """Term -> column number, growing as new terms appear (existing numbers never change)."""

    def __init__(self, terms: Sequence[str] = ()) -> None:
        self.terms = list(terms)
        self.ids = {t: i for i, t in enumerate(self.terms)}

    def id_of(self, term: str) -> int:
        j = self.ids.get(term)
        if j is None:
            j = self.ids[term] = len(self.terms)
            self.terms.append(term)
        return j

    def ids_of(self, terms: Sequence[str]) -> np.ndarray:
        ids = list(map(self.ids.get, terms))  # known terms looked up in C, new ones below
        if None in ids:
            ids = [self.id_of(t) if j is None else j for t, j in zip(terms, ids, strict=True)]
        return np.array(ids, dtype=np.int32)


class TermBuffer:
    """One field's counts of every batch a first read brings, end to end in two growing
    arrays. When the pages are all new, the finished matrix is these arrays themselves:
    no second copy of a million pages' counts (1.25 GB) is made to join the batches. Counts
    are kept in two bytes, as the cache stores them (`compact_counts`: ~0.7 GB less at a
    million pages), until a count does not fit; likewise counts start in one byte and term
    numbers in two (`compact_counts`, `column_type`), widened when one does not fit. Given a
    `spill` folder, the arrays grow in unnamed files there instead of in memory
    (vault/spill.py)."""

    def __init__(self, expected_rows: int = 0, spill: Path | None = None) -> None:
        self.expected_rows = expected_rows
        self.rows = 0
        self.size = 0
        self.cols = np.empty(0, dtype=np.uint16)
        self.counts = np.empty(0, dtype=np.uint8)
        self._spill = spill
        self._spilled: dict[str, SpilledArray] = {}  # "cols", "counts": those in files

    def append(self, cols: np.ndarray, counts: np.ndarray, rows: int) -> int:
        """Add one batch's entries; returns where they start."""
        start, end = self.size, self.size + len(cols)
        if len(counts):
            wanted = np.result_type(self.counts.dtype, narrowest_counts(counts).dtype)
            if wanted != self.counts.dtype:  # from now on, in the type they need
                self.counts = self._resized("counts", self.counts, len(self.cols), wanted)
        if self.cols.dtype == np.uint16 and len(cols) and int(cols.max()) > TWO_BYTES:
            self.cols = self._resized("cols", self.cols, len(self.cols), np.int32)
        if end > len(self.cols):
            # Room for the rows still to come at this batch's density, and a quarter more:
            # memory never written is never taken, so a generous guess costs nothing.
            per_row = end / max(self.rows + rows, 1)
            guess = int(per_row * max(self.expected_rows, self.rows + rows) * 1.25)
            self._grow(max(end, guess, 2 * len(self.cols)))
        self.cols[start:end] = cols
        self.counts[start:end] = counts
        self.size = end
        self.rows += rows
        for spilled in self._spilled.values():
            spilled.written(end)
        return start

    def _grow(self, capacity: int) -> None:
        self.cols = self._resized("cols", self.cols, capacity, self.cols.dtype)
        self.counts = self._resized("counts", self.counts, capacity, self.counts.dtype)

    def _resized(self, name: str, old: np.ndarray, capacity: int, dtype: DTypeLike) -> np.ndarray:
        """`old`'s entries in an array `capacity` long, of `dtype`: its file made longer when
        it is in one of that type, else a new array they are copied to."""
        spilled = self._spilled.get(name)
        if spilled is not None and spilled.dtype == dtype:
            return spilled.resize(capacity)
        new = self._new_array(name, capacity, dtype)
        new[: self.size] = old[: self.size]
        return new

    def _new_array(self, name: str, capacity: int, dtype: DTypeLike) -> np.ndarray:
        self._spilled.pop(name, None)
        if self._spill is not None:
            try:
                spilled = SpilledArray(self._spill, dtype)
                array = spilled.resize(capacity)
            except (OSError, ValueError):  # no room or no file there: in memory from now on
                self._spill = None
            else:
                self._spilled[name] = spilled
                return array
        return np.empty(capacity, dtype=dtype)


@dataclass(frozen=True)
class TermBlock:
    """The counts of one batch of consecutive pages, as a worker read them and the parent
    mapped them into a `TermBuffer`: row k's columns (shared-vocabulary numbers, ascending)
    and counts are `buffer.cols[starts[k]:starts[k + 1]]` and `buffer.counts[...]`. A million
    pages arrive as 2,000 blocks rather than four million small arrays (their headers alone
    were ~0.4 GB)."""

    buffer: TermBuffer
    starts: np.ndarray  # int64, one more than the rows: places in the buffer
    # Page k's rows are entries[k]:entries[k + 1] (a page's passages); None: row k alone.
    entries: np.ndarray | None = None

    @classmethod
    def from_packed(cls, packed: PackedRows, vocab: Vocab, buffer: TermBuffer) -> TermBlock:
        """A worker's packed rows, their batch-local term numbers mapped into `vocab`,
        appended to `buffer`."""
        terms, lengths, local, counts, entries = packed
        cols = vocab.ids_of(terms)[local]
        rows = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        # Each row's columns ascending, rows in order: one sort of (row, column) as one
        # number, the order `np.lexsort((cols, rows))` gives (a row holds a column once), 5x
        # quicker (the parent of a first read does this beside the readers: ~25 CPU-s at 1M).
        order = np.argsort((rows << 32) | cols.astype(np.int64))
        start = buffer.append(cols[order], counts[order], len(lengths))
        starts = np.full(len(lengths) + 1, start, dtype=np.int64)
        starts[1:] += np.cumsum(lengths)  # `lengths` is int64: see `pack_batch`
        return cls(buffer, starts, entries)

    def rows_of(self, k: int) -> tuple[int, int]:
        return _entry_span(self.entries, k)


def _entry_span(starts: np.ndarray | None, i: int) -> tuple[int, int]:
    """Entry `i`'s rows, [start, end), from entries' starts (None: one row an entry)."""
    if starts is None:
        return i, i + 1
    return int(starts[i]), int(starts[i + 1])


# A page's term counts (an *entry*: one row, or several): a term -> count dict, a list of
# them (a page's passages), the entry number of an unchanged page in the previous index,
# (column numbers in the shared vocabulary, counts) already mapped, or entry k of a
# `TermBlock` (consecutive entries of one block are copied in one piece).
TermRow = (
    dict[str, int]
    | list[dict[str, int]]
    | int
    | tuple[np.ndarray, np.ndarray]
    | tuple[TermBlock, int]
)

# A batch's rows packed for the trip from a worker: the batch's distinct terms, each row's
# number of terms, every row's (batch-local term number, count) one after the other, and
# where each entry's rows start (None when every entry is one row).
PackedRows = tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]


def pack_batch(entries: Sequence[dict[str, int] | list[dict[str, int]]]) -> PackedRows:
    """Rows of one batch with a batch-local vocabulary, so the parent maps each distinct term
    once per batch instead of once per page (this is what keeps a 100,000-page first read
    from spending its time in dictionary lookups). An entry is one row or a list of rows."""
    chain = itertools.chain.from_iterable
    starts = None
    rows: Sequence[dict[str, int]]
    if any(isinstance(e, list) for e in entries):
        per_entry = [e if isinstance(e, list) else [e] for e in entries]
        starts = np.zeros(len(entries) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in per_entry], out=starts[1:])
        rows = list(chain(per_entry))
    else:
        rows = entries  # type: ignore[assignment]
    local: dict[str, int] = dict.fromkeys(chain(rows), 0)  # the terms, in order of first use
    for i, term in enumerate(local):
        local[term] = i
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    ids = np.array(list(map(local.__getitem__, chain(rows))), dtype=np.int32)
    # Python ints become int64 ~40% quicker than float32, and the cast is exact below 2**24.
    counts = np.array(list(chain(map(dict.values, rows))), dtype=np.int64).astype(np.float32)
    return list(local), lengths, ids, counts, starts


def build_term_index(
    rows: Sequence[TermRow],
    previous: TermIndex | None = None,
    vocab: Vocab | None = None,
) -> TermIndex:
    """Assemble the matrix from entries in page order (see `TermRow`)."""
    if vocab is None:
        vocab = Vocab(previous.vocab if previous is not None else ())
    lengths: list[int] = []
    entry_sizes: list[int] = []  # rows per entry
    # Pieces of the matrix in row order: (array, start, end); pieces of one array that
    # follow each other there (a first read's `TermBuffer`, the previous index's rows of
    # unchanged pages) are joined without copying them one by one (see `_joined`).
    index_parts: list[tuple[np.ndarray, int, int]] = []
    data_parts: list[tuple[np.ndarray, int, int]] = []
    # [source, first row, end row] of consecutive rows of one block, or of the previous
    # index (source None): copied in one piece when the run ends.
    run: list[Any] = []

    def copy_run() -> None:
        source, first, end = run
        if source is None:
            assert previous is not None
            starts = previous.matrix.indptr
            cols, counts = previous.matrix.indices, previous.matrix.data
        else:
            starts, cols, counts = source.starts, source.buffer.cols, source.buffer.counts
        a, b = int(starts[first]), int(starts[end])
        index_parts.append((cols, a, b))
        data_parts.append((counts, a, b))
        lengths.extend(np.diff(starts[first : end + 1]).tolist())
        run.clear()

    def extend_run(source: TermBlock | None, first: int, end: int) -> None:
        entry_sizes.append(end - first)
        if run and run[0] is source and run[2] == first:
            run[2] = end
            return
        if run:
            copy_run()
        run.extend((source, first, end))

    def add(row: dict[str, int] | tuple[np.ndarray, np.ndarray]) -> None:
        if isinstance(row, dict):
            cols = vocab.ids_of(list(row))
            vals = np.fromiter(row.values(), dtype=np.float32, count=len(row))
        else:
            cols, vals = row
        # As few bytes as hold them, as a first read and the cache keep them: one page read
        # again made a million pages' counts float32 in a refresh (~0.7 GB more), and would
        # make its term numbers four bytes.
        vals = compact_counts(vals)
        if not len(cols) or int(cols.max()) <= TWO_BYTES:
            cols = cols.astype(np.uint16)
        order = np.argsort(cols, kind="stable")
        index_parts.append((cols[order], 0, len(cols)))
        data_parts.append((vals[order], 0, len(vals)))
        lengths.append(len(cols))

    for row in rows:
        if isinstance(row, tuple) and isinstance(row[0], TermBlock):
            block, k = row
            extend_run(block, *block.rows_of(k))
            continue
        if isinstance(row, int):
            assert previous is not None
            extend_run(None, *previous.entry_rows(row))
            continue
        if run:
            copy_run()
        if isinstance(row, list):
            for one in row:
                add(one)
            entry_sizes.append(len(row))
        else:
            add(row)
            entry_sizes.append(1)
    if run:
        copy_run()
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=indptr[1:])
    matrix = CSR(
        indptr,
        _joined(index_parts, _common_type(index_parts, np.int32)),
        _joined(data_parts, _common_type(data_parts, np.float32)),
        (len(lengths), len(vocab.terms)),
    )
    entry_starts = None
    if any(n != 1 for n in entry_sizes):
        entry_starts = np.zeros(len(entry_sizes) + 1, dtype=np.int64)
        np.cumsum(np.asarray(entry_sizes, dtype=np.int64), out=entry_starts[1:])
    return TermIndex(vocab.terms, matrix, entry_starts=entry_starts)


def _common_type(parts: Sequence[tuple[np.ndarray, int, int]], otherwise: type) -> Any:
    """The narrowest unsigned type holding every piece when each is unsigned (a first read's
    buffers, a cache's arrays, a page read again: counts in one or two bytes, term numbers in
    two or four), else `otherwise`: joining makes a new array anyway."""
    if parts and all(array.dtype.kind == "u" for array, _, _ in parts):
        return np.result_type(*(array.dtype for array, _, _ in parts))
    return otherwise


def _joined(parts: Sequence[tuple[np.ndarray, int, int]], dtype: type) -> np.ndarray:
    """The pieces end to end: a view of their array when they are one stretch of it (a first
    read's `TermBuffer`), else a new array."""
    merged: list[tuple[np.ndarray, int, int]] = []
    for array, a, b in parts:
        if merged and merged[-1][0] is array and merged[-1][2] == a:
            merged[-1] = (array, merged[-1][1], b)
        else:
            merged.append((array, a, b))
    if len(merged) == 1:
        array, a, b = merged[0]
        return array[a:b].astype(dtype, copy=False)
    if not merged:
        return np.empty(0, dtype=dtype)
    pieces = [array[a:b] for array, a, b in merged]
    joined: np.ndarray = np.concatenate(pieces).astype(dtype, copy=False)
    for array, a, b in merged:  # a cache's rows, copied: their pages go back (GBs at 1M)
        release_pages(array[a:b])
    return joined
