"""Pages handed to browsers and agents: found only inside the wiki folder, capped, listed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.vaults import VaultFactory, index_md
from wikiq.errors import PageNotFound
from wikiq.vault import access as pages
from wikiq.vault.scan import LINK_OUT
from wikiq.wiki import Wiki

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-vault"


@pytest.fixture(scope="module")
def demo() -> Wiki:
    return Wiki.open(DEMO, use_cache=False)


@pytest.mark.parametrize(
    "path",
    [
        "../index",
        "../../etc/passwd",
        "concepts/../../secret",
        "..\\..\\secret",
        "/etc/passwd",
        "\\etc\\passwd",
        "C:/Windows/win.ini",
        "~/notes",
        "concepts/orbit\x00.md",
    ],
)
def test_paths_that_leave_the_wiki_folder_are_refused(demo: Wiki, path: str) -> None:
    with pytest.raises(pages.PathRefused, match="Refused"):
        pages.find_page(demo.catalog, path)


def test_a_symlink_out_of_the_vault_is_never_a_page(
    make_vault: VaultFactory, tmp_path: Path
) -> None:
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("---\ntype: concept\n---\n# Secret\nthe password is hunter2\n")
    vault = make_vault(
        {
            "wiki/index.md": index_md("- [[concepts/orbit|orbit]]"),
            "wiki/concepts/orbit.md": "---\ntype: concept\n---\n# Orbit\nA path.\n",
        }
    )
    os.symlink(secret, vault / "wiki" / "concepts" / "leak.md")
    os.symlink(vault / "wiki" / "concepts" / "orbit.md", vault / "wiki" / "concepts" / "alias.md")
    wiki = Wiki.open(vault, use_cache=False)
    # A link out is skipped and reported; a link to a page inside the wiki is still read.
    assert "concepts/leak" not in wiki.catalog.by_path and "concepts/alias" in wiki.catalog.by_path
    assert wiki.catalog.skipped == [("concepts/leak.md", LINK_OUT)]
    with pytest.raises(PageNotFound):
        pages.read_page(wiki.catalog, "concepts/leak")
    # Nothing that answers from the catalog can quote it.
    assert "hunter2" not in wiki.ask("What is the password?").text
    assert all(r.path != "concepts/leak" for r in wiki.search("password hunter2").results)


def test_unknown_page_is_not_found_with_a_hint(demo: Wiki) -> None:
    with pytest.raises(PageNotFound, match="No page 'concepts/warp-drive'"):
        pages.find_page(demo.catalog, "concepts/warp-drive")


@pytest.mark.parametrize(
    "path", ["concepts/orbit", "wiki/concepts/orbit", "concepts/orbit.md", "orbit", "Orbit"]
)
def test_pages_are_found_by_path_prefix_suffix_or_name(demo: Wiki, path: str) -> None:
    assert demo.catalog.pages[pages.find_page(demo.catalog, path)].path == "concepts/orbit"


def test_read_page_returns_frontmatter_body_and_links(demo: Wiki) -> None:
    page = pages.read_page(demo.catalog, "concepts/gravity-assist")

    assert page.title == "Gravity assist"
    assert page.type == "concept"
    assert page.frontmatter["type"] == "concept"
    assert "gravity" in page.body.lower()
    assert not page.truncated
    assert page.total_chars == len(page.body)
    assert "entities/voyager-program" in page.links_out + page.links_in


def test_read_page_is_capped_and_reads_on_from_an_offset(demo: Wiki) -> None:
    whole = pages.read_page(demo.catalog, "concepts/orbit").body
    first = pages.read_page(demo.catalog, "concepts/orbit", max_chars=100)
    rest = pages.read_page(demo.catalog, "concepts/orbit", max_chars=10**9, offset=100)

    assert first.truncated and len(first.body) == 100
    assert not rest.truncated
    assert first.body + rest.body == whole


def test_list_pages_filters_by_type_and_prefix_and_pages_through(demo: Wiki) -> None:
    sources = pages.list_pages(demo.catalog, type="source")
    assert sources["total"] == 7
    assert {p["type"] for p in sources["pages"]} == {"source"}

    concepts = pages.list_pages(demo.catalog, prefix="concepts/", limit=5)
    assert concepts["total"] == 17 and len(concepts["pages"]) == 5
    assert concepts["next_offset"] == 5
    seen = [p["path"] for p in concepts["pages"]]
    offset = concepts["next_offset"]
    while offset is not None:
        window = pages.list_pages(demo.catalog, prefix="concepts/", limit=5, offset=offset)
        seen += [p["path"] for p in window["pages"]]
        offset = window["next_offset"]
    assert len(seen) == len(set(seen)) == 17
    assert all(p.startswith("concepts/") for p in seen)


def test_vault_summary_counts_types_and_languages(demo: Wiki) -> None:
    summary = pages.vault_summary(demo.catalog)

    assert summary.name == "demo-vault"
    assert summary.pages == 49
    assert summary.by_type == {"entity": 25, "concept": 17, "source": 7}
    assert set(summary.languages) == {"en", "zh"}
    assert "49 pages" in summary.describe() and "中文" in summary.describe()


def test_obsidian_url_names_the_vault_folder_and_the_path_in_the_vault(demo: Wiki) -> None:
    url = pages.obsidian_url(demo.catalog, "entities/张衡")

    assert url == ("obsidian://open?vault=demo-vault&file=wiki%2Fentities%2F%E5%BC%A0%E8%A1%A1")


def test_pages_in_no_detected_language_are_not_named_as_the_questions_language() -> None:
    summary = pages.VaultSummary("v", "/v", "wiki", "llm-wiki", 4, {"concept": 4}, {"en": 3, "other": 1})
    assert summary.describe().endswith("languages: English, other")
