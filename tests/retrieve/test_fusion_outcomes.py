"""The fusion's weights decide what a user sees first: these tests fail when a weight moves
far enough to change the order of pages in a small vault."""

from __future__ import annotations

from dataclasses import replace

from tests.retrieve.conftest import CatalogFactory, page
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.settings import NAMED_WEIGHTS, RetrieverSettings
from wikiq.vault.catalog import Catalog

# The question names Apollo 11. Saturn V is a page Apollo 11 links to; Moon landings is a
# page that links to Apollo 11 and mentions it in its opening paragraph; Lunar geology
# mentions Apollo 11 only deep in its body.
PAGES = {
    "entities/apollo-11": page(
        "Apollo 11",
        "Apollo 11 was the spaceflight that first landed humans on the Moon. It was launched "
        "by a [[entities/saturn-v|Saturn V]] rocket from Kennedy Space Center.",
        type="entity",
    ),
    "entities/saturn-v": page(
        "Saturn V",
        "The Saturn V was a super heavy-lift launch vehicle developed by NASA.",
        type="entity",
    ),
    "concepts/moon-landings": page(
        "Moon landings",
        "The first crewed landing was [[entities/apollo-11|Apollo 11]] in July 1969.\n\n"
        "Later missions explored other regions of the lunar surface.",
    ),
    "concepts/lunar-geology": page(
        "Lunar geology",
        "The Moon's crust is made of anorthosite.\n\n" + "Basalt maria formed later. " * 20
        + "Samples returned by Apollo 11 dated the maria.",
    ),
}


def _order(catalog: Catalog, settings: RetrieverSettings) -> list[str]:
    r = Retriever(catalog, settings).retrieve("Apollo 11", k=4)
    return [p.path for p in r.results]


def test_after_a_named_page_comes_the_page_that_introduces_it(
    make_catalog: CatalogFactory,
) -> None:
    # Shipped weights (lead 0.6, link_out 0.5): Moon landings, whose opening paragraph is
    # about Apollo 11, comes before Saturn V, which Apollo 11 only links to (0.46 vs 0.39).
    order = _order(make_catalog(PAGES), RetrieverSettings())
    assert order[:3] == ["entities/apollo-11", "concepts/moon-landings", "entities/saturn-v"]
    assert order[-1] == "concepts/lunar-geology"  # a passing mention deep in the body


def test_a_heavier_link_weight_puts_the_linked_page_second(make_catalog: CatalogFactory) -> None:
    # The same vault and question with link_out at 2.0: the page the named page links to
    # overtakes the one that introduces it, so this weight is what decides the order.
    weights = replace(NAMED_WEIGHTS, link_out=2.0)
    order = _order(make_catalog(PAGES), RetrieverSettings(named=weights))
    assert order[:3] == ["entities/apollo-11", "entities/saturn-v", "concepts/moon-landings"]


def test_without_lead_weights_the_linked_page_comes_second(make_catalog: CatalogFactory) -> None:
    # Lead and backlink-lead off: nothing says Moon landings introduces Apollo 11 any more.
    weights = replace(NAMED_WEIGHTS, lead=0.0, backlink_lead=0.0)
    order = _order(make_catalog(PAGES), RetrieverSettings(named=weights))
    assert order.index("entities/saturn-v") < order.index("concepts/moon-landings")
