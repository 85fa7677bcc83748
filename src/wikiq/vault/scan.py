"""Listing a vault's page files with their (size, mtime) — the cheap check behind the cache."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from wikiq.vault.locate import VaultLocation

# Files at the wiki root that the plugin (or llm_wiki) writes but that are not pages.
_WIKI_ROOT_NON_PAGES = {"index.md", "log.md", "purpose.md"}
_WIKI_NON_PAGE_FOLDERS = {"schema"}


@dataclass(frozen=True)
class FileStat:
    size: int
    mtime_ns: int


def scan_pages(location: VaultLocation) -> dict[str, FileStat]:
    """Every page file, relative to the wiki root with "/" separators, sorted by path."""
    root = location.wiki_root
    llm_wiki = location.layout == "llm-wiki"
    found: dict[str, FileStat] = {}
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue  # unreadable folder: skip it, never fail the whole vault
        with entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue  # .obsidian, .trash, .git and every other dot-folder or dot-file
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if llm_wiki and not prefix and name in _WIKI_NON_PAGE_FOLDERS:
                            continue
                        stack.append((entry.path, f"{prefix}{name}/"))
                        continue
                    if not name.endswith(".md") or not entry.is_file():
                        continue
                    if llm_wiki and not prefix and name in _WIKI_ROOT_NON_PAGES:
                        continue
                    st = entry.stat()
                except OSError:
                    continue
                found[f"{prefix}{name}"] = FileStat(st.st_size, st.st_mtime_ns)
    return dict(sorted(found.items()))


def stat_file(path: Path) -> FileStat | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return FileStat(st.st_size, st.st_mtime_ns)
