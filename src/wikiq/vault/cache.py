"""The catalog cache: one folder per (vault, wiki folder) in the user's cache directory.

Never inside the vault. Files are written atomically; anything unreadable, corrupt or from an
older format is treated as absent, so the catalog is silently rebuilt.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from platformdirs import user_cache_dir

from wikiq.sparse import CSR, offsets_fit
from wikiq.text.tokenize import TOKENIZER_FINGERPRINT
from wikiq.vault import store
from wikiq.vault.body_terms import body_from_passages
from wikiq.vault.locate import VaultLocation
from wikiq.vault.packed import Deflated, Packed
from wikiq.vault.page import DeadLink, Page
from wikiq.vault.rows import FromPaths, PageRows, dead_link_rows
from wikiq.vault.scan import FileStat
from wikiq.vault.terms import TERM_FIELDS, TermIndex, compact_counts

# Bump whenever what is stored, or how pages are parsed, changes. A change to tokenizing is
# caught by TOKENIZER_FINGERPRINT, stored beside it. Files are written by `store`, which loads
# without running code (no pickle).
# 11: counts in one byte and term numbers in two where they fit; 12: links as written,
# sources, tags and summaries compressed (vault/packed.py); 13: the body's counts worked out
# from the passages' and the titles' (vault/body_terms.py); 14: the link graph's ones not kept
# (store.ones), counts and offsets in the fewest bytes, files and names that the paths give not
# kept (rows.FromPaths), row offsets in four bytes; 15: the passages' counts, the lead's and
# the titles' compressed (`DEFLATED_ARRAYS`); 16: a file holding NUL bytes is not text, and
# nothing of it is counted (vault/page.py)
CACHE_FORMAT = 16

# The files of a vault's cache folder (`vault_cache_dir`) read by every question.
CATALOG_FILE = "catalog.npz"
NOTES_FILE = "notes.npz"  # the source notes' index (vault/note_index.py)
PASSAGES_FILE = "passages.npz"  # the passages' term counts, read as the passage index's own
TERMS_FILE = "terms.npz"  # the other fields' term counts, read only to build indexes

# Which file keeps each field's counts. The passages' have a file of their own: the passage
# index reads them at every question (retrieve/passage_bm25.py), so in the terms file it
# would have to keep a copy of them in retrieval.npz (a million pages: 1.2 GB twice over) or
# check the whole terms file (2 GB) on a question's first read. The body keeps only its
# vocabulary: its counts are worked out from the passages and the titles (`DERIVED_FROM`).
FIELD_FILES = {
    "body": TERMS_FILE,
    "lead": TERMS_FILE,
    "passages": PASSAGES_FILE,
    "title": TERMS_FILE,
}
DERIVED_FROM = {"body": ("passages", "title")}


def _current(data: object) -> bool:
    """A cache file written by this format and this tokenizer (anything else is stale)."""
    return (
        isinstance(data, dict)
        and data.get("format") == CACHE_FORMAT
        and data.get("tokenizer") == TOKENIZER_FINGERPRINT
    )


_PAGE_FIELDS = [f.name for f in dataclasses.fields(Page)]


def cache_root(override: Path | None = None) -> Path:
    """`override` (the `cache_dir` setting, `WIKIQ_CACHE_DIR`, handed down by the composition
    root), else the platform's user cache folder (e.g. ~/.cache/wikiq)."""
    if override is not None:
        return override
    return Path(user_cache_dir("wikiq", appauthor=False))


def shared_cache_dir(vault_cache_file: Path, name: str) -> Path:
    """A folder for caches every vault shares (the glossary's table), beside `vaults/`, found
    from one vault's cache file (`<root>/vaults/<vault>/<file>`)."""
    return vault_cache_file.parents[2] / name


def vault_cache_dir(location: VaultLocation, override: Path | None = None) -> Path:
    key = f"{location.vault}\0{location.wiki_folder}".encode()
    digest = hashlib.sha1(key).hexdigest()[:12]
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in location.vault.name)[:40]
    return cache_root(override) / "vaults" / f"{name or 'vault'}-{digest}"


_TUPLE_FIELDS = {f.name for f in dataclasses.fields(Page) if f.type.startswith("tuple")}


_NUMBER_FIELDS = {
    f.name: f.type for f in dataclasses.fields(Page) if f.type in ("int", "bool")
}


# Fields no question reads, kept compressed (vault/packed.py): links as written (resolved
# again by a refresh), frontmatter sources and tags, and summaries (an answer's cited pages).
PACKED_FIELDS = frozenset({"links", "source_links", "tags", "summary"})


# Number fields kept in the fewest bytes that hold them (read back as Python ints): the size
# and mtime stay int64, as the scan that they are compared with (and patched from) has them.
_NARROW_FIELDS = frozenset({"body_offset", "index_aliases"})


def _narrowest(values: np.ndarray) -> np.ndarray:
    """Whole numbers from 0 in the narrowest unsigned type that holds them (a million pages'
    six columns of counts and offsets: 48 MB as int64, ~10 MB so)."""
    if len(values) == 0 or int(values.min()) < 0:
        return values
    top = int(values.max())
    for kind in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(kind).max:
            return values.astype(kind)
    return values


def _page_columns(pages: Sequence[Page]) -> dict[str, Any]:
    """Pages as one column per field: strings as lists (`store` keeps them as one text, or
    compressed: `PACKED_FIELDS`), numbers and flags as arrays, tuples flattened with their
    lengths."""
    columns: dict[str, Any] = {}
    for name in _PAGE_FIELDS:
        values = [getattr(p, name) for p in pages]
        if name in _TUPLE_FIELDS:
            flat = [x for v in values for x in v]
            columns[name] = {
                "flat": Packed(flat) if name in PACKED_FIELDS else flat,
                "counts": _narrowest(np.asarray([len(v) for v in values], dtype=np.int64)),
            }
        elif name in _NUMBER_FIELDS:
            dtype = np.bool_ if _NUMBER_FIELDS[name] == "bool" else np.int64
            columns[name] = np.asarray(values, dtype=dtype)
            if name in _NARROW_FIELDS:
                columns[name] = _narrowest(columns[name])
        else:
            columns[name] = Packed(values) if name in PACKED_FIELDS else values
    paths = columns["path"]
    for name in FromPaths.KINDS:  # kept as a note when every page's path gives it
        of = FromPaths(paths, name).of  # one string at a time: a million of them are ~70 MB
        if all(value == of(path) for value, path in zip(columns[name], paths, strict=True)):
            columns[name] = {"from_paths": name}
    return columns


def _pages(columns: dict[str, Any]) -> PageRows:
    """The pages `_page_columns` stored, built as they are read (a missing or misshapen
    column raises)."""
    columns = dict(columns)
    for name in FromPaths.KINDS:
        column = columns[name]
        if isinstance(column, dict) and column.get("from_paths") == name:
            columns[name] = FromPaths(columns["path"], name)
    return PageRows(columns, _TUPLE_FIELDS, _NUMBER_FIELDS, _PAGE_FIELDS)


@dataclass
class CachedCatalog:
    pages: Sequence[Page]
    graph: CSR  # the link graph: row i holds the pages page i links to, in its order
    dead_links: Sequence[DeadLink]
    index_missing: list[str]
    index_stat: FileStat | None
    built_at: float


class CatalogCache:
    """Loads and saves one vault's cached catalog and term index."""

    def __init__(self, location: VaultLocation, cache_dir: Path | None = None) -> None:
        self.location = location
        self.dir = vault_cache_dir(location, cache_dir)
        self.path = self.dir / CATALOG_FILE
        self.terms_path = self.dir / TERMS_FILE

    def load(self) -> CachedCatalog | None:
        data = store.load(self.path, lazy_strings=True)
        if not _current(data):
            return None
        if (
            data.get("vault") != str(self.location.vault)
            or data.get("folder") != self.location.wiki_folder
        ):
            return None
        try:
            fields = dict(data["catalog"])
            fields["pages"] = _pages(fields["pages"])
            graph = fields["graph"]
            if not isinstance(graph, CSR) or graph.shape != (len(fields["pages"]),) * 2:
                return None
            dead = fields["dead_links"]
            fields["dead_links"] = dead_link_rows(dead["page"], dead["target"])
            fields["index_missing"] = list(fields["index_missing"])
            stat = fields["index_stat"]
            fields["index_stat"] = FileStat(*stat) if stat else None
            return CachedCatalog(**fields)
        except (TypeError, KeyError, ValueError, AttributeError):
            return None

    def load_terms(
        self, built_at: float, names: Sequence[str] = TERM_FIELDS
    ) -> dict[str, TermIndex] | None:
        """The term indexes of these fields saved with the catalog built at `built_at` (else
        None: never mix them); only the files holding them are read."""
        wanted = list(dict.fromkeys(n for name in names for n in (*DERIVED_FROM.get(name, ()), name)))
        out: dict[str, TermIndex] = {}
        vocabs: dict[str, Sequence[str]] = {}  # of the fields kept as a vocabulary alone
        for file in dict.fromkeys(FIELD_FILES[name] for name in wanted):
            loaded = self._load_terms_file(file, built_at)
            if loaded is None:
                return None
            for n in wanted:
                if FIELD_FILES[n] != file:
                    continue
                if n not in loaded:
                    return None
                field = loaded[n]
                if isinstance(field, TermIndex):
                    out[n] = field
                else:
                    vocabs[n] = field
        if len({t.entries for t in out.values()}) > 1:
            return None  # every field holds the same pages
        for name in set(wanted) & set(DERIVED_FROM):
            if name not in vocabs:
                return None
            try:
                out[name] = body_from_passages(out["passages"], out["title"], vocabs[name])
            except ValueError:  # passages and titles that are no body: read the pages again
                return None
        return out

    def _load_terms_file(
        self, file: str, built_at: float
    ) -> dict[str, TermIndex | Sequence[str]] | None:
        """The fields of one file: their counts, or the vocabulary alone of a field whose
        counts are worked out (`DERIVED_FROM`)."""
        data = store.load(self.dir / file, lazy_strings=True)  # terms decoded as looked up
        if not _current(data):
            return None
        if data.get("built_at") != built_at:
            return None
        try:
            out: dict[str, TermIndex | Sequence[str]] = {}
            for name, f in data["fields"].items():
                if name in DERIVED_FROM:
                    out[name] = f["vocab"]
                    continue
                matrix = _read_matrix(f["matrix"])
                if not isinstance(matrix, CSR) or matrix.shape[1] != len(f["vocab"]):
                    return None
                starts = f.get("entry_starts")
                if starts is not None and not offsets_fit(starts, matrix.shape[0]):
                    return None
                out[name] = TermIndex(f["vocab"], matrix, entry_starts=starts)
            return out
        except (KeyError, ValueError, TypeError, AttributeError):
            return None

    def save_terms(self, terms: dict[str, TermIndex], built_at: float) -> bool:
        """Write the term indexes of the catalog built at `built_at`, each field to its file
        (`FIELD_FILES`); False if one cannot be written."""
        ok = True
        for file in dict.fromkeys(FIELD_FILES.values()):
            fields = {
                name: {"vocab": t.vocab}
                if name in DERIVED_FROM
                else {
                    "vocab": t.vocab,
                    "matrix": _stored_matrix(name, _compacted(t.matrix)),
                    "entry_starts": None if t.entry_starts is None else _offsets(t.entry_starts),
                }
                for name, t in terms.items()
                if FIELD_FILES[name] == file
            }
            body = {**self._head(), "fields": fields, "built_at": built_at}
            ok = store.save(self.dir / file, body) and ok
        return ok

    def _head(self) -> dict[str, Any]:
        return {
            "format": CACHE_FORMAT,
            "tokenizer": TOKENIZER_FINGERPRINT,
            "vault": str(self.location.vault),
            "folder": self.location.wiki_folder,
        }

    def save(
        self,
        catalog: CachedCatalog,
        terms: dict[str, TermIndex],
        *,
        terms_saved: bool | None = None,
    ) -> Path | None:
        """Write the catalog and its term counts (unless the caller wrote them already:
        `terms_saved` says whether that worked); a cache that cannot be written is skipped,
        never an error."""
        head = self._head()
        ok = self.save_terms(terms, catalog.built_at) if terms_saved is None else terms_saved
        # Plain columns load several times faster than objects: pages as one column per
        # field, links as the graph's arrays, dead links as two lists.
        g = catalog.graph
        body = {
            "pages": _page_columns(catalog.pages),
            "graph": CSR(_offsets(g.indptr), g.indices, g.data, g.shape),
            "dead_links": {
                "page": [d.page for d in catalog.dead_links],
                "target": [d.target for d in catalog.dead_links],
            },
            "index_missing": list(catalog.index_missing),
            "index_stat": list(catalog.index_stat)
            if catalog.index_stat
            else None,
            "built_at": catalog.built_at,
        }
        ok = ok and store.save(self.path, {**head, "catalog": body})
        return self.path if ok else None


# The arrays of each field's counts kept compressed (vault/packed.py, `Deflated`): read whole
# when the field is loaded. The passages' term numbers stay as they are: a question reads a
# few pages' rows of them, and held whole they would be 0.4 GB of a million pages' process.
DEFLATED_ARRAYS = {"passages": ("data",), "lead": ("indices", "data"), "title": ("indices", "data")}


def _stored_matrix(name: str, matrix: CSR) -> CSR | dict[str, Any]:
    """A field's counts as the cache keeps them: a CSR, or its arrays with those of
    `DEFLATED_ARRAYS` compressed."""
    deflated = DEFLATED_ARRAYS.get(name, ())
    if not deflated:
        return matrix
    arrays = {"indptr": matrix.indptr, "indices": matrix.indices, "data": matrix.data}
    stored: dict[str, Any] = {k: Deflated(a) if k in deflated else a for k, a in arrays.items()}
    return {**stored, "shape": list(matrix.shape)}


def _read_matrix(stored: Any) -> CSR:
    """What `_stored_matrix` kept, as a CSR checked as the cache checks every one."""
    if isinstance(stored, CSR):
        return stored
    rows, cols = (int(n) for n in stored["shape"])
    parts = (stored["indptr"], stored["indices"], stored["data"])
    if not all(isinstance(a, np.ndarray) for a in parts):
        raise ValueError("the cache's counts are not arrays")
    return CSR(*parts, (rows, cols)).check(done=store.release_pages)


def _compacted(matrix: CSR) -> CSR:
    """The counts stored in two bytes where they fit (a million pages: 2.8 -> 2.1 GB), the
    row offsets in four (the passages' were 36 MB as int64)."""
    n = matrix.nnz
    data = compact_counts(matrix.data[:n])
    return CSR(_offsets(matrix.indptr), matrix.indices[:n], data, matrix.shape)


def _offsets(offsets: np.ndarray) -> np.ndarray:
    """Row or entry offsets in four bytes when they fit (every reader widens what it adds)."""
    if offsets.dtype == np.int32:
        return offsets
    if len(offsets) and int(offsets[-1]) > np.iinfo(np.int32).max:
        return offsets
    return offsets.astype(np.int32)

