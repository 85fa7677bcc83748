"""The watcher that keeps a running server's vault fresh (`Wiki.watch`, for `serve` and `mcp`).

With the kernel's file events (vault/file_events.py) it looks every EVENTS_INTERVAL seconds and
scans only when they report a change, and every SCAN_ANYWAY seconds anyway (a network file
system's changes made elsewhere send none); without them it scans at a pace. An edit of an
existing page is taken in place at once (`Wiki._take_edits`, retrieve/delta.py), and the exact
indexes are rebuilt once the vault is quiet, on a thread of their own, so that edits keep being
taken in place while a rebuild runs (~70 s at a million pages).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sized
from pathlib import Path
from typing import Protocol

from wikiq.vault.file_events import FileEvents
from wikiq.vault.locate import VaultLocation

WATCH_SHARE = 10  # without events, wait this many times as long as the last check took
EVENTS_INTERVAL = 0.2
SCAN_ANYWAY = 60.0
# The exact indexes are rebuilt once no edit has come for REBUILD_WHEN_QUIET seconds (a
# rebuild is over a minute of work at a million pages, and edits come in bursts: an editor
# saves every few seconds), at the latest REBUILD_AT_LATEST seconds after the first edit taken
# in place, and at once where a refresh takes less than QUICK_REFRESH.
REBUILD_WHEN_QUIET = 5.0
REBUILD_AT_LATEST = 60.0
QUICK_REFRESH = 1.0
# Until one has been timed, a refresh is taken to cost this long per page (100,000 pages:
# 4-6 s, docs/BENCHMARKS.md).
REFRESH_SECONDS_PER_PAGE = 5e-5
log = logging.getLogger("wikiq")


class Watched(Protocol):
    """What the watcher needs of a `Wiki` (wiki.py)."""

    location: VaultLocation
    _check_seconds: float  # how long the last comparison of the vault with the catalog took

    @property
    def catalog(self) -> Sized: ...

    def refresh(self, *, min_interval: float) -> bool: ...

    def _ready_for_edits(self) -> None: ...

    def _take_edits(self, written: set[Path]) -> bool: ...


class Watcher:
    """`Wiki.watch`'s loop, run on the thread "wikiq-watch" until `stop` is set."""

    def __init__(self, wiki: Watched, interval: float) -> None:
        self.wiki = wiki
        self.interval = interval
        self.refresh_seconds: float | None = None  # how long the last refresh took
        self._events: FileEvents | None = None

    def run(self, stop: threading.Event) -> None:
        wiki = self.wiki
        events = self._events = FileEvents.start(wiki.location.vault.resolve())
        wait = self._pace() if events is not None else self.interval
        scanned = -SCAN_ANYWAY  # the first look scans: changes made before events began
        rebuild_at: float | None = None  # when edits taken in place get exact indexes
        first_patch = 0.0
        refreshing: threading.Thread | None = None
        if events is not None:
            wiki._ready_for_edits()
        while not stop.wait(wait):
            wait = self._pace()
            now = time.monotonic()
            if events is None:
                self._refresh()
                wait = self._pace()
                continue
            seen = events.changed()
            if seen is None:  # the events lost track: back to scanning at a pace
                events.close()
                events = self._events = None
            elif seen and not events.other and wiki._take_edits(events.written):
                first_patch = now if rebuild_at is None else first_patch
                rebuild_at = min(now + self._rebuild_delay(), first_patch + REBUILD_AT_LATEST)
                continue
            elif not seen and (
                now < rebuild_at if rebuild_at is not None else now - scanned < SCAN_ANYWAY
            ):
                continue  # nothing reported, and not yet time to rebuild or scan anyway
            if refreshing is not None and refreshing.is_alive():
                rebuild_at = now  # what it scanned may be older than this: once it is done
                continue
            scanned, rebuild_at = now, None
            refreshing = threading.Thread(target=self._refresh, name="wikiq-refresh", daemon=True)
            refreshing.start()
        if events is not None:
            events.close()

    def _pace(self) -> float:
        # At most a tenth of one core for the checks: a big vault is checked less often. Only
        # the check counts: reading what changed is a one-off, and counting it waited ten
        # times the index build (tens of seconds) on ob-wiki. With events a check costs
        # nothing until they report a change.
        if self._events is not None:
            return min(self.interval, EVENTS_INTERVAL)
        return max(self.interval, WATCH_SHARE * self.wiki._check_seconds)

    def _refresh(self) -> None:
        started = time.monotonic()
        try:
            if self.wiki.refresh(min_interval=0):
                self.refresh_seconds = time.monotonic() - started
        except Exception:  # a vault mid-sync must not kill the watcher: try again
            log.warning("wikiq: could not refresh the vault", exc_info=True)

    def _rebuild_delay(self) -> float:
        took = self.refresh_seconds
        if took is None:
            took = REFRESH_SECONDS_PER_PAGE * len(self.wiki.catalog)
        return 0.0 if took < QUICK_REFRESH else REBUILD_WHEN_QUIET
