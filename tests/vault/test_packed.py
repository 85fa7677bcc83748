"""Strings kept compressed in the cache (vault/packed.py) read back as they were saved, one at a
time or all at once, and a crafted block never raises in a question."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from tests.conftest import demo_copy
from wikiq.config import Config
from wikiq.vault import packed, store
from wikiq.vault.cache import CatalogCache
from wikiq.vault.catalog import open_catalog
from wikiq.vault.locate import locate_vault
from wikiq.vault.packed import Packed, PackedStrings
from wikiq.wiki import Wiki


def test_packed_strings_read_back_one_by_one_and_whole(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(packed, "BLOCK_BYTES", 64)  # many blocks, a short last one
    values = [f"concepts/page-{i}" * (i % 3) for i in range(1000)] + ["é", ""]
    path = tmp_path / "f.npz"
    assert store.save(path, {"links": Packed(values), "empty": Packed([])})
    loaded = store.load(path)
    column = loaded["links"]
    assert isinstance(column, PackedStrings)
    assert [column[i] for i in (0, 1, 2, 517, 1000, 1001, -1)] == [values[i] for i in (0, 1, 2, 517, 1000, 1001, -1)]
    assert column.tolist() == values and list(column) == values
    assert len(loaded["empty"]) == 0
    # Saved again as it was loaded: still packed, still the same strings.
    assert store.save(path, {"links": column})
    again = store.load(path)["links"]
    assert isinstance(again, PackedStrings) and again.tolist() == values


def test_strings_holding_the_separator_are_kept_plain(tmp_path: Path) -> None:
    path = tmp_path / "f.npz"
    assert store.save(path, {"v": Packed(["a\x00b", "c"])})
    assert store.load(path)["v"] == ["a\x00b", "c"]


def test_a_crafted_block_reads_as_empty_strings() -> None:
    good = zlib.compress(b"a\x00b")
    blob = np.frombuffer(good + b"not zlib", dtype=np.uint8)
    column = PackedStrings(blob, np.array([0, len(good), len(blob)]), 4, 2)
    assert column[0] == "a" and column[3] == ""
    assert column.tolist() == ["a", "b", "", ""]


def test_packed_offsets_that_do_not_add_up_are_refused() -> None:
    blob = np.frombuffer(zlib.compress(b"a"), dtype=np.uint8)
    for ends, n in (([0, len(blob) + 1], 1), ([0, len(blob)], 3), ([1, len(blob)], 1)):
        try:
            PackedStrings(blob, np.array(ends), n, 1)
        except ValueError:
            continue
        raise AssertionError(f"accepted {ends}, {n}")
    try:  # no strings a block: a crafted file, refused like the others (not a ZeroDivisionError)
        PackedStrings(blob, np.array([0, len(blob)]), 1, 0)
    except ValueError:
        pass
    else:
        raise AssertionError("accepted 0 strings a block")


def test_a_cached_catalog_keeps_links_summaries_tags_packed_and_answers_the_same(tmp_path: Path) -> None:
    vault = demo_copy(tmp_path)
    cache = tmp_path / "cache"
    location = locate_vault(vault)
    built = open_catalog(location, cache_dir=cache)
    fresh = [(p.links, p.summary, p.tags, p.source_links) for p in built.pages]
    data = store.load(CatalogCache(location, cache).path)
    pages = data["catalog"]["pages"]
    assert isinstance(pages["summary"], PackedStrings)
    assert isinstance(pages["links"]["flat"], PackedStrings)
    reopened = open_catalog(location, cache_dir=cache)
    assert reopened.files_read == 0
    assert [(p.links, p.summary, p.tags, p.source_links) for p in reopened.pages] == fresh
    wiki = Wiki.open(vault, cache_dir=cache, config=Config())
    assert wiki.search("How does a gravity assist work?").results


def test_a_deflated_array_reads_back_whole_and_the_same(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from wikiq.vault.packed import Deflated

    monkeypatch.setattr(packed, "DEFLATE_PIECE", 1000)  # several pieces, a short last one
    arrays = {
        "counts": (np.arange(10_001) % 7).astype(np.uint8),
        "terms": np.arange(3_333, dtype=np.uint16)[::-1].copy(),
        "grid": np.arange(12, dtype=np.float32).reshape(3, 4),
        "none": np.empty(0, dtype=np.int32),
    }
    path = tmp_path / "f.npz"
    assert store.save(path, {k: Deflated(a) for k, a in arrays.items()})
    loaded = store.load(path)
    for k, a in arrays.items():
        assert loaded[k].dtype == a.dtype and np.array_equal(loaded[k], a), k
        assert loaded[k].flags.writeable  # read into memory, not a view of the file


def test_a_deflated_array_that_does_not_add_up_is_refused() -> None:
    from wikiq.vault.packed import inflate

    piece = zlib.compress(b"\x01\x02\x03")
    blob = np.frombuffer(piece, dtype=np.uint8)
    assert inflate(blob, np.array([0, len(piece)]), np.dtype(np.uint8), (3,)).tolist() == [1, 2, 3]
    for ends, shape in (([0, len(piece)], (4,)), ([0, len(piece) - 1], (3,)), ([1, len(piece)], (3,))):
        try:
            inflate(blob, np.array(ends), np.dtype(np.uint8), shape)
        except ValueError:
            continue
        raise AssertionError(f"accepted {ends}, {shape}")
    damaged = np.frombuffer(piece[:-2] + b"xx", dtype=np.uint8)
    try:
        inflate(damaged, np.array([0, len(piece)]), np.dtype(np.uint8), (3,))
    except ValueError:
        return
    raise AssertionError("a damaged piece was read")


def test_a_span_of_packed_strings_crosses_blocks(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(packed, "BLOCK_BYTES", 32)
    values = [f"w{i}" for i in range(200)]
    assert store.save(tmp_path / "f.npz", {"v": Packed(values)})
    column = store.load(tmp_path / "f.npz")["v"]
    assert column.span(0, 0) == [] and column.span(5, 90) == values[5:90] and column.span(190, 200) == values[190:]
