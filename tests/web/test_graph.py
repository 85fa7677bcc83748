"""The graph behind an answer: its pages, their PPR neighbours, the links among them."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikiq.web.graph import answer_graph
from wikiq.wiki import Wiki

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-vault"


@pytest.fixture(scope="module")
def demo() -> Wiki:
    return Wiki.open(DEMO, use_cache=False)


def test_graph_holds_the_results_then_nearby_pages(demo: Wiki) -> None:
    retrieval = demo.search("How does a gravity assist work?")
    graph = answer_graph(demo.retriever, retrieval, neighbours=5)

    paths = [n["path"] for n in graph["nodes"]]
    results = [r.path for r in retrieval.results]
    assert set(results) <= set(paths)
    near = [n for n in graph["nodes"] if n["role"] == "neighbour"]
    assert len(near) == 5
    assert not {n["path"] for n in near} & set(results)
    # Nearby pages are drawn smaller than every result, and ordered by their PPR mass.
    smallest_result = min(n["weight"] for n in graph["nodes"] if n["role"] == "result")
    assert all(n["weight"] < smallest_result for n in near)
    assert [n["ppr"] for n in near] == sorted((n["ppr"] for n in near), reverse=True)


def test_graph_edges_are_vault_links_between_its_own_nodes(demo: Wiki) -> None:
    retrieval = demo.search("Apollo 11 Moon landing")
    graph = answer_graph(demo.retriever, retrieval)

    paths = {n["path"] for n in graph["nodes"]}
    catalog = demo.catalog
    assert graph["edges"]
    for edge in graph["edges"]:
        assert edge["source"] in paths and edge["target"] in paths
        i, j = catalog.by_path[edge["source"]], catalog.by_path[edge["target"]]
        assert j in catalog.out_links[i]


def test_cited_pages_are_marked_and_kept_even_outside_the_results(demo: Wiki) -> None:
    retrieval = demo.search("gravity assist", k=3)
    graph = answer_graph(demo.retriever, retrieval, ["concepts/gravity-assist", "entities/张衡"])

    by_path = {n["path"]: n for n in graph["nodes"]}
    assert by_path["concepts/gravity-assist"]["cited"]
    assert by_path["entities/张衡"]["cited"]
    assert sum(n["cited"] for n in graph["nodes"]) == 2


def test_a_question_the_vault_does_not_cover_has_an_empty_graph(demo: Wiki) -> None:
    retrieval = demo.search("best sourdough pizza recipe")
    assert retrieval.pure_llm

    assert answer_graph(demo.retriever, retrieval) == {"nodes": [], "edges": []}
