"""Small vaults for retrieval tests, opened straight into a catalog."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.vaults import VaultFactory, index_md
from wikiq.retrieve.body import BodyHits, BodyIndex
from wikiq.vault.catalog import Catalog, open_catalog
from wikiq.vault.locate import locate_vault

CatalogFactory = Callable[[dict[str, str]], Catalog]


def page(title: str, body: str, *, type: str = "concept", aliases: tuple[str, ...] = (), extra: str = "") -> str:
    """A page in the plugin's format."""
    alias_lines = "".join(f'  - "{a}"\n' for a in aliases)
    aliases_block = f"aliases:\n{alias_lines}" if aliases else ""
    return f"---\ntype: {type}\n{extra}{aliases_block}---\n\n# {title}\n\n{body}\n"


@pytest.fixture
def make_catalog(make_vault: VaultFactory) -> CatalogFactory:
    """`make_catalog({"concepts/orbit": page(...), ...})` -> an opened catalog (index lists all).

    Each call writes a fresh vault folder, so one test can build several vaults."""
    made = itertools.count()

    def make(pages: dict[str, str]) -> Catalog:
        files = {f"wiki/{path}.md": text for path, text in pages.items()}
        files["wiki/index.md"] = index_md(*(f"- [[{path}|{path.rsplit('/', 1)[-1]}]]" for path in pages))
        root: Path = make_vault(files, name=f"vault-{next(made)}")
        return open_catalog(locate_vault(root))

    return make


def searched_full_and_pruned(index: BodyIndex, query: list[str], limit: int, monkeypatch: pytest.MonkeyPatch) -> tuple[BodyHits, BodyHits]:
    """`index.search(query)` scored over every posting, then with the pruned (MaxScore) path
    forced: the two must give the same pages, scores and coverage."""
    import wikiq.retrieve.body as body_module

    monkeypatch.setattr(body_module, "PRUNE_FROM", 10**12)
    full = index.search(query, limit=limit)
    monkeypatch.setattr(body_module, "PRUNE_FROM", 0)
    return full, index.search(query, limit=limit)
