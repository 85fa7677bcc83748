"""The in-memory indexes retrieval needs, built once per catalog and shared by every question."""

from __future__ import annotations

import functools
import hashlib
import itertools
from dataclasses import dataclass, replace

import numpy as np

from wikiq.build_notices import building
from wikiq.retrieve.body import BodyIndex
from wikiq.retrieve.languages import VaultLanguages, vault_languages
from wikiq.retrieve.names import NAME_MEMO, NameIndex, name_index
from wikiq.retrieve.passage_bm25 import PassageWeights, passage_weights
from wikiq.retrieve.ppr import Direction, InLinks, WalkGraph, walk_graph
from wikiq.sparse import CSR, SplitCSR
from wikiq.text.tokenize import TOKENIZER_FINGERPRINT
from wikiq.vault import store
from wikiq.vault.catalog import Catalog
from wikiq.vault.rows import page_field
from wikiq.vault.terms import TWO_BYTES, TermIndex, match_terms

# In the text index a page's title and aliases count as if written this many times in its
# body (a fielded BM25, as qmd weighs its title column 4 to the body's 1). Natural dev
# questions, text channel alone, recall@5: body only 0.794, names counted once 0.828,
# three times 0.842 (docs/BENCHMARKS.md, "Natural questions").
NAME_REPEAT = 3


@dataclass(frozen=True)
class RetrievalIndexes:
    names: NameIndex  # titles and aliases (Stages 1 and 3)
    # BM25 over bodies with titles and aliases counted in: the body channel, the text channel
    # and the coverage decision all read it. A separate body-only index gave the same figures
    # (every natural set identical, the older sets within ±0.003 of recall@5) and was a third
    # of the cache at 1M pages (docs/BENCHMARKS.md, "One text index").
    text: BodyIndex
    lead: BodyIndex  # BM25 over lead paragraphs
    # BM25 over passages (sections of about 800 characters, title in): its parameters; the
    # counts are the catalog's (`Catalog.field_terms("passages")`, retrieve/passage_bm25.py).
    passages: PassageWeights
    walk: WalkGraph  # PPR transition matrix (Stage 4)
    graph: CSR  # the link graph (row links to column): the catalog's, not stored again
    # Its transpose, row-major: who links to each page (from the cache, read from the walk's
    # steps when they tell: `InLinks`).
    graph_t: CSR | InLinks
    centrality: np.ndarray  # log in-degree, scaled to [0, 1]
    degree: np.ndarray  # in + out links per page
    is_source: np.ndarray  # bool per page: a `sources/` page
    types: np.ndarray  # page type as a small integer code
    stubs: np.ndarray  # bool per page: generation_complete: false
    languages: VaultLanguages  # which languages the vault's pages are written in

    def with_walk(
        self, catalog: Catalog, direction: Direction, in_weight: float
    ) -> RetrievalIndexes:
        """The same indexes with a differently built walk graph (for ablations)."""
        return replace(self, walk=walk_graph(catalog.graph, direction, in_weight))


def build_indexes(
    catalog: Catalog,
    direction: Direction,
    in_weight: float,
    previous: RetrievalIndexes | None = None,
) -> RetrievalIndexes:
    """Build every index (with scipy, imported here: a warm cache never needs it); what
    `previous` (the indexes these replace) already computed for unchanged names is reused."""
    graph = catalog.graph.to_scipy()
    in_degree = np.asarray(graph.sum(axis=0)).ravel()
    centrality = np.log1p(in_degree)
    if centrality.max(initial=0) > 0:
        centrality = centrality / centrality.max()
    types = page_field(catalog.pages, "type")

    def read_once(field: str) -> None:
        # Counts from the cache are read through its map, whole, by the step just done: their
        # pages go back (a million pages' are ~2 GB), and come back if read again.
        matrix = catalog.field_terms(field).matrix
        store.release_pages(matrix.indices)
        store.release_pages(matrix.data)

    languages = vault_languages(catalog)  # reads the body's counts a slice at a time
    titled = titled_terms(catalog, catalog.terms)
    read_once("body")  # before the text index's transpose, the largest step
    catalog.let_go_of_terms("body")  # worked out from the passages, held in memory
    text = BodyIndex(titled, weighed=True)  # read by every question: weighed once, here
    del titled
    lead = BodyIndex(catalog.field_terms("lead"), weighed=True)
    read_once("lead")
    passages = passage_weights(catalog.field_terms("passages"))
    read_once("passages")
    return RetrievalIndexes(
        names=name_index(catalog, previous.names if previous is not None else None),
        text=text,
        lead=lead,
        passages=passages,
        walk=walk_graph(catalog.graph, direction, in_weight),
        graph=catalog.graph,
        graph_t=catalog.graph_t,
        centrality=centrality,
        degree=in_degree + np.asarray(graph.sum(axis=1)).ravel(),
        is_source=np.asarray([t == "source" for t in types], dtype=bool),
        types=_type_codes(types),
        stubs=np.asarray(page_field(catalog.pages, "stub"), dtype=bool),
        languages=languages,
    )


def titled_terms(catalog: Catalog, body: TermIndex) -> TermIndex:
    """Body term counts plus each page's title and alias terms, NAME_REPEAT times over."""
    import scipy.sparse as sp

    rows, terms, local = _named_terms(catalog)
    vocab = list(body.vocab)
    ids = dict(body.term_ids)
    cols_of = np.empty(len(terms), dtype=np.int64)
    for k, term in enumerate(terms):  # in order of first use: new terms numbered so
        j = ids.get(term)
        if j is None:
            j = ids[term] = len(vocab)
            vocab.append(term)
        cols_of[k] = j
    shape = (len(catalog.pages), len(vocab))
    named = sp.csr_matrix(
        (np.full(len(rows), float(NAME_REPEAT), dtype=np.float32), (rows, cols_of[local])),
        shape=shape,
    )
    # The counts as they are (one or two bytes each, as the cache and a first read keep them),
    # and their sums in two bytes while they fit: float32 sums, transposed for the BM25
    # weights, were ~1 GB more at a million pages (the weights read them as float32 either
    # way: the same bits).
    m = body.matrix
    data = m.data[: m.nnz]
    if data.dtype.kind == "u" and int(data.max(initial=0)) + int(named.max()) <= TWO_BYTES:
        named = named.astype(np.uint16)
    counts = sp.csr_matrix((data, m.indices[: m.nnz], m.indptr), shape=shape)
    return TermIndex(vocab, CSR.from_scipy(counts + named))


# The last vault's name terms, by a digest of every page's title and aliases: a refresh after
# a body edit finds the names as they were, and their terms are not cut again (a million
# titles are more than `terms_of_names` remembers: ~4 s of a 1M refresh).
_last_named: dict[str, tuple[bytes, np.ndarray, list[str], np.ndarray]] = {}


def _named_terms(catalog: Catalog) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Each page's title and alias terms, one entry a term: its page, and its place in a
    list of the terms in order of first use."""
    # By column: a cached catalog's pages are never built (a million pages: ~1.4 GB).
    titles, aliases = page_field(catalog.pages, "title"), page_field(catalog.pages, "aliases")
    digest = hashlib.sha1()
    for text in ("\0".join(titles), "\0".join(itertools.chain.from_iterable(aliases))):
        digest.update(text.encode("utf-8", "surrogatepass"))
    # With every length, the joined texts can only be the same for the same names.
    every_alias = itertools.chain.from_iterable(aliases)
    lengths = (map(len, titles), map(len, aliases), map(len, every_alias))
    for counts in lengths:
        digest.update(np.fromiter(counts, dtype=np.int64).tobytes())
    key = digest.digest()
    last = _last_named.get("names")
    if last is not None and last[0] == key:
        return last[1], last[2], last[3]
    rows: list[int] = []
    local: list[int] = []
    first_use: dict[str, int] = {}
    for i, (title, also) in enumerate(zip(titles, aliases, strict=True)):
        for term in terms_of_names((title, *also)):
            rows.append(i)
            local.append(first_use.setdefault(term, len(first_use)))
    named = (np.asarray(rows, dtype=np.int32), list(first_use), np.asarray(local, dtype=np.int32))
    _last_named["names"] = (key, *named)
    return named


@functools.lru_cache(maxsize=NAME_MEMO)
def terms_of_names(names: tuple[str, ...]) -> tuple[str, ...]:
    """The terms of a page's title and aliases, remembered like the name index's features
    (a rebuild after one edit re-tokenized every page's names: ~0.4 s on ob-wiki)."""
    return tuple(match_terms(" ".join(dict.fromkeys(names))))


def _type_codes(types: list[str]) -> np.ndarray:
    codes: dict[str, int] = {}
    return np.asarray([codes.setdefault(t, len(codes)) for t in types], dtype=np.int32)


RETRIEVAL_FILE = "retrieval.npz"  # beside the catalog's cache file
# Building the indexes is said on a terminal from this many pages: 6 s at 100,000, about a
# minute at a million, after the catalog's own progress line has finished.
BUILD_NOTICE_FROM = 20_000

# Bump when any index class changes shape, so an old cache is rebuilt rather than misread.
# 16: the text indexes keep counts, the walk its steps, the link graph is the catalog's; 17: page
# numbers of the text indexes in two bytes (sparse.SplitCSR); 18: each term's largest weight;
# 19: the text index keeps its weights again (BodyIndex.weighed); 20: the lead index too;
# 21: no undirected graph (graph_signals.either_way); 22: float32 ones not kept (store.ones),
# the name index's names and features compressed (NameIndex.packed), the transposed graph
# read from the walk (ppr.InLinks); 23: the text index's total of terms (BodyIndex.total_terms).
INDEX_FORMAT = 23

# What `graph` is saved as: the catalog's own graph, read from its cache, goes in on load.
_CATALOG_GRAPH = CSR(np.zeros(1, np.int32), np.empty(0, np.int32), np.empty(0, np.float32), (0, 0))


def cached_indexes(
    catalog: Catalog,
    direction: Direction,
    in_weight: float,
    previous: RetrievalIndexes | None = None,
) -> RetrievalIndexes:
    """Load the indexes saved beside the catalog cache, or build and save them (reusing what
    `previous`, the indexes of the catalog this one replaces, computed).

    Building the name index tokenizes every title and alias (about 1.4 s for 8,000 pages);
    loading it back takes a tenth of that, which is what makes a cold `wikiq search` quick.
    """
    if catalog.cache_file is None:
        return build_indexes(catalog, direction, in_weight, previous)
    path = catalog.cache_file.parent / RETRIEVAL_FILE
    key = [
        INDEX_FORMAT,
        TOKENIZER_FINGERPRINT,
        catalog.built_at,
        len(catalog.pages),
        direction,
        in_weight,
    ]
    # Vocabularies and names stay bytes until a question looks one up (store.StrIds, Strings).
    stored = store.load(path, STORED_CLASSES, lazy_strings=True)
    if (
        isinstance(stored, dict)
        and stored.get("key") == key
        and isinstance(stored.get("indexes"), RetrievalIndexes)
        and stored["indexes"].graph.shape == (0, 0)
    ):
        loaded: RetrievalIndexes = stored["indexes"]
        if loaded.graph_t.shape == (0, 0):
            loaded = replace(loaded, graph_t=InLinks(loaded.walk))
        return replace(loaded, graph=catalog.graph)
    if len(catalog.pages) >= BUILD_NOTICE_FROM:
        building(
            f"the search indexes of {len(catalog.pages):,} pages (once after the vault changes)"
        )
    indexes = build_indexes(catalog, direction, in_weight, previous)
    # The catalog's cache holds the graph (~70 MB at 1M), the walk's steps tell who links to
    # each page; names are kept compressed.
    graph_t = _CATALOG_GRAPH if InLinks.readable(direction, in_weight) else indexes.graph_t
    saved = replace(indexes, graph=_CATALOG_GRAPH, graph_t=graph_t, names=indexes.names.packed())
    store.save(path, {"key": key, "indexes": saved}, STORED_CLASSES)  # unwritable: rebuilt
    return indexes


# The only classes a saved index may hold (vault/store.py rebuilds them field by field).
STORED_CLASSES = (
    RetrievalIndexes,
    SplitCSR,
    NameIndex,
    BodyIndex,
    PassageWeights,
    WalkGraph,
    VaultLanguages,
)
