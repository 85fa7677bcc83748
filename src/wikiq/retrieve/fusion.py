"""Fusing the signals into one ranking: name match, body BM25, PPR mass and a centrality prior.

Each signal is scaled to [0, 1] against its own best value for this question, then combined
linearly with the retriever's weights; reciprocal-rank fusion is available for comparison.
Stubs never become results (they stay in the graph and may still carry a walk).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from wikiq.retrieve.cascade import RetrieverSettings

Ranked = list[tuple[int, float, dict[str, float]]]


@dataclass(frozen=True)
class FusionInput:
    lex: dict[int, float]  # page -> name-match score in [0, 1]
    body: dict[int, float]  # page -> BM25
    lead: dict[int, float]  # page -> BM25 of its lead paragraph
    sem: dict[int, float]  # page -> cosine similarity (empty without embeddings)
    ppr: np.ndarray  # PPR mass per page (zeros when PPR is off)
    centrality: np.ndarray  # prior in [0, 1] per page
    seeds: set[int]


def fuse(
    inp: FusionInput, s: RetrieverSettings, *, skip: np.ndarray, exclude: set[int], k: int
) -> Ranked:
    """The top `k` pages with their fused score and raw signals."""
    n_cand = s.candidates_per_signal
    candidates: set[int] = (
        set(inp.lex) | set(inp.body) | set(inp.lead) | set(inp.sem) | set(inp.seeds)
    )
    if inp.ppr.any():
        top_ppr = np.argpartition(-inp.ppr, min(n_cand, len(inp.ppr) - 1))[:n_cand]
        candidates.update(int(p) for p in top_ppr if inp.ppr[p] > 0)
    candidates -= exclude
    candidates = {c for c in candidates if not skip[c]}
    if not candidates:
        return []
    body_top = max(inp.body.values(), default=0.0) or 1.0
    lead_top = max(inp.lead.values(), default=0.0) or 1.0
    ppr_pool = [inp.ppr[c] for c in candidates]
    ppr_top = float(max(ppr_pool)) if ppr_pool else 0.0
    ppr_top = ppr_top or 1.0

    rows: list[tuple[int, float, dict[str, float]]] = []
    if s.fusion == "rrf":
        ranks = {
            "lex": _ranks(inp.lex),
            "body": _ranks(inp.body),
            "lead": _ranks(inp.lead),
            "sem": _ranks(inp.sem),
            "ppr": _ranks({c: float(inp.ppr[c]) for c in candidates if inp.ppr[c] > 0}),
        }
        weights = {
            "lex": s.w_lex,
            "body": s.w_body,
            "lead": s.w_lead,
            "sem": s.w_sem,
            "ppr": s.w_ppr,
        }
        for c in candidates:
            score = sum(weights[name] / (s.rrf_k + r[c]) for name, r in ranks.items() if c in r)
            score += s.w_centrality * float(inp.centrality[c]) / s.rrf_k
            rows.append((c, score, _signals(inp, c)))
    else:
        for c in candidates:
            score = (
                s.w_lex * inp.lex.get(c, 0.0)
                + s.w_body * inp.body.get(c, 0.0) / body_top
                + s.w_lead * inp.lead.get(c, 0.0) / lead_top
                + s.w_sem * inp.sem.get(c, 0.0)
                + s.w_ppr * float(inp.ppr[c]) / ppr_top
                + s.w_centrality * float(inp.centrality[c])
            )
            rows.append((c, score, _signals(inp, c)))
    rows.sort(key=lambda r: (-r[1], r[0]))
    return rows[:k]


def _ranks(scores: dict[int, float]) -> dict[int, int]:
    ordered = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return {page: rank for rank, (page, _) in enumerate(ordered, start=1)}


def _signals(inp: FusionInput, c: int) -> dict[str, float]:
    return {
        "lex": inp.lex.get(c, 0.0),
        "body": inp.body.get(c, 0.0),
        "lead": inp.lead.get(c, 0.0),
        "sem": inp.sem.get(c, 0.0),
        "ppr": float(inp.ppr[c]),
        "centrality": float(inp.centrality[c]),
    }
