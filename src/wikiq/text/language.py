"""Which language a question is in, so the answer can be written in it."""

from __future__ import annotations

import re
import unicodedata

from wikiq.text import stopwords
from wikiq.text.scripts import LATIN_EXTRA, SCRIPT_RUNS, script_counts

_LATIN_WORD = re.compile(f"[a-z{LATIN_EXTRA}]+")
# Letters (`\w` but not digits or "_"), and the Latin ones among them (every character of
# this class is a letter). The letters of other scripts are the first less the second, once
# the CJK characters are taken out: one class over the CJK blocks, shared with the tokenizer,
# instead of one more of its own (each costs `re` ~2-4 ms to compile).
_LETTER = re.compile(r"[^\W\d_]")
_LATIN_LETTER = re.compile(f"[a-zA-Z{LATIN_EXTRA}]")

# Only the start of a long text is read: a page's language shows in its first paragraphs.
_SAMPLE_CHARS = 1000
# A CJK word averages about two characters; other alphabets about five letters a word.
_CJK_CHARS_PER_WORD = 2.0
_LETTERS_PER_WORD = 5.0
# Japanese is told by its hiragana (particles, endings). Katakana alone may be a Japanese
# name quoted in Chinese (`ポケモン是什么游戏`), so it decides only when Han is scarcer.
_MIN_HIRAGANA_SHARE = 0.05

_LATIN_STOPWORDS: dict[str, frozenset[str]] = {
    "en": stopwords.ENGLISH,
    "fr": stopwords.FRENCH,
    "de": stopwords.GERMAN,
    "es": stopwords.SPANISH,
    "pt": stopwords.PORTUGUESE,
    "it": stopwords.ITALIAN,
}

_NAMES = {
    "en": "English",
    "zh": "中文",
    "ja": "日本語",
    "ko": "한국어",
    "fr": "Français",
    "de": "Deutsch",
    "es": "Español",
    "pt": "Português",
    "it": "Italiano",
}


def _cjk_language(han: int, hiragana: int, katakana: int, hangul: int) -> str:
    if hiragana and hiragana >= _MIN_HIRAGANA_SHARE * (han + hiragana + katakana):
        return "ja"
    if katakana and katakana >= han and katakana >= hangul:
        return "ja"
    if hangul > han:
        return "ko"
    return "zh"


def _latin_language(words: list[str]) -> str:
    scores = {code: sum(w in stop for w in words) for code, stop in _LATIN_STOPWORDS.items()}
    best = max(scores, key=lambda code: scores[code])
    # English wins ties and texts with no function words at all ("Obsidian plugin").
    return best if scores[best] > scores["en"] else "en"


def _other_letters(sample: str) -> int:
    """How many letters of `sample` are neither Latin nor CJK (Cyrillic, Greek, Arabic…)."""
    rest = sample if sample.isascii() else SCRIPT_RUNS.sub("", sample)
    return len(_LETTER.findall(rest)) - len(_LATIN_LETTER.findall(rest))


def detect_language(text: str) -> str:
    """`zh`, `ja`, `ko`, `en`, `fr`, `de`, `es`, `pt`, `it`, or `other`.

    Scripts are weighed by the words they carry, so a Chinese question naming an English
    product (`什么是Obsidian？`) is still `zh`.
    """
    sample = unicodedata.normalize("NFKC", text[:_SAMPLE_CHARS])
    han, katakana, hangul, hiragana = script_counts(sample)
    words = _LATIN_WORD.findall(sample.lower())
    other = _other_letters(sample) / _LETTERS_PER_WORD
    cjk = (han + hiragana + katakana + hangul) / _CJK_CHARS_PER_WORD
    if not cjk and not words and not other:
        return "other"
    if cjk:
        # Latin words without a single function word are names and terms inside CJK text.
        function_words = sum(any(w in stop for stop in _LATIN_STOPWORDS.values()) for w in words)
        if (cjk > len(words) or not function_words) and cjk >= other:
            return _cjk_language(han, hiragana, katakana, hangul)
    if other > len(words):
        return "other"
    return _latin_language(words)


def language_name(code: str) -> str:
    """How to name the language to a model: `zh` → `中文`; unknown → a neutral phrase."""
    return _NAMES.get(code, "the language of the question")
