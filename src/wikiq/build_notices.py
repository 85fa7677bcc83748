"""Told when something slow is built once (a glossary table, a large vault's search indexes):
the command line says so on a terminal instead of pausing without a word. Library callers
hear nothing unless they ask."""

from __future__ import annotations

from collections.abc import Callable

_listeners: list[Callable[[str], None]] = []


def notify_builds(callback: Callable[[str], None] | None) -> None:
    """Call `callback` with what is being built ("the search indexes of 100,000 pages (once
    after the vault changes)") each time such a build starts (None: say nothing, the default)."""
    _listeners[:] = [callback] if callback is not None else []


def building(what: str) -> None:
    for callback in _listeners:
        callback(what)
