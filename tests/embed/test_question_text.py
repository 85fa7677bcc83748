"""The question as Stage 0 embeds it: the words that only say how it is asked are left out."""

from __future__ import annotations

import pytest

from wikiq.embed.question_text import question_text


@pytest.mark.parametrize(
    ("question", "embedded"),
    [
        ("is there a way to write math formulas in a note?", "write math formulas note"),
        ("How do I link to a heading?", "link heading"),
        ("what apixaban dose does the center use in AF?", "apixaban dose center use AF"),
    ],
)
def test_an_english_question_loses_its_stop_words_and_question_mark(
    question: str, embedded: str
) -> None:
    assert question_text(question) == embedded


def test_words_that_turn_the_question_around_stay() -> None:
    assert question_text("notes without tags that can't sync?") == "notes without tags can't sync"
    assert question_text("which team won the cup?") == "team won cup"


def test_acronyms_that_spell_a_stop_word_stay() -> None:
    assert question_text("Our IT asks if the US site is up") == "IT asks US site"


def test_parts_of_longer_words_stay() -> None:
    assert question_text("does it have a built-in timer? e.g. for Sartre's notes") == (
        "built-in timer? e.g. Sartre's notes"
    )


def test_a_chinese_question_loses_only_its_opening_and_closing() -> None:
    # Function words inside a Chinese question are kept: dropping them cost recall.
    assert question_text("请问，黑洞是怎么形成的吗？") == "黑洞是怎么形成的"
    assert question_text("哪本书里说大禹是羌人？他怎么看") == "哪本书里说大禹是羌人？他怎么看"


def test_other_languages_lose_only_the_final_mark() -> None:
    assert question_text("¿Cuál es la causa más común?") == "¿Cuál es la causa más común"


def test_a_question_made_only_of_stop_words_is_embedded_as_asked() -> None:
    assert question_text("What is this?") == "What is this?"
    assert question_text("   ") == "   "
