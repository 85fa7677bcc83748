"""Tokens for matching: one function for page text and questions, so both sides agree.

Decisions (the retrieval code relies on them):
- Text is lowercased and each word and CJK run is NFKC-normalised, so full-width `ＧＰＴ４`
  and `gpt4` are one token. (Normalising pieces, not the whole text, skips the punctuation,
  which is most of what NFKC changes in Chinese text; that halves the cost of a page.)
- Words are runs of letters and digits of any non-CJK script; everything else separates them.
  Hyphens, dots and apostrophes split too: `GPT-4.5` → `gpt`, `4`, `5`, the same tokens
  its slug `gpt-4-5` gives, and `what's` → `what` (the lone `s` is dropped).
- Numbers are always kept, even one digit (`Apollo 11`, `GPT-4`); other one-letter words and
  English stop-words are dropped.
- Han runs are segmented by rjieba with its HMM on, which joins characters the dictionary
  does not know into words (`邵弁`, Traditional `學習`). Measured on the ob-wiki bench vault
  (600 Chinese titles, 3,000 pages): the title's tokens were found in 91.2% of the pages
  containing the title both with and without the HMM, but without it 50 of the 600 titles
  gave no token at all (4 with it). A short text (a question) is cut through jieba's word
  table instead when the cache folder has one (text/han_words.py): the same cut, without the
  0.13 s it takes rjieba to load its dictionary.
- One-character CJK tokens are dropped unless the whole CJK run is that one character.
- Katakana and Hangul runs are kept whole (loanwords; Korean words are space-separated).
  Hiragana is kept only when it is the whole run: inside a run it is particles and endings.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from wikiq.text.han_singles import SINGLE_HAN_WORDS
from wikiq.text.memo import Memo
from wikiq.text.scripts import CJK_RUNS, SCRIPT_RUNS
from wikiq.text.stemming import stem
from wikiq.text.stopwords import CJK as _CJK_STOP
from wikiq.text.stopwords import ENGLISH as _DROP
from wikiq.text.stopwords import QUESTION_FILLERS

if TYPE_CHECKING:
    from wikiq.text.han_words import HanWords

__all__ = [
    "TOKENIZER_FINGERPRINT",
    "stem",
    "strip_fillers",
    "tag_apart",
    "tokenize",
    "word_share",
]

_WORD = re.compile(r"[^\W_]+")
# ASCII text's words are its runs of [a-z0-9] once lowercased: translating every other
# character to a space and splitting gives them ~25% quicker than a regex's findall (str's
# translate has a fast path for ASCII to ASCII).
_ASCII_WORDS = str.maketrans({c: (chr(c).lower() if chr(c).isalnum() else " ") for c in range(128)})
# Combining marks and the Indic/Southeast-Asian blocks: their vowel signs are not `\w` in
# Python's `re`, so Hindi or Thai words would be cut at every vowel. The slower pattern
# that keeps them is used only for text that has such characters.
_MARKS = "\u0300-\u036f\u0900-\u0963\u0966-\u0dff\u0e00-\u0eff\u1000-\u109f"
_HAS_MARKS = re.compile(f"[{_MARKS}]")
_WORD_WITH_MARKS = re.compile(f"(?:[^\\W_]|[{_MARKS}])+")


@cache
def _segmenter() -> Callable[[str], list[str]]:
    """Load the segmenter on first use: importing rjieba loads its dictionary (about 0.1 s;
    jieba takes about 0.8 s), which commands that never tokenize should not pay for."""
    try:
        import rjieba

        cut: Callable[[str], list[str]] = rjieba.cut
        return cut
    except ImportError:  # pragma: no cover - rjieba is a core dependency
        import logging

        import jieba

        jieba.setLogLevel(logging.WARNING)
        return jieba.lcut


# Han characters a process cuts through the word table (text/han_words.py) before loading
# the whole dictionary: a table cut costs ~90 us a character, so a question (tens of
# characters) is far cheaper through it, and a process that goes on to cut page text (an
# answer's passages, a vault being read) switches after wasting ~30 ms at most.
WORD_TABLE_CHARS = 300


class _WordTable:
    folder: Path | None = None  # set by the composition root: None, the whole dictionary
    chars = 0  # Han characters cut through the table so far


def use_word_table(folder: Path | None) -> None:
    """Cut short texts with jieba's word table kept in `folder`, when it has been written
    there (the cuts are the same either way; None: always the whole dictionary)."""
    _WordTable.folder = folder


@cache
def _han_words(folder: Path) -> HanWords | None:
    from wikiq.text.han_words import open_han_words

    return open_han_words(folder, TOKENIZER_FINGERPRINT)


def word_share(word: str) -> float | None:
    """`word`'s share of jieba's dictionary counts (text/han_words.py: how common it is in
    general Chinese), from the word table when it has been written; None without jieba."""
    from wikiq.text.han_words import word_share as share

    return share(word, _written_table(), _WordTable.folder)


def tag_apart(word: str) -> list[tuple[str, str]]:
    """The dictionary words of `word`, tagged, as if jieba did not list `word` itself
    (text/han_words.py), from the word table when it has been written."""
    from wikiq.text.han_words import tag_apart as apart

    return apart(word, _written_table())


def _written_table() -> HanWords | None:
    """The word table in the composition root's folder, whatever the process cut so far
    (lookups of a word's count or parts are cheap through it, unlike cutting text)."""
    folder = _WordTable.folder
    return _han_words(folder) if folder is not None else None


def _table(text: str) -> HanWords | None:
    """The word table, while the process has cut little through it and not loaded rjieba's
    whole dictionary (importing rjieba loads it); else None: use the dictionary."""
    folder = _WordTable.folder
    if folder is None or _WordTable.chars >= WORD_TABLE_CHARS or "rjieba" in sys.modules:
        return None
    words = _han_words(folder)
    if words is None or not words.handles(text):
        return None
    _WordTable.chars += len(text)
    return words


def _cut(text: str) -> list[str]:
    """rjieba's cut of `text` (one CJK run), through the word table when it serves."""
    words = _table(text)
    return words.cut(text) if words is not None else _segmenter()(text)


@lru_cache(maxsize=256)
def tag_words(text: str, hmm: bool = True) -> tuple[tuple[str, str], ...]:
    """rjieba's words of `text` with their part-of-speech tags (proper nouns for
    text/name_words.py), through the word table when it serves. Without `hmm`, only the
    dictionary's words: a word its HMM joined comes apart into them. Remembered for the last
    texts: the coverage rules tag one question four times (its names, the names it mentions
    in passing, the nouns jieba guessed, its common nouns), and the cuts are the same either
    way."""
    words = _table(text)
    if words is not None:
        return tuple(words.tag(text, hmm))
    import rjieba

    return tuple(rjieba.tag(text, hmm))


# Latin letters with diacritics (Latin-1 Supplement to Latin Extended Additional): folded to
# their base letter, so "Akinoshu" finds "Akinoshū" and "cafe" finds "café" (what Elastic's
# asciifolding and Obsidian's own search do). Other scripts keep their marks: they carry
# meaning there (Hindi vowel signs, Vietnamese tones are Latin and do fold).
_LATIN_ACCENTED = re.compile("[\u00c0-\u024f\u1e00-\u1eff]")
_COMBINING = re.compile("[\u0300-\u036f]")


def _nfkc(piece: str) -> str:
    folded = unicodedata.normalize("NFKC", piece).lower()
    if _LATIN_ACCENTED.search(folded):
        folded = unicodedata.normalize(
            "NFC", _COMBINING.sub("", unicodedata.normalize("NFD", folded))
        )
    return folded


class _Tokenizer:
    """One pass over one text, collecting its tokens in `out`."""

    __slots__ = ("out",)

    def __init__(self) -> None:
        self.out: list[str] = []

    def text(self, text: str, *, normalized: bool = False) -> None:
        if text.isascii():
            self.out.extend(_ascii_tokens(text))
            return
        words = _WORD_WITH_MARKS if _HAS_MARKS.search(text) else _WORD
        for i, part in enumerate(CJK_RUNS.split(text.lower())):
            if i % 2:
                self.cjk_run(part if normalized else _nfkc(part))
            elif not part:
                continue
            elif normalized or part.isascii():
                # The common case, kept to one comprehension: no word here needs NFKC.
                self.out.extend(self.keep(words.findall(part)))
            else:
                self.words(words.findall(part), normalized)

    @staticmethod
    def keep(words: list[str]) -> list[str]:
        return list(filter(_KEPT.__getitem__, words))

    def words(self, words: list[str], normalized: bool) -> None:
        for word in words:
            if not normalized and not word.isascii():
                folded = _nfkc(word)
                if folded != word:
                    # NFKC may turn one piece into several, or into CJK (half-width kana).
                    self.text(folded, normalized=True)
                    continue
            if _KEPT[word]:
                self.out.append(word)

    def cjk_run(self, run: str) -> None:
        if len(run) == 1:
            if run not in _CJK_STOP:
                self.out.append(run)
            return
        for han, katakana, hangul, hiragana in SCRIPT_RUNS.findall(run):
            if han:
                self.han(han)
                continue
            whole = katakana or hangul or (hiragana if hiragana == run else "")
            if len(whole) > 1 and whole not in _CJK_STOP:
                self.out.append(whole)

    def han(self, han: str) -> None:
        self.out.extend(filter(_HAN_KEPT.__getitem__, _cut(han)))


def _keeps(word: str) -> bool:
    """Whether a word is a token: numbers always, other words of two letters or more that
    are not stop-words."""
    return word not in _DROP and (len(word) > 1 or word.isdigit())


def _keeps_han(word: str) -> bool:
    """Whether a word the segmenter cut is a token: one-character words only when they are
    nouns or adjectives (text/han_singles.py), and no stop-words."""
    return (len(word) > 1 or word in SINGLE_HAN_WORDS) and word not in _CJK_STOP


# Whether each word seen is a token: a text repeats its words, and calling `_keeps` for
# every one of them cost a tenth of reading a page.
_KEPT = Memo(_keeps)
_HAN_KEPT = Memo(_keeps_han)


def _ascii_tokens(text: str) -> list[str]:
    # ASCII needs no NFKC and has no CJK: its words are its letters and digits.
    return list(filter(_KEPT.__getitem__, text.translate(_ASCII_WORDS).split()))


def tokenize(text: str) -> list[str]:
    """Matching tokens of `text` in order, duplicates kept (callers count term frequency)."""
    if text.isascii():
        return _ascii_tokens(text)  # most text: no tokenizer object needed
    tokenizer = _Tokenizer()
    tokenizer.text(text)
    return tokenizer.out


def strip_fillers(question: str) -> str:
    """The question without the Chinese words that only wrap its subject ("的资料",
    "的详细信息"); unchanged when it has none. Words are cut where the segmenter cuts them,
    so a filler inside a longer word ("资料库") stays."""
    if not any(f in question for f in QUESTION_FILLERS):
        return question
    pieces = CJK_RUNS.split(question)
    for i in range(1, len(pieces), 2):  # the CJK runs
        words = _cut(pieces[i])
        pieces[i] = "".join(w for w in words if w not in QUESTION_FILLERS)
    return "".join(pieces)


def _fingerprint() -> str:
    """A digest of everything that decides matching tokens: this module, the stop-words, the
    stemmer, the script ranges and the segmenter's version. Caches of term counts and name
    indexes are keyed by it, so changing the tokenizer rebuilds them instead of silently
    mixing old terms with new questions."""
    import hashlib
    from importlib.util import find_spec
    from pathlib import Path

    here = Path(__file__).parent
    digest = hashlib.sha1()
    modules = ("tokenize", "stopwords", "stemming", "scripts", "han_words", "han_singles")
    for name in (f"{m}.py" for m in modules):
        try:
            digest.update((here / name).read_bytes())
        except OSError:  # pragma: no cover - a zipped install: fall back to the names
            digest.update(name.encode())
    # The segmenter's version and its files as installed (names and sizes, not times: two
    # environments with the same rjieba share a cache instead of rebuilding each other's).
    # Found without importing it (that loads its dictionary, 0.25 s) and without
    # importlib.metadata (20 ms of every start-up).
    spec = find_spec("rjieba")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        package = Path(folder)
        for info in sorted(package.parent.glob("rjieba-*.dist-info")):
            digest.update(info.name.encode())
        for entry in sorted(package.iterdir()):
            if entry.is_file():
                digest.update(f"{entry.name}:{entry.stat().st_size}".encode())
    return digest.hexdigest()[:16]


TOKENIZER_FINGERPRINT = _fingerprint()
