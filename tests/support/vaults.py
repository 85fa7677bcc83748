"""Building small vaults in tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

VaultFactory = Callable[..., Path]


def index_md(*lines: str, heading: str = "## Entities") -> str:
    """An index.md in the plugin's format around the given page lines."""
    body = "\n".join(lines)
    return (
        "# Wiki Index\n\n> Auto-generated knowledge base directory\n\n"
        "> Note: Text in backticks after page names shows aliases — alternative names, "
        f"abbreviations, or translations.\n\n\n{heading}\n\n{body}\n"
    )
