"""A question in the language its vault is not written in, searched through the glossary
(text/glossary.py): a Chinese question over an English vault, and the other way round.

Its words share nothing with the pages that answer it, so the text channel is blind to it and
"no shared word" would read as "not covered". Each content word of the question becomes a group
of the vault's own terms for its senses ("同步" → sync, synchron…; "加密" → encrypt, password),
searched as one word each (BodyIndex.search_groups). Words already in the vault's script or
alphabet ("linux", "2024") stay themselves. Only the vault's vocabulary is kept, so senses the
vault never uses cost nothing.

An English question over a Chinese vault goes through the glossary read backwards: each
content word becomes a group of the vault's Chinese words that translate it ("server" → 服务器,
"location" → 位置, 地点), with the word itself when the vault writes it too ("sync").
"""

from __future__ import annotations

from itertools import islice

from wikiq.retrieve.body import BodyIndex
from wikiq.text.glossary import EnglishChinese, Glossary
from wikiq.text.scripts import has_han
from wikiq.text.stopwords import content_terms
from wikiq.vault.terms import match_terms

# Senses kept per word: CC-CEDICT lists the common senses first; the tail is rare meanings
# that would only add noise.
MAX_SENSES = 3
# Chinese words kept per English word, best first (glossary.invert's order). Natural dev and
# fresh cross-language questions: 3 words 0.773 on the fresh sets, 6 and 10 words 0.818.
MAX_WORDS = 6


def translated_groups(terms: list[str], glossary: Glossary, index: BodyIndex) -> list[list[str]]:
    """One group of vault terms per content word of the question (empty groups dropped)."""
    groups: list[list[str]] = []
    for term in dict.fromkeys(content_terms(terms)):
        if not has_han(term):
            if term in index.term_ids:
                groups.append([term])
            continue
        group: list[str] = []
        for part in glossary.parts(term):
            for sense in glossary.senses(part)[:MAX_SENSES]:
                group += [t for t in sense_terms(sense) if t in index.term_ids]
        if group:
            groups.append(list(dict.fromkeys(group)))
    return groups


def english_groups(
    terms: list[str], inverse: EnglishChinese, index: BodyIndex
) -> list[list[str]]:
    """One group per English content word of the question: the word itself when the vault
    holds it, and the vault's Chinese words for it (empty groups dropped)."""
    groups: list[list[str]] = []
    for term in dict.fromkeys(content_terms(terms)):
        group = [term] if term in index.term_ids else []
        # The first MAX_WORDS the vault holds, best first: a common English word has a
        # hundred Chinese words or more, and looking each up costs more than the search.
        group += islice((w for w in inverse.words(term) if w in index.term_ids), MAX_WORDS)
        if group:
            groups.append(list(dict.fromkeys(group)))
    return groups


def sense_terms(sense: str) -> list[str]:
    """The index's terms for a dictionary sense: its content words, stemmed."""
    return content_terms(match_terms(sense))
