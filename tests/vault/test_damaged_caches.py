"""A truncated or corrupted cache file is detected and rebuilt, never read: search gives what a
fresh build gives."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import demo_copy
from wikiq.config import Config
from wikiq.vault import catalog as catalog_module
from wikiq.vault import reading as reading_module
from wikiq.vault import store
from wikiq.vault.cache import CatalogCache
from wikiq.vault.locate import locate_vault
from wikiq.vault.rows import PageRows
from wikiq.wiki import Wiki

QUESTIONS = ("How does a gravity assist work?", "What did the space race change?")


def _answers(vault: Path, cache: Path, ahead: bool = False) -> list[list[tuple[str, float]]]:
    # `ahead`: the caches are read in the background while the vault is scanned, as a search does.
    wiki = Wiki.open(vault, cache_dir=cache, config=Config(), for_questions=ahead)
    out = []
    for q in QUESTIONS:
        found = wiki.search(q)
        out.append([(r.path, r.score) for r in found.results] + [(s.path, s.score) for s in found.sources])
    return out


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _flip_middle(path: Path) -> None:
    # A byte in the middle of the file sits inside one of its arrays.
    raw = bytearray(path.read_bytes())
    for k in range(len(raw) // 2, len(raw) // 2 + 16):
        raw[k] ^= 0xFF
    path.write_bytes(bytes(raw))


@pytest.fixture(params=[False, True], ids=["read", "mapped"])
def mapped(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Cache files read whole (small vaults) or memory-mapped (large ones: here every file)."""
    if request.param:
        monkeypatch.setattr(store, "MAP_FROM_BYTES", 0)
    return bool(request.param)


@pytest.mark.parametrize("ahead", [False, True], ids=["read-on-load", "read-ahead"])
@pytest.mark.parametrize("name", ["catalog.npz", "retrieval.npz", "passages.npz", "notes.npz"])
@pytest.mark.parametrize("damage", [_truncate, _flip_middle], ids=["truncated", "corrupted"])
def test_a_damaged_cache_file_is_rebuilt_and_search_is_unchanged(tmp_path: Path, name: str, damage, ahead: bool, mapped: bool) -> None:  # type: ignore[no-untyped-def]
    vault = demo_copy(tmp_path)
    cache = tmp_path / "cache"
    fresh = _answers(vault, cache)
    files = list(cache.rglob(name))
    assert len(files) == 1
    damage(files[0])
    damaged = files[0].read_bytes()
    assert _answers(vault, cache, ahead) == fresh
    assert files[0].read_bytes() != damaged  # noticed, and written again
    assert _answers(vault, cache, ahead) == fresh


@pytest.mark.parametrize("damage", [_truncate, _flip_middle], ids=["truncated", "corrupted"])
def test_damaged_term_counts_are_read_again_from_the_pages(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    vault = demo_copy(tmp_path)
    cache = tmp_path / "cache"
    fresh = Wiki.open(vault, cache_dir=cache, config=Config()).catalog
    damage(next(cache.rglob("terms.npz")))
    again = Wiki.open(vault, cache_dir=cache, config=Config()).catalog
    assert again.files_read == 0  # the catalog itself was whole
    assert again.terms.vocab == fresh.terms.vocab
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(again.terms.matrix, name), getattr(fresh.terms.matrix, name))
    # Written again, so the next process loads them instead of reading every page.
    store = CatalogCache(again.location, cache)
    kept = store.load_terms(again.built_at)
    assert kept is not None and kept["body"].vocab == fresh.terms.vocab


def test_a_warm_search_reads_the_passages_counts_but_no_other_term_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The passages' counts are kept once, in a file of their own that questions read; the
    other fields' counts (a million pages': 1 GB, each byte checked when loaded) only build
    indexes, so a search over a cached vault never loads them."""
    vault = demo_copy(tmp_path)
    cache = tmp_path / "cache"
    fresh = _answers(vault, cache)
    loaded: list[str] = []
    real_load = store.load

    def recording_load(path: Path, *args, **kwargs):  # type: ignore[no-untyped-def]
        loaded.append(Path(path).name)
        return real_load(path, *args, **kwargs)

    monkeypatch.setattr(store, "load", recording_load)
    assert _answers(vault, cache) == fresh
    assert "passages.npz" in loaded and "retrieval.npz" in loaded
    assert "terms.npz" not in loaded


def test_a_mapped_cache_answers_as_a_read_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large vault's cache files are memory-mapped and their pages handed back once checked:
    every answer is the same as from files read whole."""
    vault = demo_copy(tmp_path)
    cache = tmp_path / "cache"
    fresh = _answers(vault, cache)  # builds and saves the caches
    read = _answers(vault, cache)
    monkeypatch.setattr(store, "MAP_FROM_BYTES", 0)
    assert _answers(vault, cache) == read == fresh
    assert _answers(vault, cache, ahead=True) == fresh


def test_a_mapped_file_with_a_column_out_of_range_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check of a matrix's columns, done a slice at a time on a mapped file, still refuses
    a file whose CRCs are whole but whose columns point outside the matrix."""
    from wikiq.sparse import CSR

    monkeypatch.setattr(store, "MAP_FROM_BYTES", 0)
    good = CSR(np.array([0, 2, 3]), np.array([0, 4, 1], dtype=np.int32), np.ones(3, np.float32), (2, 5))
    path = tmp_path / "m.npz"
    assert store.save(path, {"m": good})
    loaded = store.load(path)
    assert loaded is not None and np.array_equal(loaded["m"].indices, good.indices)
    bad = CSR(good.indptr, np.array([0, 5, 1], dtype=np.int32), good.data, (2, 5))
    assert store.save(path, {"m": bad})
    assert store.load(path) is None


def test_a_large_vault_just_read_is_answered_from_its_cache_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A catalog just built for a vault past `LEAN_FROM_PAGES` is opened again from the files
    it was saved to (its pages as columns, its counts mapped): every answer is the same."""
    vault = demo_copy(tmp_path)
    plain = _answers(vault, tmp_path / "plain")
    monkeypatch.setattr(catalog_module, "LEAN_FROM_PAGES", 1)
    lean_cache = tmp_path / "lean"
    catalog = Wiki.open(vault, cache_dir=lean_cache, config=Config()).catalog
    assert isinstance(catalog.pages, PageRows) and catalog.files_read == len(catalog.pages) > 0
    assert catalog.loaded_terms() is not None  # the saved counts, loaded when asked for
    assert _answers(vault, tmp_path / "lean-too") == plain  # built lean, then answered
    assert _answers(vault, lean_cache) == plain  # and from the cache, as ever


def test_a_large_first_read_keeps_its_counts_in_files_and_answers_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `LEAN_FROM_PAGES`, the counts worker processes bring grow in unnamed files in the
    cache folder until they are saved: no file is left behind, and every answer is the same."""
    vault = demo_copy(tmp_path)
    plain = _answers(vault, tmp_path / "plain")
    monkeypatch.setattr(catalog_module, "LEAN_FROM_PAGES", 1)
    monkeypatch.setattr(reading_module, "PARALLEL_READ_MIN_FILES", 1)  # read by workers
    log = tmp_path / "spills.txt"  # written by whichever process reads the pages
    real = reading_module.TermBuffer

    def recording(expected_rows: int = 0, spill: Path | None = None):  # type: ignore[no-untyped-def]
        with log.open("a") as fh:
            fh.write(f"{spill}\n")
        return real(expected_rows, spill)

    monkeypatch.setattr(reading_module, "TermBuffer", recording)
    cache = tmp_path / "spilled"
    assert _answers(vault, cache) == plain
    folder = next(cache.glob("vaults/*"))
    assert set(log.read_text().split()) == {str(folder)}
    left = {f.name for f in folder.iterdir()} - {"notes.npz"}  # the notes' index if any
    assert left == {"catalog.npz", "terms.npz", "passages.npz", "retrieval.npz"}


def _pids_reading(monkeypatch: pytest.MonkeyPatch, log: Path, fail_in_child: bool = False) -> None:
    """Record which process builds the catalog (in `log`); with `fail_in_child`, a child's
    build fails."""
    real, parent = catalog_module._build, os.getpid()

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        with log.open("a") as fh:
            fh.write(f"{os.getpid()}\n")
        if fail_in_child and os.getpid() != parent:
            raise MemoryError("the child ran out")
        return real(*args, **kwargs)

    monkeypatch.setattr(catalog_module, "_build", recording)


def test_a_large_first_read_is_done_by_a_child_process_and_answers_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page objects of a large first read, and the memory they leave when freed, go with
    a child process; this one opens what it saved, with the progress it reported."""
    vault = demo_copy(tmp_path)
    plain = _answers(vault, tmp_path / "plain")
    monkeypatch.setattr(catalog_module, "LEAN_FROM_PAGES", 1)
    log = tmp_path / "pids.txt"
    _pids_reading(monkeypatch, log)
    seen: list[tuple[int, int]] = []
    cache = tmp_path / "apart"
    catalog = catalog_module.open_catalog(
        locate_vault(vault), cache_dir=cache, progress=lambda d, t: seen.append((d, t))
    )
    assert [int(pid) for pid in log.read_text().split()] != [os.getpid()]  # another process
    assert isinstance(catalog.pages, PageRows) and catalog.files_read == len(catalog.pages) > 0
    assert seen and seen[-1] == (len(catalog.pages), len(catalog.pages))
    assert _answers(vault, cache) == plain


def test_a_child_that_fails_leaves_the_read_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = demo_copy(tmp_path)
    plain = _answers(vault, tmp_path / "plain")
    monkeypatch.setattr(catalog_module, "LEAN_FROM_PAGES", 1)
    log = tmp_path / "pids.txt"
    _pids_reading(monkeypatch, log, fail_in_child=True)
    cache = tmp_path / "here"
    catalog = catalog_module.open_catalog(locate_vault(vault), cache_dir=cache)
    pids = [int(pid) for pid in log.read_text().split()]
    assert len(pids) == 2 and pids[0] != os.getpid() and pids[1] == os.getpid()
    assert catalog.files_read == len(catalog.pages) > 0
    assert _answers(vault, cache) == plain


def test_a_refresh_whose_saves_are_held_keeps_the_pages_it_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a running server the caches are written after the new catalog is in use: the
    files on disk are still the old ones, so the new catalog is not read back from them."""
    vault = demo_copy(tmp_path)
    monkeypatch.setattr(catalog_module, "LEAN_FROM_PAGES", 1)
    location = locate_vault(vault)
    with store.deferred_saves() as held:
        catalog = catalog_module.open_catalog(location, cache_dir=tmp_path / "cache")
        assert not isinstance(catalog.pages, PageRows) and catalog.files_read > 0
    held.flush()
    again = catalog_module.open_catalog(location, cache_dir=tmp_path / "cache")
    assert again.files_read == 0 and [p.path for p in again.pages] == [p.path for p in catalog.pages]
