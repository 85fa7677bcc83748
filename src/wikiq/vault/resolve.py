"""Resolving a link target to a page the way Obsidian does, plus the plugin's fallbacks.

Order: exact wiki-relative path (with or without the wiki-folder prefix), the same path
case-insensitively, then the basename case-insensitively (nearest folder wins among
duplicates), then an alias, then the page's display title or slug. A target none of these
find is a dead link. `resolve_links` resolves every page's links into the catalog's graph.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wikiq.sparse import CSR
from wikiq.text.slug import slugify
from wikiq.vault.cache import CachedCatalog
from wikiq.vault.locate import VaultLocation
from wikiq.vault.page import DeadLink, Page
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


def resolve_links(
    location: VaultLocation,
    pages: list[Page],
    *,
    previous: CachedCatalog | None = None,
    reread: set[str] | frozenset[str] = frozenset(),
) -> tuple[CSR, list[DeadLink]]:
    """The link graph (row i: the pages page i links to, in order of first link), and the
    dead links. With `previous` (a catalog of the same pages and names, `_same_names`), a
    page not in `reread` keeps its links and dead links as they were: an edit to one page of
    100,000 resolved ~780,000 links (4 s), and copying a million pages' rows one by one took
    ~5 s more (the graph's arrays are now copied whole around the rows read again)."""
    kept_dead: dict[str, list[DeadLink]] = {}
    if previous is not None:
        for d in previous.dead_links:
            kept_dead.setdefault(d.page, []).append(d)
    resolver = LinkResolver(pages, location.wiki_folder)
    out_links: dict[int, tuple[int, ...]] = {}  # page -> its targets, for the pages resolved
    dead: list[DeadLink] = []
    # Many pages link to the same targets; a target resolves the same way from every page
    # in one folder (the folder only breaks ties between same-named pages).
    memo: dict[tuple[str, str], int | None] = {}
    outside: dict[str, bool] = {}
    # Targets that resolve to the same page from every folder: exact paths (the plugin
    # writes its links so) and names no two pages share (Obsidian's shortest links), then
    # each target resolved below that is neither. A page whose links all are is resolved in
    # C (a million pages' eight million links: 21 s -> ~3 s). A target that looks like an
    # attachment's is left out, as `resolve` is not asked for one.
    anywhere = resolver.everywhere()
    if any("." in target.rsplit("/", 1)[-1] and is_attachment(target) for target in anywhere):
        anywhere = {t: j for t, j in anywhere.items() if not is_attachment(t)}
    for i, page in enumerate(pages):
        if previous is not None and page.file not in reread:
            dead.extend(kept_dead.get(page.path, ()))
            continue
        hits = list(map(anywhere.get, page.links))
        if None not in hits:
            # In order of first use; `hits` holds no None here.
            unique: dict[int, None] = dict.fromkeys(hits)  # type: ignore[arg-type]
            unique.pop(i, None)  # a page's link to itself is no edge
            out_links[i] = tuple(unique)
            continue
        targets: list[int] = []
        seen: set[int] = set()
        folder = page.path.rsplit("/", 1)[0] if "/" in page.path else ""
        for target in page.links:
            key = (target, folder)
            if key in memo:
                j = memo[key]
            elif is_attachment(target):
                j = memo[key] = None
                outside[target] = True  # ![[diagram.png]] and friends are files, not pages
            else:
                j, by_folder = resolver.resolve_where(target, page.path)
                memo[key] = j
                if j is not None and not by_folder:
                    anywhere[target] = j
            if j is None:
                if target not in outside:
                    outside[target] = _exists_outside_wiki(location, target)
                if not outside[target]:
                    dead.append(DeadLink(page.path, target))
                continue
            if j != i and j not in seen:
                seen.add(j)
                targets.append(j)
        out_links[i] = tuple(targets)
    if previous is None:
        return adjacency(list(out_links.values()), len(pages)), dead
    return with_rows(previous.graph, out_links), dead


def adjacency(out_links: Sequence[Sequence[int]], n: int) -> CSR:
    """The graph whose row i is `out_links[i]`."""
    indptr = np.zeros(n + 1, dtype=np.int64)
    sizes = np.fromiter((len(targets) for targets in out_links), dtype=np.int64, count=n)
    np.cumsum(sizes, out=indptr[1:])
    indices = np.fromiter(
        (t for targets in out_links for t in targets), dtype=np.int32, count=int(indptr[-1])
    )
    data = np.ones(len(indices), dtype=np.float32)
    return CSR(indptr, indices, data, (n, n))


def with_rows(graph: CSR, rows: dict[int, tuple[int, ...]]) -> CSR:
    """`graph` with the rows in `rows` replaced: the other rows' entries copied whole, in
    pieces between the rows replaced (a million pages' eight million links: milliseconds)."""
    indptr, indices = graph.indptr, graph.indices[: graph.nnz]
    sizes = np.diff(indptr)
    pieces: list[np.ndarray] = []
    start = 0  # the first row not yet copied
    for i in sorted(rows):
        pieces.append(indices[indptr[start] : indptr[i]])
        pieces.append(np.asarray(rows[i], dtype=np.int32))
        sizes[i] = len(rows[i])
        start = i + 1
    pieces.append(indices[indptr[start] :])
    new_indptr = np.zeros(len(indptr), dtype=np.int64)
    np.cumsum(sizes, out=new_indptr[1:])
    new_indices = np.concatenate(pieces).astype(np.int32, copy=False)
    return CSR(new_indptr, new_indices, np.ones(len(new_indices), np.float32), graph.shape)


def is_attachment(target: str) -> bool:
    name = target.rsplit("/", 1)[-1]
    if "." not in name:
        return False
    ext = name.rsplit(".", 1)[-1].lower()
    return ext != "md" and ext.isalnum() and len(ext) <= 5 and not ext.isdigit()


def _exists_outside_wiki(location: VaultLocation, target: str) -> bool:
    """Links to raw notes elsewhere in the vault (the plugin's Mentions) are not dead."""
    if location.layout != "llm-wiki" or "/" not in target:
        return False
    rel = target if target.endswith(".md") else f"{target}.md"
    try:
        return (location.vault / rel).is_file()
    except (OSError, ValueError):
        return False
