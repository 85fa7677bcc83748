"""Link resolution in Obsidian's order, and the link graph it produces."""

from __future__ import annotations

from pathlib import Path

from wikiq.vault.locate import VaultLocation
from wikiq.vault.page import Page
from wikiq.vault.resolve import LinkResolver, adjacency, is_attachment, resolve_links, with_rows


def _page(path: str, title: str = "", aliases: tuple[str, ...] = ()) -> Page:
    name = path.rsplit("/", 1)[-1]
    return Page(path=path, file=f"{path}.md", name=name, title=title or name, aliases=aliases)


PAGES = [
    _page("entities/neil-armstrong", "Neil Armstrong", ("Armstrong", "阿姆斯特朗")),
    _page("concepts/orbit", "Orbit", ("轨道",)),
    _page("entities/orbit", "Orbit (company)"),
    _page("entities/嫦娥工程", "嫦娥工程", ("Chang'e program",)),
    _page("sources/notes_3fa2c1", "Notes"),
    _page("entities/Moon", "Moon"),
]


def test_exact_path_wins() -> None:
    r = LinkResolver(PAGES, "wiki")
    assert PAGES[r.resolve("entities/orbit")].path == "entities/orbit"  # type: ignore[index]
    assert PAGES[r.resolve("concepts/orbit")].path == "concepts/orbit"  # type: ignore[index]


def test_wiki_folder_prefix_and_md_suffix_are_tolerated() -> None:
    r = LinkResolver(PAGES, "wiki")
    assert r.resolve("wiki/entities/neil-armstrong") == 0
    assert r.resolve("entities/neil-armstrong.md") == 0
    assert r.resolve("/entities/neil-armstrong") == 0


def test_path_then_basename_case_insensitively() -> None:
    r = LinkResolver(PAGES, "wiki")
    assert r.resolve("Entities/Neil-Armstrong") == 0
    assert r.resolve("NEIL-ARMSTRONG") == 0
    assert r.resolve("moon") == 5


def test_wrong_folder_falls_back_to_the_basename() -> None:
    # The plugin sometimes writes concepts/X for an entity (its issue #624).
    r = LinkResolver(PAGES, "wiki")
    assert r.resolve("concepts/neil-armstrong") == 0


def test_duplicate_basenames_prefer_the_linking_pages_folder() -> None:
    r = LinkResolver(PAGES, "wiki")
    assert r.resolve("orbit", from_path="entities/other") == 2
    assert r.resolve("orbit", from_path="concepts/other") == 1
    # With no context, the shallow alphabetical first wins, deterministically.
    assert r.resolve("orbit") == 1


def test_alias_then_title_then_slug() -> None:
    r = LinkResolver(PAGES, "wiki")
    assert r.resolve("Armstrong") == 0
    assert r.resolve("Chang'e program") == 3
    assert r.resolve("轨道") == 1
    assert r.resolve("Neil Armstrong") == 0  # title / slug of the display name


def test_dead_links_resolve_to_none() -> None:
    r = LinkResolver(PAGES, "wiki")
    assert r.resolve("entities/sergei-korolev") is None
    assert r.resolve("") is None


def test_a_vault_s_link_graph_is_every_link_resolved_from_its_own_page(tmp_path: Path) -> None:
    """The graph a catalog builds (names shared, looked up in C) equals each link resolved
    from the page that holds it: the nearest of two same-named pages, case and ".md"
    variants, a page named like an attachment, a link to itself, dead links."""
    links = [
        "concepts/orbit",
        "orbit",
        "Orbit",
        "orbit.md",
        " orbit ",
        "neil-armstrong",
        "Neil-Armstrong",
        "Armstrong",
        "轨道",
        "Notes",
        "photo.png",
        "diagram.png",
        "entities/photo.png",
        "missing-page",
        "wiki/concepts/orbit",
        "./entities/Moon",
        "moon",
    ]
    pages = [
        *PAGES,
        _page("entities/photo.png", "A page named like a picture"),
        _page("concepts/linker", "Linker"),
        _page("entities/linker2", "Linker two"),
    ]
    for p in pages:
        p.links = (*links, p.path)
    clean = ("orbit", "neil-armstrong", "moon", "Moon", "concepts/orbit", "entities/嫦娥工程")
    pages[-2].links = pages[-1].links = clean  # every link one a name or a path stands for
    location = VaultLocation(vault=tmp_path, wiki_folder="wiki", layout="llm-wiki", source="test")
    graph, dead = resolve_links(location, pages)
    resolver = LinkResolver(pages, location.wiki_folder)
    for i, page in enumerate(pages):
        expected: list[int] = []
        for target in page.links:
            j = None if is_attachment(target) else resolver.resolve(target, page.path)
            if j is not None and j != i and j not in expected:
                expected.append(j)
        assert graph.row(i).tolist() == expected, page.path
    # the linking page's folder decides which of two pages named "orbit" a bare "orbit" is
    paths = [p.path for p in pages]
    orbits = {pages[j].path for j in graph.row(paths.index("concepts/linker")).tolist() if pages[j].name == "orbit"}
    assert orbits == {"concepts/orbit"}
    orbits = {pages[j].path for j in graph.row(paths.index("entities/linker2")).tolist() if pages[j].name == "orbit"}
    assert orbits == {"concepts/orbit", "entities/orbit"}  # "concepts/orbit" is written out
    assert {(d.page, d.target) for d in dead} >= {(p.path, "missing-page") for p in pages[:-2]}


def test_a_graph_with_some_rows_replaced_is_the_graph_built_from_those_rows() -> None:
    rows = [(1, 2), (), (0,), (3, 1, 0), (), (2,)]
    graph = adjacency(rows, 6)
    for changed in ({0: (5,)}, {5: ()}, {1: (2, 3), 4: (0, 1, 2)}, {0: (), 2: (), 5: (4, 3)}, {}):
        expected = [changed.get(i, r) for i, r in enumerate(rows)]
        got = with_rows(graph, changed)
        assert [got.row(i).tolist() for i in range(6)] == [list(r) for r in expected]
        assert got.indptr.tolist() == adjacency(expected, 6).indptr.tolist()
        assert got.data.tolist() == [1.0] * got.nnz
