"""One-time hints on stderr: each shown once per vault, never in `--json` output."""

from __future__ import annotations

from rich.console import Console

from wikiq.embed.background import extra_installed
from wikiq.embed.semantic import catalog_index_path
from wikiq.llm import INSTALL_HINT
from wikiq.wiki import Wiki

# Below this many pages a question's words find its page well enough without embeddings.
MIN_PAGES = 20
# Lead-text pages embedded per second on 2 cores (ob-wiki: 8,194 pages in 744 s, measured),
# for the time the tip quotes.
PAGES_PER_SECOND = 11
TIP_MARKER = "tip-embeddings-shown"


def semantic_index_tip(wiki: Wiki, covered: str) -> None:
    """After a question the vault's words did not settle (`covered` not "yes"), on a vault with
    no embedding index: say once that one would help, and how to build it."""
    if covered == "yes" or len(wiki.catalog) < MIN_PAGES or not wiki.wired.embeddings_on:
        return
    if wiki.catalog.cache_file is None:  # no cache folder to remember the tip in
        return
    index = catalog_index_path(wiki.location, wiki.catalog)
    marker = index.parent / TIP_MARKER
    if index.exists() or marker.exists():
        return
    try:
        marker.touch()
    except OSError:  # could not remember it: better never than on every question
        return
    minutes = max(1, round(len(wiki.catalog) / PAGES_PER_SECOND / 60))
    how = "wikiq index --embed" if extra_installed() else f"{INSTALL_HINT}, then wikiq index --embed"
    Console(stderr=True, highlight=False).print(
        f"[dim]Tip: a semantic index helps questions in your own words or in another language: "
        f"{how} (about {minutes} min here; serve and mcp build it by themselves).[/dim]"
    )
