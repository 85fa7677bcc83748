"""Term counts that arrive from worker processes in batches: the same matrix as page by page."""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np
import pytest

from wikiq.vault.terms import TermBlock, TermBuffer, Vocab, build_term_index, pack_batch

PAGES = [
    {"moon": 2, "orbit": 1},
    {"comet": 3},
    {},
    {"orbit": 4, "dust": 1, "comet": 1},
    {"moon": 1, "tide": 2},
    {"dust": 5},
]


def _blocks(batches: list[list[dict[str, int]]], buffer: TermBuffer, vocab: Vocab) -> list:
    rows = []
    for batch in batches:
        block = TermBlock.from_packed(pack_batch(batch), vocab, buffer)
        rows += [(block, k) for k in range(len(batch))]
    return rows


def _same(got, want) -> None:  # type: ignore[no-untyped-def]
    assert got.vocab == want.vocab
    for a, b in zip(
        (got.matrix.indptr, got.matrix.indices, got.matrix.data),
        (want.matrix.indptr, want.matrix.indices, want.matrix.data),
        strict=True,
    ):
        assert np.array_equal(a, b)


@pytest.fixture(params=["memory", "spilled"])
def spill(request: pytest.FixtureRequest, tmp_path: Path) -> Path | None:
    """Buffers in memory, or growing in unnamed files (a first read of a large vault)."""
    return tmp_path if request.param == "spilled" else None


def _in_a_file(array: np.ndarray) -> bool:
    owner = array
    while isinstance(owner, np.ndarray):
        owner = owner.base  # type: ignore[assignment]
    if isinstance(owner, memoryview):
        owner = owner.obj  # type: ignore[assignment]
    return isinstance(owner, mmap.mmap)


def test_batches_give_the_matrix_page_by_page_reading_gives(spill: Path | None) -> None:
    want = build_term_index(PAGES)
    vocab = Vocab()
    buffer = TermBuffer(expected_rows=len(PAGES), spill=spill)
    got = build_term_index(_blocks([PAGES[:2], PAGES[2:5], PAGES[5:]], buffer, vocab), None, vocab)
    _same(got, want)
    assert got.row(3) == {"orbit": 4, "dust": 1, "comet": 1}
    assert _in_a_file(got.matrix.indices) == _in_a_file(got.matrix.data) == (spill is not None)


def test_a_first_read_keeps_the_buffer_as_the_matrix_without_a_copy() -> None:
    vocab = Vocab()
    buffer = TermBuffer(expected_rows=len(PAGES))
    got = build_term_index(_blocks([PAGES[:3], PAGES[3:]], buffer, vocab), None, vocab)
    assert np.shares_memory(got.matrix.indices, buffer.cols)
    assert np.shares_memory(got.matrix.data, buffer.counts)


def test_a_buffer_that_outgrows_its_guess_loses_nothing(spill: Path | None) -> None:
    # The first batch is sparse and the guess is for two pages: later batches must grow it.
    vocab = Vocab()
    buffer = TermBuffer(expected_rows=2, spill=spill)
    got = build_term_index(_blocks([PAGES[2:3], PAGES[:2], PAGES[3:]], buffer, vocab), None, vocab)
    _same(got, build_term_index([PAGES[2], *PAGES[:2], *PAGES[3:]]))


def test_block_rows_mixed_with_kept_and_new_rows_stay_in_page_order() -> None:
    old = build_term_index(PAGES)
    vocab = Vocab(old.vocab)
    buffer = TermBuffer(expected_rows=2)
    block = TermBlock.from_packed(pack_batch([{"nebula": 2}, {"moon": 7}]), vocab, buffer)
    rows = [0, (block, 0), {"quasar": 1}, 3, (block, 1), 5]
    got = build_term_index(rows, old, vocab)
    assert [got.row(i) for i in range(6)] == [
        PAGES[0],
        {"nebula": 2},
        {"quasar": 1},
        PAGES[3],
        {"moon": 7},
        PAGES[5],
    ]


# Pages with several rows each (their passages), one page with none.
PASSAGES = [
    [{"moon": 2}, {"orbit": 1, "moon": 1}],
    [{"comet": 3}],
    [],
    [{"orbit": 4}, {"dust": 1}, {"comet": 1, "dust": 2}],
]


def _passages(index, page: int) -> list[dict[str, int]]:  # type: ignore[no-untyped-def]
    first, end = index.entry_rows(page)
    return [index.row(r) for r in range(first, end)]


def test_pages_of_several_rows_keep_their_rows_through_blocks_and_refreshes() -> None:
    want = build_term_index(PASSAGES)
    assert [_passages(want, i) for i in range(4)] == PASSAGES
    assert want.entry_bounds().tolist() == [0, 2, 3, 3, 6]  # rows 0-1 page 0, 2 page 1, 3-5 page 3
    vocab = Vocab()
    buffer = TermBuffer(expected_rows=4)
    got = build_term_index(_blocks([PASSAGES[:3], PASSAGES[3:]], buffer, vocab), None, vocab)
    assert [_passages(got, i) for i in range(4)] == PASSAGES
    # A refresh: pages 0 and 3 unchanged (their rows copied), page 1 edited, page 2 now
    # with a passage, a new page at the end.
    vocab = Vocab(got.vocab)
    block = TermBlock.from_packed(pack_batch([[{"nebula": 2}, {"moon": 1}]]), vocab, buffer)
    again = build_term_index([0, (block, 0), [{"quasar": 1}], 3, []], got, vocab)
    assert [_passages(again, i) for i in range(5)] == [
        PASSAGES[0],
        [{"nebula": 2}, {"moon": 1}],
        [{"quasar": 1}],
        PASSAGES[3],
        [],
    ]
    assert again.entries == 5


def test_batch_counts_are_kept_in_one_byte_until_one_does_not_fit(spill: Path | None) -> None:
    vocab, buffer = Vocab(), TermBuffer(expected_rows=4, spill=spill)
    rows = _blocks([PAGES[:3]], buffer, vocab)
    assert build_term_index(rows, vocab=vocab).matrix.data.dtype == np.uint8
    many = [{"moon": 300, "dust": 1}]  # one word 300 times in one page: two bytes
    rows += _blocks([many], buffer, vocab)
    assert build_term_index(rows, vocab=vocab).matrix.data.dtype == np.uint16
    huge = [{"moon": 70_000, "dust": 1}]  # one word 70,000 times in one page
    rows += _blocks([huge, PAGES[3:]], buffer, vocab)
    got = build_term_index(rows, vocab=vocab)
    assert got.matrix.data.dtype == np.float32
    _same(got, build_term_index(PAGES[:3] + many + huge + PAGES[3:]))


def test_a_buffer_that_cannot_spill_keeps_its_counts_in_memory(tmp_path: Path) -> None:
    vocab = Vocab()
    buffer = TermBuffer(expected_rows=len(PAGES), spill=tmp_path / "not a folder")
    got = build_term_index(_blocks([PAGES[:2], PAGES[2:]], buffer, vocab), None, vocab)
    _same(got, build_term_index(PAGES))
    assert not _in_a_file(got.matrix.indices)


def test_term_numbers_are_kept_in_two_bytes_until_the_vocabulary_outgrows_them(
    spill: Path | None,
) -> None:
    # 70,000 distinct words: the numbers past 65,535 need four bytes, and the rows read
    # before them keep their terms.
    vocab, buffer = Vocab(), TermBuffer(expected_rows=3, spill=spill)
    rows = _blocks([PAGES[:2]], buffer, vocab)
    assert build_term_index(rows, vocab=vocab).matrix.indices.dtype == np.uint16
    many = [{f"w{k}": 1 for k in range(70_000)}]
    rows += _blocks([many, PAGES[2:]], buffer, vocab)
    got = build_term_index(rows, vocab=vocab)
    assert got.matrix.indices.dtype == np.int32
    _same(got, build_term_index(PAGES[:2] + many + PAGES[2:]))
    # A page read again in a refresh keeps two bytes where its numbers fit, four where not.
    again = build_term_index([0, {"moon": 1}, 2], build_term_index(PAGES[:3]))
    assert again.matrix.indices.dtype == np.uint16 and again.row(1) == {"moon": 1}
