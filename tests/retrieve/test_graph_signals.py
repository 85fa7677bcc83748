"""The links of a page in either direction, worked out from the graph and its transpose, are the
undirected graph's row that used to be stored: ascending, each page once."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from wikiq.retrieve.graph_signals import adamic_adar, either_way
from wikiq.sparse import CSR


def test_either_way_is_the_undirected_graphs_row_and_adamic_adar_is_unchanged() -> None:
    rng = np.random.default_rng(7)
    n = 60
    rows, cols = rng.integers(0, n, 400), rng.integers(0, n, 400)
    keep = rows != cols
    a = sp.csr_matrix((np.ones(keep.sum(), np.float32), (rows[keep], cols[keep])), shape=(n, n))
    a.sum_duplicates()
    a.data[:] = 1.0
    graph = CSR.from_scipy(a)
    undirected = CSR.from_scipy((a + a.T) > 0)
    for page in range(n):
        assert either_way(graph, graph.transpose(), page).tolist() == undirected.row(page).tolist()
    degree = np.asarray(a.sum(axis=0)).ravel() + np.asarray(a.sum(axis=1)).ravel()
    seeds, cand = {3: 1.0, 9: 0.5}, np.arange(n)
    inv_log = 1.0 / np.log(np.maximum(degree, 2.0))
    expected = np.zeros(n)
    for seed, weight in seeds.items():
        near = np.zeros(n, dtype=bool)
        near[undirected.row(seed)] = True
        for j, c in enumerate(cand):
            common = undirected.row(int(c))
            expected[j] += weight * float(inv_log[common[near[common]]].sum())
    expected /= expected.max()
    assert np.array_equal(adamic_adar(graph, graph.transpose(), degree, seeds, cand), expected)


def test_who_links_to_a_page_is_read_from_the_cached_walk(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import demo_copy
    from wikiq.retrieve.indexes import cached_indexes
    from wikiq.retrieve.ppr import InLinks
    from wikiq.vault.catalog import open_catalog
    from wikiq.vault.locate import locate_vault

    catalog = open_catalog(locate_vault(demo_copy(tmp_path)), cache_dir=tmp_path / "cache")
    built = cached_indexes(catalog, "both", 0.5)
    loaded = cached_indexes(catalog, "both", 0.5)
    assert isinstance(loaded.graph_t, InLinks) and not isinstance(built.graph_t, InLinks)
    assert catalog.graph.nnz > 0
    for page in range(len(catalog.pages)):
        assert loaded.graph_t.row(page).tolist() == built.graph_t.row(page).tolist()
    # A walk that cannot tell them apart keeps the transposed graph.
    other = tmp_path / "other"
    catalog = open_catalog(locate_vault(demo_copy(other)), cache_dir=other / "cache")
    cached_indexes(catalog, "both", 1.0)
    assert not isinstance(cached_indexes(catalog, "both", 1.0).graph_t, InLinks)
