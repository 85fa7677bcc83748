"""The (size, mtime) of a vault's files, stat'ed by forked children while the folders are
still being listed.

A warm open checks every page file against the cache. At a million pages the stat calls took
~2 s of the open and the listing ~1 s: the system call, not Python, is the cost of a stat, so
threads do not help (measured slower: bench/scan_threads.py), but other processes do. Each
batch of listed files goes to a child that writes their numbers into memory it shares with
this process (nothing is copied back), while this process lists the next folders."""

from __future__ import annotations

import mmap
import os
import signal
import sys
from collections.abc import Callable, Iterable
from typing import NamedTuple

import numpy as np

# A batch of this many files goes to a child: forking costs a few milliseconds (more in a
# server holding a large vault), 20,000 stats ~40 ms. A smaller vault is stat'ed here alone.
BATCH_FILES = 20_000
_CHILDREN = max(1, min(os.cpu_count() or 1, 4))  # running at once

MISSING = -1  # the size of a file gone between the listing and its stat


class Folder(NamedTuple):
    """Files of one folder to stat, by name: `path` is the folder, `prefix` its place in the
    wiki ("" or "a/b/")."""

    path: str
    prefix: str
    names: list[str]


class _Batch:
    """Folders whose numbers land in one shared buffer: sizes at [0, n), mtimes at [n, 2n)."""

    def __init__(self, folders: list[Folder], n: int) -> None:
        self.folders = folders
        self.n = n
        self.shared = mmap.mmap(-1, 16 * max(n, 1))  # MAP_SHARED: a forked child writes here
        self.pid: int | None = None
        self.status: int | None = None
        self.done_here = False

    def stat_here(self) -> None:
        self.done_here = True
        out = memoryview(self.shared).cast("q")
        try:
            at = 0
            for folder in self.folders:
                _stat_folder(folder, out, at, self.n)
                at += len(folder.names)
        finally:
            out.release()

    def start_child(self) -> bool:
        """Fork a child that stats the batch; False when none could be made. The child only
        stats and writes into the shared memory, then leaves without running anything of
        this process's (no exit handlers, no flushing of its buffers)."""
        try:
            pid = os.fork()
        except Exception:  # no child (or, from Python 3.12, its warning raised as an error)
            return False
        if pid:
            self.pid = pid
            return True
        code = 1
        try:
            self.stat_here()
            code = 0
        finally:
            os._exit(code)  # also on Ctrl-C, which reaches the child too

    def running(self) -> bool:
        if self.pid is None or self.status is not None:
            return False
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # reaped by someone else: how it ended is not known
            pid, status = self.pid, -1
        if pid:
            self.status = status
        return not pid

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        """Waits for the child; stats the batch here when there was none or it failed."""
        if self.pid is not None and self.status is None:
            try:
                self.status = os.waitpid(self.pid, 0)[1]
            except ChildProcessError:
                self.status = -1
        done = self.status is not None and os.WIFEXITED(self.status) and not os.WEXITSTATUS(self.status)
        if not done and not self.done_here:
            self.stat_here()
        both = np.frombuffer(self.shared, np.int64, 2 * self.n).copy()
        self.shared.close()
        return both[: self.n], both[self.n :]

    def stop(self) -> None:
        """Ends a child no longer waited for (Ctrl-C in this process)."""
        if self.pid is not None and self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.status = -1


def stat_folders(folders: Iterable[Folder]) -> tuple[list[Folder], np.ndarray, np.ndarray]:
    """Every folder of `folders` (consumed as it is listed), and the sizes and mtimes (ns,
    int64) of their files in that order; `MISSING` as the size of a file that could not be
    stat'ed. A symbolic link gives its target's, as the file is read through it."""
    batches: list[_Batch] = []
    listed: list[Folder] = []
    pending: list[Folder] = []
    pending_n = 0
    try:
        for folder in folders:
            listed.append(folder)
            pending.append(folder)
            pending_n += len(folder.names)
            # A child per batch, as many running as there are cores: while they all are,
            # the batch grows, and what is left when the listing ends is stat'ed here.
            if (
                pending_n >= BATCH_FILES
                and _can_fork()
                and sum(b.running() for b in batches) < _CHILDREN
            ):
                batch = _Batch(pending, pending_n)
                batches.append(batch)
                pending, pending_n = [], 0
                if not batch.start_child():
                    batch.stat_here()
        last = _Batch(pending, pending_n)
        last.stat_here()
        parts = [b.finish() for b in [*batches, last]]
    except BaseException:
        for batch in batches:
            batch.stop()
        raise
    return listed, np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _stat_folder(folder: Folder, out: memoryview, at: int, n: int) -> None:
    if not _BY_DESCRIPTOR:
        _stat_each(folder.names, at, out, n, lambda name: os.stat(os.path.join(folder.path, name)))
        return
    try:
        fd = os.open(folder.path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # the folder is gone, and every file in it
        for i in range(at, at + len(folder.names)):
            out[i] = MISSING
        return
    try:
        # One name looked up in its folder (`fstatat`), not the whole path walked again.
        _stat_each(folder.names, at, out, n, lambda name: os.stat(name, dir_fd=fd))
    finally:
        os.close(fd)


_BY_DESCRIPTOR = os.stat in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")


def _stat_each(
    names: list[str], at: int, out: memoryview, n: int, stat: Callable[[str], os.stat_result]
) -> None:
    """`stat` of each name into `out` from `at`."""
    for i, name in enumerate(names, at):
        try:
            st = stat(name)
        except OSError:
            out[i] = MISSING
            continue
        out[i] = st.st_size
        out[n + i] = st.st_mtime_ns


def _can_fork() -> bool:
    # Linux only: elsewhere (macOS) forking a process that has threads is unsafe.
    return sys.platform.startswith("linux") and hasattr(os, "fork")
