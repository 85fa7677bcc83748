"""A truncated or corrupted cache file is detected and rebuilt, never read: search gives what a
fresh build gives."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import DEMO_VAULT
from wikiq.config import Config
from wikiq.vault.cache import CatalogCache
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


@pytest.mark.parametrize("ahead", [False, True], ids=["read-on-load", "read-ahead"])
@pytest.mark.parametrize("name", ["catalog.npz", "retrieval.npz", "notes.npz"])
@pytest.mark.parametrize("damage", [_truncate, _flip_middle], ids=["truncated", "corrupted"])
def test_a_damaged_cache_file_is_rebuilt_and_search_is_unchanged(tmp_path: Path, name: str, damage, ahead: bool) -> None:  # type: ignore[no-untyped-def]
    vault = tmp_path / "vault"
    shutil.copytree(DEMO_VAULT, vault)
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
    vault = tmp_path / "vault"
    shutil.copytree(DEMO_VAULT, vault)
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
