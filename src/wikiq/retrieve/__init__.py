"""Retrieval: the channels (names, body BM25, lead, Stage 0, source notes, model keywords),
their fusion, Personalized PageRank and the one coverage decision, run by `Retriever`."""

from wikiq.retrieve.cascade import KeywordSource, Retriever
from wikiq.retrieve.result import RankedPage, Retrieval, Seed, SourceExcerpt
from wikiq.retrieve.settings import FusionWeights, RetrieverSettings

__all__ = [
    "FusionWeights",
    "KeywordSource",
    "RankedPage",
    "Retrieval",
    "Retriever",
    "RetrieverSettings",
    "Seed",
    "SourceExcerpt",
]
