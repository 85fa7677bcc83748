"""Arrays that grow in an unnamed file, for the term counts of a first read of a large vault.

A first read gathers every page's counts before the catalog is saved: a million pages' are
~2 GB (two bytes a count, four a term number), which in memory were half the read's peak.
Kept in an unnamed file in the cache folder instead, with the pages of what is written handed
back, they sit in the system's file cache: the kernel writes them out and drops them when it
needs the memory, and they come back as they are read (by the save that copies them into the
cache files). The file has no name, so it goes with the last array viewing it, even if the
process is killed.
"""

from __future__ import annotations

import mmap
import os
import tempfile
from pathlib import Path

import numpy as np
from numpy.typing import DTypeLike

from wikiq.vault.store import release_pages


class SpilledArray:
    """One growing array in its own unnamed file; `array` views the whole file."""

    def __init__(self, folder: Path, dtype: DTypeLike) -> None:
        self.dtype = np.dtype(dtype)
        # Open as long as the array grows (OSError: no folder, no room); each map of it holds
        # its own descriptor, so the file lives until the last array viewing it goes.
        self._file = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115
        self.array = np.empty(0, self.dtype)
        self._released = 0  # entries before this one have had their pages handed back

    def resize(self, capacity: int) -> np.ndarray:
        """The array, `capacity` entries long: the file made longer, what it holds kept in
        place (nothing is copied)."""
        size = max(capacity, 1) * self.dtype.itemsize
        fd = self._file.fileno()
        os.ftruncate(fd, size)
        self.array = np.frombuffer(mmap.mmap(fd, size), self.dtype, count=capacity)
        self._released = 0  # a new map: none of its pages has been touched yet
        return self.array

    def written(self, end: int) -> None:
        """The entries before `end` are written: their pages leave this process's memory
        (a page the next entries share stays until they are written too)."""
        per_page = mmap.PAGESIZE // self.dtype.itemsize
        first = self._released // per_page * per_page
        release_pages(self.array[first:end])
        self._released = end
