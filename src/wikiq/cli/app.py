"""The typer application and the options every command shares."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from wikiq.cli.progress import ReadProgress
from wikiq.config import Config
from wikiq.wiki import Wiki

app = typer.Typer(
    name="wikiq",
    help=(
        "Ask your Obsidian vault. wikiq answers from your own wiki pages with \\[\\[wiki-link]] "
        "citations, and says so plainly when the vault does not cover a question.\n\n"
        "The vault is found from --vault, then WIKIQ_VAULT, then a .llm-wiki.json in this folder "
        "or a parent, then a `LLM Wiki vault: <path>` line in CLAUDE.md."
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)

VaultOpt = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        "-V",
        help="Vault folder (the one holding wiki/index.md, or any Obsidian vault).",
        show_default=False,
    ),
]
WikiFolderOpt = Annotated[
    str | None,
    typer.Option(
        "--wiki-folder", help="Wiki folder inside the vault \\[default: wiki].", show_default=False
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
SourcesOpt = Annotated[
    str | None,
    typer.Option(
        "--sources",
        help="Source notes outside the wiki folder: auto, off, or folders separated by commas "
        "\\[default: auto; WIKIQ_SOURCES].",
        show_default=False,
    ),
]


def sources_config(sources: str | None) -> Config | None:
    """The user's config with `--sources` on top (None: the config as it is)."""
    if sources is None:
        return None
    from wikiq.config import load_config

    return load_config(flags={"sources": sources})


def open_wiki(
    vault: Path | None,
    wiki_folder: str | None,
    config: Config | None = None,
    *,
    for_questions: bool = False,
) -> Wiki:
    """Open the vault with a progress bar on a terminal (first read of a big vault).

    `config` defaults to the user's config file and environment; `for_questions` when the
    command searches or asks (see `Wiki.open`)."""
    if sys.stderr.isatty():
        from wikiq.build_notices import notify_builds

        notify_builds(_say_building)
    with ReadProgress() as progress:
        return Wiki.open(
            vault,
            wiki_folder=wiki_folder,
            progress=progress,
            config=config,
            for_questions=for_questions,
        )


def _say_building(what: str) -> None:
    print(f"Building {what}…", file=sys.stderr, flush=True)


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def _show_version(value: bool) -> None:
    if value:  # `wikiq --version` alone never gets here (wikiq.cli.main answers it first)
        from wikiq.cli import _version

        print(_version())
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Show wikiq's version and exit.",
            is_eager=True,
            callback=_show_version,
        ),
    ] = False,
) -> None:
    """Ask your Obsidian vault."""
