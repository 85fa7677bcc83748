"""An edit under a running server is searched at once, patched into the indexes
(retrieve/delta.py), before the indexes are rebuilt exactly."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import demo_copy
from wikiq.retrieve.delta import PatchedRows, patched_retriever, read_edits
from wikiq.sparse import CSR
from wikiq.wiki import Wiki

QUESTIONS = [
    "Who was the first human in space?",
    "gravity assist",
    "How long were the Apollo and Soyuz crews docked together?",
    "what keeps a satellite over one spot of the Earth",
    "rocket engines",
]


@pytest.fixture
def wiki(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Wiki:
    monkeypatch.setenv("WIKIQ_EMBED", "off")
    w = Wiki.open(demo_copy(tmp_path))
    w.retriever.warm()
    return w


def _page(wiki: Wiki, path: str) -> tuple[int, Path]:
    i = wiki.catalog.by_path[path]
    return i, wiki.catalog.file_path(i)


def _ranked(retriever, question: str) -> list[tuple[str, float]]:  # type: ignore[no-untyped-def]
    return [(r.path, r.score) for r in retriever.retrieve(question).results]


def test_a_page_patched_with_its_own_text_ranks_every_question_as_before(wiki: Wiki) -> None:
    _, file = _page(wiki, "concepts/geostationary-orbit")
    patched = patched_retriever(wiki.retriever, wiki.catalog, read_edits(wiki.catalog, [file]))
    assert patched is not None
    for q in QUESTIONS:  # the same pages and the same scores, bit for bit
        assert _ranked(patched, q) == _ranked(wiki.retriever, q), q


def test_an_edit_in_place_finds_the_new_words_and_no_longer_the_removed_ones(wiki: Wiki) -> None:
    _, file = _page(wiki, "concepts/geostationary-orbit")
    text = file.read_text(encoding="utf-8")
    assert "35,786" in text or "35786" in text
    file.write_text(
        text.replace("35,786", "").replace("35786", "")
        + "\nAmateur astronomers call its slot the zyxqwv belt.\n",
        encoding="utf-8",
    )
    before = wiki.retriever
    patched = patched_retriever(before, wiki.catalog, read_edits(wiki.catalog, [file]))
    assert patched is not None
    found = patched.retrieve("what is the zyxqwv belt")
    assert found.results[0].path == "concepts/geostationary-orbit"
    assert found.covered != "no"
    assert not before.retrieve("zyxqwv").results  # the built indexes are left as they were
    assert "concepts/geostationary-orbit" not in [
        r.path for r in patched.retrieve("35786").results
    ]
    # A rebuilt vault ranks the edited page's question the same way.
    fresh = Wiki.open(wiki.location.vault, use_cache=False).retriever
    assert [r.path for r in fresh.retrieve("what is the zyxqwv belt").results[:3]] == [
        r.path for r in found.results[:3]
    ]


def test_edits_that_change_names_or_pages_are_left_to_a_refresh(wiki: Wiki) -> None:
    _, file = _page(wiki, "concepts/geostationary-orbit")
    text = file.read_text(encoding="utf-8")
    new = file.with_name("a-new-page.md")
    new.write_text("# A new page\n\nAbout nothing yet.\n", encoding="utf-8")
    assert read_edits(wiki.catalog, [new]) is None  # not one of the catalog's pages
    file.write_text(text.replace('  - "GEO"', '  - "GEO belt"', 1), encoding="utf-8")
    assert read_edits(wiki.catalog, [file]) is None  # its names changed
    file.unlink()
    assert read_edits(wiki.catalog, [file]) is None  # gone


def test_rows_patched_equal_the_matrix_built_with_the_new_entries() -> None:
    rng = np.random.default_rng(3)
    dense = (rng.random((6, 40)) < 0.4) * rng.random((6, 40)).astype(np.float32)
    edited = dense.copy()
    changes: dict[int, dict[int, float]] = {}
    for j, p, w in [(0, 3, 0.5), (0, 39, 0.0), (2, 0, 0.25), (5, 17, 0.0), (5, 18, 2.0)]:
        edited[j, p] = w
        changes.setdefault(j, {})[p] = float("nan") if w == 0.0 else w
    rows = PatchedRows(_csr(dense), changes, 7)  # one term more than the stored matrix
    for j in range(6):
        want = np.nonzero(edited[j])[0]
        assert rows.row(j).tolist() == want.tolist()
        assert rows.row_values(j).tolist() == edited[j, want].tolist()
        assert rows.row_size(j) == len(want)
    assert rows.row(6).tolist() == [] and rows.row_size(6) == 0


def _csr(dense: np.ndarray) -> CSR:
    indptr, indices, data = [0], [], []
    for row in dense:
        cols = np.nonzero(row)[0]
        indices.extend(cols.tolist())
        data.extend(row[cols].tolist())
        indptr.append(len(indices))
    return CSR(
        np.asarray(indptr, dtype=np.int64),
        np.asarray(indices, dtype=np.int32),
        np.asarray(data, dtype=np.float32),
        dense.shape,
    )


def test_a_watcher_finds_an_edit_at_once_and_rebuilds_when_the_vault_is_quiet(
    wiki: Wiki, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikiq import watching

    monkeypatch.setattr(watching, "QUICK_REFRESH", 0.0)  # as a large vault's would be
    monkeypatch.setattr(watching, "REBUILD_WHEN_QUIET", 1.5)
    i, file = _page(wiki, "concepts/geostationary-orbit")
    old_size = wiki.catalog.pages[i].size
    halt = wiki.watch(interval=0.05)
    try:
        time.sleep(0.5)
        with file.open("a", encoding="utf-8") as fh:
            fh.write("\nAmateur astronomers call its slot the zyxqwv belt.\n")
        edited = time.monotonic()
        while time.monotonic() - edited < 5 and not _first_is(wiki, "zyxqwv", i):
            time.sleep(0.02)
        assert _first_is(wiki, "zyxqwv", i)
        # Found before the rebuild: the catalog still holds the page as it was.
        assert wiki.catalog.pages[i].size == old_size
        assert time.monotonic() - edited < 3.0
        while time.monotonic() - edited < 10 and wiki.catalog.pages[i].size == old_size:
            time.sleep(0.05)
        assert wiki.catalog.pages[i].size > old_size  # rebuilt once the vault was quiet
        assert _first_is(wiki, "zyxqwv", i)
    finally:
        halt()
        wiki.close()


def _first_is(wiki: Wiki, question: str, page: int) -> bool:
    results = wiki.search(question).results
    return bool(results) and results[0].path == wiki.catalog.pages[page].path


def test_an_edit_made_while_a_refresh_runs_is_searched_then_and_after_it(
    wiki: Wiki, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from wikiq import watching

    monkeypatch.setattr(watching, "REBUILD_WHEN_QUIET", 30.0)  # no second refresh here
    monkeypatch.setattr(watching, "QUICK_REFRESH", 0.0)
    building, real_warm = threading.Event(), Wiki._warm

    def slow_warm(self: Wiki, catalog):  # type: ignore[no-untyped-def]
        building.set()  # the refresh has scanned the vault: an edit now is not in its read
        time.sleep(1.5)
        return real_warm(self, catalog)

    monkeypatch.setattr(Wiki, "_warm", slow_warm)
    i, file = _page(wiki, "concepts/geostationary-orbit")
    halt = wiki.watch(interval=0.05)
    try:
        time.sleep(0.3)
        new = file.with_name("zorblax.md")
        new.write_text("# Zorblax\n\nA cold quasar.\n", encoding="utf-8")  # a refresh starts
        assert building.wait(5)
        with file.open("a", encoding="utf-8") as fh:
            fh.write("\nAmateur astronomers call its slot the zyxqwv belt.\n")
        edited = time.monotonic()
        while time.monotonic() - edited < 1.0 and not _first_is(wiki, "zyxqwv", i):
            time.sleep(0.02)
        assert _first_is(wiki, "zyxqwv", i)  # taken in place while the refresh runs
        while time.monotonic() - edited < 10 and "concepts/zorblax" not in wiki.catalog.by_path:
            time.sleep(0.05)
        assert "concepts/zorblax" in wiki.catalog.by_path  # the refresh is in
        i = wiki.catalog.by_path["concepts/geostationary-orbit"]
        assert _first_is(wiki, "zyxqwv", i)  # and the edit it had not read is still searched
        assert wiki.search("zorblax quasar").results[0].path == "concepts/zorblax"
    finally:
        halt()
        wiki.close()


def test_a_large_vaults_refresh_done_by_a_child_ranks_as_one_done_here(
    wiki: Wiki, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikiq import wiki as wiki_module
    from wikiq.vault.rows import PageRows

    monkeypatch.setattr(wiki_module, "REFRESH_APART_FROM", 0)  # as for 50,000 pages or more
    _, file = _page(wiki, "concepts/geostationary-orbit")
    halt = wiki.watch(interval=0.05)
    try:
        time.sleep(0.3)
        file.with_name("zorblax.md").write_text("# Zorblax\n\nA cold quasar.\n", encoding="utf-8")
        started = time.monotonic()
        while time.monotonic() - started < 10 and "concepts/zorblax" not in wiki.catalog.by_path:
            time.sleep(0.05)
        # Opened from the files the child saved (a refresh done here holds page objects).
        assert isinstance(wiki.catalog.pages, PageRows)
        here = Wiki.open(wiki.location.vault, use_cache=False).retriever
        for q in [*QUESTIONS, "zorblax quasar"]:
            assert _ranked(wiki.retriever, q) == _ranked(here, q), q
    finally:
        halt()
        wiki.close()


def test_a_large_vaults_cache_missing_a_few_edits_is_opened_as_it_is_and_searched_patched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikiq.vault import catalog as catalog_module

    monkeypatch.setenv("WIKIQ_EMBED", "off")
    monkeypatch.setattr(catalog_module, "EDITS_IN_PLACE_FROM", 1)  # as for 50,000 pages
    vault = demo_copy(tmp_path)
    Wiki.open(vault).search("orbit")  # the cache, and its indexes
    page = vault / "wiki" / "concepts" / "geostationary-orbit.md"
    with page.open("a", encoding="utf-8") as fh:
        fh.write("\nAmateur astronomers call its slot the zyxqwv belt.\n")
    wiki = Wiki.open(vault)
    assert wiki.catalog.files_read == 0  # nothing read into the catalog: the cache as it is
    assert [file for _, file, _ in wiki.catalog.edited] == ["concepts/geostationary-orbit.md"]
    assert wiki.search("zyxqwv belt").results[0].path == "concepts/geostationary-orbit"
    assert wiki.pending_edits == 1
    assert wiki.refresh(min_interval=0) is False  # the edit counts as read
    other = vault / "wiki" / "concepts" / "orbit.md"
    with other.open("a", encoding="utf-8") as fh:
        fh.write("\nSee also the qwvzyx ring.\n")
    assert wiki.refresh(min_interval=0) is True  # a new edit: read in, with the first one
    assert wiki.catalog.edited == () and wiki.pending_edits == 0
    assert wiki.search("zyxqwv belt").results[0].path == "concepts/geostationary-orbit"
    assert wiki.search("qwvzyx ring").results[0].path == "concepts/orbit"


def test_an_edit_found_at_open_that_renames_a_page_is_read_into_the_catalog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikiq.vault import catalog as catalog_module

    monkeypatch.setenv("WIKIQ_EMBED", "off")
    monkeypatch.setattr(catalog_module, "EDITS_IN_PLACE_FROM", 1)
    vault = demo_copy(tmp_path)
    Wiki.open(vault).search("orbit")
    page = vault / "wiki" / "concepts" / "geostationary-orbit.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace('  - "GEO"', '  - "Zorblax belt"', 1), encoding="utf-8")
    wiki = Wiki.open(vault)
    assert wiki.catalog.edited  # opened as it is, then
    assert wiki.search("Zorblax belt").results[0].path == "concepts/geostationary-orbit"
    assert wiki.catalog.edited == ()  # read in, since its names changed
    i = wiki.catalog.by_path["concepts/geostationary-orbit"]
    assert "Zorblax belt" in wiki.catalog.pages[i].aliases


def test_a_patched_index_bounds_its_changed_terms_by_their_new_weights(
    wiki: Wiki, monkeypatch: pytest.MonkeyPatch
) -> None:
    # MaxScore reads each term's largest weight from the index; an edit that changes a term's
    # rows must bound it by the weights it now has, or pruning would drop a page.
    from tests.retrieve.conftest import searched_full_and_pruned
    from wikiq.vault.terms import match_terms

    _, file = _page(wiki, "concepts/geostationary-orbit")
    text = file.read_text(encoding="utf-8")
    file.write_text(text + "\nOrbit, orbit, orbit: an orbit of orbits.\n", encoding="utf-8")
    patched = patched_retriever(wiki.retriever, wiki.catalog, read_edits(wiki.catalog, [file]))
    assert patched is not None
    index = patched.indexes.text
    j = index.term_ids["orbit"]
    assert index._bound(j) == float(index._postings(j)[1].max())
    assert index._bound(j) > float(wiki.retriever.indexes.text.max_weight[j])
    query = match_terms("orbit of the satellite over the earth")
    full, pruned = searched_full_and_pruned(index, query, 3, monkeypatch)
    assert pruned.pages.tolist() == full.pages.tolist()
    assert pruned.scores.tolist() == full.scores.tolist()
