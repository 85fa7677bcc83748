"""Pages read and counted: by worker processes for a large read, here for a small one.

Each page is parsed (`vault/page.py`) and its terms counted in every field
(`vault/page_terms.py`); a worker's batch comes back with its counts packed under one batch
vocabulary (`terms.pack_batch`), mapped here into the shared one a batch at a time.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from wikiq.vault.apart import Progress
from wikiq.vault.page import Page, parse_page
from wikiq.vault.page_terms import no_terms, page_terms
from wikiq.vault.scan import FileStat, advise_reading
from wikiq.vault.store import settle_prefetch
from wikiq.vault.terms import (
    TERM_FIELDS,
    FieldTerms,
    PackedRows,
    TermBlock,
    TermBuffer,
    Vocab,
    pack_batch,
)

# Below this many files to read, a process pool costs more than it saves.
PARALLEL_READ_MIN_FILES = 3000


def read_one(root: Path, file: str, st: FileStat) -> tuple[Page, FieldTerms]:
    try:
        raw = (root / file).read_bytes()
    except OSError as err:
        parsed = parse_page(b"", file, size=st.size, mtime_ns=st.mtime_ns)
        parsed.page.problem = f"could not be read: {err.strerror or err}"
        return parsed.page, no_terms()
    parsed = parse_page(raw, file, size=st.size, mtime_ns=st.mtime_ns)
    return parsed.page, page_terms(parsed.page.title, parsed.body, parsed.masked)


PackedBatch = tuple[list[Page], dict[str, PackedRows]]
# A page just read and its terms: each field's counts, or (each field's block, k) for row k
# of the blocks one worker batch shares (no arrays of its own per page).
FreshPage = tuple[Page, FieldTerms | tuple[dict[str, TermBlock], int]]


def read_batch(root: str, batch: list[tuple[str, int, int]]) -> PackedBatch:
    """Read pages in a worker process; their terms come back packed with a batch vocabulary."""
    advise_reading(Path(root), [f for f, _, _ in batch])
    read = [read_one(Path(root), f, FileStat(size, mtime)) for f, size, mtime in batch]
    fields = {name: pack_batch([counts[name] for _, counts in read]) for name in TERM_FIELDS}
    return [page for page, _ in read], fields


def read_pages(
    root: Path,
    to_read: list[str],
    files: dict[str, FileStat],
    progress: Progress | None,
    vocabs: dict[str, Vocab],
    spill: Path | None = None,
) -> dict[str, FreshPage]:
    """The pages of `to_read`, parsed, with their term counts; a large read's counts grow
    in unnamed files in `spill` (vault/spill.py)."""
    out: dict[str, FreshPage] = {}
    total = len(to_read)
    workers = min(os.cpu_count() or 1, 8)
    if total >= PARALLEL_READ_MIN_FILES and workers > 1:
        size = 500
        batches = [
            [(f, files[f].size, files[f].mtime_ns) for f in to_read[k : k + size]]
            for k in range(0, total, size)
        ]
        # Imported here: the process pool's modules cost every warm open ~10 ms.
        from concurrent.futures import ProcessPoolExecutor

        settle_prefetch()  # the pool forks: no cache read may be half-done in a thread
        buffers = {name: TermBuffer(expected_rows=total, spill=spill) for name in TERM_FIELDS}
        try:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                done = 0
                for batch, (pages, fields) in zip(
                    batches, pool.map(read_batch, [str(root)] * len(batches), batches), strict=True
                ):
                    # Map each batch's distinct terms to columns once, then whole arrays.
                    blocks = {
                        name: TermBlock.from_packed(packed, vocabs[name], buffers[name])
                        for name, packed in fields.items()
                    }
                    for k, ((f, _, _), page) in enumerate(zip(batch, pages, strict=True)):
                        share_strings(page)
                        out[f] = (page, (blocks, k))
                    done += len(batch)
                    if progress:
                        progress(done, total)
            return out
        except (OSError, RuntimeError):
            out.clear()  # no process pool here (sandbox, frozen app): read in this process
    for k, f in enumerate(to_read, start=1):
        page, counts = read_one(root, f, files[f])
        out[f] = (page, counts)
        if progress and (k % 200 == 0 or k == total):
            progress(k, total)
    return out


def share_strings(page: Page) -> None:
    """One string object for a path or name however many pages link to it, and for a type or
    tag however many pages have it. Each page from a worker brings its own copies: a million
    pages link ~8 million times to a million names, and the copies cost ~0.1 GB per 100,000
    pages."""
    page.path = sys.intern(page.path)
    page.name = sys.intern(page.name)
    page.type = sys.intern(page.type)
    page.tags = tuple(map(sys.intern, page.tags))
    page.links = tuple(map(sys.intern, page.links))
    page.source_links = tuple(map(sys.intern, page.source_links))
