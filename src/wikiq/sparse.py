"""Sparse matrices as three flat arrays (compressed rows), with the few operations a question needs.

A question only ever reads rows of a matrix (a page's links, a term's postings) and, for the
reference PPR, multiplies by a vector. `import scipy.sparse` alone cost a `wikiq search`
process about 0.2-0.4 s (scipy 1.17 clones numpy's namespace through `array_api_compat`), so
the query path keeps the arrays in this type and never imports scipy; building an index that
needs sparse algebra converts with `to_scipy`/`from_scipy` (scipy imported only then).

Every operation gives scipy's result bit for bit, in the same entry order: `transpose` is
scipy's `.T.tocsr()`, `matvec` its `@` (tests/test_sparse.py holds them side by side).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

# Entries a pass over a whole matrix reads at a time (64 MB of int32): a million pages' term
# counts are ~350 million entries, and a temporary for all of them at once is GBs.
ENTRY_SLICE = 1 << 24


def offsets_fit(offsets: object, total: int) -> bool:
    """Whether `offsets` can cut `total` items into pieces: one dimension, from 0 to `total`,
    never falling (a cache's row, entry or block offsets: damaged ones are never followed)."""
    return (
        isinstance(offsets, np.ndarray)
        and offsets.ndim == 1
        and len(offsets) >= 1
        and int(offsets[0]) == 0
        and int(offsets[-1]) == total
        and bool(np.all(np.diff(offsets) >= 0))
    )


@dataclass(frozen=True, eq=False)
class CSR:
    """A matrix by rows: row i holds columns `indices[indptr[i]:indptr[i+1]]` with `data`."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    shape: tuple[int, int]

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1]) if len(self.indptr) else 0

    def row(self, i: int) -> np.ndarray:
        """The columns of row `i` (a view, in stored order)."""
        return self.indices[self.indptr[i] : self.indptr[i + 1]]

    def row_values(self, i: int) -> np.ndarray:
        return self.data[self.indptr[i] : self.indptr[i + 1]]

    def row_size(self, i: int) -> int:
        return int(self.indptr[i + 1] - self.indptr[i])

    def entry_rows(self) -> np.ndarray:
        """The row of every stored entry."""
        return np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))

    def transpose(self) -> CSR:
        """The transpose, by rows. Within a row, entries keep their original row order (a stable
        counting sort, as scipy's csr→csc), so sums over a row add in the same order."""
        n_rows, n_cols = self.shape
        cols = self.indices[: self.nnz]
        index_type = _index_type(max(self.shape), self.nnz)
        scipy_sparse = sys.modules.get("scipy.sparse")
        if scipy_sparse is not None and self.nnz:
            # Building indexes has scipy loaded already: its csr→csc is this same counting
            # sort in C, in one pass instead of a sort (a 100,000-page refresh transposes
            # ~50 million entries). Never imported for it: see the module's docstring.
            data = np.ascontiguousarray(self.data[: self.nnz])  # a cache's ones are a view
            t = scipy_sparse.csr_matrix((data, cols, self.indptr), shape=self.shape).tocsc()
            return CSR(
                t.indptr.astype(index_type, copy=False),
                t.indices.astype(index_type, copy=False),
                t.data,
                (n_cols, n_rows),
            )
        order = np.argsort(cols, kind="stable")
        counts = np.bincount(cols, minlength=n_cols)
        indptr = np.zeros(n_cols + 1, dtype=index_type)
        np.cumsum(counts, out=indptr[1:])
        rows = self.entry_rows()[order].astype(index_type, copy=False)
        return CSR(indptr, rows, self.data[: self.nnz][order], (n_cols, n_rows))

    def matvec(self, x: np.ndarray) -> np.ndarray:
        """`self @ x` for a float64 vector: each row summed in stored order (scipy's loop)."""
        products = self.data[: self.nnz] * x[self.indices[: self.nnz]]
        return np.bincount(self.entry_rows(), weights=products, minlength=self.shape[0])

    def check(self, done: Callable[[np.ndarray], None] | None = None) -> CSR:
        """Raise ValueError unless the arrays describe a matrix of this shape (a damaged cache
        must never index out of bounds or read another row's entries). The columns are
        checked a slice at a time, each passed to `done` once checked (a memory-mapped cache
        hands its pages back: the check need not hold a million pages' postings at once)."""
        n_rows, n_cols = self.shape
        ip, ix = self.indptr, self.indices
        if ip.ndim != 1 or ix.ndim != 1 or self.data.ndim != 1 or len(ip) != n_rows + 1:
            raise ValueError("sparse matrix: arrays do not fit its shape")
        if not (np.issubdtype(ip.dtype, np.integer) and np.issubdtype(ix.dtype, np.integer)):
            raise ValueError("sparse matrix: index arrays are not integers")
        if ip[0] != 0 or ip[-1] != len(ix) or len(ix) != len(self.data):
            raise ValueError("sparse matrix: row offsets do not cover its entries")
        if len(ip) > 1 and np.any(ip[1:] < ip[:-1]):
            raise ValueError("sparse matrix: row offsets go backwards")
        for at in range(0, len(ix), ENTRY_SLICE):
            piece = ix[at : at + ENTRY_SLICE]
            if int(piece.min()) < 0 or int(piece.max()) >= n_cols:
                raise ValueError("sparse matrix: a column lies outside its shape")
            if done is not None:
                done(piece)
        return self

    @classmethod
    def from_scipy(cls, matrix: Any) -> CSR:
        """A scipy sparse matrix or array, by rows."""
        m = matrix.tocsr()
        return cls(m.indptr, m.indices, m.data, (int(m.shape[0]), int(m.shape[1])))

    def to_scipy(self) -> Any:
        """The same matrix as scipy's csr_matrix (imports scipy: for building, never queries)."""
        import scipy.sparse as sp

        # Contiguous: scipy's loops read `data` as a plain buffer (a cache's ones are a view).
        data = np.ascontiguousarray(self.data)
        return sp.csr_matrix((data, self.indices, self.indptr), shape=self.shape)


# Columns a block of `SplitCSR` holds: its column numbers are kept as their place in the block.
BLOCK = 1 << 16


@dataclass(frozen=True, eq=False)
class SplitCSR:
    """A matrix by rows whose columns ascend within each row, kept in two bytes a column: each
    column as its place within its block of BLOCK columns (`low`), and each row's entries
    split where a block begins (`block_starts`). A million pages' postings hold ~150 million
    page numbers, 0.6 GB as int32 and half that here, for ~0.1 ms more a question's term
    (one add over its postings a block). Rows are read as CSR's are: `row`, `row_values`."""

    indptr: np.ndarray  # int64, rows + 1
    low: np.ndarray  # uint16: each entry's column, less its block's first
    data: np.ndarray
    # (rows, blocks + 1), int32: row i's entries of block b are
    # indptr[i] + block_starts[i, b] : indptr[i] + block_starts[i, b + 1].
    block_starts: np.ndarray
    shape: tuple[int, int]

    @classmethod
    def of(cls, m: CSR) -> SplitCSR:
        """`m` (its columns ascending in every row) split, a slice of entries at a time."""
        n_rows, n_cols = m.shape
        blocks = max(1, -(-n_cols // BLOCK))
        if blocks == 1:  # every column fits in two bytes (most vaults): each row one block
            starts = np.zeros((n_rows, 2), dtype=np.int32)
            starts[:, 1] = np.diff(m.indptr)
            return cls(
                m.indptr, m.indices[: m.nnz].astype(np.uint16), m.data[: m.nnz], starts, m.shape
            )
        low = np.empty(m.nnz, dtype=np.uint16)
        per_block = np.zeros(n_rows * blocks, dtype=np.int64)
        firsts = np.searchsorted(m.indptr, np.arange(0, m.nnz, ENTRY_SLICE), side="right") - 1
        cuts = np.unique(np.concatenate([[0], firsts, [n_rows]])).tolist()
        for r0, r1 in itertools.pairwise(cuts):
            a, b = int(m.indptr[r0]), int(m.indptr[r1])
            cols = m.indices[a:b]
            low[a:b] = cols & (BLOCK - 1)
            rows = np.repeat(np.arange(r0, r1, dtype=np.int64), np.diff(m.indptr[r0 : r1 + 1]))
            per_block += np.bincount(rows * blocks + (cols >> 16), minlength=n_rows * blocks)
        starts = np.zeros((n_rows, blocks + 1), dtype=np.int32)
        np.cumsum(per_block.reshape(n_rows, blocks), axis=1, out=starts[:, 1:])
        return cls(m.indptr, low, m.data[: m.nnz], starts, m.shape)

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1]) if len(self.indptr) else 0

    def row(self, i: int) -> np.ndarray:
        """The columns of row `i`, ascending (int32, as CSR keeps them; a new array)."""
        a = int(self.indptr[i])
        cols = self.low[a : int(self.indptr[i + 1])].astype(np.int32)
        starts = self.block_starts[i].tolist()
        for b in range(1, len(starts) - 1):
            if starts[b + 1] > starts[b]:
                cols[starts[b] : starts[b + 1]] += b * BLOCK
        return cols

    def row_values(self, i: int) -> np.ndarray:
        return self.data[self.indptr[i] : self.indptr[i + 1]]

    def row_size(self, i: int) -> int:
        return int(self.indptr[i + 1] - self.indptr[i])

    def joined(self) -> CSR:
        """The same matrix as a CSR (every column decoded: for tests and whole-matrix work)."""
        rows = [self.row(i) for i in range(self.shape[0])]
        indices = np.concatenate(rows) if rows else np.empty(0, np.int32)
        return CSR(self.indptr, indices.astype(np.int32), self.data, self.shape)

    def check(self, done: Callable[[np.ndarray], None] | None = None) -> SplitCSR:
        """Raise ValueError unless the arrays describe a matrix of this shape (see CSR.check):
        every row's block starts rise from 0 to its length, and its last block's places stay
        inside the shape."""
        n_rows, n_cols = self.shape
        ip, starts = self.indptr, self.block_starts
        blocks = max(1, -(-n_cols // BLOCK))
        if self.low.dtype != np.uint16 or starts.shape != (n_rows, blocks + 1):
            raise ValueError("split matrix: arrays do not fit its shape")
        CSR(ip, self.low, self.data, (n_rows, BLOCK)).check(done)
        if np.any(starts[:, 0] != 0) or np.any(starts[:, -1] != np.diff(ip)):
            raise ValueError("split matrix: blocks do not cover their rows")
        if np.any(np.diff(starts, axis=1) < 0):
            raise ValueError("split matrix: blocks go backwards")
        last = n_cols - (blocks - 1) * BLOCK  # columns the last block holds
        if last < BLOCK:  # the other blocks are whole: any two bytes fit them
            first = ip[:-1] + starts[:, -2]
            sizes = starts[:, -1] - starts[:, -2]
            held = np.repeat(first - np.cumsum(sizes) + sizes, sizes) + np.arange(int(sizes.sum()))
            if len(held) and int(self.low[held].max()) >= last:
                raise ValueError("split matrix: a column lies outside its shape")
        return self


def from_rows(rows: list[np.ndarray], data: list[np.ndarray], n_cols: int) -> CSR:
    """A matrix from each row's columns and values, in the order given."""
    sizes = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    index_type = _index_type(max(len(rows), n_cols), int(sizes.sum()))
    indptr = np.zeros(len(rows) + 1, dtype=index_type)
    np.cumsum(sizes, out=indptr[1:])
    indices = np.concatenate(rows).astype(index_type) if rows else np.empty(0, index_type)
    values = np.concatenate(data) if data else np.empty(0, np.float32)
    return CSR(indptr, indices, values, (len(rows), n_cols))


def row_entries(
    indptr: np.ndarray, rows: np.ndarray, sizes: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Where every entry of `rows` sits in a matrix's arrays (given its row offsets), one row's
    after another, and where each row's entries begin among them (a row with none: where the
    next one's begin). `sizes`: each row's number of entries, when the caller has them."""
    first = indptr[rows]
    if sizes is None:
        sizes = indptr[rows + 1] - first
    heads = np.cumsum(sizes) - sizes
    return np.repeat(first - heads, sizes) + np.arange(int(sizes.sum())), heads


def positions_in(sorted_values: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of `wanted` would sit in `sorted_values` (not empty), and whether it is
    there: a row's columns looked up among a few candidates, or the candidates among a row."""
    at = np.minimum(np.searchsorted(sorted_values, wanted), len(sorted_values) - 1)
    return at, sorted_values[at] == wanted


def distinct_values(values: np.ndarray, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of `values` (page numbers, in no particular order) and, for each
    value, the position of its value among them: np.unique's work without its sort, through a
    scratch array `slots` indexed by value (as long as the vault; never cleared, since every
    slot read here was written here first)."""
    at = np.arange(len(values))
    slots[values] = at  # one occurrence of each value wins its slot, whichever
    distinct = values[slots[values] == at]
    slots[distinct] = np.arange(len(distinct))
    return distinct, slots[values]


def _index_type(largest_dim: int, nnz: int) -> type[np.signedinteger[Any]]:
    """int32 while it fits (scipy's choice too: half the memory of int64)."""
    return np.int32 if max(largest_dim, nnz) < np.iinfo(np.int32).max else np.int64
