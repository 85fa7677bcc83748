"""The embedding index of a vault: one or more vectors per page, in the vault's cache folder.

It is keyed by the embedding model and the text embedded: a change of either rebuilds it. A
refresh embeds only pages whose names or text changed. The build saves its work every few
seconds (and on Ctrl-C), so an interrupted build resumes where it stopped. Search is numpy
brute force (a matrix-vector product), with a page scored by its best chunk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wikiq.embed.passages import DEFAULT_TEXT, TextMode, page_passages, text_spec
from wikiq.llm import Embedder
from wikiq.text.language import detect_language
from wikiq.vault.cache import vault_cache_dir
from wikiq.vault.catalog import Catalog
from wikiq.vault.locate import VaultLocation
from wikiq.vault.page import Page
from wikiq.vault.store import remove_stale_temps

INDEX_FORMAT = 1
INDEX_FILE = "embeddings.npz"
Progress = Callable[[int, int], None]  # (pages done, pages to embed)


def index_path(location: VaultLocation, cache_dir: Path | None = None) -> Path:
    """Where a vault's embedding index lives: beside its catalog, never in the vault."""
    return vault_cache_dir(location, cache_dir) / INDEX_FILE


def page_key(page: Page) -> str:
    """What decides, without reading the file, that a page's embedding is still current."""
    names = "\x1f".join((page.title, *page.aliases))
    return f"{page.size}:{page.mtime_ns}:{_digest(names)}"


@dataclass
class EmbeddingIndex:
    """Vectors per page path, and what they were made with."""

    model: str  # the embedder's name, e.g. "local:e5-small"
    text: str  # text_spec(), e.g. "lead:300/96t"
    dim: int
    where: str = ""  # the embedding server, for server-backed models
    complete: bool = False  # every page of the vault had vectors when it was saved
    built_at: float = 0.0
    # The catalog (by its build time) every page was checked or embedded against, when the
    # build that saved this ran to its end; 0 otherwise. Not `built_at`: a long build that
    # saves after an edit it never saw is newer than the catalog that holds the edit.
    current_with: float = 0.0
    keys: dict[str, str] = field(default_factory=dict)  # path -> page_key
    digests: dict[str, str] = field(default_factory=dict)  # path -> digest of embedded texts
    vectors: dict[str, np.ndarray] = field(default_factory=dict)  # path -> (rows, dim) float32
    langs: dict[str, str] = field(default_factory=dict)  # path -> language of its text

    @property
    def rows(self) -> int:
        return sum(len(v) for v in self.vectors.values())

    def matches(self, model: str, text: str, where: str = "") -> bool:
        return (self.model, self.text, self.where) == (model, text, where)

    def save(self, path: Path) -> int:
        """Write atomically (a crash leaves the previous file); returns the file size in bytes."""
        paths = list(self.vectors)
        counts = np.asarray([len(self.vectors[p]) for p in paths], dtype=np.int32)
        matrix = (
            np.vstack([self.vectors[p] for p in paths]).astype(np.float16)
            if paths
            else np.empty((0, self.dim), dtype=np.float16)
        )
        meta = {
            "format": INDEX_FORMAT,
            "model": self.model,
            "text": self.text,
            "dim": self.dim,
            "where": self.where,
            "complete": self.complete,
            "built_at": self.built_at,
            "current_with": self.current_with,
        }
        pages = {"paths": paths, "keys": [self.keys[p] for p in paths]}
        pages["digests"] = [self.digests[p] for p in paths]
        pages["langs"] = [self.langs.get(p, "") for p in paths]
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(
                    fh,
                    meta=_utf8(json.dumps(meta)),
                    pages=_utf8(json.dumps(pages, ensure_ascii=False)),
                    counts=counts,
                    vectors=matrix,
                )
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        remove_stale_temps(path)  # a build killed while saving left its half-written file
        return path.stat().st_size


def read_meta(path: Path) -> dict[str, Any] | None:
    """The index's header (model, text, completeness) without loading its vectors."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(_text(data["meta"]))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
        return None
    if not isinstance(meta, dict) or meta.get("format") != INDEX_FORMAT:
        return None
    return meta


def load_index(path: Path) -> EmbeddingIndex | None:
    """The saved index, or None when absent, unreadable or from another format."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(_text(data["meta"]))
            pages = json.loads(_text(data["pages"]))
            counts = np.asarray(data["counts"], dtype=np.int64)
            matrix = np.asarray(data["vectors"], dtype=np.float32)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
        return None
    try:
        if meta.get("format") != INDEX_FORMAT or int(counts.sum()) != len(matrix):
            return None
        index = EmbeddingIndex(
            model=str(meta["model"]),
            text=str(meta["text"]),
            dim=int(meta["dim"]),
            where=str(meta.get("where", "")),
            complete=bool(meta.get("complete")),
            built_at=float(meta.get("built_at", 0.0)),
            current_with=float(meta.get("current_with", 0.0)),
        )
        starts = np.concatenate([[0], np.cumsum(counts)])
        langs = pages.get("langs") or [""] * len(pages["paths"])
        for n, p in enumerate(pages["paths"]):
            index.keys[p] = pages["keys"][n]
            index.digests[p] = pages["digests"][n]
            index.vectors[p] = matrix[starts[n] : starts[n + 1]]
            if langs[n]:
                index.langs[p] = langs[n]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None
    return index


@dataclass
class BuildReport:
    """What a build or refresh did."""

    path: Path
    model: str
    text: str
    pages: int  # pages in the vault
    embedded: int  # pages embedded now
    reused: int  # pages whose vectors were current
    removed: int  # pages gone from the vault since the last build
    rows: int  # vectors in the index
    seconds: float
    size_bytes: int
    rebuilt: bool  # the model or the text changed (or there was no index): everything embedded
    complete: bool = True

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["path"] = str(self.path)
        out["seconds"] = round(self.seconds, 2)
        return out


def build_index(
    catalog: Catalog,
    embedder: Embedder,
    *,
    text: TextMode = DEFAULT_TEXT,
    path: Path | None = None,
    where: str = "",
    rebuild: bool = False,
    progress: Progress | None = None,
    batch_texts: int = 32,
    save_every: float = 20.0,
    only: set[str] | None = None,
) -> BuildReport:
    """Create or refresh the index: embed only what changed, saving every `save_every` seconds
    and on interrupt. `only` limits the work to these page paths (the rest keeps its vectors:
    the caller has found them current against `catalog`, as the saved index will say)."""
    t0 = time.perf_counter()
    if path is None:  # where search looks: beside the catalog's cache file
        cached = catalog.cache_file
        path = cached.parent / INDEX_FILE if cached is not None else index_path(catalog.location)
    spec = text_spec(text)
    # The model's own count where it has one (the bundled engine), else an estimate.
    tokens = getattr(embedder, "token_count", None)
    old = None if rebuild else load_index(path)
    rebuilt = old is None or not old.matches(embedder.name, spec, where)
    index = (
        old
        if old is not None and not rebuilt
        else EmbeddingIndex(embedder.name, spec, 0, where=where)
    )
    live = {p.path for p in catalog.pages}
    removed = [p for p in index.vectors if p not in live]
    for p in removed:
        _forget(index, p)

    todo: list[tuple[int, str]] = []  # (page number, key) whose vectors must be checked
    reused = 0
    for i, page in enumerate(catalog.pages):
        key = page_key(page)
        if index.keys.get(page.path) == key or (only is not None and page.path not in only):
            reused += page.path in index.vectors
            continue
        todo.append((i, key))

    embedded = 0
    last_save = time.perf_counter()
    pending: list[tuple[str, str, str, list[str]]] = []  # path, key, digest, texts

    settled = 0  # pages of `todo` whose vectors are in the index now

    def flush() -> None:
        nonlocal embedded, settled
        texts = [t for *_, ts in pending for t in ts]
        rows = embedder.embed_passages(texts)
        if not index.dim:
            index.dim = int(rows.shape[1])
        at = 0
        for p, key, digest, ts in pending:
            index.vectors[p] = np.asarray(rows[at : at + len(ts)], dtype=np.float32)
            index.keys[p] = key
            index.digests[p] = digest
            index.langs[p] = detect_language(" ".join(ts))
            at += len(ts)
        embedded += len(pending)
        settled += len(pending)
        pending.clear()
        if progress:
            progress(settled, len(todo))

    try:
        for i, key in todo:
            page = catalog.pages[i]
            texts = page_passages(
                page, catalog.read_text(i), catalog.read_body(i), text, tokens=tokens
            )
            digest = _digest("\x1e".join(texts))
            if index.digests.get(page.path) == digest and page.path in index.vectors:
                index.keys[page.path] = key  # touched, or renamed in index.md, but same text
                reused += 1
                settled += 1
            else:
                pending.append((page.path, key, digest, texts))
            if sum(len(ts) for *_, ts in pending) >= batch_texts:
                flush()
            if time.perf_counter() - last_save >= save_every:
                if pending:
                    flush()
                _save(index, path, live)
                last_save = time.perf_counter()
        if pending:
            flush()
        if progress:
            progress(settled, len(todo))
    except BaseException:
        # Ctrl-C or a failing server: keep what was embedded, so the next run resumes.
        with contextlib.suppress(Exception):
            _save(index, path, live)
        raise
    size = _save(index, path, live, current_with=catalog.built_at)
    return BuildReport(
        path=path,
        model=index.model,
        text=index.text,
        pages=len(catalog.pages),
        embedded=embedded,
        reused=reused,
        removed=len(removed),
        rows=index.rows,
        seconds=time.perf_counter() - t0,
        size_bytes=size,
        rebuilt=rebuilt,
        complete=index.complete,
    )


def _save(
    index: EmbeddingIndex, path: Path, live: set[str], *, current_with: float = 0.0
) -> int:
    """`current_with`: the catalog's build time, given only once every page was seen."""
    index.complete = live <= set(index.vectors)
    index.built_at = time.time()
    index.current_with = current_with if index.complete else 0.0
    return index.save(path)


def _forget(index: EmbeddingIndex, path: str) -> None:
    index.langs.pop(path, None)
    index.vectors.pop(path, None)
    index.keys.pop(path, None)
    index.digests.pop(path, None)


def _utf8(text: str) -> np.ndarray:
    # As bytes: numpy keeps a str array at four bytes a character (a third of the file).
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def _text(array: np.ndarray) -> str:
    if array.dtype.kind == "U":  # written before the bytes layout
        return str(array)
    return array.tobytes().decode("utf-8")


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", errors="surrogatepass"), digest_size=12).hexdigest()


@dataclass
class IndexState:
    """How an index relates to the vault as it is now (for `doctor` and automatic refresh)."""

    model: str
    text: str
    pages: int  # pages of the vault with vectors
    rows: int
    changed: list[str]  # pages edited since they were embedded
    missing: list[str]  # pages with no vectors at all
    complete: bool


class PageVectors:
    """An index laid out for search over one catalog: rows grouped by page number.

    Multilingual models score any two texts in the same language higher than a text and its
    translation (e5-small: an off-topic Chinese page above the on-topic English one for a
    Chinese question). So a page's similarity is taken relative to the question's mean
    similarity to all pages in that page's language: "how much closer than usual". It also
    makes the number comparable across questions, which an absolute threshold needs.
    """

    def __init__(self, index: EmbeddingIndex, catalog: Catalog) -> None:
        by_path = catalog.by_path
        groups = sorted(
            (by_path[p], p, v) for p, v in index.vectors.items() if p in by_path and len(v)
        )
        self.dim = index.dim
        self.pages = np.asarray([g[0] for g in groups], dtype=np.int64)
        counts = np.asarray([len(g[2]) for g in groups], dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        self.one_per_page = bool(len(counts) == 0 or counts.max() == 1)
        self.matrix = (
            np.ascontiguousarray(np.vstack([g[2] for g in groups]), dtype=np.float32)
            if groups
            else np.empty((0, max(index.dim, 1)), dtype=np.float32)
        )
        langs = [index.langs.get(p) or _catalog_language(catalog, i) for i, p, _ in groups]
        self.row_groups, self.group_sizes = _language_groups(np.repeat(langs, counts))

    def __len__(self) -> int:
        return len(self.pages)

    def similarities(self, query: np.ndarray) -> np.ndarray:
        """Per row: cosine similarity minus the mean over rows in the same language."""
        # einsum, not `@`: BLAS spreads a matrix-vector product over threads that spin while
        # they wait, and on a busy machine that took 16 ms instead of 0.5 ms (8k x 384).
        sims = np.einsum("ij,j->i", self.matrix, np.asarray(query, dtype=np.float32).ravel())
        sums = np.bincount(self.row_groups, weights=sims, minlength=len(self.group_sizes))
        return sims - (sums / self.group_sizes)[self.row_groups]

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The `k` pages closest to a unit query vector: (page number, centred similarity),
        best first; a page with several chunks scores by its best one."""
        if len(self.pages) == 0 or k <= 0:
            return []
        sims = self.similarities(query)
        scores = sims if self.one_per_page else np.maximum.reduceat(sims, self.starts)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((self.pages[top], -scores[top]))]
        return [(int(self.pages[t]), float(scores[t])) for t in top]


# A language with fewer pages than this shares the mean of all pages: too few to average.
MIN_LANGUAGE_GROUP = 10


def _language_groups(row_langs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A group number per row (one per language with enough rows, the rest pooled) and the
    number of rows in each group."""
    if len(row_langs) == 0:
        return np.zeros(0, dtype=np.int64), np.ones(1)
    names, inverse, sizes = np.unique(row_langs, return_inverse=True, return_counts=True)
    big = sizes >= MIN_LANGUAGE_GROUP
    if big.all() or not big.any():
        group_of = np.arange(len(names)) if big.all() else np.zeros(len(names), dtype=np.int64)
    else:
        # Small languages join one pooled group with everything (its mean: the vault's mean).
        group_of = np.where(big, np.cumsum(big) - 1, int(big.sum()))
    rows = group_of[inverse].astype(np.int64)
    counts = np.bincount(rows).astype(np.float64)
    return rows, np.maximum(counts, 1.0)


def _catalog_language(catalog: Catalog, page: int) -> str:
    p = catalog.pages[page]
    return detect_language(f"{p.title} {p.summary}")


def index_state(index: EmbeddingIndex, catalog: Catalog) -> IndexState:
    """Which pages are current, edited since embedded, or not embedded at all."""
    changed, missing = [], []
    for page in catalog.pages:
        key = index.keys.get(page.path)
        if key is None or page.path not in index.vectors:
            missing.append(page.path)
        elif key != page_key(page):
            changed.append(page.path)
    return IndexState(
        model=index.model,
        text=index.text,
        pages=len(catalog.pages) - len(missing),
        rows=index.rows,
        changed=changed,
        missing=missing,
        complete=not missing,
    )
