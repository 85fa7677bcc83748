"""llm_wiki's graph relevance signals (seed 002), for measuring against PPR.

Each is computed for the candidates only, relative to the seeds:
- shared sources: how many `sources/` pages the candidate cites together with a seed;
- Adamic-Adar: common neighbours of candidate and seed, each counted 1/log(degree);
- type affinity: the candidate has the same page type as a seed.
They stay in the fusion only with the weights measurement gave them (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import numpy as np

from wikiq.retrieve.ppr import InLinks
from wikiq.sparse import CSR


def neighbours(graph: CSR, page: int) -> np.ndarray:
    return graph.row(page)


def shared_sources(
    links: CSR, is_source: np.ndarray, seeds: dict[int, float], cand: np.ndarray
) -> np.ndarray:
    """Per candidate: seed-weighted count of source pages both link to, scaled to [0, 1]."""
    out = np.zeros(len(cand))
    for seed, weight in seeds.items():
        linked = neighbours(links, seed)
        cited = set(linked[is_source[linked]].tolist())
        if not cited:
            continue
        for j, c in enumerate(cand):
            row = neighbours(links, int(c))
            shared = sum(1 for z in row[is_source[row]] if int(z) in cited)
            out[j] += weight * shared
    top = out.max(initial=0.0)
    return out / top if top > 0 else out


def adamic_adar(
    graph: CSR, graph_t: CSR | InLinks, degree: np.ndarray, seeds: dict[int, float], cand: np.ndarray
) -> np.ndarray:
    """Per candidate: seed-weighted Adamic-Adar index, scaled to [0, 1]."""
    inv_log = 1.0 / np.log(np.maximum(degree, 2.0))
    out = np.zeros(len(cand))
    # Each candidate's neighbours once, not once a seed (each is a union of two rows).
    around = [either_way(graph, graph_t, int(c)) for c in cand] if seeds else []
    for seed, weight in seeds.items():
        seed_nb = np.zeros(graph.shape[0], dtype=bool)
        seed_nb[either_way(graph, graph_t, seed)] = True
        for j, nb in enumerate(around):
            common = nb[seed_nb[nb]]
            out[j] += weight * float(inv_log[common].sum())
    top = out.max(initial=0.0)
    return out / top if top > 0 else out


def either_way(graph: CSR, graph_t: CSR | InLinks, page: int) -> np.ndarray:
    """The pages linked with `page` in either direction, ascending: worked out from the graph
    and its transpose when asked (a stored undirected graph was 83 MB of a million pages'
    cache, for a signal the fusion weighs 0)."""
    return np.union1d(graph.row(page), graph_t.row(page))


def type_affinity(types: np.ndarray, seeds: dict[int, float], cand: np.ndarray) -> np.ndarray:
    """Per candidate: total weight of seeds of the same type, capped at 1."""
    out = np.zeros(len(cand))
    for seed, weight in seeds.items():
        out += weight * (types[cand] == types[seed])
    return np.minimum(out, 1.0)
