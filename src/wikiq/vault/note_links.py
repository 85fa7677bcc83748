"""Which pages point at which source notes: their links, and source pages named after a note.

A link with a folder that names a note is a note link; a bare name is one only when no page
answers to it (a page wins, as in Obsidian). The plugin also names a source page after the file
it ingested, even when the page does not link it: that counts as a link too.
"""

from __future__ import annotations

from wikiq.vault.catalog import Catalog
from wikiq.vault.notes import NoteResolver


def linked_targets(catalog: Catalog) -> list[str]:
    """Every link target written in a page (what may point at a note)."""
    return list(dict.fromkeys(t for p in catalog.pages for t in (*p.links, *p.source_links)))


def note_links(catalog: Catalog, resolver: NoteResolver) -> dict[str, tuple[str, ...]]:
    """Note path -> pages that link to it, or that are named after it (a source page)."""
    out = {k: list(v) for k, v in page_note_links(catalog, resolver).items()}
    for note, pages in _named_after(catalog, resolver).items():
        kept = out.setdefault(note, [])
        kept += [p for p in pages if p not in kept]
    return {k: tuple(v) for k, v in out.items()}


def page_note_links(catalog: Catalog, resolver: NoteResolver) -> dict[str, tuple[str, ...]]:
    """Note path -> pages whose links point at it. A target with a folder that names a note
    is a note link; a bare name is one only when no page answers to it (a page wins, as in
    Obsidian)."""
    out: dict[str, list[str]] = {}
    memo: dict[str, str | None] = {}
    for page in catalog.pages:
        for target in dict.fromkeys((*page.links, *page.source_links)):
            if target not in memo:
                memo[target] = _note_target(catalog, resolver, target)
            note = memo[target]
            if note is not None:
                pages = out.setdefault(note, [])
                if page.path not in pages:
                    pages.append(page.path)
    return {k: tuple(v) for k, v in out.items()}


def notes_linked_from(catalog: Catalog, resolver: NoteResolver, page: int) -> list[str]:
    """The notes one page links to (what `show` lists beside its page links)."""
    p = catalog.pages[page]
    found = (_note_target(catalog, resolver, t) for t in (*p.links, *p.source_links))
    return list(dict.fromkeys(n for n in found if n is not None))


_NAME_ENDS = "-_ (（"


def _named_after(catalog: Catalog, resolver: NoteResolver) -> dict[str, list[str]]:
    """Source pages named after a note (`sources/inferdb_pvldb2024_424566` for
    `raw/papers/inferdb_pvldb2024`, `sources/失控-凯文·凯利读书笔记` for `…/失控`): the plugin
    names a source page after the file it ingested, even when the page does not link it."""
    out: dict[str, list[str]] = {}
    for page in catalog.pages:
        if page.type != "source":
            continue
        name = page.name
        cuts = [len(name)] + [i for i, ch in enumerate(name) if ch in _NAME_ENDS and i >= 2]
        for cut in cuts:
            note = resolver.resolve_name(name[:cut])
            if note is not None:
                out.setdefault(note, []).append(page.path)
                break
    return out


def _note_target(catalog: Catalog, resolver: NoteResolver, target: str) -> str | None:
    note = resolver.resolve(target)
    if note is None:
        return None
    bare = target.split("|", 1)[0].strip().lower().removesuffix(".md")
    if "/" in bare and bare.lstrip("./") == note.lower():
        return note
    return note if catalog.resolver.resolve(target) is None else None
