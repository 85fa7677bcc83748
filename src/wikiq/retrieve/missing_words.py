"""What a question asks about that the vault never mentions: the names and the Chinese common
nouns the coverage rules read (coverage.py: a question about something no page mentions is
not covered, or only uncertain when its other words are clearly answered).

A word counts as mentioned when every one of its terms is in some page's text (titles and
aliases included), when the vault writes it in full ("抗战": 抗日战争, abbreviations.py), or,
for a noun, when a source note holds it or the vault holds one of its first English senses
("签证": visa). What is left out as no evidence: a Chinese "name" the dictionary knows as an
everyday word ("卡住") or lists as a rare phrase ("越往后"), and a noun too rare for a vault of
this size to be expected to use (coverage.NOUN_EXPECTED).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from wikiq.retrieve.coverage import NOUN_EXPECTED
from wikiq.text.name_words import (
    book_titles,
    built_in_things,
    chinese_names,
    chinese_nouns,
    ends_a_predicate,
    name_phrases,
    name_words,
    phrase_listed_as_name,
    unlisted_nouns,
)
from wikiq.text.scripts import has_han
from wikiq.text.tokenize import word_share
from wikiq.vault.terms import match_terms

if TYPE_CHECKING:
    from wikiq.retrieve.abbreviations import Abbreviations
    from wikiq.retrieve.body import BodyIndex
    from wikiq.retrieve.sources import NoteSearch
    from wikiq.text.glossary import Glossary


# "European" is of Europe, "Italian" of Italy, "Tibetan" of Tibet, "Japanese" of Japan.
_OF_A_PLACE = re.compile(r"(?i)^([a-z]{3,}?)(ean|ian|an|ese|ish)$")


def _places_of(name: str) -> list[str]:
    """The places an English adjective of a people or language may come from."""
    m = _OF_A_PLACE.match(name)
    if m is None:
        return []
    base = m.group(1)
    return [base + end for end in ("", "e", "a", "y", "ia")]


class MissingWords:
    """The words of a question no page of one vault mentions."""

    def __init__(self, text: BodyIndex, glossary: Callable[[], Glossary | None]) -> None:
        self._text = text  # the text index: every page's terms, titles and aliases included
        self._glossary = glossary  # opened only for a word the vault lacks as written
        self._abbreviations: Abbreviations | None = None

    def names(self, question: str, asked: str) -> tuple[str, ...]:
        """The words the question writes as names of which some part is on no page, of those
        that stand in `asked` (the part of the question that asks: stopwords.asked_about)."""
        chinese = chinese_names(question, self.on_a_page)
        chinese += [w for w in unlisted_nouns(question, self.on_a_page) if w not in chinese]
        found = tuple(
            word
            for word in [*name_words(question), *name_phrases(question), *chinese]
            # In this order: the glossary and the dictionary's counts are read only for a
            # name the question asks about that no page mentions.
            if word in asked
            and not self._mentioned(word)
            and not self._abbreviates(word)
            and not self._common_word(word)
            and not (has_han(word) and phrase_listed_as_name(word))
        )
        return found + tuple(t for t in book_titles(question) if t in asked and self._unheld_title(t))

    def passing(
        self, question: str, asked: str, near: Callable[[str, int], bool]
    ) -> tuple[str, ...]:
        """The words the question writes as names, of those in `asked`, that the vault
        mentions only in passing: one page holds the whole name, and it is not `near(name,
        page)` (about the name, or among the pages that best match the rest of the question).
        A name the vault is about is on such a page, or on more than one."""
        chinese = chinese_names(question, self.on_a_page)
        out: list[str] = []
        for word in [*name_words(question), *chinese]:
            if word in out or word not in asked or not self.on_a_page(word):
                continue
            holders = self._text.pages_holding_all(match_terms(word))
            if len(holders) == 1 and not self._common_word(word) and not near(word, int(holders[0])):
                out.append(word)
        return tuple(out)

    def nouns(self, question: str, notes: NoteSearch | None) -> tuple[str, ...]:
        """The things the question asks about that no page, and no source note, holds (a
        thing a note mentions may be what the question asks the note about): its Chinese
        common nouns a vault this size would be expected to use, and what an English question
        asks to have built in."""

        def held(word: str) -> bool:
            return self.on_a_page(word) or (notes is not None and notes.knows(word))

        def anywhere(word: str) -> bool:
            # Held as written, or in English by one of its first three senses ("签证": visa).
            if held(word) or self._abbreviates(word):
                return True
            glossary = self._glossary()
            if glossary is None:
                return False
            # A verb and its object tagged as a noun ("建图") is not a thing to look for.
            return glossary.verb_phrase(word) or any(
                held(sense) for sense in glossary.senses(word)[:3]
            )

        chinese = [
            w
            for w in chinese_nouns(question, anywhere)
            if self._expected(w) and not self._used_as_verb(question, w)
        ]
        # No frequency check in English: a thing asked for by name is looked for as written.
        return (*chinese, *(w for w in built_in_things(question) if not held(w)))

    def _used_as_verb(self, question: str, word: str) -> bool:
        """A word jieba tags a noun whose first sense is a verb, written as one ("把长 prompt
        切块，": to cut into pieces; "是怎么省钱的"): an action, not a thing the vault lacks.
        Used as a noun it still counts ("投机解码", "划线和想法")."""
        glossary = self._glossary()
        return glossary is not None and glossary.verb_first(word) and ends_a_predicate(question, word)

    def _unheld_title(self, title: str) -> bool:
        """A book title of two words or more that the vault knows word by word but no page
        holds whole ("《人类简史》": 人类 and 简史 are on pages, never together). A title with a
        word the vault lacks is left out: the pages may cut it otherwise ("《胠箧》", 胠箧篇)."""
        return (
            len(set(match_terms(title))) >= 2
            and self.on_a_page(title)
            and not self._held_together(title)
        )

    def _mentioned(self, name: str) -> bool:
        """Whether some page mentions `name`: every term somewhere, and a name of several
        words ("Apple Watch") all on one page; a people or a language by its place ("the
        European one": Europe)."""
        if " " in name:
            return self._held_together(name)
        return self.on_a_page(name) or any(self.on_a_page(p) for p in _places_of(name))

    def _held_together(self, text: str) -> bool:
        """Some one page holds every term of `text`."""
        return len(self._text.pages_holding_all(match_terms(text))) > 0

    def on_a_page(self, text: str) -> bool:
        """Every term of `text` is in some page's text (title and aliases included)."""
        known = self._text.term_ids
        return all(t in known for t in match_terms(text))

    def _common_word(self, word: str) -> bool:
        """A Chinese word jieba tags as a name that the dictionary knows as an everyday word
        ("卡住", "to jam", in "…把请求卡住"): no name."""
        if not has_han(word):
            return False
        glossary = self._glossary()
        return glossary is not None and glossary.common_word(word)

    def _abbreviates(self, word: str) -> bool:
        """A Chinese word the vault writes in full ("抗战": 抗日战争; abbreviations.py)."""
        if self._abbreviations is None:
            from wikiq.retrieve.abbreviations import Abbreviations

            self._abbreviations = Abbreviations(self._text.term_ids)
        return bool(self._abbreviations.expansions(word))

    def _expected(self, word: str) -> bool:
        """Whether the vault's text is long enough that it would use `word` if it covered
        what the word names: how common the word is in general Chinese times the vault's terms
        (without jieba's dictionary, every word is)."""
        share = word_share(word)
        return share is None or share * self._text.total_terms >= NOUN_EXPECTED
