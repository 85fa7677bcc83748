"""The light English stemmer."""

from __future__ import annotations

import pytest

from wikiq.text import stem


@pytest.mark.parametrize(
    "word,expected",
    [
        ("missions", "mission"),
        ("orbits", "orbit"),
        ("galaxies", "galaxy"),
        ("studies", "study"),
        ("processes", "process"),
        ("classes", "class"),
        ("boxes", "box"),
        ("matches", "match"),
        ("photos", "photo"),
        ("landed", "land"),
        ("landing", "land"),
        ("orbited", "orbit"),
        ("orbiting", "orbit"),
        ("carried", "carry"),
        ("stopped", "stop"),
        ("running", "run"),
        ("called", "call"),
        ("meetings", "meet"),
        ("nasa's", "nasa"),
    ],
)
def test_inflections_fold(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize(
    "forms",
    [
        "land lands landed landing",
        "orbit orbits orbited orbiting",
        "create creates created creating",
        "cause causes caused causing",
        "base bases based basing",
        "hope hopes hoped hoping",
        "agree agrees agreed agreeing",
        "study studies studied",
        "cache caches",
        "use uses used using",
    ],
)
def test_inflected_forms_meet_at_one_stem(forms: str) -> None:
    assert len({stem(word) for word in forms.split()}) == 1


def test_different_words_stay_apart() -> None:
    assert stem("hoping") != stem("hopping")
    assert stem("need") != stem("ne")
    assert stem("string") != stem("str")


@pytest.mark.parametrize(
    "word",
    [
        "status",
        "analysis",
        "process",
        "glass",
        "need",
        "speed",
        "thing",
        "string",
        "bring",
        "bed",
        "gas",
        "yes",
        "news",
        "series",
        "during",
        "hundred",
    ],
)
def test_words_that_only_look_inflected_are_kept(word: str) -> None:
    assert stem(word) == word


@pytest.mark.parametrize(
    "token", ["对比学习", "学习s", "11", "4s", "1990s", "über", "cafés", "gpt4"]
)
def test_cjk_digits_and_non_ascii_are_untouched(token: str) -> None:
    assert stem(token) == token


def test_one_and_two_letter_words_are_untouched() -> None:
    assert [stem(w) for w in ["a", "is", "us", "ed"]] == ["a", "is", "us", "ed"]
