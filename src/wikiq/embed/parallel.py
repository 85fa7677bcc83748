"""The bundled model on every core: `wikiq index --embed` splits each batch of passages over
worker processes, one model and one engine thread each.

Why processes: the engine's own OpenMP threads share one text's work and wait on each other
between its steps; two processes each embedding half the batch on one thread never wait.
Measured on two idle cores (docs/BENCHMARKS.md): one thread 9.7 pages/s, the engine's
threads 17.0, two worker processes 19.3 (all of both cores).
Workers are spawned, not forked: a forked copy of a process whose OpenMP runtime has started
can hang.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from wikiq.llm import LocalE5

_worker_model: LocalE5 | None = None  # one per worker process, made by _start_worker


def _start_worker(model: str) -> None:
    global _worker_model
    # One engine thread per worker, set before the engine loads (it reads it once).
    os.environ["OMP_NUM_THREADS"] = "1"
    _worker_model = LocalE5(model)


def _embed_in_worker(texts: list[str]) -> np.ndarray:
    assert _worker_model is not None
    return _worker_model.embed_passages(texts)


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class ParallelLocalE5:
    """`LocalE5` whose `embed_passages` runs on `workers` processes (queries stay local:
    one short text is not worth a hop). Use as a context manager, or call `close`."""

    def __init__(self, model: str = "e5-small", workers: int = 2) -> None:
        import multiprocessing  # here: ~10 ms that registering `wikiq index` need not pay

        self._local = LocalE5(model)  # checks the extra is installed; embeds queries
        self.workers = workers
        self._pool = multiprocessing.get_context("spawn").Pool(
            workers, initializer=_start_worker, initargs=(model,)
        )

    @property
    def name(self) -> str:
        return self._local.name

    @property
    def dim(self) -> int:
        return self._local.dim

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._local.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        items = list(texts)
        if len(items) < 2 * self.workers:
            return self._local.embed_passages(items)
        size = -(-len(items) // self.workers)  # ceil: one slice per worker, in order
        slices = [items[i : i + size] for i in range(0, len(items), size)]
        parts = self._pool.map(_embed_in_worker, slices)
        return np.vstack(parts)

    def token_count(self, text: str, *, query: bool = False) -> int:
        return self._local.token_count(text, query=query)

    def close(self) -> None:
        # terminate, not close: after Ctrl-C the workers' half-done batches are not wanted,
        # and waiting for them would hold the prompt for seconds.
        self._pool.terminate()
        self._pool.join()

    def __enter__(self) -> ParallelLocalE5:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
