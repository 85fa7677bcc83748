"""Source-note excerpts in an answer's context: the best ones, after the pages, within budget.

An excerpt is exact note text (`sources` of retrieval), so the model can quote the numbers,
steps and caveats a wiki page summarised away. Excerpts are untrusted data like pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wikiq.retrieve.result import SourceExcerpt
from wikiq.text import count_tokens

MAX_EXCERPTS = 4
# The share of the page budget kept for excerpts when there are some: a page summary first,
# the note's detail next. When only a note covers the question it gets half.
EXCERPT_SHARE = 0.25
EXCERPT_SHARE_NOTES_ONLY = 0.5
MIN_EXCERPT_TOKENS = 40  # a smaller remainder is not worth an excerpt


@dataclass(frozen=True)
class LoadedExcerpt:
    """An excerpt as the model sees it: the note's path and title, its text, its cost."""

    path: str  # vault-relative, no `.md`: what the answer cites, `[[raw/papers/orca]]`
    title: str
    text: str
    tokens: int


def excerpt_reserve(sources: Sequence[SourceExcerpt], budget_tokens: int, share: float) -> int:
    """Tokens to hold back from the pages for the excerpts (no more than they need)."""
    need = sum(count_tokens(x.text) for x in sources[:MAX_EXCERPTS])
    return min(need, int(budget_tokens * share))


def load_excerpts(
    sources: Sequence[SourceExcerpt], budget_tokens: int, *, limit: int = MAX_EXCERPTS
) -> list[LoadedExcerpt]:
    """The best excerpts, in retrieval's order, while they fit `budget_tokens` (one per note)."""
    out: list[LoadedExcerpt] = []
    left = budget_tokens
    seen: set[str] = set()
    for x in sources:
        if len(out) == limit or left < MIN_EXCERPT_TOKENS:
            break
        text = x.text.strip()
        if not text or x.path in seen:
            continue
        tokens = count_tokens(text)
        if tokens > left:
            continue  # a smaller, lower-ranked excerpt may still fit
        seen.add(x.path)
        out.append(LoadedExcerpt(x.path, x.title, text, tokens))
        left -= tokens
    return out
