"""The flat sparse type gives scipy's results bit for bit, and refuses arrays that are not a matrix."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from wikiq import sparse
from wikiq.retrieve.body import K1, BodyIndex
from wikiq.retrieve.passage_bm25 import PassageIndex, passage_weights
from wikiq.sparse import CSR, SplitCSR, distinct_values
from wikiq.vault import store
from wikiq.vault.terms import TermIndex


def _random(rows: int, cols: int, seed: int) -> sp.csr_matrix:
    m = sp.random(rows, cols, density=0.05, random_state=seed, format="csr")
    m.data = np.random.default_rng(seed).random(m.nnz) * 1000.0
    return m


@pytest.mark.parametrize("seed", range(5))
def test_transpose_and_matvec_are_scipys_to_the_last_bit(seed: int) -> None:
    m = _random(300, 200, seed)
    flat = CSR.from_scipy(m)
    t, flat_t = m.T.tocsr(), flat.transpose()
    # Without scipy loaded (a search process), the transpose is numpy's: the same bits.
    with pytest.MonkeyPatch.context() as patch:
        patch.delitem(sys.modules, "scipy.sparse")
        own = flat.transpose()
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(own, name), getattr(flat_t, name))
        assert getattr(own, name).dtype == getattr(flat_t, name).dtype
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(t, name), getattr(flat_t, name))
    x = np.random.default_rng(seed).random(200)
    assert np.array_equal(flat.matvec(x), m @ x)
    y = np.random.default_rng(seed + 1).random(300)
    assert np.array_equal(flat_t.matvec(y), t @ y)


@pytest.mark.parametrize("entries_at_a_time", [1 << 24, 1, 5])
def test_bm25_weights_are_the_ones_scipy_computed(
    entries_at_a_time: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The weights as BodyIndex computed them with scipy before it had its own sparse type,
    # whatever the slices they are weighed in.
    monkeypatch.setattr(sparse, "ENTRY_SLICE", entries_at_a_time)
    counts = sp.random(60, 40, density=0.2, random_state=1, format="csr", dtype=np.float32)
    counts.data = np.ceil(counts.data * 9).astype(np.float32)  # whole term counts
    index = BodyIndex(TermIndex([f"t{j}" for j in range(40)], CSR.from_scipy(counts)))
    doc_len = np.asarray(counts.sum(axis=1)).ravel()
    norm = K1 * (1.0 - 0.75 + 0.75 * doc_len / float(doc_len.mean()))
    rows = np.repeat(np.arange(60), np.diff(counts.indptr))
    w = counts.data * (K1 + 1.0) / (counts.data + norm[rows]) * index.idf[counts.indices]
    expected = sp.csr_matrix((w.astype(np.float32), counts.indices, counts.indptr), shape=counts.shape).tocsc()
    weights = index.weight_matrix()
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(weights, name), getattr(expected, name))


def test_bm25_weighed_as_read_gives_the_weights_of_the_whole_matrix_in_one_byte_or_four() -> None:
    # The counts are kept in one byte and weighed as a question reads them: the same bits as
    # the whole matrix weighed at once (as the index stored it), and as float32 counts give.
    counts = sp.random(80, 50, density=0.2, random_state=2, format="csr", dtype=np.float32)
    counts.data = np.ceil(counts.data * 9).astype(np.float32)
    terms = TermIndex([f"t{j}" for j in range(50)], CSR.from_scipy(counts))
    index = BodyIndex(terms)
    assert index.postings.data.dtype == np.uint8
    whole = index.weight_matrix()
    for j in range(50):
        assert np.array_equal(index._postings(j)[1], whole.row_values(j))
    weighed = BodyIndex(terms, weighed=True)  # the weights kept, as the text index keeps them
    assert weighed.postings.data.dtype == np.float32
    for j in range(50):
        assert np.array_equal(weighed._postings(j)[1], whole.row_values(j))
    query = ["t1", "t7", "t7", "t30", "nope"]
    a, b = index.search(query), weighed.search(query)
    assert np.array_equal(a.pages, b.pages) and np.array_equal(a.scores, b.scores)
    assert np.array_equal(a.coverage, b.coverage)
    g1, g2 = index.search_groups([["t2", "t3"], ["t9"]]), weighed.search_groups([["t2", "t3"], ["t9"]])
    assert np.array_equal(g1.pages, g2.pages) and np.array_equal(g1.scores, g2.scores)
    counts.data[0] = 300.0  # no longer fits one byte: two
    wide = BodyIndex(TermIndex(terms.vocab, CSR.from_scipy(counts)))
    assert wide.postings.data.dtype == np.uint16
    whole = wide.weight_matrix()
    for j in range(50):
        assert np.array_equal(wide._postings(j)[1], whole.row_values(j))


def test_scoring_chosen_passages_gives_their_scores_in_a_full_search() -> None:
    counts = sp.random(90, 30, density=0.25, random_state=3, format="csr", dtype=np.float32)
    counts.data = np.ceil(counts.data * 9).astype(np.float32)
    terms = TermIndex([f"t{j}" for j in range(30)], CSR.from_scipy(counts))
    passages = _passage_index(terms)
    assert passages.counts.data.dtype == np.uint8  # whole counts kept in one byte
    query = ["t2", "t5", "t5", "t11", "absent"]
    full = BodyIndex(terms).search(query, limit=90).as_dict()
    rows = np.array([70, 3, 44, 12, 89, 0])  # in any order, some holding no query term
    got = passages.score_rows(query, rows)
    # The same weights added in the same order: the same bits as the full search.
    assert got.tolist() == [full.get(r, 0.0) for r in rows.tolist()]
    assert passages.score_rows(query, rows[:0]).size == 0
    assert not passages.score_rows(["absent"], rows).any()


def test_a_page_s_passages_are_found_by_its_rows() -> None:
    counts = sp.random(7, 5, density=0.5, random_state=4, format="csr", dtype=np.float32)
    counts.data = np.ceil(counts.data * 9).astype(np.float32)
    starts = np.array([0, 2, 2, 5, 7])  # page 1 has no passage
    terms = TermIndex([f"t{j}" for j in range(5)], CSR.from_scipy(counts), entry_starts=starts)
    pages, rows, heads = _passage_index(terms).page_rows(np.array([3, 1, 0, 2]))
    assert pages.tolist() == [3, 0, 2]
    assert rows.tolist() == [5, 6, 0, 1, 2, 3, 4] and heads.tolist() == [0, 2, 4]


def test_a_count_too_large_for_two_bytes_is_kept_whole() -> None:
    counts = sp.csr_matrix(np.array([[70_000.0, 1.0], [0.0, 2.0]], dtype=np.float32))
    passages = _passage_index(TermIndex(["big", "small"], CSR.from_scipy(counts)))
    assert passages.counts.data.tolist() == [70_000.0, 1.0, 2.0]
    full = BodyIndex(TermIndex(["big", "small"], CSR.from_scipy(counts))).search(["big"])
    assert passages.score_rows(["big"], np.array([0])).tolist() == full.scores.tolist()


def _damaged(kind: str) -> CSR:
    good = CSR.from_scipy(_random(20, 10, 3))
    indptr, indices = good.indptr.copy(), good.indices.copy()
    if kind == "offsets past the end":
        indptr[-1] += 5
    elif kind == "offsets going backwards":
        indptr[5], indptr[6] = indptr[6], indptr[5] - 1
    elif kind == "column out of range":
        indices[0] = 10
    elif kind == "negative column":
        indices[-1] = -1
    elif kind == "wrong number of rows":
        return CSR(indptr[:-1], indices, good.data, good.shape)
    return CSR(indptr, indices, good.data, good.shape)


@pytest.mark.parametrize(
    "kind",
    [
        "offsets past the end",
        "offsets going backwards",
        "column out of range",
        "negative column",
        "wrong number of rows",
    ],
)
def test_a_stored_matrix_whose_arrays_do_not_fit_loads_as_nothing(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "m.npz"
    damaged = _damaged(kind)
    assert store.save(path, {"m": damaged})
    assert store.load(path) is None
    with pytest.raises(ValueError):
        damaged.check()


def test_a_stored_matrix_comes_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "m.npz"
    m = CSR.from_scipy(_random(30, 12, 4))
    assert store.save(path, {"m": m})
    back = store.load(path)["m"]
    assert back.shape == m.shape
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(back, name), getattr(m, name))


def test_distinct_values_are_uniques_with_their_slots() -> None:
    # The walk's pushes group a round's targets this way instead of sorting them.
    rng = np.random.default_rng(7)
    values = rng.integers(0, 500, size=2000)
    scratch = np.empty(500, dtype=np.int64)
    distinct, slot = distinct_values(values, scratch)
    assert sorted(distinct.tolist()) == np.unique(values).tolist()
    assert np.array_equal(distinct[slot], values)
    # Sums by slot are the sums by value, each added in the order the values came.
    weights = rng.random(2000)
    by_slot = np.bincount(slot, weights=weights, minlength=len(distinct))
    by_value = np.bincount(values, weights=weights, minlength=500)
    assert np.array_equal(by_slot, by_value[distinct])


def _passage_index(terms: TermIndex) -> PassageIndex:
    return PassageIndex(passage_weights(terms), terms)


@pytest.mark.parametrize("n_cols", [5, 65_536, 65_537, 200_001])
def test_split_columns_give_back_every_row(n_cols: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Page numbers kept in two bytes and split by block: every row as it was, read in slices.
    monkeypatch.setattr(sparse, "ENTRY_SLICE", 7)
    m = sp.random(40, n_cols, density=min(1.0, 300 / n_cols), random_state=5, format="csr")
    m.data = np.ceil(m.data * 9)
    flat = CSR.from_scipy(m)
    split = SplitCSR.of(flat).check()
    for i in range(40):
        assert flat.row(i).tolist() == split.row(i).tolist()
        assert np.array_equal(flat.row_values(i), split.row_values(i))
    assert split.low.dtype == np.uint16 and split.row(0).dtype == np.int32


def test_split_columns_that_lie_outside_the_shape_are_refused() -> None:
    m = CSR.from_scipy(sp.csr_matrix(np.eye(3, 70_000)))
    split = SplitCSR.of(m)
    bad_blocks = split.block_starts.copy()
    bad_blocks[0, 1] = 5  # more entries than the row holds
    with pytest.raises(ValueError):
        SplitCSR(split.indptr, split.low, split.data, bad_blocks, split.shape).check()
    wide = SplitCSR.of(CSR.from_scipy(sp.csr_matrix(([1.0], ([0], [69_999])), shape=(1, 70_000))))
    with pytest.raises(ValueError):  # its last block holds 4,464 columns, not 65,536
        SplitCSR(wide.indptr, wide.low + 5_000, wide.data, wide.block_starts, (1, 70_000)).check()


@pytest.mark.parametrize("weighed", [False, True])
def test_scoring_block_by_block_gives_the_sums_of_one_bincount(
    weighed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pages past 65,536 (three blocks of split page numbers); both ways of a full scoring
    # add every page's weights in the question's order from 0: the same bits.
    from wikiq.retrieve import body as body_module

    counts = sp.random(140_000, 30, density=0.01, random_state=6, format="csr", dtype=np.float32)
    counts.data = np.ceil(counts.data * 9).astype(np.float32)
    index = BodyIndex(TermIndex([f"t{j}" for j in range(30)], CSR.from_scipy(counts)), weighed=weighed)
    ids = [3, 17, 3, 29, 0]
    monkeypatch.setattr(body_module, "BLOCKS_FROM", 10**12)
    pages, scores = index._score_all(ids)
    monkeypatch.setattr(body_module, "BLOCKS_FROM", 0)
    blocks_pages, blocks_scores = index._score_all(ids)
    assert pages.tolist() == blocks_pages.tolist() and scores.tolist() == blocks_scores.tolist()
    assert pages.max() > 2 * 65_536


def test_offsets_fit_only_offsets_from_0_to_the_total_that_never_fall() -> None:
    from wikiq.sparse import offsets_fit

    assert offsets_fit(np.array([0, 2, 2, 5]), 5)
    assert offsets_fit(np.array([0]), 0)
    for bad in (np.array([1, 5]), np.array([0, 4]), np.array([0, 3, 2, 5]), np.array([]), [0, 5]):
        assert not offsets_fit(bad, 5), bad
    assert not offsets_fit(np.array([[0, 5]]), 5)
