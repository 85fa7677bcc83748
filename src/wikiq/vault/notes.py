"""Which notes are source notes: the notes an LLM-Wiki was made from, outside its wiki folder.

A source note is named by its path from the vault root without `.md` (`raw/papers/orca`), the
form Obsidian resolves. `auto` takes every note outside the wiki folder, dot-folders and the
templates folder; a list of folders takes those, plus any note a page links to; `off` none.
A plain vault has no source notes: every note there is already a page.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from wikiq.errors import ConfigError
from wikiq.vault.locate import VaultLocation
from wikiq.vault.scan import LINK_OUT, UNDECODABLE, FileStat, decodable, inside

SOURCES_AUTO = "auto"
SOURCES_OFF = "off"
# Folders Obsidian's core Templates plugin and common set-ups keep templates in.
_TEMPLATE_FOLDERS = {"templates", "_templates"}
# Files at the vault root that instruct agents or the plugin: not notes a wiki was made from.
_ROOT_NON_NOTES = {"claude.md", "agents.md", "purpose.md", "readme.md"}


@dataclass(frozen=True)
class SourcesSetting:
    """`auto`, `off`, or the folders (vault-relative) that hold source notes."""

    mode: str  # "auto" | "off" | "folders"
    folders: tuple[str, ...] = ()

    @property
    def off(self) -> bool:
        return self.mode == SOURCES_OFF


def parse_sources(value: str | Sequence[str] | None) -> SourcesSetting:
    """`auto` (also None or empty), `off`/`none`/`false`, or folders separated by commas."""
    if value is None:
        return SourcesSetting(SOURCES_AUTO)
    items = [value] if isinstance(value, str) else list(value)
    folders = [f.strip().strip("/\\") for item in items for f in str(item).split(",")]
    folders = [f for f in folders if f]
    if not folders or [f.lower() for f in folders] == [SOURCES_AUTO]:
        return SourcesSetting(SOURCES_AUTO)
    if len(folders) == 1 and folders[0].lower() in {"off", "none", "false", "no", "0"}:
        return SourcesSetting(SOURCES_OFF)
    return SourcesSetting("folders", tuple(folders))


@dataclass
class NoteScan:
    """The source-note files (vault-relative, with `.md`) and the files not read, and why."""

    files: dict[str, FileStat]
    skipped: list[tuple[str, str]] = field(default_factory=list)


def scan_notes(
    location: VaultLocation,
    setting: SourcesSetting,
    linked: Iterable[str] = (),
) -> NoteScan:
    """The source notes of a vault: see the module docstring. `linked` are link targets
    written in pages; a note they resolve to is a source note whatever its folder."""
    if location.layout != "llm-wiki" or setting.off:
        return NoteScan({})
    candidates, skipped = _candidates(location)
    if setting.mode == SOURCES_AUTO:
        return NoteScan(candidates, skipped)
    _check_folders(location, setting.folders)
    wanted = tuple(f"{f.lower()}/" for f in setting.folders)
    chosen = {f: st for f, st in candidates.items() if f.lower().startswith(wanted)}
    resolver = NoteResolver(candidates)
    for target in linked:
        hit = resolver.resolve(target)
        if hit is not None:
            file = f"{hit}.md"
            chosen[file] = candidates[file]
    return NoteScan(dict(sorted(chosen.items())), skipped)


def _check_folders(location: VaultLocation, folders: Sequence[str]) -> None:
    """Every folder the setting names is a folder inside the vault; else one clear sentence
    (a mistyped folder would otherwise silently give no notes)."""
    root = os.path.realpath(location.vault)
    for folder in folders:
        path = os.path.realpath(os.path.join(root, folder))
        if not inside(path, root) or path == root or not os.path.isdir(path):
            raise ConfigError(
                f"The sources folder '{folder}' does not exist in the vault {location.vault}: "
                "give folders relative to the vault root (e.g. --sources raw), or auto or off."
            )


def _candidates(location: VaultLocation) -> tuple[dict[str, FileStat], list[tuple[str, str]]]:
    """Every `.md` file outside the wiki folder, dot-folders and templates; symlinks that
    point out of the vault are never read (reported instead)."""
    root = str(location.vault)
    real_root = os.path.realpath(root)
    wiki = location.wiki_folder.lower()
    templates = _TEMPLATE_FOLDERS | {_obsidian_templates(location)}
    found: dict[str, FileStat] = {}
    skipped: list[tuple[str, str]] = []
    stack = [(root, "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue  # an unreadable folder is skipped, never fatal
        with entries:
            for entry in entries:
                name = entry.name
                rel = f"{prefix}{name}"
                if name.startswith("."):
                    continue
                if not name.isascii() and not decodable(name):
                    skipped.append(
                        (os.fsencode(rel).decode("utf-8", "backslashreplace"), UNDECODABLE)
                    )
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if rel.lower() == wiki or rel.lower() in templates:
                            continue
                        stack.append((entry.path, f"{rel}/"))
                        continue
                    if not name.lower().endswith(".md") or not entry.is_file():
                        continue
                    if not prefix and name.lower() in _ROOT_NON_NOTES:
                        continue
                    if entry.is_symlink() and not inside(os.path.realpath(entry.path), real_root):
                        skipped.append((rel, LINK_OUT.replace("wiki folder", "vault")))
                        continue
                    st = entry.stat()
                except OSError:
                    continue
                found[rel] = FileStat(st.st_size, st.st_mtime_ns)
    return dict(sorted(found.items())), sorted(skipped)


def _obsidian_templates(location: VaultLocation) -> str:
    """The folder set in Obsidian's Templates plugin (`.obsidian/templates.json`), lower-cased."""
    try:
        data = json.loads((location.vault / ".obsidian" / "templates.json").read_text("utf-8"))
    except (OSError, ValueError):
        return "templates"
    folder = data.get("folder") if isinstance(data, dict) else None
    return folder.strip("/").lower() if isinstance(folder, str) and folder else "templates"


class NoteResolver:
    """Maps a link target (`raw/papers/orca.md`, `orca`, `Orca|label`) to a note's path."""

    def __init__(self, files: Iterable[str]) -> None:
        self._by_path: dict[str, str] = {}
        self._by_name: dict[str, str] = {}
        # Shallow, alphabetical paths win ties, so resolution never depends on walk order.
        for file in sorted(files, key=lambda f: (f.count("/"), f)):
            path = file[:-3] if file.lower().endswith(".md") else file
            self._by_path.setdefault(path.lower(), path)
            self._by_name.setdefault(path.rsplit("/", 1)[-1].lower(), path)

    def __len__(self) -> int:
        return len(self._by_path)

    def resolve_name(self, name: str) -> str | None:
        """The note with this file name (no folder, no `.md`), if any."""
        return self._by_name.get(name.lower())

    def resolve(self, target: str) -> str | None:
        """The note a link points at, or None."""
        t = target.split("|", 1)[0].split("#", 1)[0].strip().replace("\\", "/").lstrip("./")
        if t.lower().endswith(".md"):
            t = t[:-3]
        if not t:
            return None
        lower = t.lower()
        return self._by_path.get(lower) or self._by_name.get(lower.rsplit("/", 1)[-1])
