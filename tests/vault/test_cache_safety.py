"""Caches load without running code: a crafted file in the cache folder is ignored, never run."""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from tests.support.vaults import VaultFactory, index_md
from wikiq.retrieve.indexes import RetrievalIndexes, cached_indexes
from wikiq.vault import store
from wikiq.vault.catalog import open_catalog
from wikiq.vault.locate import locate_vault

SRC = Path(__file__).resolve().parents[2] / "src" / "wikiq"
PAGES = {
    "wiki/index.md": index_md("- [[concepts/orbit|orbit]]"),
    "wiki/concepts/orbit.md": "---\ntype: concept\n---\n# Orbit\n\nA curved path around [[moon]].\n",
    "wiki/entities/moon.md": "---\ntype: entity\naliases: [Luna]\n---\n# Moon\n\nIt orbits Earth.\n",
}


@dataclass(frozen=True)
class _Span:  # a dataclass of numbers: what the store may hold when it is told the class
    start: int
    end: int


class _Payload:
    """Unpickling this writes a file: what an attacker's cache file would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.write_text, (self.marker, "ran"))


def test_a_crafted_pickle_in_the_cache_folder_is_never_run(
    make_vault: VaultFactory, tmp_path: Path
) -> None:
    vault = make_vault(PAGES)
    first = open_catalog(locate_vault(vault))
    assert first.cache_file is not None
    cached_indexes(first, "both", 0.5)
    marker = tmp_path / "pwned"
    for name in ("catalog.npz", "terms.npz", "passages.npz", "retrieval.npz"):
        (first.cache_file.parent / name).write_bytes(pickle.dumps(_Payload(marker)))
    again = open_catalog(locate_vault(vault))
    ix = cached_indexes(again, "both", 0.5)
    assert not marker.exists()
    assert again.files_read == 2 and "concepts/orbit" in again.by_path  # rebuilt instead
    assert isinstance(ix, RetrievalIndexes)


def test_what_the_cache_saves_comes_back_the_same(make_vault: VaultFactory) -> None:
    vault = make_vault(PAGES)
    first = open_catalog(locate_vault(vault))
    built = cached_indexes(first, "both", 0.5)
    second = open_catalog(locate_vault(vault))
    loaded = cached_indexes(second, "both", 0.5)
    assert second.files_read == 0
    assert [p for p in second.pages] == [p for p in first.pages]
    assert second.out_links == first.out_links and second.dead_links == first.dead_links
    assert loaded.names.names == built.names.names
    for name in ("indptr", "indices", "data"):
        loaded_counts, built_counts = loaded.text.postings.joined(), built.text.postings.joined()
        assert np.array_equal(getattr(loaded_counts, name), getattr(built_counts, name))
    assert np.array_equal(loaded.text.norm, built.text.norm)
    assert loaded.graph is second.graph  # the catalog's, not a copy of its own
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(loaded.walk.forward, name), getattr(built.walk.forward, name))
    assert loaded.languages == built.languages


def test_an_object_the_store_does_not_know_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.npz"
    assert store.save(path, {"fine": [1, "two", (3.0,)]})
    assert store.load(path) == {"fine": [1, "two", (3.0,)]}
    assert not store.save(path, {"bad": _Payload(tmp_path / "m")})
    # A file naming a class the loader was not given loads as nothing.
    assert store.save(path, {"span": _Span(1, 2)}, classes=(_Span,))
    assert store.load(path, classes=(_Span,)) == {"span": _Span(1, 2)}
    assert store.load(path, classes=()) is None


def test_a_save_removes_what_a_killed_save_left_but_not_one_still_running(
    tmp_path: Path,
) -> None:
    import os
    import time

    path = tmp_path / "terms.npz"
    killed, running, other = (
        tmp_path / "terms.npzab12cd.tmp",
        tmp_path / "terms.npzef34gh.tmp",
        tmp_path / "catalog.npzij56kl.tmp",
    )
    for leftover in (killed, running, other):
        leftover.write_bytes(b"half a zip")
    hours_ago = time.time() - 2 * store.STALE_TEMP_SECONDS
    for old in (killed, other):
        os.utime(old, (hours_ago, hours_ago))
    assert store.save(path, {"n": 1})
    assert store.load(path) == {"n": 1}
    assert not killed.exists()  # this file's, from a process killed long ago
    assert running.exists()  # this file's, but written just now: perhaps another process's
    assert other.exists()  # another file's: left to that file's next save


def test_no_cache_is_read_with_pickle() -> None:
    users = [p for p in SRC.rglob("*.py") if "import pickle" in p.read_text(encoding="utf-8")]
    assert users == []


def test_many_pages_come_back_the_same_from_their_columns(make_vault: VaultFactory) -> None:
    # Enough pages that their fields are stored as one text per column, not as JSON.
    pages = {"wiki/index.md": index_md(*(f"- [[concepts/p{n}|p{n}]]" for n in range(12)))}
    for n in range(12):
        aliases = f"aliases: [别名{n}, 'a, b {n}']\n" if n % 2 else ""
        pages[f"wiki/concepts/p{n}.md"] = (
            f"---\ntype: concept\n{aliases}tags: [t{n}]\n---\n# 第{n}页 — Ünïcode\n\nSee [[p{(n + 1) % 12}]].\n"
        )
    vault = make_vault(pages)
    first = open_catalog(locate_vault(vault))
    second = open_catalog(locate_vault(vault))
    assert second.files_read == 0 and len(second.pages) == 12
    assert list(second.pages) == list(first.pages)
    p1 = second.pages[second.by_path["concepts/p1"]]
    assert p1.aliases == first.pages[first.by_path["concepts/p1"]].aliases != ()


def test_many_strings_round_trip_and_a_separator_inside_one_stays_json(tmp_path: Path) -> None:
    path = tmp_path / "s.npz"
    words = ["", "orbit", "轨道", "naïve", "a b", "\n", "x" * 1000, "Moon", "月"]
    assert store.save(path, {"words": words, "vocab": {w: i for i, w in enumerate(words)}})
    assert store.load(path) == {"words": words, "vocab": {w: i for i, w in enumerate(words)}}
    odd = [*words, "has\x00nul"]
    assert store.save(path, {"words": odd})
    assert store.load(path) == {"words": odd}


def test_a_column_longer_than_one_written_piece_comes_back_whole(tmp_path: Path) -> None:
    # Strings are encoded and written a slice at a time: the joins between slices must hold,
    # empty strings at the edges included, and numpy must read the member as it reads np.savez's.
    path = tmp_path / "long.npz"
    words = [f"页{i}" if i % 9 else "" for i in range(150_001)]
    assert store.save(path, {"words": words})
    assert store.load(path) == {"words": words}
    with np.load(path) as raw:
        texts = [raw[k] for k in raw.files if k != "manifest"]
    assert [t.tobytes() for t in texts] == ["\x00".join(words).encode("utf-8")]


def test_saves_held_back_are_written_when_flushed_and_only_then(tmp_path: Path) -> None:
    from wikiq.vault import store

    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    with store.deferred_saves() as saves:
        assert store.save(first, {"n": 1}) and store.save(second, {"n": 2})
        assert not first.exists() and not second.exists()
    assert store.save(tmp_path / "c.npz", {"n": 3})  # outside: written at once
    assert (tmp_path / "c.npz").exists() and not first.exists()
    saves.flush()
    assert store.load(first) == {"n": 1} and store.load(second) == {"n": 2}


def test_a_refresh_puts_the_new_vault_in_use_before_writing_its_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    from tests.conftest import demo_copy
    from wikiq.vault import store
    from wikiq.vault.cache import CatalogCache
    from wikiq.wiki import Wiki

    vault = demo_copy(tmp_path)
    wiki = Wiki.open(vault)
    wiki.search("Apollo")
    (vault / "wiki" / "concepts" / "zorblax.md").write_text("# Zorblax\n\nA cold blue quasar.\n")
    in_use_when_written: list[bool] = []
    real = store._write

    def write(path: Path, value: object, classes: object) -> bool:
        in_use_when_written.append(any(p.path == "concepts/zorblax" for p in wiki.catalog.pages))
        return real(path, value, classes)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "_write", write)
    assert wiki.refresh(min_interval=0)
    assert in_use_when_written and all(in_use_when_written)
    cached = CatalogCache(wiki.location, wiki.wired.cache_dir).load()  # what the next process reads
    assert cached is not None and cached.built_at == wiki.catalog.built_at
    wiki.close()


def test_stored_strings_give_their_bytes_back_after_each_whole_pass() -> None:
    """A mapped file's string bytes are read whole twice (the check, then finding where each
    string ends): each pass hands them back, so only the strings decoded stay resident."""
    raw = np.frombuffer(b"alpha\x00beta\x00gamma", dtype=np.uint8)
    released: list[int] = []
    strings = store.Strings(raw, 3, release=lambda a: released.append(len(a)))
    assert released == [len(raw)]  # after the check
    assert strings[1] == "beta" and released == [len(raw)] * 2  # after finding the ends
    assert strings[2] == "gamma" and len(released) == 2  # the ends are kept: no third pass
    assert list(strings) == ["alpha", "beta", "gamma"]


def test_stored_strings_are_counted_and_found_across_the_slices_they_are_searched_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(store, "_SLICE", 4)  # separators on, before and after slice edges
    words = ["ab", "", "cdefgh", "i", "", "", "jklmnopqrst", "u", ""]
    raw = np.frombuffer("\x00".join(words).encode(), dtype=np.uint8)
    strings = store.Strings(raw, len(words))
    assert [strings[i] for i in reversed(range(len(words)))] == words[::-1]  # one at a time
    for i, word in enumerate(words):
        if word not in words[:i]:  # `find` gives the first string equal to it
            fresh = store.Strings(raw, len(words))  # not yet decoded: found in the bytes
            assert fresh.find(word) == i, word
    assert store.Strings(raw, len(words)).find("missing") is None
    for wrong in (len(words) - 1, len(words) + 1):
        with pytest.raises(ValueError, match="do not add up"):
            store.Strings(raw, wrong)


def test_a_mapped_cache_file_keeps_no_string_bytes_resident_after_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "MAP_FROM_BYTES", 0)  # every file mapped
    names = [f"page number {i} " * 40 for i in range(2000)]  # ~1 MB of text
    path = tmp_path / "strings.npz"
    assert store.save(path, {"names": names})
    handed: list[int] = []
    real = store._Arrays.hand_back
    monkeypatch.setattr(
        store._Arrays, "hand_back", lambda self, a: (handed.append(a.nbytes), real(self, a))
    )
    loaded = store.load(path, lazy_strings=True)
    assert isinstance(loaded, dict) and isinstance(loaded["names"], store.Strings)
    assert sum(handed) >= len("".join(names))  # the checked bytes were handed back
    assert loaded["names"][1234] == names[1234] and list(loaded["names"]) == names


def test_releasing_an_array_of_a_mapped_file_hands_its_pages_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Term counts read whole once by an index build give their pages back; an array in
    memory, or one not laid out in one piece, is left alone."""
    monkeypatch.setattr(store, "MAP_FROM_BYTES", 0)  # every file mapped
    path = tmp_path / "counts.npz"
    counts = np.arange(300_000, dtype=np.int32)
    assert store.save(path, {"counts": counts})
    loaded = store.load(path)
    assert isinstance(loaded, dict) and np.array_equal(loaded["counts"], counts)
    spans: list[int] = []
    real = store._hand_back
    monkeypatch.setattr(
        store, "_hand_back", lambda data, a, b: (spans.append(b - a), real(data, a, b))
    )
    store.release_pages(loaded["counts"][1000:200_000])
    assert spans == [199_000 * 4]
    store.release_pages(counts)  # in memory
    store.release_pages(loaded["counts"][::2])  # strided
    assert spans == [199_000 * 4]
    assert np.array_equal(loaded["counts"], counts)  # read back from the file as ever


def test_caches_of_the_previous_formats_are_rebuilt_not_read(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Format 10's counts were two bytes, index format 15 stored weights, the walk's P and the
    # link graph: files saying so are read as absent, and built again.
    from wikiq.retrieve import indexes
    from wikiq.vault import cache as catalog_cache

    vault = make_vault(PAGES)
    # A context of its own: `monkeypatch.undo()` would also undo the isolated cache folder
    # (tests/conftest.py) and build the rest in the user's real cache.
    with monkeypatch.context() as older:
        older.setattr(catalog_cache, "CACHE_FORMAT", catalog_cache.CACHE_FORMAT - 1)
        older.setattr(indexes, "INDEX_FORMAT", indexes.INDEX_FORMAT - 1)
        old = open_catalog(locate_vault(vault))
        cached_indexes(old, "both", 0.5)
    builds = []
    build = indexes.build_indexes
    monkeypatch.setattr(indexes, "build_indexes", lambda *a: builds.append(1) or build(*a))
    again = open_catalog(locate_vault(vault))
    assert again.files_read == 2  # every page read again
    cached_indexes(again, "both", 0.5)
    assert builds == [1]
    third = open_catalog(locate_vault(vault))
    assert third.files_read == 0 and cached_indexes(third, "both", 0.5).graph is third.graph
    assert builds == [1]
