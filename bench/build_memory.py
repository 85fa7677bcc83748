"""Time and memory of opening a vault and building its retrieval indexes, step by step.

    python bench/build_memory.py /tmp/wikiq-scale/v1000000 --cache /tmp/c1m --fresh
    python bench/build_memory.py /tmp/wikiq-scale/v1000000 --cache /tmp/c1m

`--fresh` empties the cache folder first: the catalog is read from the pages (a first open).
Without it the catalog comes from the cache, and only `retrieval.npz` is deleted, so the
retrieval indexes are built over a cached catalog (what a format change or a server's first
question costs). A thread samples the process's RSS every 50 ms; each step of the index build
prints its time and RSS before and after, and the peak so far. RSS counts the pages of cache
files read through their memory map (the kernel can drop those): the last line splits the
final RSS into file pages and anonymous memory (`/proc/self/smaps_rollup`).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

QUESTION = "cadence theory"
# The build steps of `retrieve/indexes.py` that are timed (looked up there by name).
STEPS = ("name_index", "titled_terms", "BodyIndex", "passage_weights", "walk_graph", "vault_languages")


def rss_mb() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 2**20


class PeakRss:
    """The largest RSS seen since the last `reset`, sampled by a daemon thread."""

    def __init__(self) -> None:
        self.peak = rss_mb()
        self._lock = threading.Lock()  # a reset must not be overwritten by a stale sample
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while True:
            with self._lock:
                self.peak = max(self.peak, rss_mb())
            time.sleep(0.05)

    def reset(self) -> None:
        with self._lock:
            self.peak = rss_mb()


def timed_step(name: str, step: Callable[..., Any], peak: PeakRss) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start, before = time.perf_counter(), rss_mb()
        out = step(*args, **kwargs)
        print(
            f"  {name}: {time.perf_counter() - start:.1f} s, RSS {before} -> {rss_mb()} MB,"
            f" peak so far {peak.peak} MB",
            flush=True,
        )
        return out

    return run


def memory_split() -> str:
    wanted = {"Rss", "Pss_File", "Anonymous"}
    with open("/proc/self/smaps_rollup") as fh:
        rows = [line.split() for line in fh if line.split(":")[0] in wanted]
    return ", ".join(f"{r[0].rstrip(':')} {int(r[1]) // 1024} MB" for r in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--cache", type=Path, required=True, help="cache folder to use")
    parser.add_argument("--fresh", action="store_true", help="empty the cache folder first")
    args = parser.parse_args()
    if args.fresh:
        shutil.rmtree(args.cache, ignore_errors=True)
    else:
        for stale in args.cache.rglob("retrieval.npz"):
            stale.unlink()
    os.environ["WIKIQ_CACHE_DIR"] = str(args.cache)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from wikiq.retrieve import indexes
    from wikiq.wiki import Wiki

    peak = PeakRss()
    start = time.perf_counter()
    wiki = Wiki.open(args.vault)
    catalog = wiki.catalog
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    print(
        f"catalog: {time.perf_counter() - start:.1f} s, {catalog.files_read} pages read,"
        # A large first read is done by a child process, which runs the readers.
        f" RSS {rss_mb()} MB, peak {max(peak.peak, rss_mb())} MB"
        f" (largest child process {children} MB)",
        flush=True,
    )
    for name in STEPS:
        setattr(indexes, name, timed_step(name, getattr(indexes, name), peak))
    peak.reset()
    start = time.perf_counter()
    wiki.search(QUESTION)
    print(
        f"retrieval indexes and one question: {time.perf_counter() - start:.1f} s,"
        f" RSS {rss_mb()} MB, peak {max(peak.peak, rss_mb())} MB",
        flush=True,
    )
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"process peak RSS {maxrss} MB; now {memory_split()}")
    for f in sorted(args.cache.rglob("*.npz")):
        print(f"  {f.name}: {f.stat().st_size / 1e6:,.0f} MB")


if __name__ == "__main__":
    main()
