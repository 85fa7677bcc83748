"""Personalized PageRank over the link graph: exact by default, Monte Carlo for plugin parity.

Exact PPR is a sparse power iteration, deterministic to the last digit. The walk restarts at
the seeds with probability `restart` per step; a page with no way out sends its mass back to
the seeds (the plugin's dead-end rule) rather than spreading it over the whole vault.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

from wikiq.sparse import CSR, distinct_values, row_entries

Direction = Literal["out", "in", "both"]

# A push round over fewer edges than the vault's pages / this touches only the pages it
# reaches; a larger one makes one pass over the whole vault. Its pages are grouped without a
# sort, so a round of its own pays off up to a good share of the vault (cascade latency with
# 256, 64, 16 and 4 at 100k and 1M pages: 16 best at both; docs/BENCHMARKS.md).
SPARSE_ROUND = 16
# ... in a vault of this many pages or more: below it a pass over the vault costs microseconds
# and the bookkeeping would cost more (2wiki's 6,119 pages: 0.6 -> 0.9 ms a walk), so every
# round is one (`_small_walk`).
SPARSE_FROM = 50_000
# A page with more links than this is a hub: it spreads its mass only when each link's share
# would matter (see personalized_pagerank). No page of the small dev vaults but 13 of
# ob-wiki's has more; a generated million-page vault has 2,155, one with 142,599 links.
HUB_LINKS = 256


@dataclass(frozen=True)
class WalkGraph:
    """A row-stochastic transition matrix P, stored as the steps a walker can take and what
    each weighs before a page's total is divided out: P[i, j] = steps[i, j] · share[i], worked
    out once a process (`forward`). Stored as P itself (float64) and its transpose, it was
    0.4 GB of a million pages' cache; the steps' weights (1, the in-link weight, or both
    added) are held in the narrowest float type that holds them exactly, so every P[i, j]
    is the same float64 product scipy made, to the last bit."""

    steps: CSR  # row i: the pages a walker at i can go to, and each step's weight
    share: np.ndarray  # float64 per page: 1 / the sum of its steps' weights (0: no way out)
    dangling: np.ndarray  # bool per page: no way out

    @property
    def size(self) -> int:
        return int(self.dangling.shape[0])

    @functools.cached_property
    def forward(self) -> CSR:
        """P, row i = where a walker at i goes (Monte Carlo, the reference iteration)."""
        s = self.steps
        # share[i] · steps[i, j], multiplied in place: one float64 array of the edges' size
        # (index arrays for every edge tripled a million pages' peak memory, ~+0.4 GB).
        data = np.repeat(self.share, np.diff(s.indptr))
        data *= s.data[: s.nnz]
        return CSR(s.indptr, s.indices, data, s.shape)

    @functools.cached_property
    def degree(self) -> np.ndarray:
        """Each page's number of steps (a walk reads it for the pages it pushes from)."""
        return np.diff(self.steps.indptr)

    @functools.cached_property
    def transposed(self) -> CSR:
        """P^T: column j holds where a walker at j goes (the reference power iteration)."""
        return self.forward.transpose()


@dataclass(frozen=True)
class InLinks:
    """Who links to each page (the link graph transposed, rows ascending), read from a walk's
    steps: with both directions and an in-link weight other than 0 and 1, a step weighs 1 when
    it follows a link out, and `in_weight` or 1 + `in_weight` when a link comes in. Stored, the
    transposed graph was 36 MB of a million pages' cache; a question reads a few rows."""

    walk: WalkGraph

    @property
    def shape(self) -> tuple[int, int]:
        return self.walk.steps.shape

    def row(self, i: int) -> np.ndarray:
        steps = self.walk.steps
        return np.sort(steps.row(i)[steps.row_values(i) != 1.0])

    @staticmethod
    def readable(direction: Direction, in_weight: float) -> bool:
        """Whether a walk built so tells the links that come in from those that go out."""
        return direction == "both" and in_weight not in (0.0, 1.0)


def walk_graph(adjacency: CSR, direction: Direction = "both", in_weight: float = 1.0) -> WalkGraph:
    """Transition matrix from a directed adjacency: follow out-links, in-links, or both.

    `in_weight` scales in-link steps when `direction` is "both": a page's own links are
    usually a stronger statement of relatedness than the pages that happen to link to it.
    Built with scipy (imported here: building only); questions read the flat result.
    """
    import scipy.sparse as sp

    a = adjacency.to_scipy().astype(np.float64).tocsr()
    a.data[:] = 1.0
    if direction == "out":
        m = a
    elif direction == "in":
        m = a.T.tocsr()
    else:
        m = (a + in_weight * a.T).tocsr()
    m.sum_duplicates()
    out_weight = np.asarray(m.sum(axis=1)).ravel()
    dangling = out_weight == 0
    share = np.where(dangling, 0.0, 1.0 / np.where(dangling, 1.0, out_weight))
    # The steps in the order of P = diag(share) @ m as scipy's product lists them (not m's
    # own: Monte Carlo picks a step by its place in a row), their weights as m holds them.
    steps = (sp.diags(np.ones(len(share))) @ m).tocsr()
    shape = (int(m.shape[0]), int(m.shape[1]))
    steps = CSR(steps.indptr, steps.indices, _exact_narrowest(steps.data), shape)
    return WalkGraph(steps=steps, share=share, dangling=dangling)


def _exact_narrowest(values: np.ndarray) -> np.ndarray:
    """float64 `values` in the narrowest float type that holds every one exactly."""
    for kind in (np.float16, np.float32):
        narrow = values.astype(kind)
        if np.array_equal(narrow.astype(np.float64), values):
            return narrow
    return values


def _restart_vector(n: int, seeds: Mapping[int, float]) -> np.ndarray:
    """The restart distribution over every page (the reference walks' form)."""
    s = np.zeros(n, dtype=np.float64)
    pages, share = _restart_seeds(n, seeds)
    s[pages] = share
    return s


def _restart_seeds(n: int, seeds: Mapping[int, float]) -> tuple[np.ndarray, np.ndarray]:
    """The restart distribution as (pages in order, their shares): a few seeds, never a
    vector over the whole vault (at a million pages that alone costs milliseconds)."""
    weights: dict[int, float] = {}
    for page, weight in seeds.items():
        if 0 <= page < n and weight > 0:
            weights[page] = weights.get(page, 0.0) + weight
    pages = np.array(sorted(weights), dtype=np.int64)
    values = np.array([weights[p] for p in pages.tolist()], dtype=np.float64)
    total = values.sum()
    return pages, values / total if total > 0 else values


@dataclass(frozen=True)
class Walk:
    """Where a walk went: its mass on every page, and the pages holding any, in page order
    (at a million pages, finding those among every page's mass cost ~3 ms a question)."""

    mass: np.ndarray
    reached: np.ndarray


def personalized_pagerank(
    graph: WalkGraph,
    seeds: Mapping[int, float],
    *,
    restart: float = 0.3,
    tol: float = 1e-4,
) -> np.ndarray:
    """Stationary visit probabilities of a walk restarting at `seeds` (weighted): the mass
    of `pagerank_walk`."""
    return pagerank_walk(graph, seeds, restart=restart, tol=tol).mass


def pagerank_walk(
    graph: WalkGraph,
    seeds: Mapping[int, float],
    *,
    restart: float = 0.3,
    tol: float = 1e-4,
) -> Walk:
    """Stationary visit probabilities of a walk restarting at `seeds` (weighted).

    Computed by residual push (Andersen, Chung and Lang), all active pages at once: work is
    proportional to the neighbourhood the walk actually reaches, not to the vault, and the
    result is deterministic. Each page's residual ends below `tol`: what the values miss of
    the exact solution (`power_iteration` below) is that leftover mass, which is small where
    the walk goes but adds up at a hub whose thousands of neighbours each keep a little.
    """
    n = graph.size
    seeds_at, share = _restart_seeds(n, seeds)
    if len(seeds_at) == 0 or share.sum() == 0:
        return Walk(np.zeros(n), np.empty(0, dtype=np.int64))
    if n < SPARSE_FROM:
        return _small_walk(graph, seeds_at, share, restart=restart, tol=tol)
    # P's entries, worked out once a process (at a million pages ~130 MB of memory, not of
    # cache): weighing each row's steps as a walk reads them cost ~1 ms a question.
    fwd = graph.forward
    indptr, indices, data = fwd.indptr, fwd.indices, fwd.data
    # Zeroed lazily by the OS: only the pages the walk reaches are ever written.
    estimate = np.zeros(n)
    residual = np.zeros(n)
    residual[seeds_at] = share
    # Scratch for finding the distinct pages of a round without sorting them; a slot is
    # always written before it is read, so it needs no clearing.
    slots = np.empty(n, dtype=np.int64)
    damp = 1.0 - restart
    # Each round touches only the pages that hold mass and their neighbours, never the whole
    # vault: in a million pages a round over every page costs milliseconds, and a walk from
    # two pages reaches a few hundred. The sums are the ones a vault-wide round would make,
    # in the same order, so the result is the same to the last bit.
    active = seeds_at[residual[seeds_at] > tol]
    went = []  # each round's active pages: the pages whose estimate is above zero
    while len(active):
        went.append(active)
        mass = residual[active]
        estimate[active] += restart * mass
        residual[active] = 0.0
        spread = damp * mass
        dead = graph.dangling[active]
        touched = []
        if dead.any():
            # A page with no way out sends its walkers back to the seeds.
            residual[seeds_at] += spread[dead].sum() * share
            touched.append(seeds_at)
        # A hub (more than HUB_LINKS links) spreads only mass that would give each of its
        # neighbours as much as an ordinary page's push can: a hub of 100,000 links otherwise
        # costs more than the rest of the walk for shares of 1e-9 each. What it holds back
        # (of the order of tol · (1 - restart) / HUB_LINKS per neighbour) is dropped; its own
        # share is kept.
        degree = indptr[active + 1] - indptr[active]
        spreads = ~dead & (mass * HUB_LINKS > tol * degree)
        live = active[spreads]
        if len(live):
            edges, owner = _edges_of(indptr, live, degree[spreads])
            weights = data[edges] * spread[spreads][owner]
            if len(edges) * SPARSE_ROUND < n:
                targets = indices[edges]
                # Each target's weights summed in edge order, as the vault-wide bincount
                # sums them (so the same bits), grouped without a sort.
                distinct, slot = distinct_values(targets, slots)
                residual[distinct] += np.bincount(slot, weights=weights, minlength=len(distinct))
                touched.append(distinct)
            else:  # the round reaches a good share of the vault: one pass over it is cheaper
                residual += np.bincount(indices[edges], weights=weights, minlength=n)
                active = np.nonzero(residual > tol)[0]
                continue
        if not touched:
            break
        reached = (
            touched[0] if len(touched) == 1 else distinct_values(np.concatenate(touched), slots)[0]
        )
        # Pages in order, as a vault-wide round finds them, so the next round sums alike.
        active = np.sort(reached[residual[reached] > tol])
    if not went:
        return Walk(estimate, np.empty(0, dtype=np.int64))
    return Walk(estimate, np.sort(distinct_values(np.concatenate(went), slots)[0]))


def _small_walk(
    graph: WalkGraph, seeds_at: np.ndarray, share: np.ndarray, *, restart: float, tol: float
) -> Walk:
    """`pagerank_walk` in a vault of fewer than SPARSE_FROM pages, where every round is one
    pass over the vault: the same pushes and sums (so the same bits), with the fewest numpy
    calls a round (half the walk's time was their overhead: 1.3 -> 0.9 ms on ob-wiki)."""
    n = graph.size
    fwd = graph.forward
    indptr, indices, data = fwd.indptr, fwd.indices, fwd.data
    degree, dangling = graph.degree, graph.dangling
    estimate = np.zeros(n)
    residual = np.zeros(n)
    residual[seeds_at] = share
    reached = np.zeros(n, dtype=bool)
    damp = 1.0 - restart
    active = seeds_at[residual[seeds_at] > tol]
    while len(active):
        reached[active] = True
        mass = residual[active]
        estimate[active] += restart * mass
        residual[active] = 0.0
        spread = damp * mass
        dead = dangling[active]
        any_dead = bool(dead.any())
        if any_dead:
            residual[seeds_at] += spread[dead].sum() * share
        # Hubs hold back what would be too little a link (see pagerank_walk).
        sizes = degree[active]
        spreads = ~dead & (mass * HUB_LINKS > tol * sizes)
        if not spreads.all():
            active, sizes, spread = active[spreads], sizes[spreads], spread[spreads]
        total = int(sizes.sum())
        if total == 0 and not any_dead:
            break
        if total:
            edges, _ = row_entries(indptr, active, sizes)
            weights = data[edges] * np.repeat(spread, sizes)
            residual += np.bincount(indices[edges], weights=weights, minlength=n)
        active = np.flatnonzero(residual > tol)
    return Walk(estimate, np.flatnonzero(reached))


def _edges_of(
    indptr: np.ndarray, rows: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Positions of every edge of `rows` (holding `sizes` edges each) in a CSR matrix, and
    which row (0..len-1) owns each."""
    edges, _ = row_entries(indptr, rows, sizes)
    return edges, np.repeat(np.arange(len(rows)), sizes)


def power_iteration(
    graph: WalkGraph,
    seeds: Mapping[int, float],
    *,
    restart: float = 0.3,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> np.ndarray:
    """The same quantity by plain power iteration over the whole graph (reference, slower)."""
    n = graph.size
    s = _restart_vector(n, seeds)
    if s.sum() == 0:
        return s
    x = s.copy()
    damp = 1.0 - restart
    for _ in range(max_iter):
        lost = x[graph.dangling].sum()
        nxt = restart * s + damp * (graph.transposed.matvec(x) + lost * s)
        if np.abs(nxt - x).sum() < tol:
            return nxt
        x = nxt
    return x


def monte_carlo_pagerank(
    graph: WalkGraph,
    seeds: Mapping[int, float],
    *,
    restart: float = 0.3,
    walks: int = 3000,
    steps: int = 50,
    seed: int = 42,
) -> np.ndarray:
    """The plugin's estimator: random walks from the seeds, visits counted (seeded, repeatable)."""
    n = graph.size
    s = _restart_vector(n, seeds)
    if s.sum() == 0:
        return s
    rng = np.random.default_rng(seed)
    seed_pages = np.nonzero(s)[0]
    seed_probs = s[seed_pages]
    start = rng.choice(seed_pages, size=walks, p=seed_probs)
    pos = start.copy()
    indptr, indices, data = graph.forward.indptr, graph.forward.indices, graph.forward.data
    visits = np.zeros(n, dtype=np.float64)
    np.add.at(visits, pos, 1.0)
    cum = np.cumsum(data)
    for _ in range(steps):
        jump = (rng.random(walks) < restart) | graph.dangling[pos]
        moving = np.nonzero(~jump)[0]
        if len(moving):
            # Pick an out-edge in proportion to its transition probability.
            lo, hi = indptr[pos[moving]], indptr[pos[moving] + 1]
            u = rng.random(len(moving))
            base = np.where(lo > 0, cum[np.maximum(lo - 1, 0)], 0.0)
            target = base + u * (cum[hi - 1] - base)
            k = np.searchsorted(cum, target, side="right")
            k = np.clip(k, lo, hi - 1)
            pos[moving] = indices[k]
        jumped = np.nonzero(jump)[0]
        if len(jumped):
            pos[jumped] = start[jumped]
        np.add.at(visits, pos, 1.0)
    return visits / visits.sum()
