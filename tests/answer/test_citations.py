"""Citation checks: every link normalised or visibly flagged, References rebuilt, while streaming."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.vaults import index_md
from wikiq.answer.citations import (
    MARK_NO_PAGE,
    MARK_NOT_READ,
    CitationChecker,
    LinkChecker,
    check_text,
)
from wikiq.answer.placeholder import to_display, to_placeholder
from wikiq.config import Config
from wikiq.vault.catalog import Catalog
from wikiq.wiki import Wiki

PAGES = {
    "entities/neil-armstrong": (
        "Neil Armstrong",
        "entity",
        ["Armstrong"],
        "Neil Armstrong was an astronaut. He walked on the Moon first.",
    ),
    "entities/apollo-11": (
        "Apollo 11",
        "entity",
        [],
        "Apollo 11 was the first crewed Moon landing.",
    ),
    "concepts/orbit": ("Orbit", "concept", [], "An orbit is a curved path around a body."),
}


def page_file(title: str, kind: str, aliases: list[str], body: str) -> str:
    alias_lines = "".join(f'  - "{a}"\n' for a in aliases)
    return f"---\ntype: {kind}\naliases:\n{alias_lines}---\n\n# {title}\n\n{body}\n"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = tmp_path_factory.mktemp("vault")
    files = {f"wiki/{path}.md": page_file(*spec) for path, spec in PAGES.items()}
    files["wiki/index.md"] = index_md(*(f"- [[{p}|{p.split('/')[1]}]]" for p in PAGES))
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    cache = tmp_path_factory.mktemp("cache")
    return Wiki.open(root, cache_dir=cache, config=Config()).catalog


def loaded(catalog: Catalog, *paths: str) -> list[int]:
    return [catalog.by_path[p] for p in paths]


def check(catalog: Catalog, raw: str, *paths: str, pure: bool = False) -> CitationChecker:
    return check_text(LinkChecker(catalog, loaded(catalog, *paths), pure_llm=pure), raw)


@pytest.mark.parametrize(
    "written",
    [
        "[[__WIKI_FOLDER__/entities/neil-armstrong]]",
        "[[entities/neil-armstrong]]",  # no folder prefix
        "[[neil-armstrong]]",  # bare slug
        "[[wiki/entities/neil-armstrong]]",  # the real folder name
        "[[old-folder/entities/neil-armstrong]]",  # a folder name from before a rename
        "[[Neil Armstrong]]",  # the title
        "[[Armstrong]]",  # an alias
        "[[entities/neil-armstrong.md]]",
    ],
)
def test_every_form_of_a_link_to_a_loaded_page_is_normalised(
    catalog: Catalog, written: str
) -> None:
    checker = check(catalog, f"He walked first {written}.", "entities/neil-armstrong")

    assert checker.raw_text.startswith(
        "He walked first [[__WIKI_FOLDER__/entities/neil-armstrong]]."
    )
    assert checker.links.flagged == []


def test_a_label_and_a_heading_survive_normalisation(catalog: Catalog) -> None:
    checker = check(catalog, "See [[apollo-11#Landing|the landing]].", "entities/apollo-11")

    assert "[[__WIKI_FOLDER__/entities/apollo-11#Landing|the landing]]" in checker.raw_text


def test_a_link_to_no_page_is_unlinked_and_marked(catalog: Catalog) -> None:
    checker = check(
        catalog, "Aldrin [[entities/buzz-aldrin|Buzz]] came second.", "entities/apollo-11"
    )

    assert f"Aldrin Buzz {MARK_NO_PAGE} came second." in checker.raw_text
    assert "[[__WIKI_FOLDER__/entities/buzz-aldrin" not in checker.raw_text
    assert checker.links.flagged == ["entities/buzz-aldrin"]


def test_a_link_to_a_page_that_was_not_loaded_keeps_its_link_and_is_marked(
    catalog: Catalog,
) -> None:
    checker = check(catalog, "Orbits [[concepts/orbit]] matter.", "entities/apollo-11")

    assert f"[[__WIKI_FOLDER__/concepts/orbit]] {MARK_NOT_READ}" in checker.raw_text
    assert checker.links.flagged == ["concepts/orbit"]
    assert checker.links.cited == []


def test_missing_references_are_rebuilt_from_the_cited_pages(catalog: Catalog) -> None:
    checker = check(
        catalog,
        "Armstrong [[neil-armstrong]] flew on Apollo 11 [[apollo-11]].",
        "entities/neil-armstrong",
        "entities/apollo-11",
    )

    section = checker.raw_text.split("## References\n\n", 1)[1]
    assert section.splitlines() == [
        "- [[__WIKI_FOLDER__/entities/neil-armstrong|Neil Armstrong]] — Neil Armstrong was an "
        "astronaut. He walked on the Moon first.",
        "- [[__WIKI_FOLDER__/entities/apollo-11|Apollo 11]] — Apollo 11 was the first crewed Moon landing.",
    ]


def test_the_models_references_keep_their_descriptions_and_lose_invented_entries(
    catalog: Catalog,
) -> None:
    raw = (
        "Armstrong [[neil-armstrong]].\n\n**References:**\n"
        "1. [[__WIKI_FOLDER__/entities/neil-armstrong|Neil]] — commander of the landing\n"
        "2. [[__WIKI_FOLDER__/entities/michael-collins|Collins]] — stayed in orbit\n"
    )

    checker = check(catalog, raw, "entities/neil-armstrong")

    text = checker.raw_text
    assert "**References:**" not in text and text.count("## References") == 1
    assert (
        "- [[__WIKI_FOLDER__/entities/neil-armstrong|Neil Armstrong]] — commander of the landing"
        in text
    )
    assert "Removed from the references" in text and "Collins [⚠ no such page" in text
    assert "__WIKI_FOLDER__/entities/michael-collins" in checker.links.flagged
    assert [r.path for r in checker.references] == ["entities/neil-armstrong"]


def test_a_localised_references_heading_becomes_the_contracts_heading(catalog: Catalog) -> None:
    raw = "阿姆斯特朗 [[neil-armstrong]]。\n\n## 参考文献\n- [[neil-armstrong]] — 宇航员\n"

    checker = check(catalog, raw, "entities/neil-armstrong")

    assert "## 参考文献" not in checker.raw_text
    assert (
        "## References\n\n- [[__WIKI_FOLDER__/entities/neil-armstrong|Neil Armstrong]] — 宇航员"
        in checker.raw_text
    )


def test_an_answer_that_cites_nothing_lists_the_pages_it_was_given(catalog: Catalog) -> None:
    checker = check(catalog, "The wiki does not say.", "entities/apollo-11")

    assert "The answer cites no page; these are the pages it was given" in checker.raw_text
    assert "[[__WIKI_FOLDER__/entities/apollo-11|Apollo 11]]" in checker.raw_text
    assert checker.links.cited == []


def test_pure_llm_answers_lose_every_link_and_their_references(catalog: Catalog) -> None:
    raw = (
        "Not from your wiki. Bread [[__WIKI_FOLDER__/concepts/bread|bread]] and "
        "[[entities/apollo-11]].\n\n## References\n- [[concepts/bread]] — bread\n\nVerify this."
    )

    checker = check(catalog, raw, pure=True)

    assert "[[" not in checker.raw_text
    assert "Bread bread and apollo 11." in checker.raw_text
    assert "References" not in checker.raw_text
    assert checker.raw_text.rstrip().endswith("Verify this.")
    assert set(checker.links.flagged) == {
        "__WIKI_FOLDER__/concepts/bread",
        "entities/apollo-11",
        "concepts/bread",
    }


def test_text_that_only_looks_like_a_link_or_heading_passes_unchanged(catalog: Catalog) -> None:
    raw = "Arrays use a[[0]] rarely; [[ is not closed\nReferences to orbits abound.\n"

    checker = check(catalog, raw, "entities/apollo-11")

    assert checker.raw_text.startswith(
        "Arrays use a`0` [⚠ no such page in the vault] rarely; [[ is not closed\n"
        "References to orbits abound.\n"
    )


ANSWER = (
    "Neil Armstrong [[__WIKI_FOLDER__/entities/neil-armstrong]] walked first; the crew of "
    "[[apollo-11|Apollo 11]] landed, not [[entities/pluto]].\n\n"
    "## References\n- [[__WIKI_FOLDER__/entities/neil-armstrong|Neil Armstrong]] — first\n"
)


@settings(max_examples=150, deadline=None)
@given(cuts=st.lists(st.integers(min_value=1, max_value=len(ANSWER) - 1), max_size=12))
def test_streaming_in_any_pieces_gives_the_same_text_as_checking_it_whole(
    catalog: Catalog, cuts: list[int]
) -> None:
    whole = check(catalog, ANSWER, "entities/neil-armstrong", "entities/apollo-11").raw_text
    bounds = [0, *sorted(set(cuts)), len(ANSWER)]
    streaming = CitationChecker(
        LinkChecker(
            catalog,
            loaded(catalog, "entities/neil-armstrong", "entities/apollo-11"),
            pure_llm=False,
        )
    )
    shown = "".join(streaming.feed(ANSWER[a:b]) for a, b in itertools.pairwise(bounds))
    shown += streaming.finish()

    assert shown == whole == streaming.raw_text


def test_while_streaming_only_an_unfinished_link_is_held_back(catalog: Catalog) -> None:
    checker = CitationChecker(
        LinkChecker(catalog, loaded(catalog, "entities/apollo-11"), pure_llm=False)
    )

    assert checker.feed("Apollo 11 landed ") == "Apollo 11 landed "
    assert checker.feed("in 1969 [[apol") == "in 1969 "
    assert checker.feed("lo-11]] safely.") == "[[__WIKI_FOLDER__/entities/apollo-11]] safely."


def test_the_placeholder_is_filled_in_only_for_display(tmp_path: Path) -> None:
    raw = "See [[__WIKI_FOLDER__/entities/moon]]."

    assert to_display(raw, "kb") == "See [[kb/entities/moon]]."
    assert to_display(raw, "") == "See [[entities/moon]]."  # a plain vault has no wiki folder
    assert to_placeholder("See [[kb/entities/moon]] and [[wiki/x]].", "kb") == (
        "See [[__WIKI_FOLDER__/entities/moon]] and [[__WIKI_FOLDER__/x]]."
    )
