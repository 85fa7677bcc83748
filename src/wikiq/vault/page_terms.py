"""A page's term counts in every field (`terms.TERM_FIELDS`), from one tokenization of its body.

The body is cut where its lead paragraph and its passages begin and end, each piece is
tokenized once, and every field counts the terms of the pieces it covers: the passages cost
the reading workers a cut and a count, not a second pass of the tokenizer over the page.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from itertools import chain, pairwise

from wikiq.vault.markdown import lead_span
from wikiq.vault.terms import FieldTerms, match_terms

# Characters of body per passage, cut at headings, then paragraphs, then sentences (the
# chunker, vault/chunking.py). Natural dev questions, recall@5 pooled over five vaults with the
# passage channel at weight 0.35: 600 characters 0.932, 800 0.935, 1,200 0.929
# (docs/BENCHMARKS.md, "Passages").
# Changing it, or the chunker's cuts, changes what the catalog cache holds: bump
# vault/cache.py's CACHE_FORMAT with it.
PASSAGE_BUDGET = 800


def page_terms(title: str, body: str, masked: str) -> FieldTerms:
    """Counts of the whole body, of its lead, of each passage with the title's terms in it (a
    passage deep in a page seldom repeats the page's name; questions name it), and of the
    title's terms."""
    # Imported here: reading pages is a first open's or a refresh's work, never a warm open's.
    from wikiq.vault.chunking import section_spans

    # Passage i runs from its chunk's start to the next one's: the blank lines between
    # chunks are theirs too, so the passages tile the body and add up to it.
    starts = [0, *(start for start, _ in section_spans(body, budget=PASSAGE_BUDGET)[1:])]
    lead = lead_span(body, masked=masked)
    cuts = sorted({*starts, len(body), *(lead if lead[1] > lead[0] else ())})
    passages: list[list[str]] = [[] for _ in starts]
    lead_terms: list[str] = []
    for start, end in pairwise(cuts):
        # Each token stemmed where it stands (memoised), then counted in C by every field.
        terms = match_terms(body[start:end])
        passages[bisect_right(starts, start) - 1].extend(terms)
        if lead[0] <= start and end <= lead[1]:
            lead_terms.extend(terms)
    title_terms = match_terms(title)
    return {
        "body": _counts(chain.from_iterable(passages)),
        "lead": _counts(lead_terms),
        "passages": [_counts(chain(p, title_terms)) for p in passages if p],
        # What each passage row holds beyond the body: with it the cache works the body out
        # from the passages (vault/body_terms.py) instead of keeping it.
        "title": _counts(title_terms),
    }


def _counts(terms: Iterable[str]) -> dict[str, int]:
    """How often each term occurs, in order of first occurrence: what `dict(Counter(terms))`
    gives, counted by the C loop Counter itself uses, into a plain dict. Building a Counter
    (its checks, an ABC isinstance) and copying it cost ~1 us a call, nine calls a page."""
    counts: dict[str, int] = {}
    _count_elements(counts, terms)
    return counts


def _count_in_python(counts: dict[str, int], terms: Iterable[str]) -> None:
    """`collections._count_elements` in Python, for an interpreter without that private C
    helper (same result, in the same order)."""
    get = counts.get
    for term in terms:
        counts[term] = get(term, 0) + 1


try:  # Counter's own C loop; private, so a Python without it falls back to the same loop
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - every CPython 3.11/3.12 has it
    _count_elements = _count_in_python


def no_terms() -> FieldTerms:
    """The terms of a page that could not be read: empty rows, and no passage."""
    return {"body": {}, "lead": {}, "passages": [], "title": {}}
