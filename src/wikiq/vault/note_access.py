"""Reading one source note for MCP `read_page` and `wikiq show`, as safely as a page.

A path from outside is only ever looked up among the notes found by the scan (never joined onto
the file system as given), and the file's real path must lie inside the vault: a note that is a
symbolic link pointing out of it is refused.
"""

from __future__ import annotations

from wikiq.errors import PageNotFound
from wikiq.vault.access import DEFAULT_MAX_CHARS, MAX_CHARS_LIMIT, PageContent, PathRefused
from wikiq.vault.catalog import Catalog
from wikiq.vault.note_links import page_note_links
from wikiq.vault.notes import NoteResolver, NoteScan
from wikiq.vault.page import parse_page
from wikiq.vault.scan import resolves_inside

NOTE_TYPE = "source-note"


def find_note(scan: NoteScan | None, path: str) -> str | None:
    """The note a user-supplied path names exactly (vault-relative, `.md` optional), or None."""
    if scan is None or not scan.files:
        return None
    t = path.strip().replace("\\", "/").lstrip("/").removesuffix(".md")
    by_lower = {f[:-3].lower(): f[:-3] for f in scan.files}
    return by_lower.get(t.lower())


def read_note(
    catalog: Catalog,
    scan: NoteScan,
    path: str,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    offset: int = 0,
) -> PageContent:
    """A source note's frontmatter and body (from `offset`, at most `max_chars` characters),
    and the pages that link to it."""
    note = find_note(scan, path)
    if note is None:
        raise PageNotFound(f"No source note '{path}' in this vault.")
    vault = catalog.location.vault
    file = vault / f"{note}.md"
    if not resolves_inside(file, vault):
        raise PathRefused(f"Refused '{path}': that file is a link to a place outside the vault.")
    try:
        raw = file.read_bytes()
    except OSError as err:
        raise PageNotFound(f"Could not read the note '{note}': {err.strerror or err}.") from None
    parsed = parse_page(raw, f"{note}.md")
    body = parsed.body
    max_chars = max(1, min(int(max_chars), MAX_CHARS_LIMIT))
    offset = max(0, int(offset))
    piece = body[offset : offset + max_chars]
    linked = page_note_links(catalog, NoteResolver(scan.files)).get(note, ())
    return PageContent(
        path=note,
        title=parsed.page.title,
        type=NOTE_TYPE,
        aliases=list(parsed.page.aliases),
        stub=False,
        frontmatter=parsed.frontmatter,
        body=piece,
        truncated=offset + len(piece) < len(body),
        total_chars=len(body),
        links_out=[],
        links_in=list(linked),
        problem=parsed.page.problem or "",
    )
