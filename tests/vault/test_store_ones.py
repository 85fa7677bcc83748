"""A sparse matrix of float32 ones (the link graph) is kept without its ones and reads back as the
same matrix: rows, transpose and scipy's view of it alike."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wikiq.sparse import CSR
from wikiq.vault import store


def _graph() -> CSR:
    return CSR(
        np.array([0, 2, 3, 3], np.int32),
        np.array([2, 1, 0], np.int32),
        np.ones(3, np.float32),
        (3, 3),
    )


def test_ones_are_not_kept_and_read_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "g.npz"
    graph = _graph()
    assert store.save(path, {"g": graph, "w": CSR(graph.indptr, graph.indices, np.full(3, 2, np.float32), (3, 3))})
    loaded = store.load(path)
    g = loaded["g"]
    assert g.data.dtype == np.float32 and g.data.strides == (0,)  # no memory, no bytes on disk
    assert loaded["w"].data.tolist() == [2.0, 2.0, 2.0]  # other values are kept as they are
    assert g.row(0).tolist() == [2, 1] and g.row_values(0).tolist() == [1.0, 1.0]
    assert (g.to_scipy() != graph.to_scipy()).nnz == 0
    t, expected = g.transpose(), graph.transpose()
    assert t.indptr.tolist() == expected.indptr.tolist() and t.indices.tolist() == expected.indices.tolist()
    assert np.array_equal(t.data, expected.data)
    x = np.arange(3, dtype=np.float64)
    assert np.array_equal(g.matvec(x), graph.matvec(x))


def test_a_negative_count_of_ones_is_refused() -> None:
    with pytest.raises(ValueError):
        store.ones(-1)
