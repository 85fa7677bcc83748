"""Unicode ranges of the scripts wikiq treats specially, as regex character-class bodies."""

from __future__ import annotations

from wikiq.text.lazy_regex import lazy_compile

# U+3005 (々, iteration mark) and U+3007 (〇) behave as ideographs in running text. The
# radicals (U+2E80-U+2FDF) turn up in text extracted from PDFs in place of the ideographs
# they look like; NFKC maps them back.
HAN = "\u2e80-\u2fdf\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
HIRAGANA = "\u3041-\u309f"
# U+30FB (katakana middle dot) separates the parts of names; U+30A0 is a hyphen sign.
KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
KANA = HIRAGANA + KATAKANA
HANGUL = "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
CJK = HAN + KANA + HANGUL
# Latin letters beyond ASCII: Latin-1 letters (not × ÷) and Latin Extended-A/B.
LATIN_EXTRA = "\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"

# Each class below is compiled once per process, on first use (text/lazy_regex.py), and
# shared by the modules that need it.
# A run of CJK characters: splitting on it leaves the other text at even indexes and the runs
# at odd ones.
CJK_RUNS = lazy_compile(f"([{CJK}]+)")
# One script's run at a time (the four are disjoint): Han, katakana, Hangul, hiragana.
SCRIPT_RUNS = lazy_compile(f"([{HAN}]+)|([{KATAKANA}]+)|([{HANGUL}]+)|([{HIRAGANA}]+)")
# CJK punctuation and full-width forms count with the script they punctuate.
_CJK_CHAR = lazy_compile(f"[{CJK}\u3000-\u303f\uff00-\uffef]")


def script_counts(text: str) -> tuple[int, int, int, int]:
    """How many of `text`'s characters are Han, katakana, Hangul and hiragana."""
    han = katakana = hangul = hiragana = 0
    if not text.isascii():
        for h, k, g, r in SCRIPT_RUNS.findall(text):
            han += len(h)
            katakana += len(k)
            hangul += len(g)
            hiragana += len(r)
    return han, katakana, hangul, hiragana


def has_han(text: str) -> bool:
    """Whether `text` holds a Han character."""
    return not text.isascii() and any(h for h, _, _, _ in SCRIPT_RUNS.findall(text))


def all_han(word: str) -> bool:
    """Whether `word` is Han characters only (and not empty)."""
    run = SCRIPT_RUNS.fullmatch(word)
    return run is not None and run.group(1) is not None


def mostly_cjk(text: str) -> bool:
    """More than half of `text`'s characters are Chinese, Japanese or Korean (with their
    punctuation): such text says as much in fewer characters."""
    return len(_CJK_CHAR.findall(text)) * 2 > len(text)
