"""Which language a question is in, so the answer can be written in it."""

from __future__ import annotations

import re
import unicodedata

from wikiq.text import stopwords
from wikiq.text.scripts import CJK, HAN, HANGUL, HIRAGANA, KATAKANA, LATIN_EXTRA

_HAN = re.compile(f"[{HAN}]")
_HIRAGANA = re.compile(f"[{HIRAGANA}]")
_KATAKANA = re.compile(f"[{KATAKANA}]")
_HANGUL = re.compile(f"[{HANGUL}]")
_LATIN_WORD = re.compile(f"[a-z{LATIN_EXTRA}]+")
_OTHER_LETTER = re.compile(f"[^\\W\\d_a-zA-Z{LATIN_EXTRA}{CJK}]")

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


def detect_language(text: str) -> str:
    """`zh`, `ja`, `ko`, `en`, `fr`, `de`, `es`, `pt`, `it`, or `other`.

    Scripts are weighed by the words they carry, so a Chinese question naming an English
    product (`什么是Obsidian？`) is still `zh`.
    """
    sample = unicodedata.normalize("NFKC", text[:_SAMPLE_CHARS])
    han = len(_HAN.findall(sample))
    hiragana = len(_HIRAGANA.findall(sample))
    katakana = len(_KATAKANA.findall(sample))
    hangul = len(_HANGUL.findall(sample))
    words = _LATIN_WORD.findall(sample.lower())
    other = len(_OTHER_LETTER.findall(sample)) / _LETTERS_PER_WORD
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
