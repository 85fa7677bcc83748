"""The compact page hint: other pages that exist near the answer, by path, title and aliases.

The model already has the loaded pages' text; the hint only lets it know what else the wiki
holds ("there is a page on Mars") so it need not invent one. It is built from the pages that
matter for this question — the next retrieval candidates and the loaded pages' link-graph
neighbours, nearest first — never from the first lines of index.md (the plugin's slice bug).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from wikiq.text import count_tokens
from wikiq.vault.catalog import Catalog

MAX_HINT_LINES = 40
_MAX_FIELD = 80
_MAX_ALIASES = 4


def hint_line(catalog: Catalog, i: int) -> str:
    """`- entities/foo — Foo | aliases: Foo Corp / FOO` (the plugin's line shape)."""
    page = catalog.pages[i]
    line = f"- {_field(page.path)} — {_field(page.title)}"
    aliases = [_field(a) for a in page.aliases if a and a != page.title][:_MAX_ALIASES]
    if aliases:
        line += " | aliases: " + " / ".join(aliases)
    return line


def hint_candidates(
    catalog: Catalog,
    loaded: Sequence[int],
    ranked: Sequence[int],
) -> Iterator[int]:
    """Pages worth naming, nearest first: the next ranked candidates, then each loaded page's
    out-links and in-links, taken round-robin so every loaded page contributes. Lazy: a hub
    page's thousands of links are only walked as far as the hint needs."""
    seen: set[int] = set(loaded)

    def fresh(items: Iterable[int]) -> Iterator[int]:
        for j in items:
            if j not in seen:
                seen.add(j)
                yield j

    yield from fresh(ranked)
    neighbours = [iter([*catalog.out_links[i], *catalog.in_links(i)]) for i in loaded]
    while neighbours:
        alive = []
        for links in neighbours:
            step = next(links, None)
            if step is None:
                continue
            alive.append(links)
            yield from fresh((step,))
        neighbours = alive


def build_hint(
    catalog: Catalog,
    loaded: Sequence[int],
    ranked: Sequence[int],
    budget_tokens: int,
    *,
    max_lines: int = MAX_HINT_LINES,
) -> tuple[str, list[str]]:
    """The hint text within `budget_tokens`, and the paths it names."""
    lines: list[str] = []
    paths: list[str] = []
    used = 0
    for i in hint_candidates(catalog, loaded, ranked):
        if len(lines) == max_lines:
            break
        line = hint_line(catalog, i)
        cost = count_tokens(line) + 1
        if used + cost > budget_tokens:
            break
        lines.append(line)
        paths.append(catalog.pages[i].path)
        used += cost
    return "\n".join(lines), paths


def _field(text: str) -> str:
    # Titles and aliases come from pages: keep each to one short line of plain text.
    flat = " ".join(text.replace("<", "‹").replace(">", "›").split())
    return flat if len(flat) <= _MAX_FIELD else flat[: _MAX_FIELD - 1] + "…"
