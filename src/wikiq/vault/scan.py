"""Listing a vault's page files with their (size, mtime) — the cheap check behind the cache."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from wikiq.vault.locate import VaultLocation
from wikiq.vault.stat_files import MISSING, Folder, stat_folders

# Files at the wiki root that the plugin (or llm_wiki) writes but that are not pages.
_WIKI_ROOT_NON_PAGES = {"index.md", "log.md", "purpose.md"}
_WIKI_NON_PAGE_FOLDERS = {"schema"}


class FileStat(NamedTuple):
    """A file's (size, mtime): a tuple, as a frozen dataclass cost ~8 ms a scan of 8,000."""

    size: int
    mtime_ns: int


@dataclass
class VaultScan:
    """The page files, and the files that look like pages but are not read (and why).

    Kept by folder with two columns of numbers, in name order: the cache check compares them
    with the cached catalog's columns whole (the names as one UTF-8 text), and only a vault
    that changed builds the list of names and the name -> FileStat dict."""

    folders: list[Folder]  # in name order, each one's files sorted
    sizes: np.ndarray  # int64, one a file, in name order
    mtimes_ns: np.ndarray
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name as shown, reason)
    _names: list[str] | None = field(default=None, repr=False)
    _files: dict[str, FileStat] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.sizes)

    @property
    def names(self) -> list[str]:
        """Relative to the wiki root, "/" separators, sorted."""
        if self._names is None:
            self._names = [folder.prefix + name for folder in self.folders for name in folder.names]
        return self._names

    def joined_names(self) -> bytes:
        """The names joined by NUL, as UTF-8: how the cache stores a column of strings, made
        without building a string a file (~0.2 s at a million pages)."""
        return b"\0".join(
            (folder.prefix + ("\0" + folder.prefix).join(folder.names)).encode("utf-8")
            for folder in self.folders
        )

    @property
    def files(self) -> dict[str, FileStat]:
        if self._files is None:
            self._files = {
                name: FileStat(size, mtime)
                for name, size, mtime in zip(
                    self.names, self.sizes.tolist(), self.mtimes_ns.tolist(), strict=True
                )
            }
        return self._files


LINK_OUT = "a symbolic link to a file outside the wiki folder: not read"
UNDECODABLE = "its file name is not valid UTF-8: rename it to read it"


def scan_vault(location: VaultLocation) -> VaultScan:
    """Every page file, plus what was skipped. A page is only ever a file whose real path is
    inside the wiki folder: a symlink pointing out of it (`passwd.md -> /etc/passwd`) is never
    read, whatever reads the vault afterwards. A name that is not valid UTF-8 cannot be named
    in JSON, a link or a URL, so it is skipped too, and reported.

    Every page file is stat'ed (Obsidian writes files in place: a folder's mtime does not
    show an edit); in a large vault by forked children while the next folders are listed
    (vault/stat_files.py). Each folder's entries are sorted as it is listed, so the files
    come out in name order with no sort of the whole vault (0.5 s at a million pages)."""
    skipped: list[tuple[str, str]] = []
    folders, sizes, mtimes = stat_folders(_list_pages(location, skipped))
    gone = sizes == MISSING
    if gone.any():  # deleted since it was listed
        folders = _without(folders, gone)
        sizes, mtimes = sizes[~gone], mtimes[~gone]
    return VaultScan(folders, sizes, mtimes, sorted(skipped))


def _without(folders: list[Folder], gone: np.ndarray) -> list[Folder]:
    kept, at = [], 0
    for folder in folders:
        flags = gone[at : at + len(folder.names)].tolist()
        names = [name for name, g in zip(folder.names, flags, strict=True) if not g]
        at += len(folder.names)
        if names:
            kept.append(folder._replace(names=names))
    return kept


def _list_pages(location: VaultLocation, skipped: list[tuple[str, str]]) -> Iterator[Folder]:
    """The page files by folder, in the order of their names ("a/b.md" < "a/c/d.md" <
    "a/e.md"): within a folder a subfolder sorts as its name followed by "/", which is where
    every name inside it sorts. What is not read goes to `skipped`. The loop does as little
    as it can per file: it runs for every file of the vault before every search."""
    root = location.wiki_root
    real_root = os.path.realpath(root)
    llm_wiki = location.layout == "llm-wiki"
    # Folders still to list, and runs of files already listed, last one next.
    stack: list[tuple[str, str] | Folder] = [(str(root), "")]
    while stack:
        item = stack.pop()
        if isinstance(item, Folder):
            yield item
            continue
        directory, prefix = item
        try:
            # Listed by path: the stats are made apart (vault/stat_files.py), through a
            # descriptor of the folder there.
            entries = os.scandir(directory)
        except OSError:
            continue  # unreadable folder: skip it, never fail the whole vault
        at_root = llm_wiki and not prefix
        keyed: list[str] = []  # a file's name, a folder's name + "/"
        with entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue  # .obsidian, .trash, .git and every other dot-folder or dot-file
                if not name.isascii() and not decodable(name):
                    skipped.append((_shown(prefix + name), UNDECODABLE))
                    continue
                try:
                    # Most entries: a page file (not a link), told by the listing alone.
                    if name.endswith(".md") and entry.is_file(follow_symlinks=False):
                        if not (at_root and name in _WIKI_ROOT_NON_PAGES):
                            keyed.append(name)
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        if not (at_root and name in _WIKI_NON_PAGE_FOLDERS):
                            keyed.append(name + "/")
                        continue
                    if not (name.endswith(".md") and entry.is_symlink() and entry.is_file()):
                        continue
                    if at_root and name in _WIKI_ROOT_NON_PAGES:
                        continue
                    if not inside(os.path.realpath(entry.path), real_root):
                        skipped.append((prefix + name, LINK_OUT))
                        continue
                except OSError:
                    continue
                keyed.append(name)
        keyed.sort()
        stack.extend(reversed(_runs(directory, prefix, keyed)))


def _runs(directory: str, prefix: str, keyed: list[str]) -> list[tuple[str, str] | Folder]:
    """A folder's sorted entries as runs of files and subfolders to list, in order."""
    out: list[tuple[str, str] | Folder] = []
    run: list[str] = []
    for key in keyed:
        if key.endswith("/"):
            if run:
                out.append(Folder(directory, prefix, run))
                run = []
            out.append((os.path.join(directory, key[:-1]), prefix + key))
        else:
            run.append(key)
    if run:
        out.append(Folder(directory, prefix, run))
    return out


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


def decodable(name: str) -> bool:
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


def advise_reading(root: Path, names: list[str]) -> None:
    """Tell the kernel these files are about to be read, so it fetches them all at once.

    A first open reads every page once, a small file at a time: on a disk that does not hold
    them in memory each read waits for the one before it (a million pages read at ~1,300 a
    second here). Asking for a whole batch first lets the disk serve many requests together:
    30,000 evicted pages read 4x faster (bench/open_times.py --cold-disk). Where the kernel
    cannot be told (not Linux), nothing happens; a file that cannot be opened is left to the
    read that reports it."""
    if hasattr(os, "POSIX_FADV_WILLNEED"):
        advise_files((root / name for name in names), os.POSIX_FADV_WILLNEED)


def advise_files(paths: Iterable[Path], advice: int) -> None:
    """`posix_fadvise(advice)` on each whole file (nothing where the system lacks it); a file
    that cannot be opened is skipped. Also how bench/open_times.py drops files from memory."""
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            advise(fd, 0, 0, advice)
        except OSError:
            pass
        finally:
            os.close(fd)
