"""`Wiki`: the Python API, and the one object every interface (CLI, web, MCP) is built on."""

from __future__ import annotations

import os
from pathlib import Path

from wikiq.retrieve.cascade import KeywordSource, Retriever, RetrieverSettings
from wikiq.retrieve.result import Retrieval
from wikiq.vault.catalog import Catalog, Progress, open_catalog
from wikiq.vault.locate import VaultLocation, locate_vault


class Wiki:
    """An opened vault: its location and catalog, plus search and answers on top."""

    def __init__(self, location: VaultLocation, catalog: Catalog) -> None:
        self.location = location
        self.catalog = catalog
        self._retriever: Retriever | None = None

    @property
    def retriever(self) -> Retriever:
        """The retrieval cascade over this vault (indexes built on first use, then kept)."""
        if self._retriever is None:
            self._retriever = Retriever(self.catalog)
        return self._retriever

    def search(
        self,
        question: str,
        *,
        k: int = 8,
        keywords: KeywordSource | None = None,
        settings: RetrieverSettings | None = None,
    ) -> Retrieval:
        """Rank the pages that answer `question` (or decide none does: `pure_llm`)."""
        retriever = self.retriever
        if settings is not None and settings != retriever.settings:
            retriever = retriever.with_settings(**settings.__dict__)
        if keywords is not None:
            retriever = retriever.with_sources(keywords=keywords)
        return retriever.retrieve(question, k=k)

    @classmethod
    def open(
        cls,
        vault: str | os.PathLike[str] | None = None,
        *,
        wiki_folder: str | None = None,
        cache_dir: Path | None = None,
        use_cache: bool = True,
        progress: Progress | None = None,
    ) -> Wiki:
        """Find the vault (argument, `WIKIQ_VAULT`, `.llm-wiki.json`, `CLAUDE.md`) and read it."""
        location = locate_vault(vault, wiki_folder)
        catalog = open_catalog(
            location, cache_dir=cache_dir, use_cache=use_cache, progress=progress
        )
        return cls(location, catalog)

    def __repr__(self) -> str:
        return f"Wiki({str(self.location.vault)!r}, pages={len(self.catalog)})"
