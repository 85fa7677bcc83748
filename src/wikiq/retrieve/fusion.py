"""Fusing the signals into one ranking.

Signals: the name match, body and lead-paragraph BM25, embedding similarity, PPR mass, a
centrality prior, and direct links with the seeds. Each is scaled to [0, 1] for this question
and combined linearly; reciprocal-rank fusion is kept for comparison (it measured worse).
Stubs never become results: they stay in the graph and may still carry a walk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from wikiq.retrieve.ppr import InLinks
from wikiq.retrieve.settings import FusionWeights
from wikiq.retrieve.topk import best_reached
from wikiq.sparse import CSR, positions_in

# page, fused score, the signals behind it
Ranked = list[tuple[int, float, dict[str, float]]]
SIGNALS = (
    "lex",
    "body",
    "lead",
    "sem",
    "ppr",
    "centrality",
    "link_out",
    "link_in",
    "backlink_lead",
    "seed",
    "shared_sources",
    "adamic_adar",
    "type_affinity",
)
GRAPH_EXTRAS = ("shared_sources", "adamic_adar", "type_affinity")
ExtraSignals = Callable[[np.ndarray], dict[str, np.ndarray]]


@dataclass(frozen=True)
class FusionInput:
    lex: dict[int, float]  # page -> name-match score in [0, 1]
    body: dict[int, float]  # page -> BM25
    lead: dict[int, float]  # page -> BM25 of its lead paragraph
    sem: dict[int, float]  # page -> cosine similarity (empty without embeddings)
    ppr: np.ndarray  # PPR mass per page (zeros when PPR is off)
    centrality: np.ndarray  # prior in [0, 1] per page
    seeds: dict[int, float]  # seed page -> seed weight in [0, 1]
    found: dict[int, float]  # seeds found by text, embeddings or keywords (not by their names)
    ppr_reached: np.ndarray | None = None  # the pages holding PPR mass, in order, when known


def link_signals(
    graph: CSR, graph_t: CSR | InLinks, seeds: dict[int, float], cand: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate (`cand`, sorted, not empty): the weight of seeds linking to it, and of
    seeds it links to (each capped at 1). Only the seeds' own rows and the candidates are
    touched, so the cost does not grow with the vault."""
    link_out = np.zeros(len(cand))  # seed -> page
    link_in = np.zeros(len(cand))  # page -> seed
    for page, weight in seeds.items():
        for into, row in ((link_out, graph.row(page)), (link_in, graph_t.row(page))):
            at, holds = positions_in(cand, row)
            into[at[holds]] += weight
    return np.minimum(link_out, 1.0), np.minimum(link_in, 1.0)


def fuse(
    inp: FusionInput,
    weights: FusionWeights,
    graph: CSR,
    graph_t: CSR | InLinks,
    *,
    skip: np.ndarray,
    exclude: set[int],
    k: int,
    candidates_per_signal: int = 60,
    method: str = "linear",
    rrf_k: int = 60,
    extra: ExtraSignals | None = None,
) -> Ranked:
    """The top `k` pages with their fused score and their signals."""
    candidates = set(inp.lex) | set(inp.body) | set(inp.lead) | set(inp.sem) | set(inp.seeds)
    candidates.update(best_reached(inp.ppr, candidates_per_signal + 1, inp.ppr_reached).tolist())
    candidates = {c for c in candidates if c not in exclude and not skip[c]}
    if not candidates:
        return []
    cand = np.fromiter(sorted(candidates), dtype=np.int64)
    link_out, link_in = link_signals(graph, graph_t, inp.seeds, cand)
    features = _features(inp, cand, link_out, link_in)
    wanted = extra is not None and any(getattr(weights, name) for name in GRAPH_EXTRAS)
    extras = extra(cand) if wanted and extra is not None else {}
    for name in GRAPH_EXTRAS:
        features[name] = extras.get(name, np.zeros(len(cand)))
    if method == "rrf":
        scores = _rrf(features, weights, rrf_k)
    else:
        scores = sum(getattr(weights, name) * features[name] for name in SIGNALS)
    order = np.lexsort((cand, -scores))[:k]
    out: Ranked = []
    for j in order:
        c = int(cand[j])
        raw = {
            "lex": inp.lex.get(c, 0.0),
            "body": inp.body.get(c, 0.0),
            "lead": inp.lead.get(c, 0.0),
            "sem": inp.sem.get(c, 0.0),
            "ppr": float(inp.ppr[c]),
            "centrality": float(inp.centrality[c]),
            "link_out": float(link_out[j]),
            "link_in": float(link_in[j]),
        }
        out.append((c, float(scores[j]), raw))
    return out


def _features(
    inp: FusionInput, cand: np.ndarray, link_out: np.ndarray, link_in: np.ndarray
) -> dict[str, np.ndarray]:
    def column(values: dict[int, float]) -> np.ndarray:
        return np.fromiter(
            (values.get(int(c), 0.0) for c in cand), dtype=np.float64, count=len(cand)
        )

    def scaled(values: dict[int, float]) -> np.ndarray:
        top = max(values.values(), default=0.0)
        return column(values) / top if top > 0 else column(values)

    ppr = inp.ppr[cand]
    ppr_top = float(ppr.max()) if len(ppr) else 0.0
    lead = scaled(inp.lead)
    # For back-links, lead matches are compared among the other pages: a seed's own lead
    # (the named page's first lines) always scores best and would squeeze them all.
    raw_lead = column(inp.lead)
    others = np.fromiter((int(c) not in inp.seeds for c in cand), dtype=bool, count=len(cand))
    top_other = float(raw_lead[others].max()) if others.any() else 0.0
    lead_among_others = np.minimum(raw_lead / top_other, 1.0) if top_other > 0 else raw_lead
    features = {
        "lex": column(inp.lex),
        "body": scaled(inp.body),
        "lead": lead,
        "sem": column(inp.sem),
        "ppr": ppr / ppr_top if ppr_top > 0 else ppr,
        "centrality": inp.centrality[cand],
        "link_out": link_out,
        "link_in": link_in,
        # Pages that cite a seed in their opening paragraph are about it (a patient with
        # "heart failure" in its first lines), unlike pages that merely list it as related.
        "backlink_lead": link_in * lead_among_others,
        "seed": column(inp.found),
    }
    return features


def _rrf(features: dict[str, np.ndarray], weights: FusionWeights, k: int) -> np.ndarray:
    scores = np.zeros(len(next(iter(features.values()))))
    for name in ("lex", "body", "lead", "sem", "ppr"):
        col = features[name]
        order = np.argsort(-col, kind="stable")
        ranks = np.empty(len(col))
        ranks[order] = np.arange(1, len(col) + 1)
        scores += np.where(col > 0, getattr(weights, name) / (k + ranks), 0.0)
    return scores
