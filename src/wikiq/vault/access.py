"""Pages as the web page and the MCP server hand them out: found safely, capped, listed, summed up.

Both surfaces take page paths from outside (a browser, an agent). A path is only ever looked up
in the catalog — never joined onto the file system — and a path that tries to leave the wiki
folder (`..`, an absolute path, a symlink pointing out) is refused with one sentence.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from wikiq.errors import PageNotFound, PathRefused  # PathRefused: raised here, named here too
from wikiq.text.language import detect_language, language_name
from wikiq.vault.catalog import Catalog
from wikiq.vault.scan import resolves_inside

# A page body larger than this is cut (the skill's MAX_PAGE_CONTENT_CHARS guard, with room).
DEFAULT_MAX_CHARS = 20_000
MAX_CHARS_LIMIT = 200_000
LIST_LIMIT_MAX = 500

_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class PageContent:
    """One page as read now: identity, frontmatter, body (maybe cut), and its links."""

    path: str
    title: str
    type: str
    aliases: list[str]
    stub: bool
    frontmatter: dict[str, Any]
    body: str
    truncated: bool
    total_chars: int
    links_out: list[str] = field(default_factory=list)
    links_in: list[str] = field(default_factory=list)
    problem: str = ""  # why the file was read only in part, or not at all (vault/page.py)

    def to_dict(self) -> dict[str, Any]:
        problem = {"problem": self.problem} if self.problem else {}
        return {
            "path": self.path,
            "title": self.title,
            "type": self.type,
            "aliases": self.aliases,
            "stub": self.stub,
            "frontmatter": self.frontmatter,
            "body": self.body,
            "truncated": self.truncated,
            "total_chars": self.total_chars,
            "links_out": self.links_out,
            "links_in": self.links_in,
            **problem,
        }


def find_page(catalog: Catalog, path: str) -> int:
    """The page number for a user-supplied path; refuses paths that escape the wiki folder."""
    text = path.strip()
    if not text:
        raise PageNotFound("Give a page path, for example 'concepts/orbit'.")
    if "\x00" in text:
        raise PathRefused(f"Refused '{text!r}': a page path cannot contain a NUL byte.")
    posix = text.replace("\\", "/")
    if posix.startswith("/") or posix.startswith("~") or _DRIVE.match(posix):
        raise PathRefused(
            f"Refused '{text}': give a page path inside the wiki folder, not an absolute path."
        )
    if ".." in PurePosixPath(posix).parts:
        raise PathRefused(f"Refused '{text}': page paths cannot leave the wiki folder ('..').")
    i = catalog.find(posix)
    if i is None:
        raise PageNotFound(
            f"No page '{text}' in this vault (list_pages or search shows the pages there are)."
        )
    if not resolves_inside(catalog.file_path(i), catalog.location.wiki_root):
        raise PathRefused(f"Refused '{text}': that file is a link to a place outside the vault.")
    return i


def read_page(
    catalog: Catalog, path: str, *, max_chars: int = DEFAULT_MAX_CHARS, offset: int = 0
) -> PageContent:
    """A page's frontmatter and body (from `offset`, at most `max_chars` characters)."""
    i = find_page(catalog, path)
    max_chars = max(1, min(int(max_chars), MAX_CHARS_LIMIT))
    offset = max(0, int(offset))
    parsed = catalog.read_page(i)
    page = catalog.pages[i]
    body = parsed.body
    piece = body[offset : offset + max_chars]
    return PageContent(
        path=page.path,
        title=page.title,
        type=page.type,
        aliases=list(page.aliases),
        stub=page.stub,
        frontmatter=parsed.frontmatter,
        body=piece,
        truncated=offset + len(piece) < len(body),
        total_chars=len(body),
        links_out=[catalog.pages[j].path for j in catalog.out_links[i]],
        links_in=[catalog.pages[j].path for j in catalog.in_links(i)],
        problem=parsed.page.problem or "",
    )


def list_pages(
    catalog: Catalog,
    *,
    type: str | None = None,
    prefix: str | None = None,
    offset: int = 0,
    limit: int = 100,
) -> dict[str, Any]:
    """One window of the page list, filtered by type and path prefix, with the total count."""
    limit = max(1, min(int(limit), LIST_LIMIT_MAX))
    offset = max(0, int(offset))
    want_type = (type or "").strip().lower()
    want_prefix = (prefix or "").strip().replace("\\", "/")
    rows = [
        p
        for p in catalog.pages
        if (not want_type or p.type.lower() == want_type)
        and (not want_prefix or p.path.startswith(want_prefix))
    ]
    window = rows[offset : offset + limit]
    end = offset + len(window)
    return {
        "total": len(rows),
        "offset": offset,
        "limit": limit,
        "next_offset": end if end < len(rows) else None,
        "pages": [
            {
                "path": p.path,
                "title": p.title,
                "type": p.type,
                "aliases": list(p.aliases),
                "stub": p.stub,
            }
            for p in window
        ],
    }


def link_in_vault(catalog: Catalog, path: str) -> str:
    """A page's path from the vault root without `.md`, as Obsidian and answer links name it."""
    return catalog.location.link_prefix + path


def obsidian_url(catalog: Catalog, path: str) -> str:
    """`obsidian://open?vault=<vault folder name>&file=<path in vault>` for a page."""
    vault = quote(catalog.location.vault.name, safe="")
    file = quote(link_in_vault(catalog, path), safe="")
    return f"obsidian://open?vault={vault}&file={file}"


@dataclass(frozen=True)
class VaultSummary:
    """What a client needs to know first: which vault, how big, in which languages."""

    name: str
    vault: str
    wiki_folder: str
    layout: str
    pages: int
    by_type: dict[str, int]
    languages: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "vault": self.vault,
            "wiki_folder": self.wiki_folder,
            "layout": self.layout,
            "pages": self.pages,
            "by_type": self.by_type,
            "languages": self.languages,
        }

    def describe(self) -> str:
        """One line: `demo-vault: 49 pages (25 entity, 17 concept, 7 source); English, 中文`."""
        types = ", ".join(f"{n} {t}" for t, n in self.by_type.items())
        # `other` (no language detected) is not a language to name.
        langs = ", ".join(language_name(c) if c != "other" else "other" for c in self.languages)
        return f"{self.name}: {self.pages} pages ({types}); languages: {langs or 'unknown'}"


def vault_summary(catalog: Catalog) -> VaultSummary:
    """Page counts by type and languages (from titles and summaries: no page is read)."""
    loc = catalog.location
    by_type = Counter(p.type or "other" for p in catalog.pages)
    languages = Counter(
        detect_language(f"{p.title}. {p.summary}") for p in catalog.pages if p.summary or p.title
    )
    return VaultSummary(
        name=loc.vault.name,
        vault=str(loc.vault),
        wiki_folder=loc.wiki_folder,
        layout=loc.layout,
        pages=len(catalog.pages),
        by_type=dict(sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0]))),
        languages=dict(languages.most_common()),
    )
