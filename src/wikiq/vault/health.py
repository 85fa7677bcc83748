"""What `wikiq doctor` reports about a vault, computed from its catalog."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from wikiq.vault.catalog import Catalog
from wikiq.vault.note_links import page_note_links
from wikiq.vault.notes import NoteResolver, NoteScan


@dataclass
class VaultHealth:
    vault: str
    wiki_folder: str
    layout: str
    found_by: str
    pages: int
    by_type: dict[str, int]
    in_index: int
    not_in_index: list[str]
    index_without_page: list[str]
    links: int
    dead_links: list[dict[str, str]]
    stubs: list[str]
    reviewed: int
    malformed: list[dict[str, str]]
    skipped: list[dict[str, str]]  # files not read: links out of the wiki, undecodable names
    cache_file: str | None
    cache_age_s: float | None
    files_read: int
    notes: list[str] = field(default_factory=list)
    source_notes: int = 0  # notes outside the wiki folder searched beside the pages
    source_folders: dict[str, int] = field(default_factory=dict)  # top folder -> notes
    note_links: int = 0  # page→note links (no longer reported as dead)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def vault_health(catalog: Catalog, notes: NoteScan | None = None) -> VaultHealth:
    """Counts and lists of everything a user may want to fix in a vault; `notes` are its
    source notes (links to them are not dead)."""
    loc = catalog.location
    pages = catalog.pages
    llm_wiki = loc.layout == "llm-wiki"
    by_type = Counter(p.type or "(none)" for p in pages)
    health = VaultHealth(
        vault=str(loc.vault),
        wiki_folder=loc.wiki_folder,
        layout=loc.layout,
        found_by=loc.source,
        pages=len(pages),
        by_type=dict(sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0]))),
        in_index=sum(p.in_index for p in pages),
        not_in_index=[p.path for p in pages if llm_wiki and not p.in_index],
        index_without_page=list(catalog.index_missing),
        links=catalog.graph.nnz,
        dead_links=[{"page": d.page, "target": d.target} for d in catalog.dead_links],
        stubs=[p.path for p in pages if p.stub],
        reviewed=sum(p.reviewed for p in pages),
        malformed=[{"file": f, "problem": msg} for f, msg in catalog.problems],
        skipped=[{"file": f, "reason": why} for f, why in catalog.skipped],
        cache_file=str(catalog.cache_file) if catalog.cache_file else None,
        cache_age_s=round(time.time() - catalog.built_at, 1) if catalog.built_at else None,
        files_read=catalog.files_read,
    )
    if notes is not None and notes.files:
        _add_notes(health, catalog, notes)
    if llm_wiki and health.not_in_index:
        health.notes.append(
            f"{len(health.not_in_index)} page(s) exist on disk but are not listed in index.md; "
            "wikiq still searches them (the plugin's 'Regenerate index' command adds them)."
        )
    if health.index_without_page:
        health.notes.append(
            f"{len(health.index_without_page)} index.md line(s) point at pages that do not exist."
        )
    if health.skipped:
        health.notes.append(
            f"{len(health.skipped)} file(s) were skipped and never read (symbolic links out of "
            "the wiki folder, names that are not UTF-8): see the list below."
        )
    if health.malformed:
        health.notes.append(
            f"{len(health.malformed)} malformed page(s) were read as far as possible "
            "(title from the file name)."
        )
    return health


def _add_notes(health: VaultHealth, catalog: Catalog, notes: NoteScan) -> None:
    """Source-note counts; a dead link that names a note is a note link, not dead."""
    resolver = NoteResolver(notes.files)
    health.source_notes = len(notes.files)
    folders = Counter(f.split("/", 1)[0] if "/" in f else "(vault root)" for f in notes.files)
    health.source_folders = dict(sorted(folders.items(), key=lambda kv: (-kv[1], kv[0])))
    health.note_links = sum(len(p) for p in page_note_links(catalog, resolver).values())
    health.dead_links = [d for d in health.dead_links if resolver.resolve(d["target"]) is None]
    health.skipped += [{"file": f, "reason": why} for f, why in notes.skipped]
