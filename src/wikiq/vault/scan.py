"""Listing a vault's page files with their (size, mtime) — the cheap check behind the cache."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from wikiq.vault.locate import VaultLocation

# Files at the wiki root that the plugin (or llm_wiki) writes but that are not pages.
_WIKI_ROOT_NON_PAGES = {"index.md", "log.md", "purpose.md"}
_WIKI_NON_PAGE_FOLDERS = {"schema"}


@dataclass(frozen=True)
class FileStat:
    size: int
    mtime_ns: int


@dataclass
class VaultScan:
    """The page files, and the files that look like pages but are not read (and why)."""

    files: dict[str, FileStat]  # relative to the wiki root, "/" separators, sorted
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name as shown, reason)


LINK_OUT = "a symbolic link to a file outside the wiki folder: not read"
UNDECODABLE = "its file name is not valid UTF-8: rename it to read it"


def scan_vault(location: VaultLocation) -> VaultScan:
    """Every page file, plus what was skipped. A page is only ever a file whose real path is
    inside the wiki folder: a symlink pointing out of it (`passwd.md -> /etc/passwd`) is never
    read, whatever reads the vault afterwards. A name that is not valid UTF-8 cannot be named
    in JSON, a link or a URL, so it is skipped too, and reported."""
    root = location.wiki_root
    real_root = os.path.realpath(root)
    llm_wiki = location.layout == "llm-wiki"
    found: dict[str, FileStat] = {}
    skipped: list[tuple[str, str]] = []
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue  # unreadable folder: skip it, never fail the whole vault
        with entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue  # .obsidian, .trash, .git and every other dot-folder or dot-file
                if not _decodable(name):
                    skipped.append((_shown(prefix + name), UNDECODABLE))
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if llm_wiki and not prefix and name in _WIKI_NON_PAGE_FOLDERS:
                            continue
                        stack.append((entry.path, f"{prefix}{name}/"))
                        continue
                    if not name.endswith(".md") or not entry.is_file():
                        continue
                    if llm_wiki and not prefix and name in _WIKI_ROOT_NON_PAGES:
                        continue
                    if entry.is_symlink() and not inside(os.path.realpath(entry.path), real_root):
                        skipped.append((f"{prefix}{name}", LINK_OUT))
                        continue
                    st = entry.stat()
                except OSError:
                    continue
                found[f"{prefix}{name}"] = FileStat(st.st_size, st.st_mtime_ns)
    return VaultScan(dict(sorted(found.items())), sorted(skipped))


def inside(path: str, root: str) -> bool:
    """True when `path` is `root` or below it; both already real (`os.path.realpath`).

    The one confinement rule: the walks here, the source notes and the pages handed to the
    web page and to agents (`vault/access.py`) all keep to it."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def resolves_inside(file: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """True when `file`, with every symlink followed, lies inside `root`."""
    try:
        return inside(os.path.realpath(file), os.path.realpath(root))
    except (OSError, ValueError):  # a path the system cannot resolve is not inside
        return False


def _decodable(name: str) -> bool:
    """False for a name holding bytes that are not UTF-8 (Python keeps them as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(name: str) -> str:
    """An undecodable name as printable text: the bad bytes as \\xNN escapes."""
    return os.fsencode(name).decode("utf-8", errors="backslashreplace")


def stat_file(path: Path) -> FileStat | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return FileStat(st.st_size, st.st_mtime_ns)
