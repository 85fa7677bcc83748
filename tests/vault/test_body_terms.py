"""The body counts the cache works out from the passages and the titles (vault/body_terms.py) are
the counts a read of the pages built, entry for entry, in the body's own term numbering."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import demo_copy
from wikiq.vault import body_terms
from wikiq.vault.cache import CatalogCache
from wikiq.vault.catalog import open_catalog
from wikiq.vault.locate import locate_vault
from wikiq.vault.terms import TermIndex, build_term_index


def _same(a: TermIndex, b: TermIndex) -> None:
    assert list(a.vocab) == list(b.vocab)
    assert a.matrix.shape == b.matrix.shape
    assert np.array_equal(a.matrix.indptr, b.matrix.indptr)
    n = a.matrix.nnz
    assert np.array_equal(a.matrix.indices[:n], b.matrix.indices[:n])
    assert np.array_equal(a.matrix.data[:n], b.matrix.data[:n])


@pytest.mark.parametrize("pages_at_once", [1, 3, 1 << 16])
def test_the_cached_body_is_the_body_a_read_built(tmp_path: Path, monkeypatch, pages_at_once: int) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(body_terms, "PAGES_AT_ONCE", pages_at_once)
    vault = demo_copy(tmp_path)
    location = locate_vault(vault)
    built = open_catalog(location, cache_dir=tmp_path / "cache")
    assert built.files_read > 0
    read = built.terms
    reopened = open_catalog(location, cache_dir=tmp_path / "cache")
    assert reopened.files_read == 0
    _same(reopened.terms, read)
    assert [reopened.terms.row(i) for i in range(len(reopened.pages))] == [
        read.row(i) for i in range(len(built.pages))
    ]


def test_a_body_term_only_the_title_brings_is_no_body_term() -> None:
    # Two pages: the first's passages hold "x" (body) and "t" (its title) twice each.
    passages = build_term_index([[{"x": 1, "t": 1}, {"t": 1, "y": 2}], [{"t": 1}]])
    title = build_term_index([{"t": 1}, {"t": 1}])
    body = body_terms.body_from_passages(passages, title, ["y", "x"])
    assert body.row(0) == {"y": 2, "x": 1} and body.row(1) == {}


def test_passages_that_add_up_to_no_body_are_refused(tmp_path: Path) -> None:
    passages = build_term_index([[{"x": 1}], [{"t": 1}]])
    title = build_term_index([{"t": 2}, {"t": 2}])  # more title than the passages hold
    with pytest.raises(ValueError):
        body_terms.body_from_passages(passages, title, ["x", "t"])
    with pytest.raises(ValueError):  # a term the body's vocabulary lacks, left over
        body_terms.body_from_passages(passages, build_term_index([{}, {}]), ["x"])


def test_a_terms_file_without_the_passages_is_read_again(tmp_path: Path) -> None:
    vault = demo_copy(tmp_path)
    location = locate_vault(vault)
    built = open_catalog(location, cache_dir=tmp_path / "cache")
    read = built.terms
    store = CatalogCache(location, tmp_path / "cache")
    (store.dir / "passages.npz").unlink()
    assert store.load_terms(built.built_at, ("body",)) is None
    reopened = open_catalog(location, cache_dir=tmp_path / "cache")
    _same(reopened.terms, read)  # the pages read again
