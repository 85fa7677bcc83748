"""Resolving a link target to a page the way Obsidian does, plus the plugin's fallbacks.

Order: exact wiki-relative path (with or without the wiki-folder prefix), the same path
case-insensitively, then the basename case-insensitively (nearest folder wins among
duplicates), then an alias, then the page's display title or slug. A target none of these
find is a dead link.
"""

from __future__ import annotations

from collections.abc import Sequence

from wikiq.text.slug import slugify
from wikiq.vault.page import Page
from wikiq.vault.rows import page_field


class LinkResolver:
    """Maps link targets to page numbers for one set of pages."""

    def __init__(self, pages: Sequence[Page], wiki_folder: str = "") -> None:
        self._prefix = f"{wiki_folder}/".lower() if wiki_folder else ""
        self._by_path: dict[str, int] = {}
        self._by_path_lower: dict[str, int] = {}
        self._by_name: dict[str, list[int]] = {}
        self._by_alias: dict[str, int] = {}
        self._by_title: dict[str, int] = {}
        # A cached catalog's pages hand out whole columns: building 8,000 pages only to read
        # three fields cost an `ask` ~0.1 s.
        self._pages = pages
        self._paths: list[str] = page_field(pages, "path")
        self._names: list[str] = page_field(pages, "name")
        paths = self._paths
        # Shallow, alphabetical paths win ties so resolution never depends on walk order.
        order = sorted(range(len(paths)), key=lambda i: (paths[i].count("/"), paths[i]))
        for i in order:
            self._by_path.setdefault(paths[i], i)
            self._by_path_lower.setdefault(paths[i].lower(), i)
            self._by_name.setdefault(self._names[i].lower(), []).append(i)
        aliases = page_field(pages, "aliases")
        for i in order:
            for alias in aliases[i]:
                self._by_alias.setdefault(alias.lower(), i)
        self._order = order
        self._titles_built = False

    def everywhere(self) -> dict[str, int]:
        """Targets that resolve to one page from every page, and that page: every exact
        wiki-relative path (what `resolve` answers first), and every page's name, as written
        and in lower case, that no other page has ("leif-varley" when only
        entities/leif-varley.md is so named). A name is left out when `resolve` would treat
        it otherwise (surrounding spaces, a ".md" ending, a slash)."""
        out = dict(self._by_path)
        for name, candidates in self._by_name.items():
            if len(candidates) != 1:
                continue
            for written in {self._names[candidates[0]], name}:
                if (
                    written.lower() == name
                    and written == written.strip()
                    and "/" not in written
                    and "\\" not in written
                    and not name.endswith(".md")
                ):
                    out.setdefault(written, candidates[0])
        return out

    def _build_titles(self) -> None:
        # Slugging every title is the slow part, and only links that miss every faster
        # lookup need it: build it the first time one does.
        titles = page_field(self._pages, "title")
        for i in self._order:
            self._by_title.setdefault(titles[i].lower(), i)
            self._by_title.setdefault(slugify(titles[i]), i)
            self._by_title.setdefault(slugify(self._names[i]), i)
        self._titles_built = True

    def resolve(self, target: str, from_path: str = "") -> int | None:
        """The page a link points at, or None for a dead link."""
        return self.resolve_where(target, from_path)[0]

    def resolve_where(self, target: str, from_path: str = "") -> tuple[int | None, bool]:
        """The page a link points at (None: a dead link), and whether that depends on the
        linking page's folder (a name several pages have: the nearest one wins)."""
        hit = self._by_path.get(target)
        if hit is not None:
            return hit, False  # the plugin's own links: exact wiki-relative paths
        t = target.strip().replace("\\", "/")
        while t.startswith("./"):
            t = t[2:]
        t = t.lstrip("/")
        if t.lower().endswith(".md"):
            t = t[:-3]
        if not t:
            return None, False
        lower = t.lower()
        if self._prefix and lower.startswith(self._prefix):
            stripped = t[len(self._prefix) :]
            hit = self._by_path.get(stripped)
            if hit is None:
                hit = self._by_path_lower.get(stripped.lower())
            if hit is not None:
                return hit, False
        hit = self._by_path.get(t)
        if hit is None:
            hit = self._by_path_lower.get(lower)
        if hit is not None:
            return hit, False
        name = lower.rsplit("/", 1)[-1]
        candidates = self._by_name.get(name)
        if candidates:
            return self._nearest(candidates, from_path), len(candidates) > 1
        hit = self._by_alias.get(name)
        if hit is None:
            hit = self._by_alias.get(lower)
        if hit is None and not self._titles_built:
            self._build_titles()
        if hit is None:
            hit = self._by_title.get(name)
        if hit is None:
            hit = self._by_title.get(slugify(name))
        return hit, False

    def _nearest(self, candidates: list[int], from_path: str) -> int:
        if len(candidates) == 1 or not from_path:
            return candidates[0]
        folder = from_path.rsplit("/", 1)[0] if "/" in from_path else ""
        for i in candidates:
            path = self._paths[i]
            if (path.rsplit("/", 1)[0] if "/" in path else "") == folder:
                return i
        return candidates[0]
