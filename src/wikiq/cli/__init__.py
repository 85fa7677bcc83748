"""The `wikiq` command's entry point, kept light: `wikiq --version` answers without loading
typer, numpy or the vault code (the commands live in `wikiq.cli.commands`)."""

from __future__ import annotations

import os
import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        print(_version())
        sys.exit(0)
    # numpy's OpenBLAS starts a thread per core when it loads, and each spins ~0.1 s waiting
    # for work wikiq never gives it (no BLAS call on its paths; embed/index.py uses einsum for
    # that reason): on two cores, a core taken from a search's first tenth of a second. A
    # value the user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from wikiq.cli.commands import run

    run(argv)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"wikiq {version('wikiq')}"
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "wikiq (not installed)"
