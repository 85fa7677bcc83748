"""The compact page hint names the pages near the answer, wherever they sit in index.md."""

from __future__ import annotations

from tests.support.vaults import VaultFactory, index_md
from wikiq.answer.hint import build_hint
from wikiq.config import Config
from wikiq.wiki import Wiki


def test_the_hint_names_neighbours_listed_far_down_the_index(make_vault: VaultFactory) -> None:
    files: dict[str, str] = {}
    names = [f"filler-{n:03d}" for n in range(75)] + ["zeta-station"]
    for name in names:
        files[f"wiki/entities/{name}.md"] = f"---\ntype: entity\n---\n\n# {name}\n\nJust a page.\n"
    files["wiki/entities/alpha-rocket.md"] = (
        "---\ntype: entity\naliases:\n  - AR-1\n---\n\n# Alpha Rocket\n\n"
        "The Alpha Rocket docks at [[entities/zeta-station|Zeta]].\n"
    )
    files["wiki/index.md"] = index_md(
        "- [[entities/alpha-rocket|alpha-rocket]]",
        *(f"- [[entities/{n}|{n}]]" for n in names),
    )
    wiki = Wiki.open(make_vault(files), config=Config())
    catalog = wiki.catalog
    alpha = catalog.by_path["entities/alpha-rocket"]

    text, paths = build_hint(catalog, [alpha], [], budget_tokens=400)

    assert paths[0] == "entities/zeta-station"  # its 77th index line, its only link
    assert text.splitlines()[0] == "- entities/zeta-station — zeta-station"
    assert "entities/alpha-rocket" not in paths  # loaded pages are not repeated


def test_the_hint_stays_within_its_budget_and_names_aliases(make_vault: VaultFactory) -> None:
    files = {
        f"wiki/concepts/c{n}.md": (
            f"---\ntype: concept\naliases:\n  - Concept {n}\n  - C{n}\n---\n\n# C{n}\n\nText.\n"
        )
        for n in range(60)
    }
    files["wiki/index.md"] = index_md("- [[concepts/c0|c0]]", heading="## Concepts")
    catalog = Wiki.open(make_vault(files), config=Config()).catalog
    ranked = list(range(len(catalog.pages)))

    text, paths = build_hint(catalog, ranked[:1], ranked, budget_tokens=60)

    assert 0 < len(paths) < 10
    assert text.splitlines()[0] == "- concepts/c1 — C1 | aliases: Concept 1"
