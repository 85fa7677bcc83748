"""One page of a vault, read from its bytes: identity, frontmatter fields, links, body offset."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wikiq.vault.markdown import (
    BOM,
    as_bool,
    as_str_list,
    first_heading,
    link_targets,
    mask_code,
    split_frontmatter,
    summary_line,
)

# The plugin's three content folders name a page's type when frontmatter does not.
FOLDER_TYPES = {"entities": "entity", "concepts": "concept", "sources": "source"}
# A file is binary, not text, when its first bytes hold a NUL (git's test, over the same 8000
# bytes): an image or an archive saved as `.md`. No Markdown file has one, and decoded with
# replacement its bytes would be searched and quoted as words.
BINARY_PROBE = 8000
NOT_TEXT = "not a text file (it holds NUL bytes): its content was skipped"


@dataclass(slots=True)
class Page:
    """Everything the catalog knows about a page without holding its body."""

    path: str  # page identity: wiki-relative, "/" separators, no ".md"
    file: str  # file path relative to the wiki root, with ".md"
    name: str  # basename without ".md" (the plugin's title and the link target)
    title: str  # display name: frontmatter title, else first "# " heading, else basename
    aliases: tuple[str, ...] = ()
    type: str = ""  # entity | concept | source | other frontmatter value | ""
    tags: tuple[str, ...] = ()
    reviewed: bool = False
    stub: bool = False  # generation_complete: false, an honest placeholder
    in_index: bool = False
    summary: str = ""
    body_offset: int = 0  # byte offset of the body in the file (after BOM and frontmatter)
    size: int = 0
    mtime_ns: int = 0
    links: tuple[str, ...] = ()  # link targets as written, deduplicated, frontmatter first
    source_links: tuple[str, ...] = ()  # targets listed under frontmatter `sources:`
    index_aliases: int = 0  # how many of `aliases` (at the end) came from index.md only
    problem: str | None = None  # why the page is malformed, when it is


@dataclass(frozen=True)
class DeadLink:
    """A link from a page to nothing in the vault (here, so the catalog and its cache share it
    without importing each other)."""

    page: str  # the page that links
    target: str  # the target as written


@dataclass(frozen=True)
class ParsedPage:
    page: Page
    body: str  # body text (frontmatter removed), for indexing at read time
    meta: dict[str, Any]  # the frontmatter as YAML read it (dates as dates)
    masked: str = ""  # the body with code blanked out, offsets kept

    @property
    def frontmatter(self) -> dict[str, Any]:
        """The whole frontmatter, unknown keys kept, as plain JSON-ready values."""
        return _plain(self.meta)


def page_path_for(file: str) -> str:
    """`entities/Foo Bar.md` -> `entities/Foo Bar` (the identity used in index.md and links)."""
    return file[:-3] if file.endswith(".md") else file


def parse_page(raw: bytes, file: str, *, size: int = 0, mtime_ns: int = 0) -> ParsedPage:
    """Read a page's bytes; never raises. Undecodable bytes are replaced and reported."""
    problem: str | None = None
    binary_size = 0
    if b"\x00" in raw[:BINARY_PROBE]:
        # Nothing of it is read: its body starts at its end, so Catalog.read_body reads "".
        binary_size, raw, problem = size or len(raw), b"", NOT_TEXT
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        problem = "not valid UTF-8; undecodable bytes were replaced"
    had_bom = text.startswith(BOM)
    fm = split_frontmatter(text)
    if fm.error:
        problem = fm.error if problem is None else f"{problem}; {fm.error}"
    stripped = text[1:] if had_bom else text
    body = stripped[fm.body_start :]
    masked = mask_code(body)  # once: headings, links and the lead all ignore code
    # Offsets on disk are in bytes; the BOM is 3 bytes and CRLF stays as it is.
    body_offset = (3 if had_bom else 0) + len(stripped[: fm.body_start].encode("utf-8"))
    body_offset = binary_size or body_offset

    path = page_path_for(file)
    name = path.rsplit("/", 1)[-1]
    meta = fm.data
    folder = path.split("/", 1)[0] if "/" in path else ""
    page_type = meta.get("type")
    type_str = str(page_type).strip() if isinstance(page_type, str | int) else ""
    if not type_str:
        type_str = FOLDER_TYPES.get(folder, "")

    aliases = frontmatter_aliases(meta)
    fm_title = meta.get("title")
    title = (
        str(fm_title).strip()
        if isinstance(fm_title, str | int | float) and str(fm_title).strip()
        else ""
    )
    if not title:
        title = _clean_heading(first_heading(body, masked=masked) or "") or name

    links: list[str] = []
    seen: set[str] = set()
    for target in link_targets(body, fm.text, masked=masked):
        if target and target not in seen:
            seen.add(target)
            links.append(target)
    source_links = tuple(_link_target(s) for s in as_str_list(meta.get("sources")))

    generation_complete = as_bool(meta.get("generation_complete"))
    page = Page(
        path=path,
        file=file,
        name=name,
        title=title,
        aliases=tuple(aliases),
        type=type_str,
        tags=tuple(as_str_list(meta.get("tags"))),
        reviewed=as_bool(meta.get("reviewed")) is True,
        stub=generation_complete is False,
        summary=summary_line(body),
        body_offset=body_offset,
        size=size or len(raw),
        mtime_ns=mtime_ns,
        links=tuple(links),
        source_links=tuple(t for t in source_links if t),
        problem=problem,
    )
    return ParsedPage(page, body, meta, masked)


def frontmatter_aliases(meta: dict[str, Any]) -> list[str]:
    """`aliases:` (or `alias:`) as a clean list; a string is split on commas as Obsidian once did."""
    value = meta.get("aliases", meta.get("alias"))
    items = [a.strip() for a in value.split(",")] if isinstance(value, str) else as_str_list(value)
    out: list[str] = []
    for alias in items:
        alias = alias.strip().strip('"').strip()
        if alias and alias not in out:
            out.append(alias)
    return out


def _clean_heading(heading: str) -> str:
    # Source pages are titled "<Title> - Summary" by the plugin; the display name is the title.
    return heading[: -len(" - Summary")].strip() if heading.endswith(" - Summary") else heading


def _link_target(value: str) -> str:
    value = value.strip()
    if value.startswith("[[") and value.endswith("]]"):
        value = value[2:-2]
    return value.split("|", 1)[0].split("#", 1)[0].strip()


def _plain(value: Any) -> Any:
    """Frontmatter with YAML dates and other objects turned into plain, cacheable values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
