"""Is the warm open's change scan faster with threads? (issue 18, point 3)

    python bench/scan_threads.py WIKI_FOLDER [WIKI_FOLDER ...]

Lists every `.md` file with its size and modification time, as `vault/scan.py` does: serially,
and with 2 and 4 threads each taking one directory (stat releases the GIL); five times each,
median printed. The serial pass runs first and last, so a cold OS file cache shows.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

Stats = dict[str, tuple[int, int]]


def one_folder(folder: str) -> tuple[Stats, list[str]]:
    """The page files of one folder with their (size, mtime), and its subfolders."""
    files: Stats = {}
    folders: list[str] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
            elif entry.name.endswith(".md") and entry.is_file():
                st = entry.stat()
                files[entry.path] = (st.st_size, st.st_mtime_ns)
    return files, folders


def serial(root: str) -> Stats:
    out: Stats = {}
    stack = [root]
    while stack:
        files, folders = one_folder(stack.pop())
        out.update(files)
        stack += folders
    return out


def threaded(root: str, workers: int) -> Stats:
    out: Stats = {}
    with ThreadPoolExecutor(workers) as pool:
        pending: list[Future[tuple[Stats, list[str]]]] = [pool.submit(one_folder, root)]
        while pending:
            files, folders = pending.pop().result()
            out.update(files)
            pending += [pool.submit(one_folder, f) for f in folders]
    return out


def median_ms(scan: Callable[[str], Stats], root: str) -> tuple[int, float]:
    times = []
    found = 0
    for _ in range(5):
        t = time.perf_counter()
        found = len(scan(root))
        times.append((time.perf_counter() - t) * 1000)
    return found, statistics.median(times)


def main() -> None:
    ways: list[tuple[str, Callable[[str], Stats]]] = [
        ("serial", serial),
        ("2 threads", lambda r: threaded(r, 2)),
        ("4 threads", lambda r: threaded(r, 4)),
        ("serial again", serial),
    ]
    for root in sys.argv[1:]:
        for name, scan in ways:
            found, ms = median_ms(scan, root)
            print(f"{root}: {name}: {found} files, {ms:.0f} ms")


if __name__ == "__main__":
    main()
