"""The graph an answer stands on: the pages it used, their PPR neighbours, and the links between.

Seed 004's "visual grounding": not only the cited notes, but the cluster of related notes
around them. Neighbours are the pages the walk from the answer's seeds visits most that are
not already among the ranked results.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.result import Retrieval

DEFAULT_NEIGHBOURS = 8
# Neighbours are drawn smaller than any result: their size says "nearby", not "relevant".
_NEIGHBOUR_MAX_WEIGHT = 0.3
_NEIGHBOUR_MIN_WEIGHT = 0.1


def answer_graph(
    retriever: Retriever,
    retrieval: Retrieval,
    cited: Iterable[str] = (),
    *,
    neighbours: int = DEFAULT_NEIGHBOURS,
) -> dict[str, Any]:
    """Nodes (path, title, type, weight 0–1, roles) and directed edges among them; none when
    the vault does not cover the question (the answer quotes no page)."""
    if retrieval.pure_llm:
        return {"nodes": [], "edges": []}
    catalog = retriever.catalog
    by_path = catalog.by_path
    cited_set = {p for p in cited if p in by_path}
    seeds = {s.path for s in retrieval.seeds if s.path in by_path}
    weight: dict[int, float] = {}
    role: dict[int, str] = {}
    for r in retrieval.results:
        i = by_path.get(r.path)
        if i is not None:
            weight[i] = max(weight.get(i, 0.0), float(r.score))
            role[i] = "result"
    for path in cited_set | seeds:
        i = by_path[path]
        weight.setdefault(i, 0.5)
        role.setdefault(i, "result")

    mass = retriever.seed_walk(retrieval)
    if mass is not None and neighbours > 0:
        near: list[int] = []
        for i in np.argsort(-mass, kind="stable"):
            i = int(i)
            if len(near) >= neighbours or mass[i] <= 0:
                break
            if i not in weight and not catalog.pages[i].stub:
                near.append(i)
        top = float(mass[near[0]]) if near else 0.0
        for i in near:
            share = float(mass[i]) / top if top > 0 else 0.0
            weight[i] = (
                _NEIGHBOUR_MIN_WEIGHT + (_NEIGHBOUR_MAX_WEIGHT - _NEIGHBOUR_MIN_WEIGHT) * share
            )
            role[i] = "neighbour"

    nodes = []
    for i, w in sorted(weight.items(), key=lambda kv: (-kv[1], kv[0])):
        page = catalog.pages[i]
        nodes.append(
            {
                "path": page.path,
                "title": page.title,
                "type": page.type,
                "weight": round(w, 4),
                "role": role[i],
                "cited": page.path in cited_set,
                "seed": page.path in seeds,
                "ppr": round(float(mass[i]), 5) if mass is not None else 0.0,
            }
        )
    members = set(weight)
    edges = [
        {"source": catalog.pages[i].path, "target": catalog.pages[j].path}
        for i in sorted(members)
        for j in catalog.out_links[i]
        if j in members
    ]
    return {"nodes": nodes, "edges": edges}
