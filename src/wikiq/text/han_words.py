"""Cutting a question's Chinese the way rjieba does, without loading its whole dictionary.

Importing rjieba builds its 349,046-word dictionary: ~0.13 s of every process that tokenizes
Chinese, a third of a warm `wikiq search`. Yet a cut reads only the dictionary words found
inside the text it cuts (which words start at each character, and their frequencies) and the
sum of all frequencies (each word's log-probability is taken against it), and a part-of-speech
tag is the tag of the word cut. So a short text is cut (and tagged) by an empty rjieba given
just those words, at their frequencies and with their tags, plus one filler word (private-use
characters, which no question contains) that brings its total up to the whole dictionary's:
the same words and the same sums give the same cut, HMM included (its model is built into
rjieba, not read from the dictionary).

The words are jieba's own dict.txt, the dictionary jieba-rs compiles into rjieba, kept as a
sorted table in the cache folder. Building the table checks it against the real thing (rjieba
knows every word, and cuts a sample of runs the same way); a table that disagrees is never
written, and without one the whole dictionary is loaded as before.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from wikiq.text.sorted_table import SortedTable, write_sorted_table

# Private use: no dictionary word has it, and a text holding it is left to rjieba, so neither
# the filler word nor the table's key for the frequency total can be found inside a text.
_PRIVATE = "\ue000"
_FILLER = _PRIVATE + "\ue001"
_TOTAL = _PRIVATE + "total"
_TABLE_FORMAT = 3
_COUNTS_FORMAT = 1
_SAMPLE_EVERY = 37  # every 37th word goes into the runs the table is checked on


def _extension() -> ModuleType | None:
    """rjieba's compiled module, loaded without its package's `__init__` (which builds the
    default dictionary). Registered under its own name, so a later `import rjieba` finds it
    and uses it, instead of initialising the extension a second time."""
    module = sys.modules.get("rjieba.rjieba")
    if module is not None:
        return module
    try:
        spec = importlib.util.find_spec("rjieba")
        for folder in list(spec.submodule_search_locations or []) if spec else []:
            for name in sorted(os.listdir(folder)):
                if name.startswith("rjieba.") and name.endswith(_SUFFIXES):
                    return _load_extension(os.path.join(folder, name))
    except (ImportError, OSError):
        pass  # no rjieba, or not this build of it: the tokenizer loads it the usual way
    return None


_SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)


def _load_extension(path: str) -> ModuleType:
    loader = importlib.machinery.ExtensionFileLoader("rjieba.rjieba", path)
    spec = importlib.util.spec_from_loader("rjieba.rjieba", loader)
    if spec is None:
        raise ImportError(path)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules["rjieba.rjieba"] = module
    return module


class HanWords:
    """jieba's dictionary as a table: `cut` and `tag` give what `rjieba.cut` and `rjieba.tag`
    give, for a short text."""

    def __init__(self, table: SortedTable, jieba: Any) -> None:
        self._table = table
        self._jieba = jieba  # rjieba's `Jieba` class
        total = table.get(_TOTAL)
        if total is None or not total.isdigit():
            raise ValueError("the word table has no total")
        self.total = int(total)

    def words_in(self, text: str) -> dict[str, tuple[int, str]]:
        """Every dictionary word inside `text`, with its frequency and tag."""
        found: dict[str, tuple[int, str]] = {}
        for start in range(len(text)):
            for end in range(start + 1, len(text) + 1):
                word = text[start:end]
                value, longer = self._table.lookup(word)
                if value is not None:
                    freq, _, tag = value.partition(" ")
                    found[word] = (int(freq), tag)
                if not longer:
                    break
        return found

    def frequency(self, word: str) -> int:
        """`word`'s count in jieba's dictionary (0 when it is not a dictionary word)."""
        value, _ = self._table.lookup(word)
        return int(value.partition(" ")[0]) if value is not None else 0

    def handles(self, text: str) -> bool:
        """Whether `text` can be cut through the table (the filler word is not in it)."""
        return _PRIVATE not in text

    def _jieba_for(self, text: str) -> Any:
        """An rjieba holding the words of `text` and a filler up to the dictionary's total."""
        return _jieba_of(self._jieba, self.words_in(text), self.total)

    def cut(self, text: str) -> list[str]:
        words: list[str] = self._jieba_for(text).cut(text)
        return words

    def tag(self, text: str, hmm: bool = True) -> list[tuple[str, str]]:
        tags: list[tuple[str, str]] = self._jieba_for(text).tag(text, hmm)
        return tags


def open_han_words(folder: Path, stamp: str) -> HanWords | None:
    """The table in `folder`, or None when it was never built (or rjieba is not installed).
    `stamp` names the tokenizer and segmenter it must agree with (a new rjieba: a new table)."""
    path = _table_path(folder, stamp)
    extension = _extension() if path is not None and path.is_file() else None
    if path is None or extension is None:
        return None
    try:
        return HanWords(SortedTable(path), extension.Jieba)
    except (OSError, ValueError):
        return None


def build_han_words(folder: Path, stamp: str) -> bool:
    """Write the table into `folder` unless it is there; False when it cannot be: jieba's
    dict.txt is not installed, the folder cannot be written, or the table disagrees with
    rjieba. Loads rjieba's whole dictionary to check it: done after reading a vault."""
    path = _table_path(folder, stamp)
    source = _jieba_dictionary()
    if path is None or source is None:
        return False
    if path.is_file():
        return True
    words, total = _read_dictionary(source)
    if not _agrees(words, total):
        return False
    try:
        rows = {w: f"{f} {t}" for w, (f, t) in words.items()}
        write_sorted_table({**rows, _TOTAL: str(total)}, path)
        for old in folder.glob("jieba-words-*"):  # tables of an older tokenizer or dictionary
            if not old.name.startswith(path.stem):
                old.unlink(missing_ok=True)
    except OSError:
        return False
    return True


def _table_path(folder: Path, stamp: str) -> Path | None:
    """The table's file, named after jieba's dict.txt (its size, not its time: environments
    with the same jieba share one table instead of deleting each other's) and `stamp`."""
    source = _jieba_dictionary()
    if source is None:
        return None
    return folder / f"jieba-words-{source.stat().st_size}-{stamp}-v{_TABLE_FORMAT}.tsv"


def _jieba_dictionary() -> Path | None:
    spec = importlib.util.find_spec("jieba")  # found, not imported (jieba loads slowly)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / "dict.txt"
        if path.is_file():
            return path
    return None


@functools.cache
def _dictionary() -> tuple[dict[str, tuple[int, str]], int] | None:
    """jieba's dict.txt read whole (~0.3 s), for a process that has no word table."""
    source = _jieba_dictionary()
    return _read_dictionary(source) if source is not None else None


def word_share(word: str, table: HanWords | None, folder: Path | None = None) -> float | None:
    """How common `word` is in general Chinese: its count in jieba's dictionary (a corpus of
    about 60 million words) over the dictionary's total, 0.0 for a word it does not list. Read
    from the word `table` when there is one, else from a table of the counts alone kept in
    `folder` (written the first time: ~0.6 s, once a machine; the word table is written only
    after reading a big vault), else from the dictionary read whole. None when jieba's
    dictionary is not installed."""
    if table is not None:
        return table.frequency(word) / table.total
    counts = _counts(folder) if folder is not None else None
    if counts is not None:
        value = counts.get(word)
        return int(value) / int(counts[_TOTAL]) if value else 0.0
    read = _dictionary()
    if read is None:
        return None
    words, total = read
    return words.get(word, (0, ""))[0] / total


@functools.cache
def _counts(folder: Path) -> SortedTable | None:
    """The dictionary's counts by word (and their total under `_TOTAL`), from their table in
    `folder`, written from the dictionary when missing; None when it cannot be."""
    source = _jieba_dictionary()
    if source is None:
        return None
    path = folder / f"jieba-counts-{source.stat().st_size}-v{_COUNTS_FORMAT}.tsv"
    table = _open_counts(path)
    read = _dictionary() if table is None else None
    if read is not None:
        words, total = read
        rows = {w: str(f) for w, (f, _) in words.items()}
        with contextlib.suppress(OSError):  # an unwritable cache: the dictionary read whole
            write_sorted_table({**rows, _TOTAL: str(total)}, path)
        table = _open_counts(path)
    return table


def _open_counts(path: Path) -> SortedTable | None:
    """The counts' table at `path` (None when it is missing or damaged)."""
    try:
        table = SortedTable(path)
    except (OSError, ValueError):
        return None
    total = table.get(_TOTAL)
    return table if total is not None and total.isdigit() else None


def tag_apart(word: str, table: HanWords | None) -> list[tuple[str, str]]:
    """The dictionary words `word` comes apart into, tagged, as if jieba did not list `word`
    itself: its dictionary holds rare entries that are phrases tagged as names ("越往后", 越 /
    往后). Read from the word `table` when there is one; [] without jieba's dictionary."""
    if table is not None:
        found, total, jieba = table.words_in(word), table.total, table._jieba
    else:
        read = _dictionary()
        if read is None:
            return []
        words, total = read
        inside = (word[i:j] for i in range(len(word)) for j in range(i + 1, len(word) + 1))
        found = {w: words[w] for w in inside if w in words}
        import rjieba

        jieba = rjieba.Jieba
    found.pop(word, None)
    tags: list[tuple[str, str]] = _jieba_of(jieba, found, total).tag(word, False)
    return tags


def _jieba_of(jieba: Any, found: dict[str, tuple[int, str]], total: int) -> Any:
    """An rjieba holding `found` and a filler up to the dictionary's `total`: it cuts a text
    of those words as the whole dictionary would."""
    rest = total - sum(freq for freq, _ in found.values())
    if rest < 1:
        raise ValueError("the word table's total is below its words")
    cutter = jieba.empty()
    for word, (freq, tag) in found.items():
        cutter.add_word(word, freq, tag)
    cutter.add_word(_FILLER, rest, None)
    return cutter


def _read_dictionary(source: Path) -> tuple[dict[str, tuple[int, str]], int]:
    """dict.txt's words with their frequency and tag, and the total of the frequencies, as
    jieba-rs loads it: a word listed twice keeps its last line."""
    words: dict[str, tuple[int, str]] = {}
    for line in source.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            words[parts[0]] = (int(parts[1]), parts[2] if len(parts) > 2 else "")
    return words, sum(freq for freq, _ in words.values())


# Texts the table must cut and tag as rjieba does before it is written, beside runs of
# dictionary words (which cross word boundaries): mixed scripts, digits, punctuation.
_CHECKS = (
    "知识管理有什么方法",
    "Obsidian 能不能 OCR，B超和AT&T呢？",
    "玄武门之变那天李世民在哪里",
    "GPT-4.5 与 c# 的 3 个区别",
    "the total of 总数 and a total",
)


def _agrees(words: dict[str, tuple[int, str]], total: int) -> bool:
    """rjieba knows every word, and the table cuts and tags sample texts exactly as it does."""
    import rjieba  # loads the whole dictionary: once, when the table is built

    if not all(rjieba.has_word(w) for w in words):
        return False
    hanwords = HanWords(_MemoryTable(words, total), rjieba.Jieba)  # type: ignore[arg-type]
    picked = list(words)[::_SAMPLE_EVERY]
    texts = [*_CHECKS, *("".join(picked[i : i + 4]) for i in range(0, len(picked), 4))]
    return all(
        hanwords.cut(t) == rjieba.cut(t) and hanwords.tag(t) == rjieba.tag(t) for t in texts
    )


class _MemoryTable:
    """The table's lookups over a dict (for the check before it is written)."""

    def __init__(self, words: dict[str, tuple[int, str]], total: int) -> None:
        self._words = words
        self._prefixes = {w[:k] for w in words for k in range(1, len(w))}
        self._total = total

    def get(self, key: str) -> str | None:
        return str(self._total) if key == _TOTAL else None

    def lookup(self, word: str) -> tuple[str | None, bool]:
        found = self._words.get(word)
        value = f"{found[0]} {found[1]}" if found is not None else None
        return value, word in self._prefixes
