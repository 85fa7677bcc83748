"""`wikiq index`: refresh the vault's cache, and with `--embed` build its embedding index."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from wikiq import wiring
from wikiq.cli.app import JsonOpt, VaultOpt, WikiFolderOpt, app, open_wiki, print_json
from wikiq.embed.parallel import ParallelLocalE5, usable_cores
from wikiq.embed.passages import DEFAULT_TEXT, TEXT_MODES, TextMode
from wikiq.errors import ConfigError
from wikiq.llm import DEFAULT_EMBED_MODEL, embed_spec, open_embedder

# rich (~45 ms) and the index builder load when `index` or `doctor` runs, not when `wikiq
# search` registers this command.
if TYPE_CHECKING:
    from rich.console import Console

    from wikiq.wiki import Wiki


@app.command()
def index(
    vault: VaultOpt = None,
    wiki_folder: WikiFolderOpt = None,
    embed: Annotated[
        bool,
        typer.Option(
            "--embed",
            help="Build or refresh the embedding index (semantic Stage 0); search then uses it.",
        ),
    ] = False,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help=f"Embedding model: {DEFAULT_EMBED_MODEL} (bundled, offline; the default), "
            "openai:NAME (any /v1/embeddings server) or ollama:NAME.",
            show_default=False,
        ),
    ] = None,
    text: Annotated[
        str,
        typer.Option(
            "--text",
            help="What to embed per page: lead (title, aliases, first paragraph; the default, "
            "measured best) or chunks (the whole page in chunks: many times slower, and the "
            "relevance threshold is calibrated for lead). Also: title, head.",
        ),
    ] = DEFAULT_TEXT,
    base_url: Annotated[
        str | None,
        typer.Option(
            "--base-url", help="Address of the embedding server (openai: and ollama: models)."
        ),
    ] = None,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Embed every page again, even unchanged ones.")
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Processes embedding with the bundled model (default: one per core).",
            show_default=False,
        ),
    ] = None,
    drop: Annotated[
        bool, typer.Option("--drop", help="Delete the embedding index (search stops using it).")
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Read the vault (pages and source notes) into wikiq's cache and build the search
    indexes; with --embed, embed its pages.

    Run it after a large change so the next question does not wait. Everything lives in
    wikiq's cache folder, never in the vault. A second --embed run embeds only the pages that
    changed; an interrupted run resumes where it stopped.

    Examples:\n
      wikiq index --embed\n
      wikiq index --embed --text chunks\n
      wikiq index --embed --model ollama:nomic-embed-text\n
      WIKIQ_EMBED=off wikiq search "..."   (search without the index)
    """
    from wikiq.cli.output import stdout_console
    from wikiq.embed.semantic import catalog_index_path

    mode = text_mode(text)  # before reading the vault: a typo fails at once
    wiki = open_wiki(vault, wiki_folder)
    path = catalog_index_path(wiki.location, wiki.catalog)
    if drop:
        existed = path.is_file()
        path.unlink(missing_ok=True)
        if json:
            print_json({"dropped": existed, "path": str(path)})
        else:
            stdout_console().print(
                f"Removed the embedding index {path}." if existed else "There was no index."
            )
        return
    if not embed:
        notes = wiki.note_index()  # source notes outside the wiki folder: built or refreshed
        # The search indexes too (names, text, lead, graph; saved beside the catalog), so the
        # next search does not build them: 7 s at 100,000 pages.
        started = time.perf_counter()
        _ = wiki.retriever.indexes
        index_seconds = time.perf_counter() - started
        if json:
            print_json(
                {
                    "pages": len(wiki.catalog),
                    "files_read": wiki.catalog.files_read,
                    "cache_file": str(wiki.catalog.cache_file or ""),
                    "source_notes": len(notes) if notes else 0,
                    "notes_read": notes.files_read if notes else 0,
                    "search_indexes_s": round(index_seconds, 2),
                    "embeddings": embedding_state(wiki),
                }
            )
            return
        out = stdout_console()
        out.print(f"{len(wiki.catalog)} pages ({wiki.catalog.files_read} read now).")
        if notes:
            out.print(f"{len(notes)} source notes ({notes.files_read} read now).")
        out.print(f"Search indexes ready ({index_seconds:.1f} s).")
        print_embedding_state(wiki, out)
        return
    model = wiring.embed_model_spec(wiki.config, model)
    with _open_embedder(model, base_url, workers) as embedder:
        _build(wiki, path, embedder, mode, base_url, rebuild, json)


@contextmanager
def _open_embedder(model: str | None, base_url: str | None, workers: int | None) -> Iterator[Any]:
    """The embedder for a build: the bundled model on every core (worker processes), a
    server-backed one as it is."""
    spec = embed_spec(model)
    count = workers or usable_cores()
    if spec.provider != "local" or count < 2:
        yield open_embedder(model, base_url=base_url)
        return
    with ParallelLocalE5(spec.model, workers=count) as embedder:
        yield embedder


def _build(
    wiki: Wiki,
    path: Path,
    embedder: Any,
    mode: TextMode,
    base_url: str | None,
    rebuild: bool,
    json: bool,
) -> None:
    from wikiq.cli.output import stdout_console
    from wikiq.embed.background import clear_status, orphaned, write_status
    from wikiq.embed.index import build_index
    from wikiq.llm import display_url  # loads httpx: only when an index is built

    where = display_url(base_url) if base_url else ""
    started = time.time()
    batch = 32 * getattr(embedder, "workers", 1)  # each worker gets a full batch
    with _embed_progress(f"Embedding pages ({embedder.name}, {mode})") as bar:

        def progress(done: int, total: int) -> None:
            if orphaned(wiki.wired.build_for_pid):  # started by a server that is gone: stop, keeping the work
                raise KeyboardInterrupt
            bar(done, total)
            # How far it is, for `doctor`, the web page and MCP (throttled to one write a second).
            if time.time() - last[0] >= 1.0 or done == total:
                last[0] = time.time()
                write_status(path, done, total, started)

        last = [0.0]
        report = build_index(
            wiki.catalog,
            embedder,
            text=mode,
            path=path,
            where=where,
            rebuild=rebuild,
            progress=progress,
            batch_texts=batch,
        )
    clear_status(path)
    if json:
        print_json(report.to_dict())
        return
    out = stdout_console()
    what = "Built" if report.rebuilt else "Refreshed"
    out.print(
        f"{what} the embedding index: {report.embedded} page(s) embedded, {report.reused} "
        f"unchanged, {report.removed} removed; {report.rows} vectors, "
        f"{report.size_bytes / 1e6:.1f} MB, {report.seconds:.1f} s."
    )
    out.print(f"[dim]{report.path}[/dim]")


@contextmanager
def _embed_progress(label: str) -> Iterator[Callable[[int, int], None]]:
    """A bar with pages done and time left, on stderr when it is a terminal (even for small
    vaults: embedding a page takes about as long as reading a thousand)."""
    from rich.progress import ProgressColumn, Task, TimeElapsedColumn, TimeRemainingColumn
    from rich.text import Text

    from wikiq.cli.progress import progress_bar

    class PagesPerSecond(ProgressColumn):
        """The build's speed, in pages a second (rich measures it over the last half minute)."""

        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            shown = f"{speed:.1f} pages/s" if speed else "– pages/s"
            return Text(shown, style="progress.data.speed")

    columns = (PagesPerSecond(), TimeElapsedColumn(), TimeRemainingColumn())
    with progress_bar(label, columns=columns) as update:
        yield update


def text_mode(text: str) -> TextMode:
    for mode in TEXT_MODES:
        if mode == text:
            return mode
    raise ConfigError(f"Unknown --text '{text}': choose one of {', '.join(TEXT_MODES)}.")


def embedding_state(wiki: Wiki) -> dict[str, Any] | None:
    """The embedding index for `doctor --json` (None when there is none and none is building)."""
    from wikiq.embed.background import read_status
    from wikiq.embed.semantic import catalog_index_path, index_report

    report = index_report(wiki.location, wiki.catalog, enabled=wiki.wired.embeddings_on)
    status = read_status(catalog_index_path(wiki.location, wiki.catalog))
    if report is None and status is None:
        return None
    out = report.to_dict() if report else {}
    out["build"] = status.to_dict() if status else None
    return out


def print_embedding_state(wiki: Wiki, out: Console | None = None) -> None:
    """One line for `doctor` and `index`: the embedding index and whether search uses it."""
    from rich.markup import escape

    from wikiq.cli.output import stdout_console

    out = out or stdout_console()
    summary = wiki.embeddings_summary()
    out.print(f"[bold]Embeddings[/bold]     {escape(summary)}")


__all__ = ["embedding_state", "index", "print_embedding_state"]
