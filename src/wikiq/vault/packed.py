"""Strings a question never reads, kept in the cache compressed, a block at a time.

A million pages' link targets as written (264 MB), summaries (111 MB), frontmatter sources and
tags were a third of the catalog file and a sixth of the whole cache, read only by a refresh
(links are resolved again), an answer (a cited page's summary) or an index build. zlib over
blocks of about 64 KB keeps them at a quarter of that (links 4.1x, summaries 5.6x at level 6,
3.7x and 4.9x at level 3; 1M, docs/BENCHMARKS.md), and one string costs the decompression of
its block (~0.1 ms), every string one pass (~1 s for the links). The cascade reads the pages
it ranks by field (`rows.page_value`), so a question decompresses nothing.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from wikiq.sparse import offsets_fit
from wikiq.vault.rows import Rows

# Uncompressed bytes a block holds, about: smaller blocks compress worse (links: 32 KB blocks
# 6% larger), larger ones cost a single look-up more.
BLOCK_BYTES = 1 << 16
# zlib level: 3 is ~2x quicker to write than 6 for ~12% more bytes (a first open at 1M writes
# ~0.45 GB of these strings: ~2.5 s at 3 on one core).
LEVEL = 3
# Compressed bytes of the blocks kept decompressed, about (a page's links and the next page's
# are usually in one block; a question's names in a few dozen), and at least this many blocks.
_KEPT_BYTES = 1 << 18
_KEPT_BLOCKS = 8
_SEP = "\x00"


# Blocks for strings a question reads a dozen of (the name index's names and features): ~5 us
# to read one, for 3.6x on a million pages' names (4 KB: ~8 us, 4.4x; 64 KB: ~0.1 ms).
SMALL_BLOCK_BYTES = 1 << 10


class Packed:
    """A list of strings `store.save` writes compressed (`PackedStrings` reads it back), in
    blocks of about `block_bytes`."""

    def __init__(self, values: list[str], block_bytes: int | None = None) -> None:
        self.values = values
        self.block_bytes = block_bytes or BLOCK_BYTES


def pack(values: list[str], block_bytes: int | None = None) -> tuple[int, list[bytes]]:
    """The strings joined by NUL in blocks of `per_block` strings, each compressed: returns
    `per_block` and the blocks. The strings must hold no NUL."""
    total = sum(map(len, values)) + len(values)
    per_block = max(1, (block_bytes or BLOCK_BYTES) * len(values) // max(total, 1))
    texts = (
        _SEP.join(values[at : at + per_block]).encode("utf-8")
        for at in range(0, len(values), per_block)
    )
    # zlib lets the interpreter go while it compresses: two blocks at a time on two cores.
    with ThreadPoolExecutor(max_workers=2) as pool:
        blocks = list(pool.map(lambda text: zlib.compress(text, LEVEL), texts))
    return per_block, blocks


class PackedStrings(Rows[str]):
    """`n` strings stored by `pack`: `blob` holds the compressed blocks end to end, block b at
    `ends[b]:ends[b + 1]`. The file's CRC has vouched for the bytes; what a crafted file could
    still hold (a block that is not zlib, or holds too few strings) reads as empty strings,
    never as an error in a question."""

    def __init__(self, blob: np.ndarray, ends: np.ndarray, n: int, per_block: int) -> None:
        blocks = -(-n // per_block) if per_block >= 1 and n else 0
        if not _blocks_fit(blob, ends) or per_block < 1 or len(ends) != blocks + 1:
            raise ValueError("the cache's packed strings do not add up")
        self._blob = blob
        self._ends = ends.tolist()
        self._per = per_block
        self._n = n
        self._kept: dict[int, list[str]] = {}
        self._kept_max = max(_KEPT_BLOCKS, _KEPT_BYTES * blocks // max(len(blob), 1))
        self._kept_lock = threading.Lock()
        super().__init__(n, self._one_string, self._every_string)

    def _block(self, b: int) -> list[str]:
        """Block b's strings, exactly as many as it should hold."""
        want = min(self._per, self._n - b * self._per)
        try:
            raw = zlib.decompress(self._blob[self._ends[b] : self._ends[b + 1]].data)
            strings = raw.decode("utf-8", "replace").split(_SEP)
        except zlib.error:
            strings = []
        if len(strings) != want:  # only a crafted file: its strings are not to be trusted
            strings = [""] * want
        return strings

    def _one_string(self, i: int) -> str:
        b, k = divmod(i, self._per)
        return self._kept_block(b)[k]

    def _kept_block(self, b: int) -> list[str]:
        strings = self._kept.get(b)
        if strings is None:
            strings = self._block(b)
            with self._kept_lock:
                if len(self._kept) >= self._kept_max:
                    self._kept.pop(next(iter(self._kept)))
                self._kept[b] = strings
        return strings

    def span(self, start: int, end: int) -> list[str]:
        """Strings start:end, read from their blocks (no row kept: the name index reads a
        name's few features a question)."""
        if self.built_all:
            return self.tolist()[start:end]
        out: list[str] = []
        while start < end:
            b, k = divmod(start, self._per)
            block = self._kept_block(b)
            take = min(end - start, len(block) - k)
            if take <= 0:
                break
            out.extend(block[k : k + take])
            start += take
        return out

    def _every_string(self) -> list[str]:
        out: list[str] = []
        for b in range(len(self._ends) - 1):
            out.extend(self._block(b))
        return out

    def __iter__(self) -> Iterator[str]:
        return iter(self.tolist())

    def packed(self) -> Packed:
        """What to save to keep these strings packed, in blocks as large as these."""
        return Packed(self.tolist(), self._per_block_bytes())

    def _per_block_bytes(self) -> int:
        strings = self.tolist()
        text = sum(map(len, strings)) + len(strings)
        return max(1, text * self._per // max(len(strings), 1))


# Bytes of an array compressed at a time (`Deflated`): pieces for two threads, each small
# enough to be let go of once written.
DEFLATE_PIECE = 1 << 22
# zlib level for arrays: 1 is ~5x quicker to write than 6 for ~25% more bytes (a million pages'
# passage counts: 193 -> 50 MB at 1).
DEFLATE_LEVEL = 1


class Deflated:
    """An array `store.save` writes compressed, read back whole into memory by `inflate`: for
    arrays a question never reads piece by piece (the lead's and titles' counts, read to build
    an index), or reads so often that they are better held (the passages' counts, 75% ones:
    193 -> 50 MB at a million pages, ~0.3 s to read back once a process)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = np.ascontiguousarray(array)


def block_ends(blocks: list[bytes]) -> np.ndarray:
    """Where each of `blocks` ends when they are stored end to end, after a leading 0."""
    ends = np.zeros(len(blocks) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in blocks], out=ends[1:])
    return ends


def _blocks_fit(blob: np.ndarray, ends: np.ndarray) -> bool:
    """Whether `ends` cut the bytes of `blob` into blocks (what `block_ends` wrote)."""
    return blob.dtype == np.uint8 and blob.ndim == 1 and offsets_fit(ends, len(blob))


def deflate(array: np.ndarray) -> list[bytes]:
    """The array's bytes compressed a piece at a time (zlib lets two threads work at once)."""
    raw = array.data.cast("B") if array.size else memoryview(b"")
    pieces = (raw[at : at + DEFLATE_PIECE] for at in range(0, len(raw), DEFLATE_PIECE))
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda piece: zlib.compress(piece, DEFLATE_LEVEL), pieces))


def inflate(blob: np.ndarray, ends: np.ndarray, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """What `deflate` compressed, as an array of `dtype` and `shape` (ValueError when the bytes
    are not that: a damaged or crafted file)."""
    if not _blocks_fit(blob, ends) or dtype.hasobject:
        raise ValueError("the cache's compressed array does not add up")
    out = np.empty(shape, dtype=dtype)
    flat = out.data.cast("B") if out.size else memoryview(bytearray())
    spans = list(zip(ends[:-1].tolist(), ends[1:].tolist(), strict=True))
    if len(spans) != -(-len(flat) // DEFLATE_PIECE):
        raise ValueError("the cache's compressed array does not add up")

    def one(k: int) -> None:
        a, b = spans[k]
        piece = zlib.decompress(blob[a:b].data)
        at = k * DEFLATE_PIECE
        if len(piece) != min(DEFLATE_PIECE, len(flat) - at):
            raise ValueError("the cache's compressed array does not add up")
        flat[at : at + len(piece)] = piece

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(one, range(len(spans))))
    except zlib.error as err:
        raise ValueError("a damaged compressed array") from err
    return out
