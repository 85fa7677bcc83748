"""wikiq: ask your Obsidian vault, get answers grounded in its pages with [[wiki-link]] citations.

    from wikiq import Wiki

    wiki = Wiki.open("~/Obsidian/MyVault")
    wiki.search("gravity assist")            # -> Retrieval: arm, seeds, ranked pages
    wiki.ask("How does a gravity assist work?", model="ollama:qwen2.5:7b")  # -> Answer

Names are imported on first use, so `import wikiq` stays cheap (the CLI starts fast).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wikiq.lazy_names import lazy_names

if TYPE_CHECKING:
    from wikiq.answer.result import Answer, Turn
    from wikiq.errors import WikiqError
    from wikiq.retrieve.result import RankedPage, Retrieval, Seed
    from wikiq.wiki import Wiki

__version__ = "0.1.0"

_LAZY = {
    "Wiki": "wikiq.wiki",
    "Retrieval": "wikiq.retrieve.result",
    "RankedPage": "wikiq.retrieve.result",
    "Seed": "wikiq.retrieve.result",
    "Answer": "wikiq.answer.result",
    "Turn": "wikiq.answer.result",
    "WikiqError": "wikiq.errors",
}

__all__ = ["Answer", "RankedPage", "Retrieval", "Seed", "Turn", "Wiki", "WikiqError"]


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
