"""slugify reproduces the LLM Wiki plugin's computeSlug."""

from __future__ import annotations

import pytest

from wikiq.text import slug_key, slugify


@pytest.mark.parametrize(
    "name,slug",
    [
        ("GPT-4.5 Turbo", "gpt-4-5-turbo"),
        ("对比学习", "对比学习"),
        ("What's new (2026)?", "whats-new-2026"),
        # The apostrophe is deleted, not turned into a dash; the full-width brackets go too.
        ("嫦娥四号（Chang'e 4）", "嫦娥四号change-4"),
        ("Heart Failure", "heart-failure"),
        ("InterVL和Janus", "intervl和janus"),
        ("Ελληνικά Κείμενα", "ελληνικά-κείμενα"),
    ],
)
def test_known_names(name: str, slug: str) -> None:
    assert slugify(name) == slug


@pytest.mark.parametrize("char", list("/\\:*?\"<>|,()'!、，。；：！？（）【】《》"))
def test_each_unsafe_character_is_deleted_without_a_dash(char: str) -> None:
    assert slugify(f"ab{char}cd") == "abcd"


def test_ascii_control_characters_are_deleted_not_dashed() -> None:
    assert slugify("a\tb\nc\x00d\x1fe") == "abcde"


def test_delete_is_only_for_ascii_controls() -> None:
    assert slugify("a\x7fb") == "a\x7fb"


@pytest.mark.parametrize("sep", [" ", "  ", ".", " . ", "\u3000", "\u00a0", "\u2003", "\ufeff"])
def test_whitespace_and_dots_become_one_dash(sep: str) -> None:
    assert slugify(f"a{sep}b") == "a-b"


def test_runs_of_dashes_collapse() -> None:
    assert slugify("a---b - c") == "a-b-c"


def test_leading_and_trailing_dashes_are_stripped() -> None:
    assert slugify("-a b-") == "a-b"
    assert slugify(". a .") == "a"


def test_surrounding_whitespace_is_trimmed() -> None:
    assert slugify("  Deep Learning \n") == "deep-learning"


def test_lowercases_every_script() -> None:
    assert slugify("ÜBER Straße") == "über-straße"
    assert slugify("ΑΘΗΝΑ") == "αθηνα"


def test_scripts_are_kept_verbatim_without_transliteration() -> None:
    assert slugify("東京タワー 한국어") == "東京タワー-한국어"


@pytest.mark.parametrize("name", ["", "   ", "\n\t"])
def test_empty_name_is_untitled(name: str) -> None:
    assert slugify(name) == "untitled"


@pytest.mark.parametrize("name", ["???", "...", "（）", " - ", "\x01\x02"])
def test_name_emptied_by_the_rules_is_untitled_without_timestamp(name: str) -> None:
    assert slugify(name) == "untitled"


def test_slug_key_compares_names_case_insensitively() -> None:
    assert slug_key("Heart Failure") == slug_key("heart failure") == slug_key("HEART  FAILURE")
    assert slug_key("Heart Failure") != slug_key("Heart Failures")
