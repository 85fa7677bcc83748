"""Work done in a child process, so that the memory it takes goes back to the system with it.

Reading a million pages makes a million page objects and their strings. Freed, they still
leave ~1.4 GB in the process: the allocator's arenas stay pinned by the few objects that live
on, and the C library keeps the rest for later. A first read of a large vault is therefore
done by a forked child, which saves the catalog and exits, and the process that asked opens
the saved files (vault/catalog.py). The child reports progress through a pipe; nothing but
small results crosses it.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

Progress = Callable[[int, int], None]  # (done, total)
R = TypeVar("R")
# Children still working. A process that exits while one works (a server stopped during a
# refresh its watcher handed to a child) stops it: multiprocessing would otherwise wait for it
# at exit, over a minute at a million pages, for work no one will use.
_running: set[Any] = set()
_stop_at_exit: list[bool] = []


def run_apart(work: Callable[[Progress | None], R], progress: Progress | None) -> R | None:
    """`work(progress)` run in a forked child; its result (small, picklable), or None when no
    child could run it or it failed (the caller then does the work itself, and so reports the
    error as it would have). Progress the child reports is passed to `progress` here."""
    import multiprocessing

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this system
        return None
    if not _stop_at_exit:  # registered after multiprocessing's own exit hook: runs before it
        import multiprocessing.util  # that hook is registered on its import

        atexit.register(_stop_children)
        _stop_at_exit.append(True)
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(work, send, progress is not None, os.getpid()))
    try:
        child.start()
    except OSError:
        return None
    finally:
        send.close()  # the child's copy is its own: the pipe ends when the child does
    _running.add(child)
    result: list[Any] = []
    try:
        while True:
            try:
                kind, value = receive.recv()
            except EOFError:  # the child has gone, with its result or without
                break
            if kind == "progress" and progress is not None:
                progress(*value)
            elif kind == "done":
                result.append(value)
    except BaseException:
        child.terminate()  # given up on here (Ctrl-C, a failing `progress`): stop it too
        raise
    finally:
        receive.close()
        child.join()
        _running.discard(child)
    return result[0] if result and child.exitcode == 0 else None


def _end_with_parent(parent: int) -> None:
    """Have the kernel stop this child when its parent dies without its exit hook (SIGKILL,
    a crash): a server's refresh child would otherwise work on for a minute holding the
    server's listening socket, so a server started again could not take the port (Linux)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _stop_children() -> None:
    for child in list(_running):
        child.terminate()
        child.join(timeout=5)
        if child.is_alive():  # a handler of its own after all: nothing of its work is kept
            child.kill()
            child.join(timeout=5)


def _child(
    work: Callable[[Progress | None], Any], send: Connection, report: bool, parent: int
) -> None:
    # A fork keeps the parent's signal handlers: a server's (uvicorn's) only note a SIGTERM
    # and let the work go on, so the parent's `terminate` would not stop this child.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _end_with_parent(parent)

    def progress(done: int, total: int) -> None:
        send.send(("progress", (done, total)))

    try:
        send.send(("done", work(progress if report else None)))
    except BaseException:
        # The parent does the work itself and reports what fails; nothing is printed here.
        os._exit(1)
    finally:
        send.close()
