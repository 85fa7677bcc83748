"""Cache files that load without running code: numpy arrays plus a JSON description.

A pickle in the cache folder runs whatever it was made to run when it is loaded; a crafted
file there would run on the next `wikiq search`. These files hold only what `np.load` reads
with `allow_pickle=False` (arrays of numbers and one array of UTF-8 bytes, the JSON manifest)
and the manifest names objects from a fixed list of wikiq's own classes, rebuilt field by
field. Anything else in a file, or a file that is not one of these, loads as None: the caller
rebuilds, as it does for a missing cache.
"""

from __future__ import annotations

import dataclasses
import io
import json
import mmap
import os
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from wikiq.sparse import CSR, SplitCSR
from wikiq.vault.packed import (
    Deflated,
    Packed,
    PackedStrings,
    block_ends,
    deflate,
    inflate,
    pack,
)
from wikiq.vault.rows import Rows

_MANIFEST = "manifest"
# What one member of a file holds: an array, or the bytes of a uint8 array in pieces.
Member = np.ndarray | list[bytes]


class _Encoder:
    """Turns a value into the manifest, handing each array to `write` as it is met: the
    arrays made here (strings joined into one text) are written and let go one at a time
    rather than held until the end (1M pages: the first open's peak 4.62 -> 3.86 GB, with
    `strings` below)."""

    def __init__(self, classes: dict[str, type], write: Callable[[str, Member], None]) -> None:
        self.names = {cls: name for name, cls in classes.items()}
        self.write = write
        self.count = 0

    def array(self, value: Member) -> str:
        key = f"a{self.count}"
        if isinstance(value, np.ndarray):
            if value.dtype == object:
                raise TypeError("object arrays cannot be stored without pickle")
            value = np.ascontiguousarray(value)
        self.count += 1
        self.write(key, value)
        return key

    def strings(self, values: list[str]) -> dict[str, Any]:
        """Many strings as one UTF-8 text split by NUL: read back by one `split`, several times
        faster than parsing them out of the JSON manifest (vocabularies, page fields)."""
        # Encoded a slice at a time: the whole text never exists twice (as str and as bytes).
        step = 1 << 16
        pieces: list[bytes] = []
        for start in range(0, len(values), step):
            if start:
                pieces.append(_SEP_BYTES)
            pieces.append(_SEP.join(values[start : start + step]).encode("utf-8"))
        return {"__strs__": self.array(pieces), "n": len(values)}

    def packed(self, values: list[str], block_bytes: int) -> Any:
        """Strings compressed in blocks (vault/packed.py); as a plain list when one holds the
        separator."""
        if any(_SEP in x for x in values):
            return self.encode(values)
        per_block, blocks = pack(values, block_bytes)
        return {
            "__packed__": self.array(blocks),
            "ends": self.array(block_ends(blocks)),
            "n": len(values),
            "per_block": per_block,
        }

    def encode(self, v: Any) -> Any:
        if v is None or isinstance(v, bool | int | float | str):
            return v
        if isinstance(v, Strings | StrIds):  # loaded lazily, saved again as what they stand for
            v = v.tolist() if isinstance(v, Strings) else dict(v)
        if isinstance(v, PackedStrings):
            v = v.packed()
        if isinstance(v, Packed):
            return self.packed(v.values, v.block_bytes)
        if isinstance(v, Deflated):
            blocks = deflate(v.array)
            release_pages(v.array)  # a first read's spilled counts, read once
            return {
                "__deflated__": self.array(blocks),
                "ends": self.array(block_ends(blocks)),
                "dtype": v.array.dtype.str,
                "shape": list(v.array.shape),
            }
        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, np.ndarray):
            return {"__array__": self.array(v)}
        if isinstance(v, CSR):
            out: dict[str, Any] = {"__csr__": list(v.shape)}
            if _all_ones(v.data):  # a link graph: nothing to keep but where its entries are
                out["ones"] = len(v.data)
            else:
                out["data"] = self.array(v.data)
            return {**out, "indices": self.array(v.indices), "indptr": self.array(v.indptr)}
        if isinstance(v, tuple):
            return {"__tuple__": [self.encode(x) for x in v]}
        if isinstance(v, list):
            if len(v) >= _MANY and all(type(x) is str and _SEP not in x for x in v):
                return self.strings(v)
            if _plain(v):  # strings, numbers and lists of them: loaded as they are, unwalked
                return {"__plain__": v}
            return [self.encode(x) for x in v]
        if isinstance(v, dict):
            if all(isinstance(k, str) for k in v):
                values = list(v.values())
                if values and all(type(x) is int for x in values):  # a vocabulary: keys -> ids
                    return {
                        "__strint__": self.encode(list(v)),
                        "values": self.array(np.asarray(values, dtype=np.int64)),
                    }
                return {"__dict__": {k: self.encode(x) for k, x in v.items()}}
            raise TypeError("only dicts with string keys can be stored")
        name = self.names.get(type(v))
        if name is None:
            raise TypeError(f"{type(v).__name__} is not a class the cache may hold")
        if dataclasses.is_dataclass(v):
            fields = {f.name: self.encode(getattr(v, f.name)) for f in dataclasses.fields(v)}
            return {"__dataclass__": name, "fields": fields}
        return {"__object__": name, "attrs": {k: self.encode(x) for k, x in vars(v).items()}}


class Strings(Rows[str]):
    """A stored list of strings left as its UTF-8 bytes: one string is decoded when asked for,
    the whole list when iterated (`Rows` decides when). A cached catalog keeps ~200,000
    strings (titles, summaries, links) of which a question reads a few dozen; splitting them
    all cost ~30 ms a process.

    The bytes were read whole from the file, so zip's CRC has vouched for them; what a crafted
    file could still hold (bytes that are not UTF-8) is decoded with replacement characters."""

    def __init__(
        self, raw: np.ndarray, n: int, release: Callable[[np.ndarray], None] | None = None
    ) -> None:
        """`release`: hands the pages of `raw` back to the system once a pass has read them
        (a memory-mapped file's), so that only the strings decoded stay resident."""
        if raw.dtype != np.uint8 or raw.ndim != 1 or n < 1:
            raise ValueError("the cache's strings are not text")
        per_slice = _separators_per_slice(raw)
        if int(per_slice.sum()) != n - 1:
            raise ValueError("the cache's strings do not add up")
        self._raw = raw
        self._release = release
        # Separators before each slice of `_SLICE` bytes: string i is found by searching
        # one slice, not by listing where every string of the column ends (a million pages'
        # links: 8 million ends, 64 MB and ~0.5 s for a question's first look-up).
        self._before = np.concatenate([[0], np.cumsum(per_slice)])
        self._slice_ends: dict[int, np.ndarray] = {}
        self._padded: bytes | None = None
        super().__init__(n, self._decode, self._split)
        self._read_whole()

    def _decode(self, i: int) -> str:
        start = self._separator(i - 1) + 1 if i else 0
        end = self._separator(i) if i < len(self) - 1 else len(self._raw)
        return self._raw[start:end].tobytes().decode("utf-8", "replace")

    def _separator(self, k: int) -> int:
        """Where the k-th separator (from 0) is."""
        piece = int(np.searchsorted(self._before, k, side="right")) - 1
        return piece * _SLICE + int(self._ends_in(piece)[k - int(self._before[piece])])

    def _ends_in(self, piece: int) -> np.ndarray:
        """The separators of slice `piece`, from its start; its pages then go back."""
        ends = self._slice_ends.get(piece)
        if ends is None:
            part = self._raw[piece * _SLICE : (piece + 1) * _SLICE]
            ends = self._slice_ends[piece] = np.flatnonzero(part == 0)
            if self._release is not None:
                self._release(part)
        return ends

    def _split(self) -> list[str]:
        out = self._raw.tobytes().decode("utf-8", "replace").split(_SEP)
        self._read_whole()
        return out

    def utf8(self) -> bytes:
        """The strings joined by NUL, as they were stored."""
        out = self._raw.tobytes()
        self._read_whole()
        return out

    def _read_whole(self) -> None:
        if self._release is not None:
            self._release(self._raw)

    def find(self, word: str) -> int | None:
        """The position of `word`, or None: one search of the bytes for it between two
        separators (the strings hold none), without decoding the list."""
        if self.built_all:
            try:
                return self.tolist().index(word)
            except ValueError:
                return None
        if _SEP in word:
            return None
        if self._padded is None:
            self._padded = b"\0" + self._raw.tobytes() + b"\0"
        at = self._padded.find(b"\0" + word.encode("utf-8") + b"\0")
        if at < 0:
            return None
        # `at` is where the separator before it is in the bytes (the padding's first byte
        # stands for "before the first string"): the separators before that one.
        piece = at // _SLICE
        return int(self._before[piece]) + int(np.searchsorted(self._ends_in(piece), at % _SLICE))


# The bytes of stored strings are searched for separators a slice at a time: `raw == 0` over
# a million pages' 600 MB of strings allocated as much again, and its page faults made the
# count 15x slower (1.2 s against 0.07 s).
_SLICE = 1 << 20


def _separators_per_slice(raw: np.ndarray) -> np.ndarray:
    """How many separators each slice of `_SLICE` bytes holds."""
    found = np.empty(min(len(raw), _SLICE), dtype=bool)
    counts = np.zeros(-(-len(raw) // _SLICE), dtype=np.int64)
    for k, start in enumerate(range(0, len(raw), _SLICE)):
        part = raw[start : start + _SLICE]
        np.equal(part, 0, out=found[: len(part)])
        counts[k] = np.count_nonzero(found[: len(part)])
    return counts


# Distinct keys a `StrIds` finds in its bytes (~50 us each on a 55,000-term vocabulary) before
# it builds its dict (~5 ms): a question looks up dozens, an answer's passages thousands.
_LOOKUPS_BEFORE_DICT = 100


class StrIds(Mapping[str, int]):
    """A stored vocabulary (string -> id) that answers lookups from its `Strings`, building
    the dict only when it is walked: a question looks up a few dozen of the 55,000 terms of
    a vault's BM25 vocabulary, and building four such dicts cost every search ~25 ms."""

    def __init__(self, keys: Strings, values: np.ndarray) -> None:
        if values.ndim != 1 or len(values) != len(keys):
            raise ValueError("the cache's vocabulary does not add up")
        self._keys = keys
        self._values = values
        self._dict: dict[str, int] | None = None
        self._seen: dict[str, int | None] = {}

    def _id(self, key: object) -> int | None:
        if self._dict is not None:
            return self._dict.get(key) if isinstance(key, str) else None
        if not isinstance(key, str):
            return None
        if len(self._seen) >= _LOOKUPS_BEFORE_DICT:  # many terms (a passage, not a question)
            return self._whole().get(key)
        if key not in self._seen:
            at = self._keys.find(key)
            self._seen[key] = None if at is None else int(self._values[at])
        return self._seen[key]

    def __getitem__(self, key: str) -> int:
        value = self._id(key)
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        value = self._id(key)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        return self._id(key) is not None

    def load(self) -> None:
        """Build the dict now: a process answering many questions (a server, `wikiq eval`)
        then looks every word up in it, instead of searching the bytes for the first hundred
        distinct ones (~0.1 ms each on ob-wiki's vocabularies, ~0.8 ms of a first question)."""
        self._whole()

    def _whole(self) -> dict[str, int]:
        if self._dict is None:
            self._dict = dict(zip(self._keys, self._values.tolist(), strict=True))
        return self._dict

    def __iter__(self) -> Iterator[str]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._keys)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._whole() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class _Decoder:
    def __init__(self, arrays: Any, classes: dict[str, type], lazy_strings: bool = False) -> None:
        self.arrays = arrays
        self.classes = classes
        self.lazy_strings = lazy_strings

    def array(self, key: Any) -> np.ndarray:
        if not isinstance(key, str) or key == _MANIFEST or key not in self.arrays.files:
            raise ValueError("the cache names an array it does not hold")
        return np.asarray(self.arrays[key])

    def strings(self, v: dict[str, Any]) -> list[str] | Strings:
        if self.lazy_strings:
            # Every byte is read by the check, and again to find where the strings end: a
            # mapped file's pages are handed back after each pass, so only the strings a
            # question decodes stay resident (a million pages' links, summaries and names:
            # ~0.6 GB).
            return Strings(self.array(v["__strs__"]), int(v["n"]), self.arrays.hand_back)
        out = bytes(self.array(v["__strs__"])).decode("utf-8").split(_SEP)
        if len(out) != v["n"]:
            raise ValueError("the cache's strings do not add up")
        return out

    def decode(self, v: Any) -> Any:
        if isinstance(v, list):
            return [self.decode(x) for x in v]
        if not isinstance(v, dict):
            return v
        if "__plain__" in v:
            return v["__plain__"]
        if "__strs__" in v:
            return self.strings(v)
        if "__deflated__" in v:
            blob, ends = self.array(v["__deflated__"]), self.array(v["ends"])
            shape = tuple(int(n) for n in v["shape"])
            return inflate(blob, ends, np.dtype(v["dtype"]), shape)
        if "__packed__" in v:
            blob, ends = self.array(v["__packed__"]), self.array(v["ends"])
            return PackedStrings(blob, ends, int(v["n"]), int(v["per_block"]))
        if "__array__" in v:
            return self.array(v["__array__"])
        if "__csr__" in v:
            rows, cols = (int(n) for n in v["__csr__"])
            data = ones(int(v["ones"])) if "ones" in v else self.array(v["data"])
            parts = (self.array(v["indptr"]), self.array(v["indices"]), data)
            # Damaged offsets: rebuilt, never read.
            return CSR(*parts, (rows, cols)).check(done=self.arrays.hand_back)
        if "__tuple__" in v:
            return tuple(self.decode(x) for x in v["__tuple__"])
        if "__strint__" in v:
            keys = self.decode(v["__strint__"])
            if isinstance(keys, Strings):
                return StrIds(keys, self.array(v["values"]))
            return dict(zip(keys, self.array(v["values"]).tolist(), strict=True))
        if "__dict__" in v:
            return {k: self.decode(x) for k, x in v["__dict__"].items()}
        if "__dataclass__" in v:
            cls = self.classes[v["__dataclass__"]]  # KeyError: not a class we know
            value = cls(**{k: self.decode(x) for k, x in v["fields"].items()})
            if isinstance(value, SplitCSR):  # damaged offsets: rebuilt, never read
                value.check(done=self.arrays.hand_back)
            return value
        if "__object__" in v:
            cls = self.classes[v["__object__"]]
            obj: Any = object.__new__(cls)
            obj.__dict__.update({k: self.decode(x) for k, x in v["attrs"].items()})
            return obj
        raise ValueError("the cache holds something this version does not know")


def _all_ones(values: np.ndarray) -> bool:
    """Whether `values` are float32 ones (the link graph's, the name index's postings': a
    million pages' were ~90 MB of cache that said nothing)."""
    return values.dtype == np.float32 and bool(np.all(values == 1.0))


def ones(n: int) -> np.ndarray:
    """`n` float32 ones, read-only, in no memory (one value seen `n` times): what `_all_ones`
    values are read back as. Not contiguous: scipy is handed a copy (`CSR.to_scipy`)."""
    if n < 0:
        raise ValueError("the cache's ones do not add up")
    return np.broadcast_to(np.float32(1.0), (n,))


_SCALARS = (str, int, float, bool, type(None))
# From this many strings a list is stored as one text (below it, JSON is as quick); a list
# holding the separator stays JSON.
_MANY = 8
_SEP = "\x00"
_SEP_BYTES = _SEP.encode()


def _plain(values: list[Any]) -> bool:
    """A list JSON holds as it is: scalars, and lists of scalars (one level deep)."""
    for x in values:
        t = type(x)
        if t in _SCALARS:
            continue
        if t is list and all(type(y) in _SCALARS for y in x):
            continue
        return False
    return True


class DeferredSaves:
    """The saves a thread made inside `deferred_saves`, written when `flush` is called."""

    def __init__(self) -> None:
        self.queue: list[tuple[Path, Any, tuple[type, ...]]] = []

    def flush(self) -> None:
        """Write the held saves, in the order they were made (one that fails is skipped)."""
        queue, self.queue = self.queue, []
        for path, value, classes in queue:
            _write(path, value, classes)


_deferred = threading.local()


@contextmanager
def deferred_saves() -> Iterator[DeferredSaves]:
    """Hold this thread's saves until the caller flushes them: a refresh under a running
    server writes its caches (~2.5 s at 100,000 pages) after the new vault is in use, not
    before. A save held back reports success; a cache never written is rebuilt next time."""
    pending = DeferredSaves()
    outer = getattr(_deferred, "pending", None)
    _deferred.pending = pending
    try:
        yield pending
    finally:
        _deferred.pending = outer


@contextmanager
def saves_at_once() -> Iterator[None]:
    """Write this thread's saves as they are made, even inside `deferred_saves` (a child
    process doing a refresh for its parent: its saves are what it hands over)."""
    outer = getattr(_deferred, "pending", None)
    _deferred.pending = None
    try:
        yield
    finally:
        _deferred.pending = outer


def saves_deferred() -> bool:
    """Whether this thread's saves are being held (`deferred_saves`): a file saved now is not
    on disk yet."""
    return getattr(_deferred, "pending", None) is not None


def save(path: Path, value: Any, classes: Iterable[type] = ()) -> bool:
    """Write `value` atomically (numbers, strings, lists, tuples, dicts with string keys,
    numpy arrays, `CSR` matrices and instances of `classes`); False when it cannot be.

    The file is an `.npz` as `np.savez` writes it (one stored member per array, the JSON
    manifest last), written member by member. Inside `deferred_saves` it is written later."""
    pending: DeferredSaves | None = getattr(_deferred, "pending", None)
    if pending is not None:
        pending.queue.append((path, value, tuple(classes)))
        return True
    return _write(path, value, classes)


def _write(path: Path, value: Any, classes: Iterable[type]) -> bool:
    import zipfile

    _reads.pop(path, None)  # read before this write: the next load reads the new file
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with (
                os.fdopen(fd, "wb") as fh,
                zipfile.ZipFile(fh, mode="w", compression=zipfile.ZIP_STORED) as archive,
            ):

                def write(key: str, value: Member) -> None:
                    # As np.savez writes a member (zip64 always: numpy gh-10776).
                    with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                        if isinstance(value, np.ndarray):
                            np.lib.format.write_array(member, value, allow_pickle=False)
                            release_pages(value)  # an array of a mapped file, read once
                            return
                        # Bytes in pieces: the uint8 array they make, written piece by piece.
                        size = sum(map(len, value))
                        header = {"descr": "|u1", "fortran_order": False, "shape": (size,)}
                        np.lib.format.write_array_header_1_0(member, header)
                        for piece in value:
                            member.write(piece)

                encoder = _Encoder({cls.__name__: cls for cls in classes}, write)
                try:
                    manifest = encoder.encode(value)
                except (TypeError, ValueError):
                    return False
                text = json.dumps(manifest, ensure_ascii=False, separators=(",", ":"))
                write(_MANIFEST, np.frombuffer(text.encode("utf-8"), np.uint8))
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        return False
    remove_stale_temps(path)
    return True


# A half-written file older than this is a killed process's, not a save still running (a
# million pages' largest cache file is written in ~20 s).
STALE_TEMP_SECONDS = 3600.0


def remove_stale_temps(path: Path) -> None:
    """Delete what a process killed while saving `path` left beside it (`path.name` + random +
    `.tmp`, as `tempfile.mkstemp` names it: at a million pages, hundreds of MB each, never read
    and never cleaned up). Called after a save of `path` succeeded."""
    import glob

    now = time.time()
    for name in glob.glob(glob.escape(str(path)) + "*.tmp"):
        try:
            if now - os.stat(name).st_mtime > STALE_TEMP_SECONDS:
                os.unlink(name)
        except OSError:  # gone already, or not ours to remove
            continue


def load(path: Path, classes: Iterable[type] = (), *, lazy_strings: bool = False) -> Any:
    """What `save` wrote, or None for a missing, damaged or foreign file (never runs code).
    With `lazy_strings`, long lists of strings come back as `Strings` (decoded when read)."""
    try:
        with _read(path) as arrays:
            manifest = json.loads(bytes(arrays[_MANIFEST]).decode("utf-8"))
            decoder = _Decoder(arrays, {cls.__name__: cls for cls in classes}, lazy_strings)
            return decoder.decode(manifest)
    except Exception:  # missing, truncated, not ours, or an unknown class: rebuild
        return None


def head(path: Path) -> dict[str, Any] | None:
    """The plain values (strings, numbers) at the top of an object `save` wrote, read from its
    manifest alone, without its arrays: what a cache file was built for, at any size. None for
    a missing, damaged or foreign file."""
    try:
        with np.load(path, allow_pickle=False) as arrays:  # members are read when asked for
            manifest = json.loads(bytes(arrays[_MANIFEST]).decode("utf-8"))
        top = manifest["__dict__"]
        return {k: v for k, v in top.items() if isinstance(v, str | int | float)}
    except Exception:  # missing, truncated, or not ours
        return None


class _Read:
    """One cache file read (or failing to be read) in the background."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done = threading.Event()
        self.arrays: _Arrays | None = None
        self.error: Exception | None = None


# Cache files being read ahead of their `load`, by path; each is taken by one `load`.
_reads: dict[Path, _Read] = {}


def prefetch(paths: Iterable[Path]) -> None:
    """Start reading these files (whole, CRCs checked) in a background thread, for the
    `load`s that will ask for them. Reading and `zlib.crc32` release the GIL, so this runs
    beside the main thread's work (a search reads ~60 MB of ob-wiki's caches, ~60 ms, while
    it stats the vault's 8,000 page files). A file replaced after it was read is read again
    only if this process wrote it (`save`); another process's write is a race `load` has
    anyway."""
    reads = [_Read(p) for p in paths if p not in _reads]
    if not reads:
        return
    for r in reads:
        _reads[r.path] = r

    def run() -> None:
        for r in reads:
            try:
                r.arrays = _Arrays(r.path)
            except Exception as err:  # missing or damaged: `load` says None, as it would
                r.error = err
            r.done.set()

    threading.Thread(target=run, name="wikiq-cache-read", daemon=True).start()


def settle_prefetch() -> None:
    """Wait for the background reads: before a fork, no thread may be half-way through one."""
    for r in list(_reads.values()):
        r.done.wait()


def _read(path: Path) -> _Arrays:
    pending = _reads.pop(path, None)
    if pending is None:
        return _Arrays(path)
    pending.done.wait()
    if pending.error is not None:
        raise pending.error
    assert pending.arrays is not None
    return pending.arrays


class _Arrays:
    """The arrays of an `.npz` that `save` wrote, checked whole, then viewed in place.

    `np.load` copies every array out of the zip in 256 KB reads, checking its CRC as it goes.
    Here each member's CRC is checked over the file's bytes before any array is handed out (a
    damaged file is still refused whole), and the arrays are read-only views of those bytes,
    not copies. A small file is read at once (for ob-wiki's three cache files ~35 ms less than
    `np.load`); a large one is memory-mapped, and the pages its check read are handed back
    (`MADV_DONTNEED`), so a process holds only what its questions touch: a million pages'
    postings are 2 GB, of which a question reads a few MB. `save` replaces a file whole (a new
    inode), so a mapped file is never cut short under a running process; only a file truncated
    in place by something else could be (the kernel then stops the process)."""

    def __init__(self, path: Path) -> None:
        import zipfile

        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            self._data: bytes | mmap.mmap = (
                _mapped(fh) if size >= MAP_FROM_BYTES and _CAN_MAP else fh.read()
            )
            members = zipfile.ZipFile(fh).infolist()  # the directory at the file's end
        view = memoryview(self._data)
        self._spans: dict[str, tuple[int, int]] = {}
        try:
            for info in members:
                if info.compress_type != zipfile.ZIP_STORED or not info.filename.endswith(".npy"):
                    raise ValueError("not an archive `save` wrote")
                local = self._data[info.header_offset : info.header_offset + 30]
                if len(local) < 30 or local[:4] != b"PK\x03\x04":
                    raise ValueError("a damaged archive")
                start = info.header_offset + 30 + int.from_bytes(local[26:28], "little")
                start += int.from_bytes(local[28:30], "little")
                end = start + info.file_size
                if end > len(self._data) or _crc32(self._data, view, start, end) != info.CRC:
                    raise ValueError("a damaged archive")
                self._spans[info.filename[:-4]] = (start, end)
        finally:
            view.release()
        self.files = list(self._spans)

    def __getitem__(self, key: str) -> np.ndarray:
        start, end = self._spans[key]
        header = io.BytesIO(self._data[start : min(end, start + 65_546)])
        version = np.lib.format.read_magic(header)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(header)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(header)
        else:
            raise ValueError("an array format `save` does not write")
        if dtype.hasobject or fortran:  # `save` writes neither
            raise ValueError("an array `save` does not write")
        count = int(np.prod(shape, dtype=np.int64))
        offset = start + header.tell()
        if offset + count * dtype.itemsize != end:
            raise ValueError("an array that does not fill its member")
        return np.frombuffer(self._data, dtype=dtype, count=count, offset=offset).reshape(shape)

    def hand_back(self, array: np.ndarray) -> None:
        """Let the pages of this array go, once read, when the file is mapped: they stay in
        the system's file cache, and come back from it if a question reads them."""
        if isinstance(self._data, mmap.mmap):
            _hand_back_array(self._data, array)

    def __enter__(self) -> _Arrays:
        return self

    def __exit__(self, *exc: object) -> None:
        pass  # the arrays handed out hold the bytes they view


# Files from this size are memory-mapped: at 100,000 pages every cache file is (a search's
# peak 311 -> 248 MiB, as fast; at 256 MB the passages' and retrieval files, once split, were
# read into memory), while ob-wiki's, 8,000 pages and 24 MB at most, are read.
MAP_FROM_BYTES = 64 * 1024 * 1024
# POSIX only: on Windows a mapped file could not be replaced by the next `save`.
_CAN_MAP = os.name == "posix" and hasattr(mmap, "MADV_DONTNEED")
_CHECK_SLICE = 64 * 1024 * 1024  # bytes checked, then handed back, at a time


def _mapped(fh: Any) -> mmap.mmap:
    return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


def _crc32(data: bytes | mmap.mmap, view: memoryview, start: int, end: int) -> int:
    """The CRC of data[start:end]; a mapped file's pages are handed back once checked."""
    if not isinstance(data, mmap.mmap):
        return zlib.crc32(view[start:end])
    crc = 0
    for at in range(start, end, _CHECK_SLICE):
        stop = min(end, at + _CHECK_SLICE)
        crc = zlib.crc32(view[at:stop], crc)
        _hand_back(data, at, stop)
    return crc


def release_pages(array: np.ndarray) -> None:
    """Hand back the pages of `array` when it views a memory-mapped cache file (nothing
    otherwise): for arrays read whole once, such as the term counts an index is built from,
    which would otherwise stay resident (a million pages' are ~2 GB)."""
    owner: Any = array
    while isinstance(owner, np.ndarray):
        owner = owner.base
    if isinstance(owner, memoryview):
        owner = owner.obj
    if isinstance(owner, mmap.mmap) and array.flags.c_contiguous:
        _hand_back_array(owner, array)


def _hand_back_array(data: mmap.mmap, array: np.ndarray) -> None:
    if not array.nbytes:
        return
    at = array.ctypes.data - np.frombuffer(data, np.uint8, count=1).ctypes.data
    _hand_back(data, at, at + array.nbytes)


def _hand_back(data: mmap.mmap, start: int, end: int) -> None:
    """`MADV_DONTNEED` over the whole pages inside data[start:end]."""
    first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
    last = end // mmap.PAGESIZE * mmap.PAGESIZE
    if last > first:
        data.madvise(mmap.MADV_DONTNEED, first, last - first)
