"""The catalog: every page of a vault, its links as a sparse graph, and its body terms.

`open_catalog` reads a vault through the cache: an unchanged vault opens without reading any
page, an edited page re-reads one file. Bodies are read on demand by byte offset.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np

from wikiq.sparse import CSR
from wikiq.vault import cache as catalog_cache
from wikiq.vault.apart import run_apart
from wikiq.vault.index_file import IndexEntry, index_entries
from wikiq.vault.locate import VaultLocation
from wikiq.vault.page import DeadLink, Page, ParsedPage, parse_page
from wikiq.vault.reading import Progress, read_one, read_pages
from wikiq.vault.resolve import LinkResolver, resolve_links
from wikiq.vault.rows import PageRows, page_field
from wikiq.vault.scan import FileStat, VaultScan, scan_vault, stat_file
from wikiq.vault.store import saves_deferred, settle_prefetch
from wikiq.vault.terms import (
    TERM_FIELDS,
    TermIndex,
    TermRow,
    Vocab,
    build_term_index,
)

# From this many pages a catalog just built is opened again from the cache it was saved to
# (`_lean`): below it, what that frees is small next to the time it takes.
LEAN_FROM_PAGES = 50_000
# A cache of at least EDITS_IN_PLACE_FROM pages that misses only edits of at most
# EDITS_IN_PLACE_MAX of them is opened as it is, and the retriever takes the edits in place
# (retrieve/delta.py, wiki.py): at a million pages reading three edited pages into the catalog
# and rebuilding the indexes took a one-shot `wikiq search` ~90 s and 5.7 GB. Below it a
# rebuild is quick (100,000 pages: ~5 s) and keeps the cache exact.
EDITS_IN_PLACE_FROM = LEAN_FROM_PAGES
EDITS_IN_PLACE_MAX = 200


@dataclass
class Catalog:
    """Pages, links and terms of one vault. Page numbers index every array here."""

    location: VaultLocation
    pages: Sequence[Page]  # a list, or `PageRows` from the cache (built as read)
    graph: CSR  # directed adjacency (row links to column), unweighted, no self-loops
    dead_links: Sequence[DeadLink]
    index_missing: list[str]  # index.md lines whose page does not exist on disk
    files_read: int = 0  # pages parsed during this open (0 = served from the cache)
    cache_file: Path | None = None
    built_at: float = 0.0  # when the cached catalog was last rebuilt (epoch seconds)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why it is not read)
    index_stat: FileStat | None = None  # index.md's (size, mtime) when the catalog was read
    _terms: dict[str, TermIndex] | None = field(default=None, repr=False)
    # Loads the counts of the fields named (from the cache), or None when they are lost.
    _terms_loader: Callable[[Sequence[str]], dict[str, TermIndex] | None] | None = field(
        default=None, repr=False
    )
    _terms_saver: Callable[[dict[str, TermIndex]], object] | None = field(
        default=None, repr=False
    )
    # Files edited since their rows were read, left to the retriever to take in place (a large
    # vault's cache opened as it is): (row, file, (size, mtime) as found). The change check
    # counts them as read.
    edited: tuple[tuple[int, str, FileStat], ...] = ()
    _by_path: dict[str, int] | None = field(default=None, repr=False)
    _graph_t: CSR | None = field(default=None, repr=False)
    _resolver: LinkResolver | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.pages)

    @property
    def by_path(self) -> dict[str, int]:
        if self._by_path is None:
            self._by_path = {path: i for i, path in enumerate(page_field(self.pages, "path"))}
        return self._by_path

    def find(self, path: str) -> int | None:
        """Page number for a page path, tolerating a `.md` suffix and the wiki-folder prefix."""
        hit = self.by_path.get(path)
        if hit is not None:
            return hit
        return self.resolver.resolve(path)

    @property
    def resolver(self) -> LinkResolver:
        if self._resolver is None:
            self._resolver = LinkResolver(self.pages, self.location.wiki_folder)
        return self._resolver

    @property
    def out_links(self) -> OutLinks:
        """Each page's link targets, in the order the page names them."""
        return OutLinks(self.graph)

    @property
    def graph_t(self) -> CSR:
        """The transposed graph, row-major: row i lists the pages that link to page i."""
        if self._graph_t is None:
            self._graph_t = self.graph.transpose()
        return self._graph_t

    def in_links(self, i: int) -> list[int]:
        return sorted(self.graph_t.row(i).tolist())

    @property
    def terms(self) -> TermIndex:
        """Body term counts (loaded from the cache on first use)."""
        return self.field_terms("body")

    def field_terms(self, name: str) -> TermIndex:
        """Term counts of one field: "body" (the whole body), "lead" (its first paragraph)
        or "passages" (its sections); from the cache, only the file holding this field."""
        terms = self._loaded_fields((name,))
        if terms is None:
            # The terms cache was lost: read the pages again rather than search nothing,
            # and keep them, or every later process would read the whole vault again.
            terms = self._terms = _reread_terms(self)
            if self._terms_saver is not None:
                self._terms_saver(terms)
        return terms[name]

    def loaded_terms(self) -> dict[str, TermIndex] | None:
        """Every field's term counts, from memory or the cache files (None when they are
        lost: the pages would have to be read again)."""
        return self._loaded_fields(TERM_FIELDS)

    def let_go_of_terms(self, name: str) -> None:
        """Stop holding one field's counts when the cache can give them back (the body's,
        worked out from the passages: a million pages' are ~0.4 GB of memory, which building
        the other indexes need not hold)."""
        if self._terms_loader is not None and self._terms is not None:
            self._terms = {n: t for n, t in self._terms.items() if n != name}

    def _loaded_fields(self, names: Sequence[str]) -> dict[str, TermIndex] | None:
        """The term counts held, with those of `names` loaded if they were not (None when
        some of them cannot be: lost, or not this catalog's pages)."""
        held = self._terms or {}
        missing = [n for n in names if n not in held]
        if missing and self._terms_loader is not None:
            loaded = self._terms_loader(missing)
            if loaded is not None and all(
                n in loaded and loaded[n].entries == len(self.pages) for n in missing
            ):
                held = self._terms = {**held, **loaded}
        return held if all(n in held for n in names) else None

    def file_path(self, i: int) -> Path:
        return self.location.wiki_root / self.pages[i].file

    def read_body(self, i: int) -> str:
        """The page body (frontmatter removed), read from disk now; "" if it vanished."""
        page = self.pages[i]
        try:
            with open(self.file_path(i), "rb") as fh:
                fh.seek(page.body_offset)
                raw = fh.read()
        except OSError:
            return ""
        return raw.decode("utf-8", errors="replace")

    def read_page(self, i: int) -> ParsedPage:
        """Parse the page file now (frontmatter with unknown keys, and body)."""
        page = self.pages[i]
        try:
            raw = self.file_path(i).read_bytes()
        except OSError:
            raw = b""
        return parse_page(raw, page.file, size=page.size, mtime_ns=page.mtime_ns)

    def read_text(self, i: int) -> str:
        try:
            return self.file_path(i).read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff")
        except OSError:
            return ""

    @property
    def problems(self) -> list[tuple[str, str]]:
        return [(p.file, p.problem) for p in self.pages if p.problem]


class OutLinks:
    """Page i's link targets as a tuple, read from row i of the link graph: a cached catalog
    opens with its graph's arrays, never one tuple per page."""

    def __init__(self, graph: CSR) -> None:
        self.graph = graph

    def __len__(self) -> int:
        return self.graph.shape[0]

    def __getitem__(self, i: int) -> tuple[int, ...]:
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        return tuple(self.graph.row(i % len(self)).tolist())

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, OutLinks | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable comparison, like a list


T = TypeVar("T")


def open_catalog(
    location: VaultLocation,
    *,
    cache_dir: Path | None = None,
    use_cache: bool = True,
    progress: Progress | None = None,
    scan: VaultScan | None = None,
    previous: Catalog | None = None,
    edits_in_place: bool = False,
) -> Catalog:
    """Open a vault's catalog, re-reading only files whose (size, mtime) changed. `scan`: the
    vault's scan when the caller has just made one (`vault_changes`). `previous`: the catalog
    of this vault held in memory (a refresh), compared with instead of the cache on disk.
    `edits_in_place`: a large vault's cache that misses only a few edited pages is returned as
    it is, those listed in `Catalog.edited`, for a retriever that takes them in place."""
    store = catalog_cache.CatalogCache(location, cache_dir) if use_cache else None
    if previous is not None and previous.location != location:
        previous = None
    loading = None
    if store is not None and previous is None:
        # Read and decoded while the vault is scanned: its checks are numpy's and zlib's,
        # which let the scan run (a million pages: ~0.7 s of a 3 s open).
        loading = _Background(store.load)
    if scan is None:
        scan = scan_vault(location)
    index_stat = stat_file(location.index_path) if location.index_path else None
    if previous is not None:
        # What the cache would give back, without reading it: ~1.5 s at 100,000 pages.
        cached: catalog_cache.CachedCatalog | None = catalog_cache.CachedCatalog(
            previous.pages,
            previous.graph,
            previous.dead_links,
            previous.index_missing,
            previous.index_stat,
            previous.built_at,
        )
    else:
        cached = loading.result() if loading else None

    if cached is not None and cached.index_stat == index_stat and _unchanged(cached.pages, scan):
        if previous is not None:
            return previous
        return _from_cache(location, store, cached, scan, 0)

    if edits_in_place and cached is not None and cached.index_stat == index_stat:
        edited = _edited_rows(cached.pages, scan)
        if edited:
            return replace(_from_cache(location, store, cached, scan, 0), edited=edited)
    to_read = _files_to_read(scan, cached)
    if previous is None and len(to_read) >= LEAN_FROM_PAGES:
        apart = _built_apart(
            location,
            store,
            scan,
            lambda report: _build(location, store, scan, cached, to_read, index_stat, report),
            progress,
        )
        if apart is not None:
            return apart
    # Building allocates millions of objects that stay alive; Python's cycle collector would
    # walk them again and again for nothing (100k pages: parent CPU 12.2 -> 10.0 s, wall
    # 36.9 -> 33.8 s, A/B of 3 opens each). Any cycle left behind is collected afterwards.
    with _cycle_collector_paused():
        built = _build(location, store, scan, cached, to_read, index_stat, progress, previous)
    if store is None or previous is not None or len(built.pages) < LEAN_FROM_PAGES:
        return built
    lean = _lean(built, store, scan)
    if lean is not built:
        del built  # its pages, as objects
        _return_freed_memory()
    return lean


class _Background(Generic[T]):
    """`work()` run in a thread; `result()` waits for it and gives what it returned or
    raises what it raised."""

    def __init__(self, work: Callable[[], T], name: str = "wikiq-cache-load") -> None:
        self._work = work
        self._out: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._out = self._work()
        except BaseException as err:  # handed to the caller of result()
            self._error = err

    def result(self) -> T | None:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._out


def _return_freed_memory() -> None:
    """Give the memory of objects just freed back to the system. The C library keeps it for
    later allocations, and a million pages' objects left ~1.4 GB of it in the process, under
    the retrieval indexes built next."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)  # glibc's; elsewhere there is nothing to call
    except (OSError, AttributeError):
        pass


def _from_cache(
    location: VaultLocation,
    store: catalog_cache.CatalogCache | None,
    cached: catalog_cache.CachedCatalog,
    scan: VaultScan,
    files_read: int,
) -> Catalog:
    """The catalog as its cache holds it: pages built from their columns as they are read,
    term counts loaded when first asked for."""
    return Catalog(
        location=location,
        pages=cached.pages,
        graph=cached.graph,
        dead_links=cached.dead_links,
        index_missing=cached.index_missing,
        files_read=files_read,
        cache_file=store.path if store else None,
        built_at=cached.built_at,
        skipped=scan.skipped,
        index_stat=cached.index_stat,
        _terms_loader=(lambda names: store.load_terms(cached.built_at, names)) if store else None,
        _terms_saver=(lambda terms: store.save_terms(terms, cached.built_at)) if store else None,
    )


def _built_apart(
    location: VaultLocation,
    store: catalog_cache.CatalogCache | None,
    scan: VaultScan,
    build: Callable[[Progress | None], Catalog],
    progress: Progress | None,
) -> Catalog | None:
    """A large read done by a child process that saves the catalog (vault/apart.py), then
    opened from the files it saved, as `_lean` opens them: the page objects, and the memory
    they leave behind when freed (~1.4 GB at a million pages, under the retrieval indexes
    built next), go with the child. None when it cannot be done that way: no cache to hand
    the catalog over in, saves held (a refresh under a server), or no child."""
    # The cache folder must be there to be written: a child whose save failed would leave the
    # whole read to be done again here.
    if store is None or saves_deferred() or _spill_folder(store, LEAN_FROM_PAGES) is None:
        return None

    def work(report: Progress | None) -> tuple[float, int]:
        with _cycle_collector_paused():
            built = build(report)
        if built.cache_file is None:
            raise OSError("the catalog could not be saved")
        return built.built_at, built.files_read

    settle_prefetch()  # the child is forked: no cache read may be half-done in a thread
    done = run_apart(work, progress)
    if done is None:
        return None
    built_at, files_read = done
    return _reopened(location, store, scan, built_at, files_read)


def _files_to_read(scan: VaultScan, cached: catalog_cache.CachedCatalog | None) -> list[str]:
    """The vault's files the cache lacks: new ones, and those whose (size, mtime) changed."""
    if cached is None:
        return list(scan.files)
    pages = cached.pages  # by column: a cache's pages are not built for this
    stats = zip(page_field(pages, "size"), page_field(pages, "mtime_ns"), strict=True)
    known = dict(zip(page_field(pages, "file"), stats, strict=True))
    return [f for f, st in scan.files.items() if known.get(f) != (st.size, st.mtime_ns)]


def _lean(built: Catalog, store: catalog_cache.CatalogCache, scan: VaultScan) -> Catalog:
    """A large vault's catalog just built and saved, opened again from its cache files: the
    pages as columns and the term counts memory-mapped (two bytes a count) instead of a
    Python object a page and float32 counts held in memory (a million pages: ~4 GB less
    under the retrieval indexes built next). `built` when the cache was not written, is
    still to be written (a refresh under a running server), or holds another build."""
    if built.cache_file is None or saves_deferred():
        return built
    lean = _reopened(built.location, store, scan, built.built_at, built.files_read)
    return built if lean is None else lean


def _reopened(
    location: VaultLocation,
    store: catalog_cache.CatalogCache,
    scan: VaultScan,
    built_at: float,
    files_read: int,
) -> Catalog | None:
    """The catalog built at `built_at`, opened from the cache it was just saved to (None when
    the cache holds another build, or none)."""
    saved = store.load()
    if saved is None or saved.built_at != built_at:
        return None
    return _from_cache(location, store, saved, scan, files_read)


def _build(
    location: VaultLocation,
    store: catalog_cache.CatalogCache | None,
    scan: VaultScan,
    cached: catalog_cache.CachedCatalog | None,
    to_read: list[str],
    index_stat: FileStat | None,
    progress: Progress | None,
    previous_catalog: Catalog | None = None,
) -> Catalog:
    """Read the pages the cache lacks (`to_read`: `_files_to_read`), build and save."""
    files = scan.files
    previous = {p.file: (i, p) for i, p in enumerate(cached.pages)} if cached else {}
    old_terms = None
    if previous_catalog is not None and len(to_read) < len(files):
        old_terms = previous_catalog.loaded_terms()
    elif store is not None and cached is not None and len(to_read) < len(files):
        old_terms = store.load_terms(cached.built_at)
    vocabs = {name: Vocab(old_terms[name].vocab if old_terms else ()) for name in TERM_FIELDS}
    spill = _spill_folder(store, len(to_read))
    fresh = read_pages(location.wiki_root, to_read, files, progress, vocabs, spill)

    pages: list[Page] = []
    term_rows: dict[str, list[TermRow]] = {name: [] for name in TERM_FIELDS}
    for f in files:
        if f in fresh:
            page, counts = fresh[f]
            for name in TERM_FIELDS:
                if isinstance(counts, dict):
                    term_rows[name].append(counts[name])
                else:
                    blocks, k = counts
                    term_rows[name].append((blocks[name], k))
        else:
            row, page = previous[f]
            if old_terms is not None and row < old_terms["body"].matrix.shape[0]:
                for name in TERM_FIELDS:
                    term_rows[name].append(row)
            else:  # terms file lost: read this page again rather than lose its terms
                page, reread = read_one(location.wiki_root, f, files[f])
                for name in TERM_FIELDS:
                    term_rows[name].append(reread[name])
        pages.append(page)
    del fresh  # the pages are in `pages`, their terms in `term_rows`
    terms = {
        name: build_term_index(
            term_rows[name], old_terms[name] if old_terms else None, vocabs[name]
        )
        for name in TERM_FIELDS
    }
    del term_rows  # the batches' blocks: as large as the matrices just built from them
    built_at = time.time()
    # The counts are written on a thread while index.md and the links are worked out, which
    # keep one core busy while the other would idle: at a million pages writing them (~1.6 GB
    # compacted, with CRCs) took ~6 s of the first open, and numpy and zlib leave the
    # interpreter to the links meanwhile. A refresh's held saves stay on this thread.
    terms_saved = (
        _Background(lambda: store.save_terms(terms, built_at), name="wikiq-save-terms")
        if store is not None and not saves_deferred()
        else None
    )

    read_again = set(to_read)
    index_missing = _index_kept(cached, index_stat, pages, previous, to_read)
    if index_missing is None:  # index.md or the pages' names changed: applied afresh
        index_missing = _apply_index(pages, _read_index(location), read_again)
    reuse = _same_names(cached, pages) if cached is not None else False
    graph, dead = resolve_links(
        location, pages, previous=cached if reuse else None, reread=read_again
    )
    catalog = Catalog(
        location=location,
        pages=pages,
        graph=graph,
        dead_links=dead,
        index_missing=index_missing,
        files_read=len(to_read),
        built_at=built_at,
        skipped=scan.skipped,
        index_stat=index_stat,
        _terms=terms,
    )
    if store is not None:
        catalog.cache_file = store.save(
            catalog_cache.CachedCatalog(
                pages=pages,
                graph=graph,
                dead_links=dead,
                index_missing=index_missing,
                index_stat=index_stat,
                built_at=catalog.built_at,
            ),
            terms,
            terms_saved=terms_saved.result() if terms_saved is not None else None,
        )
    return catalog


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def vault_changes(catalog: Catalog) -> VaultScan | None:
    """None while the vault on disk still holds exactly the catalog's pages (one stat per
    file, no page read: what a long-running server checks before a question); else the scan,
    for `open_catalog`, which then need not scan again (a second of a 100,000-page refresh)."""
    location = catalog.location
    scan = scan_vault(location)
    index_stat = stat_file(location.index_path) if location.index_path else None
    if index_stat == catalog.index_stat and _unchanged(catalog.pages, scan, catalog.edited):
        return None
    return scan


def _edited_rows(
    pages: Sequence[Page], scan: VaultScan
) -> tuple[tuple[int, str, FileStat], ...] | None:
    """The rows of a large cache whose files were edited since (same files, same order),
    with their stats now; None when other changes (or too many edits) need a rebuild."""
    if len(pages) < EDITS_IN_PLACE_FROM or len(pages) != len(scan):
        return None
    if not isinstance(pages, PageRows) or not pages.column_is("file", scan.joined_names()):
        return None
    differ = (pages.column_array("size") != scan.sizes) | (
        pages.column_array("mtime_ns") != scan.mtimes_ns
    )
    rows = np.flatnonzero(differ)
    if len(rows) > EDITS_IN_PLACE_MAX:
        return None
    return tuple(
        (int(i), pages[int(i)].file, FileStat(int(scan.sizes[i]), int(scan.mtimes_ns[i])))
        for i in rows
    )


def _unchanged(
    pages: Sequence[Page], scan: VaultScan, edited: Sequence[tuple[int, str, FileStat]] = ()
) -> bool:
    """Whether the scan finds every page as its row says (or, for the rows of `edited`, as
    found when they were taken in place)."""
    if len(pages) != len(scan):
        return False
    if isinstance(pages, PageRows) and pages.column_is("file", scan.joined_names()):
        # The cache's pages in the scan's order (as they were built): compare the columns,
        # without building a page.
        sizes, mtimes = pages.column_array("size"), pages.column_array("mtime_ns")
        if edited:
            sizes, mtimes = sizes.copy(), mtimes.copy()
            for row, _, found in edited:
                sizes[row], mtimes[row] = found.size, found.mtime_ns
        return np.array_equal(sizes, scan.sizes) and np.array_equal(mtimes, scan.mtimes_ns)
    if edited:
        return False  # only a cache's rows in the scan's order are taken in place
    if not isinstance(pages, PageRows) and [page.file for page in pages] == scan.names:
        # Pages a read or a refresh built, in the scan's order: compared as columns too. A
        # server's every check after its first refresh went through the dict below (~4 s
        # at a million pages, with nothing changed).
        sizes = np.fromiter((page.size for page in pages), np.int64, len(pages))
        mtimes = np.fromiter((page.mtime_ns for page in pages), np.int64, len(pages))
        return np.array_equal(sizes, scan.sizes) and np.array_equal(mtimes, scan.mtimes_ns)
    files = scan.files
    for page in pages:
        st = files.get(page.file)
        if st is None or st.size != page.size or st.mtime_ns != page.mtime_ns:
            return False
    return True


def _reread_terms(catalog: Catalog) -> dict[str, TermIndex]:
    rows: dict[str, list[TermRow]] = {name: [] for name in TERM_FIELDS}
    for page in catalog.pages:
        _, counts = read_one(
            catalog.location.wiki_root, page.file, FileStat(page.size, page.mtime_ns)
        )
        for name in TERM_FIELDS:
            rows[name].append(counts[name])
    return {name: build_term_index(rows[name]) for name in TERM_FIELDS}


def _spill_folder(store: catalog_cache.CatalogCache | None, to_read: int) -> Path | None:
    """Where a read of this many pages keeps its counts until they are saved: the cache
    folder from LEAN_FROM_PAGES pages (a million pages' are ~2 GB), else memory (None)."""
    if store is None or to_read < LEAN_FROM_PAGES:
        return None
    try:
        store.dir.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return store.dir


def _read_index(location: VaultLocation) -> Iterator[IndexEntry]:
    """index.md's page lines, parsed as the file is read (none when it cannot be read)."""
    if location.index_path is None:
        return
    try:
        with open(location.index_path, encoding="utf-8", errors="replace") as lines:
            yield from index_entries(lines)
    except OSError:
        return


def _apply_index(
    pages: list[Page], entries: Iterable[IndexEntry], reread: Collection[str] = ()
) -> list[str]:
    """Mark pages listed in index.md and merge the index's aliases; return entries with no page.

    The pages just read (files in `reread`) are changed in place. Any other page whose state
    changes is replaced by a changed copy: a refresh shares them with the catalog that
    questions are still reading, which must not see a page's aliases change under them."""
    own = [_own_aliases(p) for p in pages]
    by_path = {p.path: i for i, p in enumerate(pages)}
    by_name: dict[str, int] = {}
    for i, p in enumerate(pages):
        by_name.setdefault(p.name.lower(), i)
    listed = [False] * len(pages)
    aliases = list(own)
    missing: list[str] = []
    for entry in entries:
        at = by_path.get(entry.path)
        if at is None:
            at = by_name.get(entry.path.rsplit("/", 1)[-1].lower())
        if at is None:
            missing.append(entry.path)
            continue
        listed[at] = True
        extra = tuple(a for a in entry.aliases if a not in aliases[at])
        if extra:
            aliases[at] = aliases[at] + extra
    for i, page in enumerate(pages):
        if page.in_index == listed[i] and page.aliases == aliases[i]:
            continue
        if page.file not in reread:
            page = pages[i] = replace(page)
        page.in_index = listed[i]
        page.aliases = aliases[i]
        page.index_aliases = len(aliases[i]) - len(own[i])
    return missing


def _index_kept(
    cached: catalog_cache.CachedCatalog | None,
    index_stat: FileStat | None,
    pages: list[Page],
    previous: dict[str, tuple[int, Page]],
    reread: Sequence[str],
) -> list[str] | None:
    """When index.md and the set of files are as the cached catalog had them and no page read
    again changed its own aliases (a body edit), each page's index state is what it was: the
    re-read pages take theirs from their previous version, and index.md is not parsed again
    (0.9 s at 100,000 pages). Returns the index's entries with no page; None when it must be
    applied afresh."""
    if cached is None or index_stat is None or cached.index_stat != index_stat:
        return None
    if len(pages) != len(previous) or any(p.file not in previous for p in pages):
        return None
    now = {p.file: p for p in pages}
    pairs = [(previous[f][1], now[f]) for f in reread]
    if any(_own_aliases(before) != page.aliases for before, page in pairs):
        return None
    for before, page in pairs:  # just read: their own objects
        page.in_index = before.in_index
        page.aliases = before.aliases
        page.index_aliases = before.index_aliases
    return list(cached.index_missing)


def _own_aliases(page: Page) -> tuple[str, ...]:
    """A page's aliases without those index.md added."""
    return page.aliases[: len(page.aliases) - page.index_aliases]


def _same_names(cached: catalog_cache.CachedCatalog, pages: list[Page]) -> bool:
    """Whether `pages` are the cached catalog's files in its order, each with the same title
    and aliases: then every link resolves as it did (resolution reads nothing else; a page's
    path and name follow from its file), and only the re-read pages' links need resolving."""
    if len(cached.pages) != len(pages):
        return False
    return all(
        page_field(cached.pages, name) == [getattr(p, name) for p in pages]
        for name in ("file", "title", "aliases")
    )
