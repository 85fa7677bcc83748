"""The console the commands print to.

Piped into a file or another program, rich assumes 80 columns and squeezes tables until their
headers read "recall…"; a piped table gets room for every column instead (COLUMNS still wins).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console

PIPED_WIDTH = 160


def stdout_console(**options: Any) -> Console:
    """A console on standard output: the terminal's width, or PIPED_WIDTH when piped."""
    if not sys.stdout.isatty() and "COLUMNS" not in os.environ:
        options.setdefault("width", PIPED_WIDTH)
    return Console(highlight=False, **options)
