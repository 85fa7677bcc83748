"""Link resolution in Obsidian's order, and the link graph it produces."""

from __future__ import annotations

from wikiq.vault.page import Page
from wikiq.vault.resolve import LinkResolver


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
