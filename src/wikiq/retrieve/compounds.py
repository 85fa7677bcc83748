"""English compounds a vault writes apart: "slideshow" for a vault of "slides" and "show".

A question's Latin word the vault lacks, seven letters or longer, that splits into two words it
has (each three letters or more, the first split that works) is searched as those two words as
well as itself, as a decompounding search engine does for German. Only for words the vault
lacks, so a word it uses is never split; the coverage rules still look for the compound as
written (missing_words.py), so "flashcard" stays a thing no page mentions.
"""

from __future__ import annotations

from collections.abc import Container

from wikiq.vault.terms import match_terms

SHORTEST_COMPOUND = 7
SHORTEST_PART = 3


def with_parts(terms: list[str], known: Container[str]) -> list[str]:
    """`terms`, each unknown compound followed by its two known parts."""
    out: list[str] = []
    for term in terms:
        out.append(term)
        if term not in known and term.isascii() and term.isalpha():
            out += _parts(term, known)
    return out


def _parts(word: str, known: Container[str]) -> list[str]:
    if len(word) < SHORTEST_COMPOUND:
        return []
    for cut in range(SHORTEST_PART, len(word) - SHORTEST_PART + 1):
        first, second = match_terms(word[:cut]), match_terms(word[cut:])
        if len(first) == 1 and len(second) == 1 and first[0] in known and second[0] in known:
            return [first[0], second[0]]
    return []
