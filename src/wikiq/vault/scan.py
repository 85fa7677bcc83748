"""Listing a vault's page files with their (size, mtime) — the cheap check behind the cache."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from wikiq.vault.locate import VaultLocation

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

    Kept as three sorted columns: the cache check compares them with the cached catalog's
    columns whole, and only a vault that changed builds the name -> FileStat dict."""

    names: list[str]  # relative to the wiki root, "/" separators, sorted
    sizes: list[int]
    mtimes_ns: list[int]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name as shown, reason)
    _files: dict[str, FileStat] | None = field(default=None, repr=False)

    @property
    def files(self) -> dict[str, FileStat]:
        if self._files is None:
            self._files = {
                name: FileStat(size, mtime)
                for name, size, mtime in zip(self.names, self.sizes, self.mtimes_ns, strict=True)
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
    show an edit). The loop does as little as it can per file: it runs for every file of the
    vault before every search (8,000 on ob-wiki)."""
    root = location.wiki_root
    real_root = os.path.realpath(root)
    llm_wiki = location.layout == "llm-wiki"
    names: list[str] = []
    sizes: list[int] = []
    mtimes: list[int] = []
    skipped: list[tuple[str, str]] = []
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            fd, entries = _open_folder(directory)
        except OSError:
            continue  # unreadable folder: skip it, never fail the whole vault
        at_root = llm_wiki and not prefix
        with _closing(fd), entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue  # .obsidian, .trash, .git and every other dot-folder or dot-file
                if not name.isascii() and not decodable(name):
                    skipped.append((_shown(prefix + name), UNDECODABLE))
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if at_root and name in _WIKI_NON_PAGE_FOLDERS:
                            continue
                        stack.append((os.path.join(directory, name), f"{prefix}{name}/"))
                        continue
                    if not name.endswith(".md") or not entry.is_file():
                        continue
                    if at_root and name in _WIKI_ROOT_NON_PAGES:
                        continue
                    # (entry.path is just `name` when listed through a descriptor)
                    if entry.is_symlink() and not inside(
                        os.path.realpath(os.path.join(directory, name)), real_root
                    ):
                        skipped.append((prefix + name, LINK_OUT))
                        continue
                    st = entry.stat()
                except OSError:
                    continue
                names.append(prefix + name)
                sizes.append(st.st_size)
                mtimes.append(st.st_mtime_ns)
    order = sorted(range(len(names)), key=names.__getitem__)
    return VaultScan(
        [names[i] for i in order],
        [sizes[i] for i in order],
        [mtimes[i] for i in order],
        sorted(skipped),
    )


# Folders are listed through an open descriptor where the system allows it: each file's stat
# then looks up one name in its folder (`fstatat`) instead of walking the whole path again,
# ~20% of the scan (ob-wiki's pages sit five folders deep).
_BY_DESCRIPTOR = os.scandir in os.supports_fd and hasattr(os, "O_DIRECTORY")


def _open_folder(directory: str) -> tuple[int | None, os._ScandirIterator[str]]:
    """The folder's entries, and the descriptor they were listed through (None: by path)."""
    if not _BY_DESCRIPTOR:
        return None, os.scandir(directory)
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return fd, os.scandir(fd)
    except OSError:
        os.close(fd)
        raise


@contextmanager
def _closing(fd: int | None) -> Iterator[None]:
    """Closes the folder's descriptor once its entries have been read and stat'ed."""
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)


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
