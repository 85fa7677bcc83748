"""Progress bars on a terminal for long work (reading a vault, embedding, eval); silent when
output is piped.

rich is imported only when a bar is drawn: `rich.progress` costs every process ~45 ms, and a
search piped into another program (or a warm one) never draws a bar."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress, ProgressColumn, TaskID

# Reading fewer files than this is over before a bar would be worth drawing.
MIN_FILES_FOR_BAR = 300


class ReadProgress:
    """A `(done, total)` callback that draws a bar on stderr only when stderr is a terminal."""

    def __init__(self, label: str = "Reading vault", *, enabled: bool | None = None) -> None:
        self.label = label
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total < MIN_FILES_FOR_BAR:
            return
        if self._bar is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=total)
        assert self._task is not None
        self._bar.update(self._task, completed=done, total=total)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> ReadProgress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@contextmanager
def progress_bar(
    label: str, *, show: bool | None = None, columns: tuple[ProgressColumn, ...] = ()
) -> Iterator[Callable[[int, int | None], None]]:
    """A `(done, total)` callback that draws a bar (with `columns` after the count) on stderr,
    when `show`, by default when stderr is a terminal."""
    show = sys.stderr.isatty() if show is None else show
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *columns,
        console=Console(stderr=True),
        transient=True,
        disable=not show,
    ) as bar:
        task = bar.add_task(label, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
