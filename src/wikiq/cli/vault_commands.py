"""`wikiq doctor`, `wikiq pages`, `wikiq show`: looking at a vault as wikiq reads it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from wikiq.cli.app import (
    JsonOpt,
    SourcesOpt,
    VaultOpt,
    WikiFolderOpt,
    app,
    open_wiki,
    print_json,
)
from wikiq.errors import PageNotFound

# What these commands print with (rich, ~45 ms) and read with loads when one of them runs,
# not when `wikiq search` registers them.
if TYPE_CHECKING:
    from rich.console import Console

    from wikiq.vault.access import PageContent
    from wikiq.vault.cache_folders import CacheFolder, VaultCaches
    from wikiq.vault.catalog import Catalog
    from wikiq.vault.health import VaultHealth
    from wikiq.vault.page import Page, ParsedPage

_LIST_LIMIT = 10


@app.command()
def doctor(
    vault: VaultOpt = None,
    wiki_folder: WikiFolderOpt = None,
    json: JsonOpt = False,
    sources: SourcesOpt = None,
    prune_caches: Annotated[
        bool,
        typer.Option(
            "--prune-caches",
            help="Remove the cache folders of vaults that no longer exist (moved, renamed or "
            "deleted; a vault on a drive that is not mounted counts too, and its cache is "
            "rebuilt when it is opened again). Only wikiq's own cache folders are removed, "
            "never anything in a vault.",
        ),
    ] = False,
) -> None:
    """Check a vault: where it is, page counts, index gaps, dead links, stubs, broken pages, cache.

    Also lists the cache folders other vaults left behind; --prune-caches removes them.

    Examples:\n
      wikiq doctor --vault ~/Obsidian/MyVault\n
      wikiq doctor --json | jq .dead_links\n
      wikiq doctor --prune-caches
    """
    from wikiq.config import load_config
    from wikiq.models import config_report
    from wikiq.vault.cache_folders import vault_caches
    from wikiq.vault.health import vault_health

    # The flags go into the settings too, so every setting is shown with where it came from.
    settings = load_config(flags={"vault": vault, "wiki_folder": wiki_folder, "sources": sources})
    wiki = open_wiki(vault, wiki_folder, settings)
    health = vault_health(wiki.catalog, wiki.source_notes())
    config = config_report(settings)
    from wikiq.cli.index_commands import embedding_state, print_embedding_state

    caches = vault_caches(wiki.wired.cache_dir, prune_caches)
    if json:
        print_json(
            {
                **health.to_dict(),
                "config": config,
                "embeddings": embedding_state(wiki),
                "caches": caches.to_dict(),
            }
        )
        return
    _print_health(health)
    _print_caches(caches)
    _print_config(config)
    print_embedding_state(wiki)


def _print_caches(c: VaultCaches) -> None:
    from rich.markup import escape

    from wikiq.cli.output import stdout_console

    out = stdout_console()
    out.print(
        f"[bold]All caches[/bold]   {len(c.folders)} vault(s), {_megabytes(c.total)} in "
        f"{escape(str(c.root))}",
        markup=True,
    )
    _print_left_behind(out, c.removed, "removed {n} left behind", "({size}):")
    _print_left_behind(
        out,
        c.left_behind,
        "{n} left behind",
        "({size}); remove them with: wikiq doctor --prune-caches",
    )


def _print_left_behind(out: Console, folders: list[CacheFolder], lead: str, tail: str) -> None:
    """One line on cache folders of vaults that no longer exist, then their vaults."""
    if not folders:
        return
    size = _megabytes(sum(f.size for f in folders))
    out.print(
        f"    {lead.format(n=len(folders))} by vaults that no longer exist {tail.format(size=size)}"
    )
    _print_list(out, [str(f.vault) for f in folders], "folders")


def _megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n < 1e9 else f"{n / 1e9:.2f} GB"


def _print_config(c: dict[str, Any]) -> None:
    from rich.markup import escape

    from wikiq.cli.output import stdout_console

    out = stdout_console()
    where = c["file"] if c["file_exists"] else f"{c['file']} (not created)"
    out.print(f"[bold]Config[/bold]       {escape(where)}", markup=True)
    for role in ("answer_model", "keyword_model"):
        m = c[role]
        label = "Answer model" if role == "answer_model" else "Keyword model"
        spec = m.get("spec") or "none"
        window = f", context {m['context_window']} tokens" if m.get("context_window") else ""
        note = f" — {m['note']}" if m.get("note") else ""
        detail = escape(f"{spec} ({m['source']}{window}){note}")
        out.print(f"[bold]{label:<14}[/bold] {detail}", markup=True)
    # Every setting and where it came from: flag, environment, config file or default.
    out.print("[bold]Settings[/bold]     (see --json for what each one does)")
    for row in c["settings"]:
        value = "" if row["value"] is None else str(row["value"])
        line = escape(f"    {row['name']:<17} {value or '-'}  ({row['source']}; {row['env']})")
        out.print(line if row["source"] != "default" else f"[dim]{line}[/dim]")
    for problem in c["problems"]:
        out.print(f"[yellow]•[/yellow] {escape(problem)}")


def _print_health(h: VaultHealth) -> None:
    from rich.markup import escape

    from wikiq.cli.output import stdout_console

    out = stdout_console()
    # Everything from the vault is printed as text: a title or path holding "[/red]" is not
    # markup (rich would raise on it).
    out.print(f"[bold]Vault[/bold]        {escape(h.vault)}")
    if h.layout == "llm-wiki":
        out.print(f"[bold]Wiki folder[/bold]  {escape(h.wiki_folder)}  (LLM Wiki layout)")
    else:
        out.print("[bold]Layout[/bold]       plain Obsidian vault (no wiki/index.md)")
    out.print(f"[bold]Found by[/bold]     {escape(h.found_by)}")
    # A plain vault's pages have no type: the count alone, not "173 (173 (none))".
    typed = {t: n for t, n in h.by_type.items() if t != "(none)"}
    untyped = h.by_type.get("(none)", 0)
    types = ", ".join(f"{n} {t}" for t, n in typed.items())
    if typed and untyped:
        types += f", {untyped} without a type"
    shown = f" ({escape(types)})" if typed else ""
    out.print(f"[bold]Pages[/bold]        {h.pages}{shown}")
    if h.layout == "llm-wiki":
        out.print(f"[bold]In index.md[/bold]  {h.in_index}; not in index: {len(h.not_in_index)}")
        _print_list(out, h.not_in_index, "not in index.md")
        _print_list(out, h.index_without_page, "listed in index.md but missing on disk")
    out.print(f"[bold]Links[/bold]        {h.links} resolved; {len(h.dead_links)} dead")
    _print_list(out, [f"{d['page']} → [[{d['target']}]]" for d in h.dead_links], "dead links")
    if h.source_notes:
        where = ", ".join(f"{n} in {f}" for f, n in h.source_folders.items())
        out.print(
            f"[bold]Source notes[/bold] {h.source_notes} ({escape(where)}); "
            f"{h.note_links} page→note links resolve to them"
        )
    out.print(
        f"[bold]Stubs[/bold]        {len(h.stubs)} (generation_complete: false); reviewed: {h.reviewed}"
    )
    _print_list(out, h.stubs, "stubs")
    out.print(f"[bold]Malformed[/bold]    {len(h.malformed)}")
    _print_list(out, [f"{m['file']}: {m['problem']}" for m in h.malformed], "malformed pages")
    if h.skipped:
        out.print(f"[bold]Skipped[/bold]      {len(h.skipped)} file(s) not read")
        _print_list(out, [f"{m['file']}: {m['reason']}" for m in h.skipped], "skipped files")
    if h.cache_file:
        age = _age(h.cache_age_s)
        out.print(
            f"[bold]Cache[/bold]        {h.cache_file} (built {age} ago; {h.files_read} file(s) read now)"
        )
    else:
        out.print("[bold]Cache[/bold]        not written (cache folder not writable)")
    for note in h.notes:
        out.print(f"[yellow]•[/yellow] {escape(note)}")


def _print_list(out: Console, items: list[str], what: str) -> None:
    for item in items[:_LIST_LIMIT]:
        out.print(f"    {item}", markup=False)
    if len(items) > _LIST_LIMIT:
        out.print(f"    … and {len(items) - _LIST_LIMIT} more {what} (see --json)")


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


@app.command()
def pages(
    vault: VaultOpt = None,
    wiki_folder: WikiFolderOpt = None,
    type: Annotated[
        str | None,
        typer.Option("--type", "-t", help="Only pages of this type (entity, concept, source…)."),
    ] = None,
    prefix: Annotated[
        str | None,
        typer.Option("--prefix", help="Only paths starting with this, e.g. 'concepts/'."),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """List the pages wikiq sees, with type, title and flags.

    Examples:\n
      wikiq pages --type concept\n
      wikiq pages --prefix entities/ --json
    """
    catalog = open_wiki(vault, wiki_folder).catalog
    rows = [
        p
        for p in catalog.pages
        if (type is None or p.type == type) and (prefix is None or p.path.startswith(prefix))
    ]
    if json:
        print_json(
            [
                {
                    "path": p.path,
                    "title": p.title,
                    "type": p.type,
                    "aliases": list(p.aliases),
                    "in_index": p.in_index,
                    "stub": p.stub,
                    "reviewed": p.reviewed,
                }
                for p in rows
            ]
        )
        return
    listed = [
        (
            _cell(p.path),
            _cell(p.type),
            _cell(p.title),
            _page_flags(p, catalog.location.layout == "llm-wiki"),
        )
        for p in rows
    ]
    sys.stdout.write(
        "".join(line + "\n" for line in _columns([("path", "type", "title", "flags"), *listed]))
    )
    sys.stdout.write(f"{len(rows)} page(s)\n")


def _page_flags(page: Page, llm_wiki: bool) -> str:
    flags = (
        ("stub", page.stub),
        ("reviewed", page.reviewed),
        ("not-in-index", llm_wiki and not page.in_index),
    )
    return " ".join(name for name, on in flags if on)


def _cell(text: str) -> str:
    """One line of printable text: a frontmatter title may hold a line break or a tab, and a
    file name may hold bytes that are not UTF-8 (lone surrogates, which stdout cannot encode)."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


# Widest a listed column is padded to: a longer cell is printed whole, past its column.
_COLUMN_CAP = 60


def _columns(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as aligned plain-text columns (a wide character counts two). rich's Table took
    6 s to lay out ob-wiki's 8,194 pages, and would take minutes at 100,000."""
    from rich.cells import cell_len

    # The last column is not padded: its width is not needed.
    widths = [min(_COLUMN_CAP, max(cell_len(r[c]) for r in rows)) for c in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [
            cell + " " * (w - cell_len(cell)) for cell, w in zip(row[:-1], widths, strict=True)
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return lines


@app.command()
def show(
    path: Annotated[
        str, typer.Argument(help="Page path (concepts/orbit), basename, title or alias.")
    ],
    vault: VaultOpt = None,
    wiki_folder: WikiFolderOpt = None,
    json: JsonOpt = False,
    meta: Annotated[
        bool,
        typer.Option("--meta", help="Only the page's frontmatter and links, not its text."),
    ] = False,
) -> None:
    """Show one page: its text, then its frontmatter and the links going out and coming in.

    Examples:\n
      wikiq show concepts/orbit\n
      wikiq show concepts/orbit --meta\n
      wikiq show "Neil Armstrong" --json
    """
    from rich.markup import escape

    from wikiq.cli.output import stdout_console
    from wikiq.vault.access import MAX_CHARS_LIMIT
    from wikiq.vault.note_access import find_note, read_note
    from wikiq.vault.note_links import notes_linked_from
    from wikiq.vault.notes import NoteResolver

    wiki = open_wiki(vault, wiki_folder)
    catalog = wiki.catalog
    scan = wiki.source_notes()
    if scan is not None and find_note(scan, path) is not None:
        _show_note(read_note(catalog, scan, path, max_chars=MAX_CHARS_LIMIT), json=json)
        return
    i = catalog.find(path)
    if i is None:
        raise PageNotFound(f"No page '{path}' in this vault (try `wikiq pages` to list them).")
    parsed = catalog.read_page(i)  # read once: frontmatter for the facts, body for the text
    info = page_info(catalog, i, parsed)
    resolver = NoteResolver(scan.files if scan else ())
    info["notes_out"] = notes_linked_from(catalog, resolver, i)
    info["dead_links"] = [t for t in info["dead_links"] if resolver.resolve(t) is None]
    if json:
        print_json(info)
        return
    out = stdout_console()
    where = escape(f"({info['path']}, {info['type'] or 'no type'})")
    out.print(f"[bold]{escape(info['title'])}[/bold]  {where}")
    if not meta:
        body = parsed.body.strip("\n")
        out.print(body + "\n" if body else "(no text)", markup=False, highlight=False)
    out.print(f"file: {info['file']}", markup=False)
    if info["aliases"]:
        out.print("aliases: " + ", ".join(info["aliases"]), markup=False)
    flags = [f for f in ("stub", "reviewed") if info[f]]
    if flags:
        out.print("flags: " + ", ".join(flags))
    if info["problem"]:
        out.print(f"[red]problem:[/red] {escape(info['problem'])}")
    out.print("[bold]frontmatter[/bold]")
    for key, value in info["frontmatter"].items():
        out.print(f"  {key}: {value}", markup=False)
    out.print(f"[bold]links out[/bold] ({len(info['links_out'])})")
    # One print a list: a hub page's thousand links printed one call each took a second.
    _print_lines(
        out,
        [f"  → {t}" for t in info["links_out"]]
        + [f"  → {t} (source note)" for t in info["notes_out"]]
        + [f"  ✗ {t} (dead)" for t in info["dead_links"]],
    )
    out.print(f"[bold]links in[/bold] ({len(info['links_in'])})")
    _print_lines(out, [f"  ← {source}" for source in info["links_in"]])


def _print_lines(out: Console, lines: list[str]) -> None:
    if lines:
        out.print("\n".join(lines), markup=False, highlight=False)


def _show_note(note: PageContent, *, json: bool) -> None:
    """`show` for a source note: its text, then the pages that link to it."""
    if json:
        print_json(note.to_dict())
        return
    from rich.markup import escape

    from wikiq.cli.output import stdout_console

    out = stdout_console()
    out.print(f"[bold]{escape(note.title)}[/bold]  {escape(f'({note.path}, source note)')}")
    body = note.body.strip("\n")
    out.print(body + "\n" if body else "(no text)", markup=False, highlight=False)
    if note.problem:
        out.print(f"[red]problem:[/red] {escape(note.problem)}")
    out.print(f"[bold]links in[/bold] ({len(note.links_in)})")
    _print_lines(out, [f"  ← {source}" for source in note.links_in])


def page_info(catalog: Catalog, i: int, parsed: ParsedPage | None = None) -> dict[str, Any]:
    """`show`'s facts about page `i`; `parsed` is the page already read, if it is."""
    from wikiq.vault.rows import page_value

    page = catalog.pages[i]
    return {
        "path": page.path,
        "file": page.file,
        "title": page.title,
        "type": page.type,
        "aliases": list(page.aliases),
        "tags": list(page.tags),
        "stub": page.stub,
        "reviewed": page.reviewed,
        "in_index": page.in_index,
        "problem": page.problem,
        "frontmatter": (parsed or catalog.read_page(i)).frontmatter,
        # Paths read from their column: building every linked page cost a hub 0.3 s.
        "links_out": [page_value(catalog.pages, "path", j) for j in catalog.out_links[i]],
        "dead_links": [d.target for d in catalog.dead_links if d.page == page.path],
        "links_in": [page_value(catalog.pages, "path", j) for j in catalog.in_links(i)],
    }
