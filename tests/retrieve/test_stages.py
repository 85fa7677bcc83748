"""The stages on their own: name matching, body BM25, PPR (exact and Monte Carlo)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import wikiq.retrieve.body as body_module
import wikiq.retrieve.ppr as ppr_module
from tests.retrieve.conftest import CatalogFactory, page, searched_full_and_pruned
from wikiq.retrieve.body import BodyIndex
from wikiq.retrieve.fusion import SIGNALS, FusionInput, fuse
from wikiq.retrieve.indexes import STORED_CLASSES
from wikiq.retrieve.names import NameIndex, name_features
from wikiq.retrieve.ppr import (
    monte_carlo_pagerank,
    pagerank_walk,
    personalized_pagerank,
    power_iteration,
    walk_graph,
)
from wikiq.retrieve.settings import FusionWeights
from wikiq.retrieve.topk import best_places, best_reached
from wikiq.sparse import CSR
from wikiq.vault import store
from wikiq.vault.terms import build_term_index


def test_name_features_use_stems_and_cjk_bigrams() -> None:
    assert name_features("Hohmann Transfer Orbits") == ["hohmann", "transfer", "orbit"]
    assert name_features("量子纠缠") == ["量子", "子纠", "纠缠"]
    assert name_features("嫦娥 program") == ["program", "嫦娥"]
    assert name_features("月") == ["月"]


def test_a_title_inside_a_question_is_a_full_name_match(make_catalog: CatalogFactory) -> None:
    catalog = make_catalog(
        {
            "entities/neil-armstrong": page("Neil Armstrong", "Astronaut.", type="entity"),
            "entities/neil-young": page("Neil Young", "Musician.", type="entity"),
            "concepts/orbit": page("Orbit", "Path."),
        }
    )
    names = NameIndex(catalog)
    matches = names.match(name_features("Who was Neil Armstrong?"))
    best = matches[0]
    assert catalog.pages[best.page].path == "entities/neil-armstrong"
    assert best.name_coverage == 1.0 and best.field == "title"
    # "Neil Young" shares only the first name: it covers half its name at most.
    other = next(m for m in matches if catalog.pages[m.page].path == "entities/neil-young")
    assert other.name_coverage < 0.6 and other.score < best.score


def test_a_name_search_over_many_names_keeps_the_same_best_page_names(
    make_catalog: CatalogFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A search that hits very many names sorts only the best of them; pages with several
    # names (aliases) and tied scores must come out exactly as when every name is sorted.
    import wikiq.retrieve.names as names_module

    def words(i: int) -> str:  # pages of one group share their names' other words
        return "".join(f" w{k}" for k in range(i % 5))

    pages = {
        f"concepts/orbit-{i}": page(
            "Orbit transfer" + words(i),
            "x",
            aliases=("Transfer orbit path" + words(i), "Orbit path" + words(i)),
        )
        for i in range(60)
    }
    names = NameIndex(make_catalog(pages))
    question = name_features("which orbit transfer path do I want")
    sorts: list[int] = []
    first_per_page = NameIndex._first_per_page

    def counted(self: NameIndex, *args: np.ndarray) -> np.ndarray:
        sorts.append(len(args[2]))
        return first_per_page(self, *args)

    monkeypatch.setattr(NameIndex, "_first_per_page", counted)
    head_only = fell_back = 0
    for limit in (1, 5, 12, 20, 40, 200):
        monkeypatch.setattr(names_module, "HEAD_FROM", 10**9)
        every = names.match(question, limit=limit)
        monkeypatch.setattr(names_module, "HEAD_FROM", 0)
        monkeypatch.setattr(names_module, "HEAD_NAMES_PER_PAGE", 1)
        sorts.clear()
        head = names.match(question, limit=limit)
        head_only += len(sorts) == 1 and sorts[0] < 90
        fell_back += len(sorts) == 2
        assert head == every and len(every) == min(limit, 60)
    assert head_only and fell_back  # both ways were taken


def test_alias_hits_count_slightly_less_than_title_hits(make_catalog: CatalogFactory) -> None:
    catalog = make_catalog(
        {
            "concepts/gravity-assist": page("Gravity assist", "x", aliases=("slingshot",)),
            "concepts/slingshot": page("Slingshot", "y"),
        }
    )
    matches = NameIndex(catalog).match(name_features("slingshot"))
    assert [catalog.pages[m.page].path for m in matches] == [
        "concepts/slingshot",
        "concepts/gravity-assist",
    ]
    assert matches[1].field == "alias" and matches[1].score < matches[0].score


def test_chinese_question_matches_a_chinese_title_without_segmentation(
    make_catalog: CatalogFactory,
) -> None:
    catalog = make_catalog(
        {
            "entities/嫦娥工程": page("嫦娥工程", "中国的探月计划。", type="entity"),
            "entities/邵弁": page("邵弁", "明代学者。", type="entity"),
        }
    )
    names = NameIndex(catalog)
    assert (
        catalog.pages[names.match(name_features("嫦娥工程是什么？"))[0].page].path
        == "entities/嫦娥工程"
    )
    # A rare two-character name the segmenter cannot know still matches as a bigram.
    hit = names.match(name_features("邵弁是谁"))[0]
    assert catalog.pages[hit.page].path == "entities/邵弁" and hit.name_coverage == 1.0


def test_body_bm25_ranks_by_term_weight_and_reports_absolute_coverage(
    make_catalog: CatalogFactory,
) -> None:
    catalog = make_catalog(
        {
            "concepts/a": page("A", "The rover drilled rock samples on Mars. Rover rover."),
            "concepts/b": page("B", "Samples of rock."),
            "concepts/c": page("C", "Unrelated text about tea."),
        }
    )
    hits = BodyIndex(catalog.terms).search(["rover", "rock", "sampl"])
    paths = [catalog.pages[int(p)].path for p in hits.pages]
    assert paths == ["concepts/a", "concepts/b"]
    assert hits.coverage[0] == 1.0 and 0 < hits.coverage[1] < 1.0
    nothing = BodyIndex(catalog.terms).search(["sourdough"])
    assert len(nothing.pages) == 0


def _random_graph(n: int, density: float, seed: int) -> CSR:
    a = sp.random(n, n, density=density, random_state=seed, format="csr")
    a.setdiag(0)
    a.eliminate_zeros()
    a.data[:] = 1.0
    return CSR.from_scipy(a)


def _dense_ppr(
    adjacency: np.ndarray, seeds: dict[int, float], restart: float, in_weight: float
) -> np.ndarray:
    """PPR solved as a linear system, with dangling pages returning to the seeds."""
    m = adjacency + in_weight * adjacency.T
    n = len(m)
    out = m.sum(axis=1)
    p = np.divide(m, out[:, None], out=np.zeros_like(m), where=out[:, None] > 0)
    s = np.zeros(n)
    for k, v in seeds.items():
        s[k] = v
    s /= s.sum()
    # x = r s + (1-r) (P^T x + (d . x) s)  =>  (I - (1-r)(P^T + s d^T)) x = r s
    d = (out == 0).astype(float)
    system = np.eye(n) - (1 - restart) * (p.T + np.outer(s, d))
    return np.linalg.solve(system, restart * s)


def test_exact_ppr_matches_the_dense_solution() -> None:
    a = _random_graph(120, 0.03, seed=3)
    graph = walk_graph(a, "both", 0.5)
    seeds = {4: 1.0, 17: 0.5}
    expected = _dense_ppr(a.to_scipy().toarray(), seeds, 0.3, 0.5)
    got = personalized_pagerank(graph, seeds, restart=0.3, tol=1e-12)
    assert np.abs(got - expected).max() < 1e-9
    assert np.abs(power_iteration(graph, seeds, restart=0.3) - expected).max() < 1e-9


@pytest.mark.parametrize("tol", [1e-3, 1e-6])
def test_ppr_rounds_over_reached_pages_equal_rounds_over_the_whole_vault(
    monkeypatch: pytest.MonkeyPatch, tol: float
) -> None:
    # In a large vault each push round touches only the pages the walk reached; the values
    # must be the very ones a round over every page gives (rankings never move with size).
    a = _random_graph(3000, 0.002, seed=11)
    graph = walk_graph(a, "both", 0.5)
    seeds = {4: 1.0, 1700: 0.5}
    monkeypatch.setattr(ppr_module, "SPARSE_ROUND", 10**12)  # every round over every page
    whole = personalized_pagerank(graph, seeds, restart=0.3, tol=tol)
    monkeypatch.setattr(ppr_module, "SPARSE_ROUND", 0)  # every round over reached pages only
    monkeypatch.setattr(ppr_module, "SPARSE_FROM", 0)
    reached = personalized_pagerank(graph, seeds, restart=0.3, tol=tol)
    assert np.count_nonzero(whole) > 100
    assert np.array_equal(whole, reached)


@pytest.mark.parametrize(
    ("sparse_round", "sparse_from"),
    [(0, 0), (10**12, 0), (ppr_module.SPARSE_ROUND, ppr_module.SPARSE_FROM)],
    ids=["rounds over reached pages", "rounds over the vault", "small vault"],
)
def test_a_walk_names_exactly_the_pages_it_left_mass_on(
    monkeypatch: pytest.MonkeyPatch, sparse_round: int, sparse_from: int
) -> None:
    # The fusion takes the walk's best pages from the pages it reached instead of scanning
    # every page's mass: a page left out would never be offered, an extra one is harmless
    # but the list must be those pages, in order, whichever way the rounds ran.
    monkeypatch.setattr(ppr_module, "SPARSE_ROUND", sparse_round)
    monkeypatch.setattr(ppr_module, "SPARSE_FROM", sparse_from)
    a = _random_graph(3000, 0.002, seed=11)
    graph = walk_graph(a, "both", 0.5)
    for seeds in ({4: 1.0, 1700: 0.5}, {9: 1.0}, {}):
        walk = pagerank_walk(graph, seeds, restart=0.3, tol=1e-4)
        assert walk.reached.tolist() == np.flatnonzero(walk.mass).tolist()
        best = best_reached(walk.mass, 20, walk.reached)
        assert best.tolist() == best_reached(walk.mass, 20).tolist()


@pytest.mark.parametrize(
    "sparse_from", [ppr_module.SPARSE_FROM, 0], ids=["small vault", "large vault"]
)
def test_a_hub_holds_back_only_mass_too_small_for_any_neighbour(
    monkeypatch: pytest.MonkeyPatch, sparse_from: int
) -> None:
    # A page linked with 4,000 others (an index page, a tag hub) beside a small cluster
    # around the seed: the walk comes back to the hub with little mass, which it keeps rather
    # than spreading it over 4,000 links. The values are those of a walk that spreads
    # everything, to well under the tolerance, for less work.
    leaves = 4000
    n = leaves + 6
    hub, cluster = 0, list(range(leaves + 1, n))
    rows = [hub] * leaves + [cluster[0]] * 5 + cluster[1:] + cluster[1:]
    cols = list(range(1, leaves + 1)) + [hub, *cluster[1:]] + [cluster[0]] * 4 + [hub] * 4
    a = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    a.sum_duplicates()
    a.data[:] = 1.0
    graph = walk_graph(CSR.from_scipy(a), "both", 0.5)
    seeds = {cluster[0]: 1.0}
    pushed: list[int] = []
    row_entries = ppr_module.row_entries

    def counting(
        indptr: np.ndarray, rows: np.ndarray, sizes: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        edges, heads = row_entries(indptr, rows, sizes)
        pushed.append(len(edges))
        return edges, heads

    # Both ways a walk runs: a round over the vault (small) and rounds over what they reach.
    monkeypatch.setattr(ppr_module, "SPARSE_FROM", sparse_from)
    monkeypatch.setattr(ppr_module, "row_entries", counting)
    held = personalized_pagerank(graph, seeds, restart=0.3, tol=1e-6)
    held_work, pushed[:] = sum(pushed), []
    monkeypatch.setattr(ppr_module, "HUB_LINKS", 10**9)  # every page spreads all it gets
    spread = personalized_pagerank(graph, seeds, restart=0.3, tol=1e-6)
    spread_work = sum(pushed)
    assert np.abs(held - spread).max() < 1e-7
    assert list(np.argsort(-held)[:6]) == list(np.argsort(-spread)[:6])
    assert held_work < spread_work


def test_default_tolerance_keeps_every_value_within_its_bound() -> None:
    a = _random_graph(400, 0.01, seed=5)
    graph = walk_graph(a, "both", 0.5)
    seeds = {1: 1.0}
    exact = power_iteration(graph, seeds, restart=0.3)
    fast = personalized_pagerank(graph, seeds, restart=0.3)
    assert np.abs(fast - exact).max() <= 1e-4 / 0.3
    top_exact = set(np.argsort(-exact)[:10])
    assert len(top_exact & set(np.argsort(-fast)[:10])) >= 9


def test_dead_ends_send_walkers_back_to_the_seeds() -> None:
    # 0 -> 1 -> 2, and 2 has no way out (direction "out"): mass never leaks to page 3.
    a = CSR.from_scipy(
        sp.csr_matrix(
            np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=float)
        )
    )
    x = personalized_pagerank(walk_graph(a, "out"), {0: 1.0}, restart=0.2, tol=1e-12)
    assert abs(x.sum() - 1.0) < 1e-9 and x[3] == 0.0
    assert x[0] > x[1] > x[2] > 0


def test_monte_carlo_is_repeatable_and_close_to_exact() -> None:
    a = _random_graph(200, 0.03, seed=7)
    graph = walk_graph(a, "both", 0.5)
    seeds = {2: 1.0}
    mc1 = monte_carlo_pagerank(graph, seeds, restart=0.3, walks=4000, steps=40, seed=1)
    mc2 = monte_carlo_pagerank(graph, seeds, restart=0.3, walks=4000, steps=40, seed=1)
    assert np.array_equal(mc1, mc2)
    exact = power_iteration(graph, seeds, restart=0.3)
    assert np.abs(mc1 - exact).sum() < 0.1  # L1 distance of two probability vectors
    assert len(set(np.argsort(-exact)[:5]) & set(np.argsort(-mc1)[:5])) >= 4


def test_back_links_compare_lead_matches_among_the_other_pages() -> None:
    # Pages 1 and 2 cite the named page 0; page 1 has it in its lead, more than page 2 does.
    # The named page's own lead always matches best, so it must not set the scale.
    graph = CSR.from_scipy(sp.csr_matrix(np.array([[0, 0, 0], [1, 0, 0], [1, 0, 0]], dtype=float)))
    inp = FusionInput(
        lex={0: 1.0},
        body={},
        lead={0: 10.0, 1: 2.0, 2: 1.0},
        sem={},
        ppr=np.zeros(3),
        centrality=np.zeros(3),
        seeds={0: 1.0},
        found={},
    )
    only_backlinks = FusionWeights(
        **{name: 0.0 for name in SIGNALS if name != "backlink_lead"}, backlink_lead=1.0
    )
    ranked = fuse(
        inp,
        only_backlinks,
        graph,
        graph.transpose(),
        skip=np.zeros(3, dtype=bool),
        exclude=set(),
        k=3,
    )
    scores = {page: score for page, score, _ in ranked}
    assert scores == {1: 1.0, 2: 0.5, 0: 0.0}


def _zipf_vault(rng: np.random.Generator, vocab: list[str], pages: int = 3000) -> BodyIndex:
    """A body index of `pages` pages of 5-60 words each, drawn with Zipf's frequencies (a few
    words on most pages, most words on few): where MaxScore's pruning has work to do."""
    zipf = 1.0 / np.arange(1, len(vocab) + 1)
    rows = []
    for _ in range(pages):
        words = rng.choice(len(vocab), size=int(rng.integers(5, 60)), p=zipf / zipf.sum())
        counts: dict[str, int] = {}
        for w in words:
            counts[vocab[w]] = counts.get(vocab[w], 0) + 1
        rows.append(counts)
    return BodyIndex(build_term_index(rows))


# As shipped; and with every candidate set narrowed by the best candidates' full scores and
# none handed back to a full scoring, so that those steps run on every pruned question.
@pytest.mark.parametrize("narrow, lookup_cost", [(None, None), (0, 0)])
def test_pruned_body_search_returns_exactly_what_scoring_every_posting_does(
    monkeypatch: pytest.MonkeyPatch, narrow: int | None, lookup_cost: int | None
) -> None:
    # A large vault's questions skip most postings of their common words (MaxScore): the
    # pages, scores and coverage must be the very ones a full scoring gives, ties included.
    if narrow is not None:
        monkeypatch.setattr(body_module, "PRUNE_NARROW", narrow)
        monkeypatch.setattr(body_module, "LOOKUP_COST", lookup_cost)
    rng = np.random.default_rng(7)
    vocab = [f"w{k}" for k in range(400)]
    index = _zipf_vault(rng, vocab)
    pruned_used = []
    real = BodyIndex._score_pruned

    def spy(self: BodyIndex, ids: list[int], limit: int) -> object:
        out = real(self, ids, limit)
        pruned_used.append(out is not None)
        return out

    monkeypatch.setattr(BodyIndex, "_score_pruned", spy)
    monkeypatch.setattr(body_module, "PRUNE_SHARE", 2)  # try it on as many questions as can be
    for _ in range(200):
        # A question's words: a few of any rarity and a few of the commonest (as "the", "how").
        some = rng.choice(len(vocab), size=int(rng.integers(1, 4)))
        common = rng.choice(5, size=int(rng.integers(0, 4)))
        query = [vocab[int(w)] for w in [*some, *common]]
        full, pruned = searched_full_and_pruned(index, query, 10, monkeypatch)
        assert pruned.pages.tolist() == full.pages.tolist()
        assert pruned.scores.tolist() == full.scores.tolist()
        assert pruned.coverage.tolist() == full.coverage.tolist()
    assert sum(pruned_used) > 50  # the pruning really ran, not only the fallback


def test_a_search_reading_only_the_best_hits_coverage_ranks_the_same() -> None:
    # The source notes rank every chunk but read only the best three's coverage: the ranking
    # and those three must be what a full search gives, and nothing past them is invented.
    rng = np.random.default_rng(11)
    vocab = [f"w{k}" for k in range(300)]
    index = _zipf_vault(rng, vocab, pages=800)
    for _ in range(100):
        query = [vocab[int(w)] for w in rng.choice(len(vocab), size=int(rng.integers(1, 6)))]
        full = index.search(query, limit=index.n_docs)
        few = index.search(query, limit=index.n_docs, coverage_of=3)
        assert few.pages.tolist() == full.pages.tolist()
        assert few.scores.tolist() == full.scores.tolist()
        assert few.coverage[:3].tolist() == full.coverage[:3].tolist()
        assert not few.coverage[3:].any()
        assert few.best_coverage(3) == full.best_coverage(3)


def test_best_places_keeps_the_first_of_tied_scores_like_a_stable_sort() -> None:
    # Which of several equal scores makes the cut must not depend on a partition's luck:
    # the same question gives the same pages every time, in every process.
    rng = np.random.default_rng(3)
    for _ in range(200):
        scores = rng.integers(0, 6, size=int(rng.integers(1, 40))).astype(float)
        limit = int(rng.integers(0, 45))
        expected = np.sort(np.argsort(-scores, kind="stable")[:limit])
        assert best_places(scores, limit).tolist() == expected.tolist()


def test_pruned_group_search_returns_exactly_what_the_whole_vault_passes_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A Chinese question's English senses searched as groups (search_groups) over a large
    # vault skip most pages of their common groups: the same pages, scores and coverage.
    rng = np.random.default_rng(5)
    vocab = [f"w{k}" for k in range(300)]
    index = _zipf_vault(rng, vocab)
    used = []
    real = BodyIndex._groups_pruned

    def spy(self: BodyIndex, *args: object) -> object:
        out = real(self, *args)  # type: ignore[arg-type]
        used.append(out is not None)
        return out

    monkeypatch.setattr(BodyIndex, "_groups_pruned", spy)
    monkeypatch.setattr(body_module, "PRUNE_SHARE", 2)
    for _ in range(200):
        groups = [
            [vocab[int(w)] for w in rng.choice(len(vocab), size=int(rng.integers(1, 4)))]
            for _ in range(int(rng.integers(1, 5)))
        ]
        groups.append([vocab[int(w)] for w in rng.choice(5, size=2)])  # a common sense
        monkeypatch.setattr(body_module, "PRUNE_FROM", 10**12)
        full = index.search_groups(groups, limit=10)
        monkeypatch.setattr(body_module, "PRUNE_FROM", 0)
        pruned = index.search_groups(groups, limit=10)
        assert pruned.pages.tolist() == full.pages.tolist()
        assert pruned.scores.tolist() == full.scores.tolist()
        assert pruned.coverage.tolist() == full.coverage.tolist()
    assert sum(used) > 20  # the pruning really ran


@pytest.mark.parametrize("from_cache", [False, True])
def test_a_name_index_rebuilt_from_the_one_it_replaces_is_the_one_built_afresh(
    make_catalog: CatalogFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, from_cache: bool
) -> None:
    # After an edit a running server rebuilds the name index from the previous one, copying
    # the features of names it already had: the result must be exactly a fresh build's, and
    # only the new names may be tokenized.
    before = {
        "concepts/orbit": page("Orbit", "A path.", aliases=("轨道",)),
        "concepts/gravity": page("Gravity assist (spaceflight)", "A slingshot."),
        "entities/voyager": page("Voyager 1", "A probe.", type="entity"),
    }
    after = {
        **before,
        "concepts/orbit": page("Orbit", "A path.", aliases=("轨道", "Umlaufbahn")),  # alias added
        "entities/cassini": page("卡西尼号", "A probe to Saturn.", type="entity"),  # new page
    }
    del after["entities/voyager"]  # a page removed
    old = NameIndex(make_catalog(before))
    if from_cache:  # as a server holds it: read back from the cache, its strings still bytes
        store.save(tmp_path / "names.npz", {"names": old}, STORED_CLASSES)
        old = store.load(tmp_path / "names.npz", STORED_CLASSES, lazy_strings=True)["names"]
        assert not isinstance(old.feature_words, list)
    catalog = make_catalog(after)
    fresh = NameIndex(catalog)
    import wikiq.retrieve.names as names_module

    tokenized: list[str] = []
    real = names_module._features_of_name.__wrapped__
    monkeypatch.setattr(names_module, "_features_of_name", lambda n: tokenized.append(n) or real(n))
    reused = NameIndex(catalog, old)
    assert sorted(tokenized) == [
        "Umlaufbahn",
        "cassini",
        "卡西尼号",
    ]  # the new page: its file name too
    assert reused.names == fresh.names
    assert list(reused.feature_words) == list(fresh.feature_words)
    assert reused.feature_ends.tolist() == fresh.feature_ends.tolist()
    assert reused.vocab == fresh.vocab
    assert reused.idf.tolist() == fresh.idf.tolist()
    assert reused.name_weight.tolist() == fresh.name_weight.tolist()
    question = name_features("gravity assist toward 卡西尼号 orbit")
    assert [(m.page, m.score) for m in reused.match(question)] == [
        (m.page, m.score) for m in fresh.match(question)
    ]


@pytest.mark.parametrize("from_cache", [False, True])
def test_a_name_index_whose_pages_kept_their_names_is_kept_as_it_is(
    make_catalog: CatalogFactory, tmp_path: Path, from_cache: bool
) -> None:
    # A body edit changes no page's names: the index built before is the index (a refresh
    # at 100,000 pages spent 1.6 s building it again). Any change of name builds a new one.
    from wikiq.retrieve.names import name_index

    pages = {
        "concepts/orbit": page("Orbit", "A path.", aliases=("轨道",)),
        "entities/voyager": page("Voyager 1", "A probe.", type="entity"),
    }
    old = name_index(make_catalog(pages))
    if from_cache:
        store.save(tmp_path / "names.npz", {"names": old}, STORED_CLASSES)
        old = store.load(tmp_path / "names.npz", STORED_CLASSES, lazy_strings=True)["names"]
    edited = {
        **pages,
        "concepts/orbit": page("Orbit", "A curved path, bent by gravity.", aliases=("轨道",)),
    }
    assert name_index(make_catalog(edited), old) is old
    for changed in (
        {**pages, "concepts/orbit": page("Orbit", "A path.", aliases=("Bahn",))},  # an alias
        {**pages, "concepts/orbit": page("Orbital path", "A path.", aliases=("轨道",))},  # a title
        {**pages, "entities/cassini": page("Cassini", "A probe.")},  # a page more
    ):
        catalog = make_catalog(changed)
        rebuilt = name_index(catalog, old)
        assert rebuilt is not old and list(rebuilt.names) == list(NameIndex(catalog).names)
