"""Cache files read ahead in a background thread (`store.prefetch`) load exactly as files read
on `load`: the same value, None for a damaged or missing file, and the new contents of a file
this process wrote after the read began."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wikiq.vault import store


def _value(n: int) -> dict[str, object]:
    return {"n": n, "words": [f"w{i}" for i in range(20)], "xs": np.arange(n, dtype=np.int64)}


def _same(a: object, b: object) -> bool:
    assert isinstance(a, dict) and isinstance(b, dict)
    return a["n"] == b["n"] and list(a["words"]) == b["words"] and np.array_equal(a["xs"], b["xs"])


def test_a_file_read_ahead_loads_as_one_read_on_load(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    assert store.save(path, _value(1000))
    store.prefetch([path])
    assert _same(store.load(path, lazy_strings=True), _value(1000))
    assert _same(store.load(path, lazy_strings=True), _value(1000))  # read again: taken once


def test_a_damaged_or_missing_file_read_ahead_loads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    assert store.save(path, _value(1000))
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    missing = tmp_path / "gone.npz"
    store.prefetch([path, missing])
    assert store.load(path) is None
    assert store.load(missing) is None


def test_a_file_written_after_the_read_began_loads_as_written(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    assert store.save(path, _value(10))
    store.prefetch([path])
    assert store.save(path, _value(20))
    assert _same(store.load(path), _value(20))


def test_settle_waits_for_every_read(tmp_path: Path) -> None:
    paths = [tmp_path / f"{k}.npz" for k in range(3)]
    for k, path in enumerate(paths):
        assert store.save(path, _value(k + 1))
    store.prefetch(paths)
    store.settle_prefetch()
    for k, path in enumerate(paths):
        assert _same(store.load(path), _value(k + 1))
