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
  gave no token at all (4 with it). `query_terms` reports such guessed words as unsegmented.
- One-character CJK tokens are dropped unless the whole CJK run is that one character.
- Katakana and Hangul runs are kept whole (loanwords; Korean words are space-separated).
  Hiragana is kept only when it is the whole run: inside a run it is particles and endings.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from wikiq.text.scripts import CJK, HAN, HANGUL, HIRAGANA, KATAKANA
from wikiq.text.stemming import stem
from wikiq.text.stopwords import CJK as _CJK_STOP
from wikiq.text.stopwords import ENGLISH as _DROP
from wikiq.text.stopwords import QUESTION_FILLERS

__all__ = [
    "TOKENIZER_FINGERPRINT",
    "QueryTerms",
    "cjk_bigrams",
    "query_terms",
    "stem",
    "strip_fillers",
    "tokenize",
]

# Splitting on CJK runs (kept by the capturing group) leaves the other text at even indexes
# and the runs at odd ones.
_CJK_SPLIT = re.compile(f"([{CJK}]+)")
_WORD = re.compile(r"[^\W_]+")
_ASCII_WORD = re.compile(r"[a-z0-9]+")
# Combining marks and the Indic/Southeast-Asian blocks: their vowel signs are not `\w` in
# Python's `re`, so Hindi or Thai words would be cut at every vowel. The slower pattern
# that keeps them is used only for text that has such characters.
_MARKS = "\u0300-\u036f\u0900-\u0963\u0966-\u0dff\u0e00-\u0eff\u1000-\u109f"
_HAS_MARKS = re.compile(f"[{_MARKS}]")
_WORD_WITH_MARKS = re.compile(f"(?:[^\\W_]|[{_MARKS}])+")
# Characters outside the CJK blocks that NFKC turns into CJK: half-width kana and Hangul,
# parenthesised and circled ideographs, squared CJK words (a test checks the list).
_BECOMES_CJK = re.compile("[\u3038-\u303a\u3192-\u33ff\uff66-\uffdc\U0001f200-\U0001f2ff]")
_SCRIPTS = re.compile(f"([{HAN}]+)|([{KATAKANA}]+)|([{HANGUL}]+)|([{HIRAGANA}]+)")

# A whole unsegmented run at least this long is probably several words glued together.
_LONG_RUN = 4


@dataclass(frozen=True, slots=True)
class _Segmenter:
    cut: Callable[[str], list[str]]
    known: Callable[[str], bool]


@cache
def _segmenter() -> _Segmenter:
    """Load the segmenter on first use: importing rjieba loads its dictionary (about 0.1 s;
    jieba takes about 0.8 s), which commands that never tokenize should not pay for."""
    try:
        import rjieba

        return _Segmenter(cut=rjieba.cut, known=rjieba.has_word)
    except ImportError:  # pragma: no cover - rjieba is a core dependency
        import logging

        import jieba

        jieba.setLogLevel(logging.WARNING)
        return _Segmenter(cut=jieba.lcut, known=lambda word: word in jieba.dt.FREQ)


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
    """One pass over one text. `tokens` off collects only the CJK runs (for bigrams);
    `query` on also notes the runs and the unreliable stretches."""

    __slots__ = ("out", "runs", "tokens", "unsegmented")

    def __init__(self, *, tokens: bool, query: bool) -> None:
        self.tokens = tokens
        self.out: list[str] = []
        self.runs: list[str] | None = [] if query or not tokens else None
        self.unsegmented: list[str] | None = [] if query else None

    def text(self, text: str, *, normalized: bool = False) -> None:
        if text.isascii():
            # Fast path: ASCII needs no NFKC, has no CJK, and a plain class is 30% quicker.
            if self.tokens:
                self.out.extend(self.keep(_ASCII_WORD.findall(text.lower())))
            return
        words = _WORD_WITH_MARKS if _HAS_MARKS.search(text) else _WORD
        for i, part in enumerate(_CJK_SPLIT.split(text.lower())):
            if i % 2:
                self.cjk_run(part if normalized else _nfkc(part))
            elif not part:
                continue
            elif self.tokens and (normalized or part.isascii()):
                # The common case, kept to one comprehension: no word here needs NFKC.
                self.out.extend(self.keep(words.findall(part)))
            elif self.tokens or (not normalized and _BECOMES_CJK.search(part)):
                self.words(words.findall(part), normalized)

    @staticmethod
    def keep(words: list[str]) -> list[str]:
        return [w for w in words if w not in _DROP and (len(w) > 1 or w.isdigit())]

    def words(self, words: list[str], normalized: bool) -> None:
        for word in words:
            if not normalized and not word.isascii():
                folded = _nfkc(word)
                if folded != word:
                    # NFKC may turn one piece into several, or into CJK (half-width kana).
                    self.text(folded, normalized=True)
                    continue
            if self.tokens and word not in _DROP and (len(word) > 1 or word.isdigit()):
                self.out.append(word)

    def cjk_run(self, run: str) -> None:
        if self.runs is not None:
            self.runs.append(run)
        if not self.tokens:
            return
        if len(run) == 1:
            if run not in _CJK_STOP:
                self.out.append(run)
            return
        for han, katakana, hangul, hiragana in _SCRIPTS.findall(run):
            if han:
                self.han(han)
                continue
            whole = katakana or hangul or (hiragana if hiragana == run else "")
            if len(whole) > 1 and whole not in _CJK_STOP:
                self.out.append(whole)
                if self.unsegmented is not None and len(whole) >= _LONG_RUN:
                    self.unsegmented.append(whole)

    def han(self, han: str) -> None:
        segmenter = _segmenter()
        words = segmenter.cut(han)
        self.out.extend([w for w in words if len(w) > 1 and w not in _CJK_STOP])
        if self.unsegmented is not None:
            self.unsegmented.extend(_unreliable(words, segmenter.known))


def _unreliable(words: list[str], known: Callable[[str], bool]) -> list[str]:
    """Guessed words (not in the dictionary) and runs of 2+ non-stop single characters."""
    found: list[str] = []
    singles: list[str] = []
    for word in [*words, ""]:  # the empty sentinel closes a final run of singles
        if len(word) == 1 and word not in _CJK_STOP:
            singles.append(word)
            continue
        if len(singles) > 1:
            found.append("".join(singles))
        singles.clear()
        if len(word) > 1 and word not in _CJK_STOP and not known(word):
            found.append(word)
    return found


def tokenize(text: str) -> list[str]:
    """Matching tokens of `text` in order, duplicates kept (callers count term frequency)."""
    tokenizer = _Tokenizer(tokens=True, query=False)
    tokenizer.text(text)
    return tokenizer.out


def _bigrams(runs: list[str]) -> list[str]:
    return [run[i : i + 2] for run in runs for i in range(len(run) - 1)]


def cjk_bigrams(text: str) -> list[str]:
    """Overlapping two-character grams of every CJK run, in order, duplicates kept."""
    tokenizer = _Tokenizer(tokens=False, query=False)
    tokenizer.text(text)
    return _bigrams(tokenizer.runs or [])


@dataclass(frozen=True, slots=True)
class QueryTerms:
    """What a question offers for matching."""

    tokens: tuple[str, ...]
    """Unique tokens, in first-seen order."""
    bigrams: tuple[str, ...]
    """Unique CJK bigrams, in first-seen order."""
    unsegmented_runs: tuple[str, ...]
    """CJK stretches whose word tokens are unreliable: words the segmenter guessed because its
    dictionary lacks them (`邵弁`), runs of single characters it could not join (`臺灣`), and
    unsegmented Katakana/Hangul/Hiragana runs of 4+ characters (`문장입니다`)."""
    has_cjk: bool


def query_terms(text: str) -> QueryTerms:
    """Tokens, CJK bigrams and unreliable CJK stretches of a question, each deduplicated."""
    tokenizer = _Tokenizer(tokens=True, query=True)
    tokenizer.text(text)
    runs = tokenizer.runs or []
    return QueryTerms(
        tokens=tuple(dict.fromkeys(tokenizer.out)),
        bigrams=tuple(dict.fromkeys(_bigrams(runs))),
        unsegmented_runs=tuple(dict.fromkeys(tokenizer.unsegmented or [])),
        has_cjk=bool(runs),
    )


def strip_fillers(question: str) -> str:
    """The question without the Chinese words that only wrap its subject ("的资料",
    "的详细信息"); unchanged when it has none. Words are cut where the segmenter cuts them,
    so a filler inside a longer word ("资料库") stays."""
    if not any(f in question for f in QUESTION_FILLERS):
        return question
    pieces = _CJK_SPLIT.split(question)
    for i in range(1, len(pieces), 2):  # the CJK runs
        words = _segmenter().cut(pieces[i])
        pieces[i] = "".join(w for w in words if w not in QUESTION_FILLERS)
    return "".join(pieces)


def _fingerprint() -> str:
    """A digest of everything that decides matching tokens: this module, the stop-words, the
    stemmer, the script ranges and the segmenter's version. Caches of term counts and name
    indexes are keyed by it, so changing the tokenizer rebuilds them instead of silently
    mixing old terms with new questions."""
    import hashlib
    from importlib import metadata
    from pathlib import Path

    here = Path(__file__).parent
    digest = hashlib.sha1()
    for name in ("tokenize.py", "stopwords.py", "stemming.py", "scripts.py"):
        try:
            digest.update((here / name).read_bytes())
        except OSError:  # pragma: no cover - a zipped install: fall back to the names
            digest.update(name.encode())
    try:
        digest.update(metadata.version("rjieba").encode())
    except metadata.PackageNotFoundError:  # pragma: no cover
        digest.update(b"jieba")
    return digest.hexdigest()[:16]


TOKENIZER_FINGERPRINT = _fingerprint()
