"""The index of a vault's source notes: chunks with exact offsets, their terms, and which pages
link to each note; cached outside the vault and refreshed per file like the catalog.

Chunks come from the embedding chunker (fence-aware, `text[start:end]` exact); terms from the
pages' tokenizer, so a question matches notes and pages alike. An unchanged vault loads the
cache without reading a note; an edited note re-reads that one file. Text is read on demand.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wikiq.sparse import CSR
from wikiq.text.tokenize import TOKENIZER_FINGERPRINT
from wikiq.vault import store
from wikiq.vault.cache import NOTES_FILE, vault_cache_dir
from wikiq.vault.catalog import Catalog
from wikiq.vault.note_links import linked_targets, note_links
from wikiq.vault.notes import NoteResolver, NoteScan, SourcesSetting, scan_notes
from wikiq.vault.page import NOT_TEXT, parse_page
from wikiq.vault.scan import FileStat
from wikiq.vault.store import Strings
from wikiq.vault.terms import TermIndex, TermRow, Vocab, build_term_index, count_terms

# Bump when what is stored or how notes are chunked changes (the tokenizer has its own key).
NOTES_FORMAT = 7  # 7: a note holding NUL bytes is not text, and not chunked
# Characters per chunk: about a paragraph or two, the size the source-question baseline used
# (bench/README: 800-character paragraph chunks); a passage that answers one detail.
NOTE_CHUNK_BUDGET = 800
NOTE_CHUNK_OVERLAP = 100


@dataclass(frozen=True)
class Note:
    path: str  # vault-relative, no `.md`: `raw/papers/orca_osdi2022`
    title: str
    size: int
    mtime_ns: int
    problem: str = ""  # why the note was read only in part (or not at all)


@dataclass
class NoteIndex:
    """Source notes and their chunks; chunk arrays index `terms.matrix` rows."""

    vault: Path
    notes: list[Note]
    chunk_note: np.ndarray  # note number of each chunk
    chunk_start: np.ndarray  # character offsets in the note's text
    chunk_end: np.ndarray
    # The same offsets in the file's bytes, so an excerpt reads its own bytes and not the
    # whole note (-1: the file is not clean UTF-8, the note is read whole and decoded).
    byte_start: np.ndarray
    byte_end: np.ndarray
    terms: TermIndex
    links: dict[str, tuple[str, ...]]  # note path -> pages that link to it
    files_read: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    _by_path: dict[str, int] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.notes)

    @property
    def by_path(self) -> dict[str, int]:
        if self._by_path is None:
            self._by_path = {n.path: i for i, n in enumerate(self.notes)}
        return self._by_path

    def read_text(self, note: int) -> str:
        """The note's whole text now ("" if it vanished or changed since it was indexed)."""
        n = self.notes[note]
        try:
            raw = (self.vault / f"{n.path}.md").read_bytes()
        except OSError:
            return ""
        if len(raw) != n.size:
            return ""  # edited since: offsets no longer hold; the next refresh re-reads it
        return raw.decode("utf-8", errors="replace")

    def excerpt(self, chunk: int) -> str:
        """A chunk's exact text, read from the note now ("" if the note vanished or changed
        since it was indexed): only its own bytes when the index knows where they are."""
        start, end = int(self.byte_start[chunk]), int(self.byte_end[chunk])
        if start < 0:
            text = self.read_text(int(self.chunk_note[chunk]))
            return text[int(self.chunk_start[chunk]) : int(self.chunk_end[chunk])]
        n = self.notes[int(self.chunk_note[chunk])]
        try:
            # os.path, not pathlib: an excerpt is a few microseconds, a Path join ten.
            with open(os.path.join(self.vault, f"{n.path}.md"), "rb") as f:
                if os.fstat(f.fileno()).st_size != n.size:
                    return ""  # edited since: offsets no longer hold
                f.seek(start)
                return f.read(end - start).decode("utf-8", errors="replace")
        except OSError:
            return ""


def open_note_index(
    catalog: Catalog,
    setting: SourcesSetting,
    *,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    scan: NoteScan | None = None,
) -> NoteIndex | None:
    """The vault's note index (None when it has no source notes), re-reading only notes whose
    (size, mtime) changed; the cache lives beside the catalog's, never in the vault."""
    location = catalog.location
    if scan is None:
        # Only a list of folders needs the pages' links: `auto` already takes every note.
        linked = linked_targets(catalog) if setting.mode == "folders" else ()
        scan = scan_notes(location, setting, linked)
    if not scan.files:
        return None
    path = vault_cache_dir(location, cache_dir) / NOTES_FILE
    key = [NOTES_FORMAT, TOKENIZER_FINGERPRINT, NOTE_CHUNK_BUDGET, str(location.vault)]
    cached = store.load(path, lazy_strings=True) if use_cache else None
    if not (isinstance(cached, dict) and cached.get("key") == key):
        cached = None
    old = _unpack(cached) if cached else None
    if old is not None and cached is not None and _same_files(old, scan.files):
        if cached.get("catalog") != catalog.built_at:  # pages changed: their links may have
            old.links = note_links(catalog, NoteResolver(n.path for n in old.notes))
            if use_cache:
                _save(path, key, old, catalog.built_at)
        old.skipped = scan.skipped
        return old
    index = _build(catalog, scan, old)
    if use_cache:
        _save(path, key, index, catalog.built_at)
    return index


def notes_are_current(index: NoteIndex, scan: NoteScan) -> bool:
    """Whether the notes on disk are still exactly the indexed ones (one stat each)."""
    return _same_files(index, scan.files)


def _same_files(index: NoteIndex, files: dict[str, FileStat]) -> bool:
    if len(index.notes) != len(files):
        return False
    for note in index.notes:
        st = files.get(f"{note.path}.md")
        if st is None or (st.size, st.mtime_ns) != (note.size, note.mtime_ns):
            return False
    return True


def _build(catalog: Catalog, scan: NoteScan, old: NoteIndex | None) -> NoteIndex:
    """Read new and changed notes; keep the chunks and terms of unchanged ones."""
    vault = catalog.location.vault
    previous = {n.path: i for i, n in enumerate(old.notes)} if old else {}
    vocab = Vocab(old.terms.vocab if old else ())
    notes: list[Note] = []
    rows: list[TermRow] = []
    chunk_note: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    byte_starts: list[int] = []
    byte_ends: list[int] = []
    read = 0
    for file, st in scan.files.items():
        path = file[:-3]
        j = previous.get(path)
        if old is not None and j is not None:
            kept = old.notes[j]
            if (kept.size, kept.mtime_ns) == (st.size, st.mtime_ns):
                for c in np.nonzero(old.chunk_note == j)[0].tolist():
                    rows.append(int(c))
                    chunk_note.append(len(notes))
                    starts.append(int(old.chunk_start[c]))
                    ends.append(int(old.chunk_end[c]))
                    byte_starts.append(int(old.byte_start[c]))
                    byte_ends.append(int(old.byte_end[c]))
                notes.append(kept)
                continue
        note, chunks = _read_note(vault, file, st)
        read += 1
        for start, end, byte_start, byte_end, counts in chunks:
            rows.append(counts)
            chunk_note.append(len(notes))
            starts.append(start)
            ends.append(end)
            byte_starts.append(byte_start)
            byte_ends.append(byte_end)
        notes.append(note)
    terms = build_term_index(rows, old.terms if old else None, vocab)
    index = NoteIndex(
        vault,
        notes,
        np.asarray(chunk_note, dtype=np.int32),
        np.asarray(starts, dtype=np.int64),
        np.asarray(ends, dtype=np.int64),
        np.asarray(byte_starts, dtype=np.int64),
        np.asarray(byte_ends, dtype=np.int64),
        terms,
        {},
        files_read=read,
        skipped=scan.skipped,
    )
    index.links = note_links(catalog, NoteResolver(n.path for n in notes))
    return index


def _read_note(
    vault: Path, file: str, st: FileStat
) -> tuple[Note, list[tuple[int, int, int, int, dict[str, int]]]]:
    """A note's title and chunks; an unreadable note is kept with its problem and no chunks."""
    from wikiq.vault.chunking import chunk_page  # reading notes only: not a warm open

    path = file[:-3]
    try:
        raw = (vault / file).read_bytes()
    except OSError as err:
        name = path.rsplit("/", 1)[-1]
        return Note(path, name, st.size, st.mtime_ns, f"could not be read: {err.strerror}"), []
    parsed = parse_page(raw, file, size=st.size, mtime_ns=st.mtime_ns)
    note = Note(path, parsed.page.title, st.size, st.mtime_ns, parsed.page.problem or "")
    if parsed.page.problem == NOT_TEXT:  # an image or archive named `.md`: never quoted
        return note, []
    text = raw.decode("utf-8", errors="replace")
    in_bytes = _byte_offsets(text, raw)
    chunks = []
    for chunk in chunk_page(text, budget=NOTE_CHUNK_BUDGET, overlap=NOTE_CHUNK_OVERLAP):
        # The note's title is part of every chunk's evidence: a chunk deep in "Orca (OSDI
        # 2022)" rarely repeats "Orca", and questions name the paper.
        counts = count_terms(f"{parsed.page.title}\n{chunk.text}")
        if counts:
            chunks.append((chunk.start, chunk.end, in_bytes(chunk.start), in_bytes(chunk.end), counts))
    return note, chunks


def _byte_offsets(text: str, raw: bytes) -> Callable[[int], int]:
    """Character offset in `text` -> byte offset in `raw`, which it was decoded from; always
    -1 when `raw` is not clean UTF-8 (its decoded text would not map back byte for byte)."""
    if text.isascii():
        return lambda offset: offset
    if "\ufffd" in text and text.encode("utf-8") != raw:
        return lambda offset: -1
    # Byte offset of every character start, so a lookup is one index: each code point's
    # UTF-8 length from its value, summed (a note is read once per change).
    points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    sizes = 1 + (points >= 0x80).astype(np.int64) + (points >= 0x800) + (points >= 0x10000)
    starts = np.zeros(len(text) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    return lambda offset: int(starts[offset])


def _save(path: Path, key: list[object], index: NoteIndex, catalog_built: float) -> None:
    m = index.terms.matrix
    store.save(
        path,
        {
            "key": key,
            "catalog": catalog_built,
            "notes": [[n.path, n.title, n.size, n.mtime_ns, n.problem] for n in index.notes],
            "chunk_note": index.chunk_note,
            "chunk_start": index.chunk_start,
            "chunk_end": index.chunk_end,
            "byte_start": index.byte_start,
            "byte_end": index.byte_end,
            "vocab": index.terms.vocab,
            "matrix": m,
            # Kept by term too, so a search's BM25 over notes never transposes on open, and
            # the chunks' lengths, which it would otherwise sum over every entry (~5 ms).
            "postings": index.terms.by_term(),
            "lengths": index.terms.lengths(),
            "link_notes": list(index.links),
            "link_pages": [list(v) for v in index.links.values()],
            "built": time.time(),
        },
    )  # an unwritable cache is rebuilt next time, never an error


def _unpack(data: dict[str, Any]) -> NoteIndex | None:
    """The index `_save` wrote, or None when the file is not one (then it is rebuilt)."""
    try:
        notes = [Note(str(p), str(t), int(s), int(m), str(pr)) for p, t, s, m, pr in data["notes"]]
        links = {
            str(n): tuple(str(p) for p in pages)
            for n, pages in zip(data["link_notes"], data["link_pages"], strict=True)
        }
        return NoteIndex(
            Path(str(data["key"][3])),
            notes,
            np.asarray(data["chunk_note"]),
            np.asarray(data["chunk_start"]),
            np.asarray(data["chunk_end"]),
            np.asarray(data["byte_start"]),
            np.asarray(data["byte_end"]),
            _terms(
                data["vocab"],
                data["matrix"],
                data["postings"],
                data["lengths"],
                len(data["chunk_note"]),
            ),
            links,
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None


def _terms(
    vocab: list[str], matrix: CSR, postings: CSR, lengths: np.ndarray, chunks: int
) -> TermIndex:
    shape = (chunks, len(vocab))
    if not (isinstance(matrix, CSR) and isinstance(postings, CSR)):
        raise ValueError("the notes' term counts are not matrices")
    if matrix.shape != shape or postings.shape != shape[::-1] or postings.nnz != matrix.nnz:
        raise ValueError("the notes' term counts do not match their vocabulary")
    if (
        not isinstance(lengths, np.ndarray)
        or lengths.dtype != np.float32
        or lengths.shape != (chunks,)
    ):
        raise ValueError("the notes' chunk lengths do not match their chunks")
    words = vocab if isinstance(vocab, Strings) else [str(t) for t in vocab]
    return TermIndex(words, matrix, postings, lengths)
