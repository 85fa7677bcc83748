"""Whether anything in a vault changed, told by the kernel (Linux inotify) instead of a scan.

A running `serve` or `mcp` keeps its catalog fresh by checking the vault: a stat of every file,
~70 ms on ob-wiki's 8,000 pages, ~0.6 s at 100,000 and ~5 s at a million. With the kernel's
file events the watcher only scans when a note was added, edited, moved or deleted, so it can
look every fraction of a second for nothing and take an edit in at once.

Only what the events cannot vouch for falls back to the scan: no inotify (not Linux, or the
watch limit reached), an event queue that overflowed, the vault folder itself moved, a vault on
a network or FUSE file system (whose changes made on another machine send no event here). The
watcher still scans now and then, for whatever else events might miss.
Dot-folders (`.obsidian`, `.git`, `.trash`) are not watched (the scan skips them too), nor are
folders reached through a symlink (never read).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import struct
import sys
from pathlib import Path

# inotify(7)
_IN_MODIFY = 0x00000002
_IN_ATTRIB = 0x00000004
_IN_CLOSE_WRITE = 0x00000008
_IN_MOVED_FROM = 0x00000040
_IN_MOVED_TO = 0x00000080
_IN_CREATE = 0x00000100
_IN_DELETE = 0x00000200
_IN_DELETE_SELF = 0x00000400
_IN_MOVE_SELF = 0x00000800
_IN_Q_OVERFLOW = 0x00004000
_IN_IGNORED = 0x00008000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_ISDIR = 0x40000000
_WATCHED = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
    | _IN_DONT_FOLLOW
)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, length of the name that follows
_READ_SIZE = 64 * 1024
# Files whose changes matter: notes, and index.md among them. Attachments and editors' temp
# files do not (an editor's save that renames its temp file over a note is a move *to* it).
_NOTE_SUFFIX = ".md"


# statfs(2) f_type of file systems whose changes made on another machine send no event here:
# NFS, SMB/CIFS (three magics), FUSE (sshfs, rclone and other mounts), AFS, Ceph, 9p.
_NETWORK_FILE_SYSTEMS = frozenset(
    {0x6969, 0x517B, 0xFF534D42, 0xFE534D42, 0x65735546, 0x5346414F, 0x00C36400, 0x01021997}
)


def _on_network(libc: ctypes.CDLL, root: Path) -> bool:
    """Whether `root` is on a network or FUSE file system (scanned instead: see above)."""
    buf = ctypes.create_string_buffer(256)  # struct statfs; its first field is f_type
    try:
        if libc.statfs(os.fsencode(root), buf) != 0:
            return False
    except (OSError, AttributeError):
        return False
    f_type = struct.unpack_from("l", buf.raw)[0] & 0xFFFFFFFF
    return f_type in _NETWORK_FILE_SYSTEMS


class FileEvents:
    """The kernel's events for every folder under `root`; `changed()` drains them."""

    def __init__(self, fd: int, root: Path, libc: ctypes.CDLL) -> None:
        self._fd = fd
        self._libc = libc
        self._folders: dict[int, Path] = {}
        # What the last `changed()` saw: the notes written to (made, edited, moved in), and
        # whether anything else changed (a note deleted or moved away, a folder). A running
        # server takes edits of existing pages in place (wiki.py, retrieve/delta.py).
        self.written: set[Path] = set()
        self.other = False
        self._lost = not self._watch_tree(root)
        self._root_wd = next(iter(self._folders), -1)

    @classmethod
    def start(cls, root: Path) -> FileEvents | None:
        """Events for `root` and its folders, or None where the kernel cannot give them."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        except (OSError, AttributeError):
            return None
        if fd < 0:
            return None
        if _on_network(libc, root):
            os.close(fd)
            return None
        events = cls(fd, root, libc)
        if events._lost:  # e.g. more folders than the user's watch limit allows
            events.close()
            return None
        return events

    def changed(self) -> bool | None:
        """Whether a note or folder changed since the last call: True, False, or None when
        the events cannot tell (the queue overflowed, the vault folder moved): scan then.
        `written` and `other` then say what changed."""
        found = False
        self.written, self.other = set(), False
        while True:
            try:
                data = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                break
            except OSError:
                self._lost = True
                break
            if not data:
                break
            found |= self._take(data)
        return None if self._lost else found

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _take(self, data: bytes) -> bool:
        found = False
        at = 0
        while at + _EVENT.size <= len(data):
            wd, mask, _cookie, size = _EVENT.unpack_from(data, at)
            raw = data[at + _EVENT.size : at + _EVENT.size + size].rstrip(b"\0")
            at += _EVENT.size + size
            name = os.fsdecode(raw)
            if mask & _IN_Q_OVERFLOW or (
                wd == self._root_wd and mask & (_IN_DELETE_SELF | _IN_MOVE_SELF)
            ):
                self._lost = True
                continue
            if mask & _IN_IGNORED:  # a watched folder went away
                self._folders.pop(wd, None)
                continue
            if name.startswith("."):
                continue
            if mask & _IN_ISDIR:
                folder = self._folders.get(wd)
                # A folder made or moved in: watch it, with whatever it already holds.
                if (
                    folder is not None
                    and mask & (_IN_CREATE | _IN_MOVED_TO)
                    and not self._watch_tree(folder / name)
                ):
                    self._lost = True
                moved = bool(mask & (_IN_CREATE | _IN_DELETE | _IN_MOVED_FROM | _IN_MOVED_TO))
                found |= moved
                self.other |= moved
            elif name.endswith(_NOTE_SUFFIX):
                found = True
                folder = self._folders.get(wd)
                if mask & (_IN_DELETE | _IN_MOVED_FROM) or folder is None:
                    self.other = True
                else:
                    self.written.add(folder / name)
        return found

    def _watch_tree(self, top: Path) -> bool:
        """Watch `top` and every folder below it but dot-folders and symlinks; False when the
        kernel refuses one (the watch limit)."""
        for folder, subfolders, _files in os.walk(top, followlinks=False):
            subfolders[:] = [d for d in subfolders if not d.startswith(".")]
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _WATCHED)
            if wd < 0:
                if ctypes.get_errno() in (errno.ENOENT, errno.ENOTDIR):
                    continue  # gone meanwhile, or a symlink (IN_DONT_FOLLOW)
                return False
            self._folders[wd] = Path(folder)
        return True
