"""The composition root: settings (`config.py`) in, plain values out.

`Wiki.open` comes here. This is the one place that reads a setting on the core's behalf; the
packages below (`vault`, `text`, `retrieve`, `embed`, `answer`) take paths, flags and numbers
as arguments and never look at the configuration or the environment themselves.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wikiq.config import KEYS_BY_NAME, OFF_VALUES, Config
from wikiq.errors import ConfigError
from wikiq.vault.cache import cache_root
from wikiq.vault.locate import VaultLocation, locate_vault
from wikiq.vault.notes import SourcesSetting, parse_sources

if TYPE_CHECKING:  # the answering layer loads on the first question
    from wikiq.answer.answerer import AnswerSettings

PURPOSE_FILE = "purpose.md"
_MAX_SIDE_FILE_BYTES = 64_000


@dataclass(frozen=True)
class Wired:
    """What one `Wiki` takes from the settings, read once when it opens."""

    cache_dir: Path | None  # None: the platform's user cache folder
    sources: SourcesSetting
    embeddings_on: bool  # False: `WIKIQ_EMBED=off`, Stage 0 unused even with an index
    query_log: bool
    build_for_pid: str  # set in a background index build: the server that started it

    @property
    def keyword_cache_dir(self) -> Path:
        return cache_root(self.cache_dir) / "keywords"

    @property
    def query_log_file(self) -> Path:
        from wikiq.querylog import log_path

        return log_path(self.cache_dir)


def segmenter_dir(cache_dir: Path | None) -> Path:
    """Where jieba's word table is kept (text/han_words.py): shared by every vault."""
    return cache_root(cache_dir) / "segmenter"


def wire(config: Config, *, cache_dir: Path | None = None) -> Wired:
    """The plain values of `config`; `cache_dir` (an argument of `Wiki.open`) beats
    `WIKIQ_CACHE_DIR`."""
    return Wired(
        cache_dir=cache_dir if cache_dir is not None else config.get("cache_dir"),
        sources=parse_sources(config.get("sources")),
        embeddings_on=str(config.get("embed")).strip().lower() not in OFF_VALUES,
        query_log=bool(config.get("query_log")),
        build_for_pid=str(config.get("build_for_pid") or ""),
    )


def locate(config: Config, vault: str | os.PathLike[str] | None, wiki_folder: str | None) -> VaultLocation:
    """The vault from the argument, else `WIKIQ_VAULT`, else the files the skill reads; the
    wiki folder from the argument, else `WIKIQ_WIKI_FOLDER`."""
    folder = wiki_folder or config.get("wiki_folder") or None
    if vault is not None and str(vault) != "":
        return locate_vault(vault, folder, source="--vault")
    configured = config.get("vault")
    if configured:
        return locate_vault(configured, folder, source=KEYS_BY_NAME["vault"].env)
    return locate_vault(None, folder)


def embed_model_spec(config: Config, flag: str | None = None) -> str | None:
    """The embedding model asked for: `--model`, else `WIKIQ_EMBED_MODEL` (None: the bundled one)."""
    return flag or config.get("embed_model") or None


def build_environment(embed_model: str) -> dict[str, str]:
    """The environment of a background index build: this one, with the model it must use and
    the process it works for (it stops when that process is gone)."""
    return {
        **os.environ,
        KEYS_BY_NAME["embed_model"].env: embed_model,
        KEYS_BY_NAME["build_for_pid"].env: str(os.getpid()),
    }


def answer_settings(config: Config, location: VaultLocation) -> AnswerSettings:
    """Answer settings from the configuration, with the wiki's purpose.md and the user's
    custom instructions read now (both optional)."""
    from wikiq.answer.answerer import CITE_STYLES, AnswerSettings
    from wikiq.answer.context import ContextSettings

    purpose = _read_side_file(location.wiki_root / PURPOSE_FILE) if location.wiki_folder else ""
    instructions_path = config.instructions_path()
    instructions = _read_side_file(instructions_path) if instructions_path else ""
    cite = str(config.get("cite") or "wiki").strip().lower()
    if cite not in CITE_STYLES:
        raise ConfigError(
            f"cite must be wiki or numbered, not '{cite}' (from {config.source('cite')})."
        )
    return AnswerSettings(
        pages=int(config.get("pages")),
        context=ContextSettings(
            page_chars=int(config.get("page_chars")), answer_tokens=config.get("answer_tokens")
        ),
        context_window=config.context,
        temperature=config.get("temperature"),
        purpose=purpose,
        instructions=instructions,
        cite=cite,
    )


def _read_side_file(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(_MAX_SIDE_FILE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""
