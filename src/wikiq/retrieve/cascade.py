"""Select Seeds, expand, fuse: the retrieval cascade behind every answer.

Stage 1 (names) and body search run on every question — both are cheap. Stage 2 (model
keywords) and Stage 3 (an exhaustive scan with them) run only when both are weak and a model
is configured. Stage 4 is Personalized PageRank from the seeds. Stage 5 is pureLLM: when no
signal clears its absolute threshold, the honest answer is "not in your vault".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from wikiq.retrieve.body import BodyHits, BodyIndex
from wikiq.retrieve.fusion import FusionInput, fuse
from wikiq.retrieve.names import NameIndex, NameMatch, name_features
from wikiq.retrieve.ppr import (
    Direction,
    WalkGraph,
    monte_carlo_pagerank,
    personalized_pagerank,
    walk_graph,
)
from wikiq.retrieve.result import (
    ARM_BODY,
    ARM_LEX,
    ARM_LLM,
    ARM_PURE_LLM,
    ARM_SEMANTIC,
    ARM_WEAK_LEX,
    RankedPage,
    Retrieval,
    Seed,
)
from wikiq.vault.catalog import Catalog
from wikiq.vault.terms import match_terms

KeywordSource = Callable[[str], list[str]]
# Optional Stage 0 (embeddings): question, how many -> [(page number, cosine similarity)].
SemanticSource = Callable[[str, int], list[tuple[int, float]]]
Mode = Literal["full", "lexical", "body", "no-ppr", "mc-ppr"]
MODES: tuple[Mode, ...] = ("full", "lexical", "body", "no-ppr", "mc-ppr")


@dataclass(frozen=True)
class RetrieverSettings:
    """Every tunable of the cascade, with the values chosen by measurement (docs/BENCHMARKS.md)."""

    mode: Mode = "full"
    # Stage 1: a name match is strong when it covers the whole title (or alias) and some of
    # the question; weak matches still seed (Lex++PPR) but do not make a question "covered".
    lex_strong_score: float = 0.75
    lex_seed_ratio: float = 0.7  # seeds: names scoring at least this share of the best one
    lex_min_seed_score: float = 0.5
    max_lex_seeds: int = 5
    # Body search: coverage is the share of the question's IDF weight a page contains.
    body_strong_coverage: float = 0.6
    max_body_seeds: int = 5
    body_seed_ratio: float = 0.5
    # Stage 4: PPR.
    restart: float = 0.3
    direction: Direction = "both"
    in_weight: float = 0.5
    # Fusion weights of the signals (see fusion.py).
    w_lex: float = 1.0
    w_body: float = 1.0
    w_ppr: float = 1.0
    w_lead: float = 0.5
    # Stage 0 (embeddings, optional): cosine similarity above which a page is "about" the
    # question; seeds within `sem_seed_margin` of the best one.
    w_sem: float = 1.0
    sem_strong_similarity: float = 0.85
    sem_seed_margin: float = 0.03
    max_sem_seeds: int = 5
    w_centrality: float = 0.05
    # PPR mass divided by degree**ppr_degree_norm: a walk visits hubs often whatever the
    # seeds; dividing by degree keeps what is specific to the seeds (ACL's sweep ordering).
    ppr_degree_norm: float = 0.0
    # When the question *is* a page's name (it covers the whole name and the name explains the
    # whole question), the user is asking about that page: its links matter more than pages
    # that merely mention the words.
    named_w_body: float = 0.3
    named_body_seeds: bool = False
    fusion: Literal["linear", "rrf"] = "linear"
    rrf_k: int = 60
    candidates_per_signal: int = 60


@dataclass
class _Indexes:
    names: NameIndex
    body: BodyIndex
    lead: BodyIndex
    walk: WalkGraph
    centrality: np.ndarray
    degree: np.ndarray
    stubs: np.ndarray


@dataclass
class Retriever:
    """Runs the cascade over one catalog; indexes are built on first use and kept."""

    catalog: Catalog
    settings: RetrieverSettings = field(default_factory=RetrieverSettings)
    keywords: KeywordSource | None = None
    semantic: SemanticSource | None = None
    _indexes: _Indexes | None = None

    def with_sources(
        self, *, keywords: KeywordSource | None = None, semantic: SemanticSource | None = None
    ) -> Retriever:
        """The same retriever (sharing indexes) with a keyword model and/or embeddings attached."""
        other = Retriever(
            self.catalog, self.settings, keywords or self.keywords, semantic or self.semantic
        )
        other._indexes = self._indexes
        return other

    def with_settings(self, **changes: object) -> Retriever:
        """A retriever sharing this one's indexes (when the graph settings allow) with new settings."""
        new = replace(self.settings, **changes)  # type: ignore[arg-type]
        other = Retriever(self.catalog, new, self.keywords, self.semantic)
        if self._indexes is not None and (new.direction, new.in_weight) == (
            self.settings.direction,
            self.settings.in_weight,
        ):
            other._indexes = self._indexes
        elif self._indexes is not None:
            ix = self._indexes
            other._indexes = replace(
                ix, walk=walk_graph(self.catalog.graph, new.direction, new.in_weight)
            )
        return other

    @property
    def indexes(self) -> _Indexes:
        if self._indexes is None:
            self._indexes = self._build()
        return self._indexes

    def _build(self) -> _Indexes:
        catalog = self.catalog
        graph = catalog.graph
        in_degree = np.asarray(graph.sum(axis=0)).ravel()
        centrality = np.log1p(in_degree)
        if centrality.max(initial=0) > 0:
            centrality = centrality / centrality.max()
        stubs = np.asarray([p.stub for p in catalog.pages], dtype=bool)
        return _Indexes(
            names=NameIndex(catalog),
            body=BodyIndex(catalog.terms),
            lead=BodyIndex(catalog.field_terms("lead")),
            walk=walk_graph(graph, self.settings.direction, self.settings.in_weight),
            centrality=centrality,
            degree=in_degree + np.asarray(graph.sum(axis=1)).ravel(),
            stubs=stubs,
        )

    def retrieve(
        self, question: str, *, k: int = 8, exclude: frozenset[str] = frozenset()
    ) -> Retrieval:
        """Rank the pages that answer `question`, or decide that none does (pureLLM)."""
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        ix = self.indexes
        timings["index"] = _ms(t0)
        s = self.settings

        t = time.perf_counter()
        features = name_features(question)
        lex = ix.names.match(features) if s.mode != "body" else []
        timings["lex"] = _ms(t)

        t = time.perf_counter()
        terms = match_terms(question)
        limit = max(s.candidates_per_signal, k * 3)
        body = ix.body.search(terms, limit=limit) if s.mode != "lexical" else _no_hits()
        lead = ix.lead.search(terms, limit=limit) if s.mode != "lexical" else _no_hits()
        timings["body"] = _ms(t)

        sem: list[tuple[int, float]] = []
        if self.semantic is not None and s.mode not in ("lexical", "body"):
            t = time.perf_counter()
            sem = self.semantic(question, limit)
            timings["semantic"] = _ms(t)

        lex_strong = bool(lex) and lex[0].score >= s.lex_strong_score
        body_strong = len(body.pages) > 0 and float(body.coverage[0]) >= s.body_strong_coverage
        sem_strong = bool(sem) and sem[0][1] >= s.sem_strong_similarity

        seeds: list[Seed] = []
        arm = ARM_PURE_LLM
        reason = ""
        keywords: list[str] = []
        named = lex_strong and lex[0].name_coverage >= 0.99 and lex[0].query_coverage >= 0.99
        if lex_strong:
            seeds = self._lex_seeds(lex, features)
            arm, reason = ARM_LEX, f"the question names '{lex[0].name}'"
            if not named or s.named_body_seeds:
                seeds += self._body_seeds(
                    body, exclude_pages={sd.path for sd in seeds}, strong_only=True
                )
        elif body_strong:
            seeds = self._body_seeds(body, exclude_pages=set(), strong_only=True)
            arm, reason = ARM_BODY, "page text covers the question where no title does"
            seeds += self._lex_seeds(lex, features, weak=True)
        elif sem_strong:
            seeds = self._semantic_seeds(sem)
            arm, reason = ARM_SEMANTIC, "embeddings found pages close in meaning to the question"
        else:
            if self.keywords is not None and s.mode in ("full", "mc-ppr", "no-ppr"):
                t = time.perf_counter()
                keywords = self.keywords(question)
                timings["keywords"] = _ms(t)
                t = time.perf_counter()
                seeds = self._keyword_seeds(keywords)
                timings["scan"] = _ms(t)
                if seeds:
                    arm, reason = ARM_LLM, "model keywords matched page titles"
            if not seeds and lex and self._weakly_relevant(lex[0]):
                seeds = self._lex_seeds(lex, features, weak=True)
                arm, reason = ARM_WEAK_LEX, f"only a weak title match ('{lex[0].name}')"
        if not seeds:
            timings["total"] = _ms(t0)
            return Retrieval(
                question,
                ARM_PURE_LLM,
                True,
                [],
                [],
                timings,
                keywords,
                reason="no page title, alias or text in the vault matches the question",
            )

        t = time.perf_counter()
        ppr = self._ppr(seeds)
        timings["ppr"] = _ms(t)

        t = time.perf_counter()
        results, explain = self._fuse(
            lex, body, lead, sem, ppr, seeds, k=k, exclude=exclude, named=named
        )
        timings["fusion"] = _ms(t)
        timings["total"] = _ms(t0)
        return Retrieval(question, arm, False, seeds, results, timings, keywords, reason, explain)

    # --- seeds -------------------------------------------------------------------------

    def _lex_seeds(
        self, lex: list[NameMatch], features: list[str], *, weak: bool = False
    ) -> list[Seed]:
        s = self.settings
        if not lex:
            return []
        floor = max(s.lex_min_seed_score if not weak else 0.0, lex[0].score * s.lex_seed_ratio)
        seeds: list[Seed] = []
        for m in lex:
            if m.score < floor or len(seeds) == s.max_lex_seeds:
                break
            if self.indexes.stubs[m.page] and len(lex) > 1:
                pass  # stubs still seed: they sit in the graph even though they are not results
            seeds.append(
                Seed(
                    self.catalog.pages[m.page].path, "lex", m.score, {f: m.field for f in m.matched}
                )
            )
        return seeds

    def _body_seeds(
        self, body: BodyHits, *, exclude_pages: set[str], strong_only: bool
    ) -> list[Seed]:
        s = self.settings
        if len(body.pages) == 0:
            return []
        top = float(body.scores[0])
        seeds: list[Seed] = []
        for page, score, cov in zip(body.pages, body.scores, body.coverage, strict=True):
            if len(seeds) == s.max_body_seeds or score < top * s.body_seed_ratio:
                break
            if strong_only and cov < s.body_strong_coverage:
                continue
            path = self.catalog.pages[int(page)].path
            if path in exclude_pages:
                continue
            seeds.append(
                Seed(path, "body", float(score / top) * float(cov), {t: "body" for t in body.terms})
            )
        return seeds

    def _semantic_seeds(self, sem: list[tuple[int, float]]) -> list[Seed]:
        s = self.settings
        top = sem[0][1]
        return [
            Seed(self.catalog.pages[p].path, "semantic", sim, {})
            for p, sim in sem[: s.max_sem_seeds]
            if sim >= s.sem_strong_similarity and sim >= top - s.sem_seed_margin
        ]

    def _keyword_seeds(self, keywords: list[str]) -> list[Seed]:
        """Stage 3: every page's names scanned with every keyword; the best pages become seeds."""
        totals: dict[int, float] = {}
        matched: dict[int, dict[str, str]] = {}
        for kw in keywords:
            feats = name_features(kw)
            if not feats:
                continue
            for m in self.indexes.names.match(feats):
                if m.name_coverage < 0.5 and m.query_coverage < 0.99:
                    continue
                totals[m.page] = totals.get(m.page, 0.0) + m.score
                matched.setdefault(m.page, {})[kw] = m.field
        ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[
            : self.settings.max_lex_seeds
        ]
        if not ranked:
            return []
        top = ranked[0][1]
        return [
            Seed(self.catalog.pages[p].path, "keywords", v / top, matched[p]) for p, v in ranked
        ]

    def _weakly_relevant(self, best: NameMatch) -> bool:
        # A weak match must still cover a whole name or most of the question, else it is noise.
        return best.name_coverage >= 0.99 or best.query_coverage >= 0.5

    # --- expansion and fusion ------------------------------------------------------------

    def _ppr(self, seeds: list[Seed]) -> np.ndarray:
        s = self.settings
        n = len(self.catalog.pages)
        if s.mode in ("no-ppr", "lexical", "body") or n == 0:
            return np.zeros(n)
        weights: dict[int, float] = {}
        for seed in seeds:
            i = self.catalog.by_path[seed.path]
            weights[i] = max(weights.get(i, 0.0), seed.score)
        if s.mode == "mc-ppr":
            mass = monte_carlo_pagerank(self.indexes.walk, weights, restart=s.restart)
        else:
            mass = personalized_pagerank(self.indexes.walk, weights, restart=s.restart)
        if s.ppr_degree_norm > 0:
            mass = mass / np.power(1.0 + self.indexes.degree, s.ppr_degree_norm)
        return mass

    def _fuse(
        self,
        lex: list[NameMatch],
        body: BodyHits,
        lead: BodyHits,
        sem: list[tuple[int, float]],
        ppr: np.ndarray,
        seeds: list[Seed],
        *,
        k: int,
        exclude: frozenset[str],
        named: bool = False,
    ) -> tuple[list[RankedPage], dict[str, object]]:
        ix = self.indexes
        pages = self.catalog.pages
        excluded = {self.catalog.by_path[p] for p in exclude if p in self.catalog.by_path}
        inp = FusionInput(
            lex={m.page: m.score for m in lex[: self.settings.candidates_per_signal]},
            body={int(p): float(sc) for p, sc in zip(body.pages, body.scores, strict=True)},
            lead={int(p): float(sc) for p, sc in zip(lead.pages, lead.scores, strict=True)},
            sem=dict(sem),
            ppr=ppr,
            centrality=ix.centrality,
            seeds={self.catalog.by_path[sd.path] for sd in seeds},
        )
        settings = (
            replace(self.settings, w_body=self.settings.named_w_body) if named else self.settings
        )
        ranked = fuse(inp, settings, skip=ix.stubs, exclude=excluded, k=k)
        top = ranked[0][1] if ranked else 1.0
        out = []
        for page, score, signals in ranked:
            p = pages[page]
            out.append(
                RankedPage(p.path, p.title, p.type, score / top if top > 0 else 0.0, signals)
            )
        return out, {}


def _no_hits() -> BodyHits:
    empty = np.empty(0)
    return BodyHits(empty.astype(np.int64), empty, empty, ())


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
