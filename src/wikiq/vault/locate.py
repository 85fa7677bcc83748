"""Finding the vault: the one named (`--vault`, or `WIKIQ_VAULT` read by the composition root),
else `.llm-wiki.json`, then a `CLAUDE.md` line.

The order and the no-vault message follow the wiki-query skill (seed 003, Step 1). We never
guess among vaults: with nothing configured the user gets the skill's message, word for word.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wikiq.errors import ConfigError, EmptyWiki, NoVaultConfigured, VaultNotFound
from wikiq.vault.index_file import is_empty_index

DEFAULT_WIKI_FOLDER = "wiki"
CONTENT_FOLDERS = ("entities", "concepts", "sources")
_CLAUDE_LINE = re.compile(
    r"LLM Wiki vault:\s*(?P<path>.+?)\s*(?:\(\s*wikiFolder:\s*(?P<folder>[^)]*?)\s*\))?\s*$",
    re.MULTILINE,
)

Layout = Literal["llm-wiki", "plain"]


@dataclass(frozen=True)
class VaultLocation:
    """Where a vault is and how to read it."""

    vault: Path  # absolute vault root
    wiki_folder: str  # folder holding index.md ("wiki"); "" for a plain vault
    layout: Layout
    source: str  # how it was found, shown by `wikiq doctor`

    @property
    def wiki_root(self) -> Path:
        """The folder page paths are relative to."""
        return self.vault / self.wiki_folder if self.wiki_folder else self.vault

    @property
    def index_path(self) -> Path | None:
        return self.wiki_root / "index.md" if self.layout == "llm-wiki" else None

    @property
    def link_prefix(self) -> str:
        """What answers put before a page path: `wiki/` for LLM-Wiki vaults, nothing for plain."""
        return f"{self.wiki_folder}/" if self.wiki_folder else ""


def locate_vault(
    vault: str | os.PathLike[str] | None = None,
    wiki_folder: str | None = None,
    *,
    source: str = "--vault",
    cwd: Path | None = None,
) -> VaultLocation:
    """Resolve the vault named by `vault` (found by `source`, for messages and `doctor`), else
    from `.llm-wiki.json` or `CLAUDE.md`, then validate it."""
    cwd = (cwd or Path.cwd()).resolve()
    folder_override = wiki_folder or None

    if vault is not None and str(vault) != "":
        return open_location(_expand(Path(vault), cwd), folder_override, source)
    found = _from_llm_wiki_json(cwd)
    if found is not None:
        root, folder, source = found
        return open_location(root, folder_override or folder, source)
    found = _from_claude_md(cwd)
    if found is not None:
        root, folder, source = found
        return open_location(root, folder_override or folder, source)
    raise NoVaultConfigured()


def open_location(root: Path, wiki_folder: str | None, source: str) -> VaultLocation:
    """Validate a vault root and decide its layout (LLM-Wiki or plain Obsidian)."""
    if not root.exists():
        raise VaultNotFound(f"Vault not found: {root} does not exist (from {source}).")
    if not root.is_dir():
        raise VaultNotFound(f"Vault not found: {root} is a file, not a folder (from {source}).")
    folder = (wiki_folder or DEFAULT_WIKI_FOLDER).strip().strip("/\\")
    wiki_dir = root / folder
    index = wiki_dir / "index.md"
    if index.is_file():
        if is_empty_index(_read_text(index)):
            raise EmptyWiki()
        return VaultLocation(root, folder, "llm-wiki", source)
    # Pointed at the wiki folder itself (it holds index.md and the content folders).
    if (root / "index.md").is_file() and any((root / c).is_dir() for c in CONTENT_FOLDERS):
        return open_location(root.parent, root.name, source)
    if wiki_dir.is_dir() and any((wiki_dir / c).is_dir() for c in CONTENT_FOLDERS):
        # An LLM-Wiki folder with no index: the plugin has not written one yet.
        raise EmptyWiki()
    if wiki_folder and not wiki_dir.is_dir():
        raise VaultNotFound(
            f"Vault not found: {root} has no wiki folder named '{folder}' (from {source})."
        )
    if not _has_markdown(root):
        raise EmptyWiki(f"The vault at {root} has no Markdown pages yet.")
    return VaultLocation(root, "", "plain", source)


def _expand(path: Path, cwd: Path) -> Path:
    path = path.expanduser()
    return (path if path.is_absolute() else cwd / path).resolve()


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _parents(start: Path) -> list[Path]:
    return [start, *start.parents]


def _from_llm_wiki_json(cwd: Path) -> tuple[Path, str, str] | None:
    for folder in _parents(cwd):
        config = folder / ".llm-wiki.json"
        if not config.is_file():
            continue
        try:
            data = json.loads(_read_text(config))
        except json.JSONDecodeError as err:
            raise ConfigError(
                f"{config} is not valid JSON: {err.msg} (line {err.lineno})."
            ) from None
        if not isinstance(data, dict) or not isinstance(data.get("vaultPath"), str):
            raise ConfigError(
                f'{config} needs a "vaultPath" string, e.g. {{"vaultPath": "../notes"}}.'
            )
        folder_name = data.get("wikiFolder") or DEFAULT_WIKI_FOLDER
        if not isinstance(folder_name, str):
            raise ConfigError(f'{config}: "wikiFolder" must be a string.')
        return _expand(Path(data["vaultPath"]), folder), folder_name, f".llm-wiki.json at {config}"
    return None


def _from_claude_md(cwd: Path) -> tuple[Path, str, str] | None:
    for folder in _parents(cwd):
        claude = folder / "CLAUDE.md"
        if not claude.is_file():
            continue
        m = _CLAUDE_LINE.search(_read_text(claude))
        if m is None:
            continue
        path = m.group("path").strip().strip("`\"'")
        folder_name = (m.group("folder") or "").strip().strip("`\"'") or DEFAULT_WIKI_FOLDER
        return _expand(Path(path), folder), folder_name, f"CLAUDE.md at {claude}"
    return None


def _has_markdown(root: Path) -> bool:
    for _dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        if any(name.endswith(".md") for name in filenames):
            return True
    return False
