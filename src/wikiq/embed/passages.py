"""What text of a page is embedded: its names, its lead paragraph, or all of it in chunks.

Embedding costs about a millisecond per token on a laptop CPU, so the text is chosen by what
it buys (docs/BENCHMARKS.md): `lead` (title, aliases and the first paragraph) keeps nearly all
of the recall at a fraction of the cost of `chunks` (the whole page, cut by `chunking`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from wikiq.text.token_count import count_tokens
from wikiq.text.wiki_links import LABEL, TARGET, WIKI_LINK
from wikiq.vault.markdown import lead_paragraph, mask_code
from wikiq.vault.page import Page

TextMode = Literal["title", "lead", "head", "chunks"]
TEXT_MODES: tuple[TextMode, ...] = ("lead", "chunks", "title", "head")
DEFAULT_TEXT: TextMode = "lead"
LEAD_CHARS = 300  # of the first paragraph, after the names
# ...and at most this many tokens in all: 300 characters are ~60 tokens of English but ~200 of
# Chinese, and the model's time grows with tokens. 96 cut ob-wiki's leads by 23% (the build
# under ten minutes on two cores) for one page of one question on the natural sets
# (docs/BENCHMARKS.md, "What to embed per page").
LEAD_TOKENS = 96
HEAD_CHARS = 1000  # `head`: the start of the body, whatever it holds
MAX_ALIASES = 8
_MD_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_SPACES = re.compile(r"[ \t]+")


def text_spec(mode: TextMode) -> str:
    """The mode with its sizes, stored in the index: a change of either rebuilds it."""
    if mode == "lead":
        return f"lead:{LEAD_CHARS}/{LEAD_TOKENS}t"
    if mode == "head":
        return f"head:{HEAD_CHARS}"
    if mode == "chunks":
        # The chunker loads where chunks are asked for: `wikiq search` registers `wikiq index`
        # (which names the text modes) without it.
        from wikiq.vault.chunking import DEFAULT_BUDGET, DEFAULT_OVERLAP

        return f"chunks:{DEFAULT_BUDGET}/{DEFAULT_OVERLAP}"
    return "title"


def names_line(page: Page) -> str:
    """The page's title and aliases, as the first line of everything embedded for it."""
    aliases = [a for a in page.aliases if a and a != page.title][:MAX_ALIASES]
    return f"{page.title} ({'; '.join(aliases)})" if aliases else page.title


def page_passages(
    page: Page,
    file_text: str,
    body: str,
    mode: TextMode,
    tokens: Callable[[str], int] | None = None,
) -> list[str]:
    """The texts embedded for one page (one for `title`, `lead` and `head`; one per chunk).
    `tokens` counts a passage's tokens as the model reads them (an estimate without it)."""
    names = names_line(page)
    if mode == "title":
        return [names]
    if mode == "lead":
        lead = lead_paragraph(body, LEAD_CHARS * 2) or page.summary
        return [_within(names, readable(lead)[:LEAD_CHARS], LEAD_TOKENS, tokens or count_tokens)]
    if mode == "head":
        return [_join(names, readable(body)[:HEAD_CHARS])]
    from wikiq.vault.chunking import chunk_page

    chunks = chunk_page(file_text)
    if not chunks:
        return [names]
    out = []
    for chunk in chunks:
        head = f"{names}\n{chunk.heading}" if chunk.heading else names
        out.append(_join(head, readable(chunk.balanced, keep_code=True)))
    return out


def readable(text: str, *, keep_code: bool = False) -> str:
    """Markdown as a reader sees it: link labels instead of link syntax, code dropped unless
    kept, runs of spaces collapsed."""
    if not keep_code:
        text = mask_code(text)
    text = WIKI_LINK.sub(
        lambda m: (m.group(LABEL) or m.group(TARGET).rsplit("/", 1)[-1]).strip(), text
    )
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = text.replace("\r\n", "\n")
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def _within(head: str, text: str, limit: int, tokens: Callable[[str], int]) -> str:
    """`head` and as much of the start of `text` as keeps the passage within `limit` tokens
    (the names are always whole: they are what a question most often matches)."""
    if tokens(_join(head, text)) <= limit:
        return _join(head, text)
    keep, over = 0, len(text)  # the longest start that fits lies in [keep, over)
    while over - keep > 1:
        mid = (keep + over) // 2
        if tokens(_join(head, text[:mid])) <= limit:
            keep = mid
        else:
            over = mid
    return _join(head, text[:keep].rstrip())


def _join(head: str, text: str) -> str:
    return f"{head}\n{text}" if text else head
