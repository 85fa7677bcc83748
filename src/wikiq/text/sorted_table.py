"""A read-only word → text table on disk: sorted lines, found by binary search in a memory map.

Opening it costs a file open and one small array (the line offsets), whatever its size, so a
process that looks up a handful of words never parses the whole table. CC-CEDICT (about
120,000 entries) parsed from its text takes 0.3–2 s, which a one-question `wikiq search`
cannot afford; opened this way it takes about a millisecond.

Layout: `<name>.tsv` holds `word\\tvalue\\n` lines sorted by the word's UTF-8 bytes;
`<name>.offsets.npy` holds each line's start (uint32) and the file's length last.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

# Tables of one kind kept in the cache folder, the newest: two installs used in turn (a
# project's virtual environment and the user's) each find theirs.
KEEP_TABLES = 3


class SortedTable(Mapping[str, str]):
    """Lookups into a table written by `write_sorted_table`."""

    def __init__(self, path: Path) -> None:
        self._offsets = np.load(_offsets_path(path), mmap_mode="r")
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size == 0 or int(self._offsets[-1]) != size:
                raise OSError(f"{path} does not match its offsets (truncated?)")
            self._data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)

    def _line(self, i: int) -> tuple[bytes, bytes]:
        raw = self._data[int(self._offsets[i]) : int(self._offsets[i + 1]) - 1]
        key, _, value = raw.partition(b"\t")
        return key, value

    def __getitem__(self, word: str) -> str:
        target = word.encode("utf-8")
        lo, hi = 0, len(self._offsets) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            key, value = self._line(mid)
            if key == target:
                return value.decode("utf-8")
            if key < target:
                lo = mid + 1
            else:
                hi = mid
        raise KeyError(word)

    def lookup(self, word: str) -> tuple[str | None, bool]:
        """`word`'s value (None if it is not a key), and whether a longer key starts with it:
        what a segmenter walking a text character by character needs to know to go on."""
        target = word.encode("utf-8")
        lo, hi = 0, len(self)
        while lo < hi:  # the first key not below `target`
            mid = (lo + hi) // 2
            if self._line(mid)[0] < target:
                lo = mid + 1
            else:
                hi = mid
        if lo == len(self):
            return None, False
        key, value = self._line(lo)
        if key != target:
            return None, key.startswith(target)
        longer = lo + 1 < len(self) and self._line(lo + 1)[0].startswith(target)
        return value.decode("utf-8"), longer

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __iter__(self) -> Iterator[str]:
        for i in range(len(self)):
            yield self._line(i)[0].decode("utf-8")


def write_sorted_table(rows: Mapping[str, str], path: Path) -> None:
    """Write `rows` (words and values free of tabs and newlines) where `SortedTable` reads
    them; written under temporary names and renamed, so a reader never sees half a table."""
    path.parent.mkdir(parents=True, exist_ok=True)
    items = sorted((k.encode("utf-8"), v.encode("utf-8")) for k, v in rows.items())
    offsets = np.zeros(len(items) + 1, dtype=np.uint32)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        pos = 0
        for i, (key, value) in enumerate(items):
            line = key + b"\t" + value + b"\n"
            offsets[i] = pos
            fh.write(line)
            pos += len(line)
        offsets[-1] = pos
    tmp_offsets = tmp.with_name(tmp.name + ".npy")
    np.save(tmp_offsets, offsets)
    os.replace(tmp_offsets, _offsets_path(path))
    os.replace(tmp, path)  # last: the table exists only once its offsets do


def prune_tables(kept: Path, family: str, keep: int = KEEP_TABLES) -> None:
    """Remove the tables of `family` (a glob in `kept`'s folder, "cedict-*.tsv") but the `keep`
    most recently written, `kept` always among them. A table is named after what built it (the
    dictionary file's size and time, the tokenizer's version), so every reinstall wrote a new
    one beside the old: 10 MB each, 0.7 GB of one machine's cache in a week. A process still
    reading a removed table keeps it open until it exits (POSIX); where a file in use cannot
    be removed, it is left for the next time."""
    rivals = sorted(
        (t for t in kept.parent.glob(family) if t != kept), key=_written, reverse=True
    )
    for table in rivals[max(keep - 1, 0) :]:
        for path in (table, _offsets_path(table)):
            with contextlib.suppress(OSError):
                path.unlink()


def _written(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:  # removed meanwhile: first to go
        return 0


def _offsets_path(path: Path) -> Path:
    return path.with_name(path.stem + ".offsets.npy")
