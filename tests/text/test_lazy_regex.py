"""Patterns compiled on first use (text/lazy_regex.py) and the script helpers built on the
shared ones answer exactly as a pattern of their own would."""

from __future__ import annotations

import random
import re

from wikiq.text.language import _other_letters
from wikiq.text.lazy_regex import lazy_compile
from wikiq.text.scripts import (
    CJK,
    HAN,
    HANGUL,
    HIRAGANA,
    KATAKANA,
    LATIN_EXTRA,
    all_han,
    has_han,
    script_counts,
)

_SAMPLES = [
    "",
    "abc",
    "什么是Obsidian？",
    "ポケモン是什么游戏",
    "한국어 텍스트",
    "Ελληνικά and русский",
    "⺀⻳ radicals",
    "𠀀𠀁 and 々〇",
    "ひらがなカタカナ漢字",
    "mixed 汉字 한글 かな ok",
    "é à ñ ß",
]


def _random_texts(n: int) -> list[str]:
    pool = [
        chr(c)
        for c in [
            *range(0x20, 0x250),
            *range(0x370, 0x450),
            *range(0x2E70, 0x3100),
            *range(0x4E00, 0x4E20),
            *range(0xAC00, 0xAC10),
            0x20000,
            0x3134F,
            0x31350,
        ]
    ]
    rng = random.Random(7)
    return ["".join(rng.choice(pool) for _ in range(rng.randint(0, 12))) for _ in range(n)]


def test_a_lazy_pattern_is_compiled_on_first_use_and_answers_as_re() -> None:
    lazy = lazy_compile(r"(\w+)@(\w+)", re.IGNORECASE)
    assert lazy._compiled is None  # type: ignore[attr-defined]
    plain = re.compile(r"(\w+)@(\w+)", re.IGNORECASE)
    text = "Ann@Home and BOB@work"
    assert lazy.findall(text) == plain.findall(text)
    assert lazy.sub(r"\2", text) == plain.sub(r"\2", text)
    assert lazy.split(text) == plain.split(text)
    assert lazy.pattern == plain.pattern and lazy.groups == plain.groups


def test_script_helpers_count_as_one_class_per_script() -> None:
    classes = [re.compile(f"[{s}]") for s in (HAN, KATAKANA, HANGUL, HIRAGANA)]
    han_run = re.compile(f"[{HAN}]+")
    other = re.compile(f"[^\\W\\d_a-zA-Z{LATIN_EXTRA}{CJK}]")
    for text in _SAMPLES + _random_texts(3000):
        assert script_counts(text) == tuple(len(c.findall(text)) for c in classes), text
        assert has_han(text) == bool(han_run.search(text)), text
        assert all_han(text) == bool(han_run.fullmatch(text)), text
        assert _other_letters(text) == len(other.findall(text)), text
