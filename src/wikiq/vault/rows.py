"""A cached catalog's pages and dead links, kept as the columns the cache stored them in.

Building 8,194 `Page` objects and 6,505 `DeadLink`s cost a warm `wikiq search` on ob-wiki
~50 ms, and a question reads a few dozen pages. `Rows` builds one row when it is asked for and
all of them (in one pass over whole columns) only when they are iterated; `PageRows.column`
gives one field of every page without building any.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, overload

import numpy as np

from wikiq.vault.page import DeadLink, Page

T = TypeVar("T")


class Rows(Sequence[T]):
    """`n` objects: row i is built by `one(i)` on first use, every row by `every()` when the
    rows are iterated. A row is built once: the object handed out is the one kept (pages are
    mutable, and a change to one must not be lost when the rest are built)."""

    def __init__(self, n: int, one: Callable[[int], T], every: Callable[[], list[T]]) -> None:
        # Rows built one by one before the rest are built at once: past this, a walk over
        # every row (the link resolver sorts pages by path) is cheaper in one pass.
        self._one_by_one = 64 + n // 16
        self._n = n
        self._one = one
        self._every = every
        self._built: dict[int, T] = {}
        self._all: list[T] | None = None
        self._lock = threading.Lock()  # a server's threads read the same catalog

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        if self._all is not None or isinstance(i, slice):
            return self.tolist()[i]
        if not -self._n <= i < self._n:
            raise IndexError(i)
        i = int(i) % self._n
        row = self._built.get(i)
        if row is None:
            if len(self._built) >= self._one_by_one:
                return self.tolist()[i]
            with self._lock:
                row = self._built.get(i)
                if row is None:
                    row = self._built[i] = self._one(i)
        return row

    @property
    def built_all(self) -> bool:
        """Whether every row has been built (a lookup can then read the list)."""
        return self._all is not None

    def tolist(self) -> list[T]:
        if self._all is None:
            with self._lock:
                if self._all is None:
                    rows = self._every()
                    if len(rows) != self._n:
                        raise ValueError("the cache's columns do not add up")
                    for i, row in self._built.items():
                        rows[i] = row
                    self._all = rows
        return self._all

    def __iter__(self) -> Iterator[T]:
        return iter(self.tolist())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Rows | list | tuple):
            return self.tolist() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared like a list

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._n})"


class PageRows(Rows[Page]):
    """Pages from their stored columns: strings (`store.Strings` or lists), numbers and flags
    as arrays, tuples as a flat column with each page's count."""

    def __init__(
        self,
        columns: dict[str, Any],
        tuple_fields: set[str],
        number_fields: dict[str, str],
        names: list[str],
    ) -> None:
        self._columns: dict[str, Any] = {}
        self._starts: dict[str, list[int]] = {}
        self._numbers = number_fields
        self._names = names
        n = len(columns[names[0]])
        for name in names:  # a missing or misshapen column raises: the cache is rebuilt
            column = columns[name]
            if name in tuple_fields:
                counts = np.asarray(column["counts"])
                if counts.ndim != 1 or len(counts) != n or (len(counts) and counts.min() < 0):
                    raise ValueError("the cache's columns do not add up")
                starts = [0, *itertools.accumulate(counts.tolist())]
                if starts[-1] != len(column["flat"]):
                    raise ValueError("the cache's columns do not add up")
                self._starts[name] = starts
                self._columns[name] = column["flat"]
                continue
            if name in number_fields:
                column = np.asarray(column)
                if column.ndim != 1:
                    raise ValueError("the cache's columns do not add up")
            if len(column) != n:
                raise ValueError("the cache's columns do not add up")
            self._columns[name] = column
        super().__init__(n, self._page, self._pages)

    def column(self, name: str) -> list[Any]:
        """One field of every page, in page order (a tuple field as one tuple a page)."""
        column = self._columns[name]
        starts = self._starts.get(name)
        if starts is not None:
            flat = list(column)
            return [tuple(flat[a:b]) for a, b in itertools.pairwise(starts)]
        return column.tolist() if hasattr(column, "tolist") else list(column)

    def column_is(self, name: str, joined: bytes) -> bool:
        """Whether a string field of every page, joined by NUL as UTF-8, is `joined`: read
        from the stored bytes when the column is still those (a million file names: no
        string built)."""
        column = self._columns[name]
        stored = getattr(column, "utf8", None)
        if stored is not None:
            return bool(stored() == joined)
        return "\0".join(column).encode("utf-8") == joined

    def column_array(self, name: str) -> np.ndarray:
        """A number or flag field of every page as the array it was stored as."""
        if name not in self._numbers:
            raise KeyError(f"{name} is not a number field")
        array: np.ndarray = self._columns[name]
        return array

    def value(self, name: str, i: int) -> Any:
        """One field of page `i`: the page's own when it has been built (it may have been
        changed since), else read from its column without building it."""
        page = self._all[i] if self._all is not None else self._built.get(i % self._n)
        if page is not None:
            return getattr(page, name)
        return self._value(name, i)

    def _value(self, name: str, i: int) -> Any:
        column = self._columns[name]
        starts = self._starts.get(name)
        if starts is not None:
            return tuple(column[j] for j in range(starts[i], starts[i + 1]))
        if name in self._numbers:
            return column[i].item()
        return column[i]

    def _page(self, i: int) -> Page:
        return Page(*(self._value(name, i) for name in self._names))

    def _pages(self) -> list[Page]:
        values = []
        for name in self._names:
            column = self._columns[name]
            starts = self._starts.get(name)
            if starts is not None:
                flat = list(column)
                column = [tuple(flat[a:b]) for a, b in itertools.pairwise(starts)]
            elif hasattr(column, "tolist"):
                column = column.tolist()
            values.append(column)
        return [Page(*row) for row in zip(*values, strict=True)]


class FromPaths(Rows[str]):
    """A string field every page's path gives (vault/page.py): its file, the path and ".md",
    or its name, the path's last part. A million pages' were 58 MB of cache, said twice."""

    KINDS = ("file", "name")

    def __init__(self, paths: Sequence[str], kind: str) -> None:
        if kind not in self.KINDS:
            raise ValueError("the cache names a column it cannot work out")
        self._paths = paths
        self._kind = kind
        super().__init__(len(paths), lambda i: self.of(paths[i]), self._every)

    def of(self, path: str) -> str:
        return path + ".md" if self._kind == "file" else path.rsplit("/", 1)[-1]

    def _every(self) -> list[str]:
        return list(map(self.of, self._paths))

    def utf8(self) -> bytes:
        """The strings joined by NUL, as UTF-8 (`PageRows.column_is`): files from the paths'
        bytes, without building a string."""
        if self._kind != "file" or not len(self._paths):
            return "\0".join(self).encode("utf-8")
        stored = getattr(self._paths, "utf8", None)
        joined = stored() if stored is not None else "\0".join(self._paths).encode("utf-8")
        return joined.replace(b"\0", b".md\0") + b".md"


def dead_link_rows(pages: Sequence[str], targets: Sequence[str]) -> Rows[DeadLink]:
    """Dead links from their two stored columns (the linking page, the target as written)."""
    if len(pages) != len(targets):
        raise ValueError("the cache's columns do not add up")
    return Rows(
        len(pages),
        lambda i: DeadLink(pages[i], targets[i]),
        lambda: [DeadLink(p, t) for p, t in zip(pages, targets, strict=True)],
    )


def page_value(pages: Sequence[Page], name: str, i: int) -> Any:
    """One field of page `i`: from its stored column when `pages` came from a cache (the
    page's other fields, spread over the whole cache file, are not read)."""
    if isinstance(pages, PageRows):
        return pages.value(name, i)
    return getattr(pages[i], name)


def page_field(pages: Sequence[Page], name: str) -> list[Any]:
    """One field of every page: the stored column when `pages` came from a cache (no page
    built), else read from each page."""
    if isinstance(pages, PageRows):
        return pages.column(name)
    return [getattr(page, name) for page in pages]
