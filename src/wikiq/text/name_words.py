"""Words a question writes as names: acronyms and capitalised words, and Chinese proper nouns.

"How does DeepSpeed ZeRO partition…", "does the center implant ICDs?", "Obsidian 能不能 OCR",
"玄武门之变那天李世民…": a name, in a question that is otherwise about the vault's domain, is what
the question is about. When the vault never mentions it, the vault does not cover the
question, however many of the other words it shares (retrieve/coverage.py).

Chinese has no capitals: its names are the words jieba's dictionary tags as person, place,
organisation or other proper nouns. Its common nouns ("番茄钟", "签证") are the things a
question asks about; coverage.py weighs an unknown one more lightly than a name. English has no
tagger here; one English thing is plain all the same: what a question asks the product to have
built in ("a built-in pomodoro timer").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from wikiq.text.scripts import LATIN_EXTRA, all_han, has_han
from wikiq.text.tokenize import tag_apart, tag_words, word_share

# Latin letters and digits only: `\w` would run on into Chinese written right after a name
# ("用vLLM部署" is vLLM, not "vLLM部署").
_WORD = re.compile(rf"[A-Za-z{LATIN_EXTRA}][A-Za-z0-9_{LATIN_EXTRA}]*(?:[-'][A-Za-z0-9_{LATIN_EXTRA}]+)*")
# A capital after these (or at the very start) may only begin a sentence.
_SENTENCE_START = re.compile(r"(^|[.!?:;¿¡。！？：；\"“”'‘’(（\[\n])\s*$")
# jieba's part-of-speech tags for proper nouns: person (nr, nrfg, nrt), place, organisation.
# Not "other proper noun" (nz): jieba gives it to compounds of everyday words ("图片格式",
# "新手机", "长文", "小桌子"), which a page may well say in other words.
_PROPER_TAGS = frozenset({"nr", "nrfg", "nrt", "ns", "nt"})
# "库里" (in the vault) is tagged as the name Curry: one character, or a word the vault knows,
# with 里/上/中… after it is a place *in* something, not a name.
_LOCATIVE = frozenset("里上中内外下")
# …and the two of them that seldom begin a name (上海, 中国, 下关 do begin with the others).
_LOCATIVE_FIRST = frozenset("里内")


# Words written in capitals that are everyday words, not names ("Is it OK to symlink…").
_EVERYDAY_CAPITALS = frozenset({"I", "OK"})


def name_words(question: str) -> list[str]:
    """The words of `question` written as names, in order: an acronym ("ICDs", "BM25"), a word
    with a capital inside ("DeepSpeed", "IVFFlat"), or a capitalised word that does not begin
    a sentence ("Zotero" in "can I hook Zotero up"). "I" and "OK" are not names."""
    out: list[str] = []
    for m in _WORD.finditer(question):
        word = m.group(0)
        if word in _EVERYDAY_CAPITALS or not any(c.isupper() for c in word):
            continue
        if m.start() and question[m.start() - 1].isdigit():
            # Letters after a number: a unit or a part of one token ("4KB", "70B", "1Q84"),
            # whose letters alone are no name the pages would write.
            continue
        inner = any(c.isupper() for c in word[1:])
        if not inner and _SENTENCE_START.search(question[: m.start()]):
            continue
        if "-" in word:  # "PQ-compressed": the name is PQ, "compressed" a word of the sentence
            word = "-".join(p for p in word.split("-") if not (p.isalpha() and p.islower()))
        if word not in out:
            out.append(word)
    return out


def name_phrases(question: str) -> list[str]:
    """Two or more names written one after the other, as one name ("Apple Watch", "Google
    Analytics"): a vault may hold each word ("Apple Notes", a YouTube "watch" link) and never
    the thing."""
    names = set(name_words(question))
    out: list[str] = []
    for m in _NAME_RUN.finditer(question):
        words = [w for w in m.group(0).split() if w in names]
        phrase = " ".join(words)
        if len(words) >= 2 and phrase in m.group(0) and phrase not in out:
            out.append(phrase)
    return out


# Capitalised words separated by spaces only.
_NAME_RUN = re.compile(
    rf"\b[A-Z][A-Za-z0-9_{LATIN_EXTRA}'-]*(?:[ \t]+[A-Z][A-Za-z0-9_{LATIN_EXTRA}'-]*)+"
)


def book_titles(question: str) -> list[str]:
    """The titles a Chinese question writes in 《》 ("《人类简史》里说…"): one name each."""
    return list(dict.fromkeys(t.strip() for t in _BOOK_TITLE.findall(question) if t.strip()))


_BOOK_TITLE = re.compile(r"《([^《》]{1,40})》")


def chinese_names(question: str, known: Callable[[str], bool]) -> list[str]:
    """The proper nouns jieba finds in the Chinese runs of `question` (two characters or
    more), except one character or a word `known` to the vault followed by a locative."""
    if not has_han(question):
        return []
    out: list[str] = []
    before = ""  # the word jieba cut just before this one
    for word, tag in tag_words(question):
        previous, before = before, word
        if tag not in _PROPER_TAGS or len(word) < 2 or not all_han(word):
            continue
        if word[-1] in _LOCATIVE and (len(word) == 2 or known(word[:-1])):
            continue
        # "属性里加什么" cut as 属性 / 里加 (Riga): two characters starting with 里 or 内
        # right after a Chinese word are that word's "in" and a verb, not a name (a real name
        # so placed is lost too, "去里昂": rarer than the cut, seen twice in 40 questions).
        if len(word) == 2 and word[0] in _LOCATIVE_FIRST and previous and all_han(previous):
            continue
        if _joined_across_words(word):
            continue
        if word not in out:
            out.append(word)
    return out


# What the first dictionary word of a real name is not: a preposition, adverb, verb,
# conjunction, particle or locative ("加太累" is 加 / 太 / 累, "由盛转衰" gave 由盛, "于谦是" 于 /
# 谦 / 是, "数据上建索引" 上 / 建).
_NOT_A_NAME_START = frozenset({"p", "d", "v", "c", "u", "f"})


def _joined_across_words(word: str) -> bool:
    """Whether jieba's HMM made this "name" by joining dictionary words across a boundary:
    its dictionary has no such word, and the first of the words it comes apart into is
    grammar, not a name ("昭关" comes apart as 昭 (a name) / 关 and stays a name)."""
    pieces = tag_words(word, hmm=False)
    if len(pieces) <= 1:
        return False
    first = pieces[0][1]
    # Also: a count ("多张卡": 张 / 卡, "two cards"), or grammar inside ("键和值": 键 / 和 / 值,
    # "keys and values").
    return (
        first in _NOT_A_NAME_START
        or first in _COUNTING
        or any(tag in _GRAMMAR_INSIDE for _, tag in pieces[1:])
    )


# A measure word or a numeral: what starts a count, not a name.
_COUNTING = frozenset({"q", "m"})
# Conjunctions, particles and prepositions: no name holds one between its parts.
_GRAMMAR_INSIDE = frozenset({"c", "p", "u", "uj", "ul", "uz", "ug", "uv", "ud"})


def unlisted_nouns(question: str, known: Callable[[str], bool]) -> list[str]:
    """The nouns of `question` that jieba's dictionary does not list and the vault does not
    know: jieba guessed them, and a word no dictionary has is a name in all but its tag
    ("语雀", a note app; "长图", a long image). Not a guess that joins words across a
    boundary ("建图", 建 / 图; "键和值") or ends in a word that is no noun ("全用", 全 / 用: "use
    all of them"), one that took a character from the word before it ("建好图": 好图), nor a
    people named by its place ("羌人": the vault may write 羌族)."""
    before: dict[str, str] = {}  # the word jieba cut just before each word
    previous = ""
    for word, _ in tag_words(question):
        before.setdefault(word, previous)
        if len(word) >= 3 and word[-1] in _LOCATIVE:  # chinese_nouns gives it without
            before.setdefault(word[:-1], previous)
        previous = word
    return [
        word
        for word in chinese_nouns(question, known)
        if word_share(word) == 0.0
        and word[-1] != "人"
        and not _joined_across_words(word)
        and tag_words(word, hmm=False)[-1][1].startswith("n")
        and not _first_character_taken(word, before.get(word, ""))
    ]


def _first_character_taken(word: str, previous: str) -> bool:
    """Whether the word before a guessed one, with the guess's first character, is a word of
    the dictionary: "在建好图之后" is 在建 / 好图, but 建好 ("built") is the word and 图 the noun.
    A guess that took a character from its neighbour is no name."""
    if not previous or not all_han(previous[-1]):
        return False
    return bool(word_share(previous[-1] + word[0]))


def phrase_listed_as_name(word: str) -> bool:
    """Whether jieba's dictionary lists this "name" only rarely and it comes apart, as if the
    dictionary did not list it, into words the first of which is grammar: a phrase its makers
    tagged as a name ("越往后", 3 times in 60 million words: 越 / 往后). Asked only of a name no
    page mentions (reading the counts may load the dictionary, ~0.3 s)."""
    share = word_share(word)
    if share is None or share == 0.0 or share > RARE_ENTRY:
        return False
    pieces = tag_apart(word)
    return len(pieces) > 1 and pieces[0][1] in _NOT_A_NAME_START


# A dictionary entry this rare (about six in jieba's 60 million words) may be a phrase its
# makers tagged as a name; "青苗法" (3) and "津巴" (2) are names and stay so: they start with one.
RARE_ENTRY = 1e-7


# A common noun that ends or starts with one of these is jieba cutting across a word boundary
# ("树能" in "文件树能不能", "版会" in "电脑版会", "时用" in "写回时用"), not a thing the
# question is about. 个, the commonest measure word, starts a count or a size ("分箱个数",
# "翻了个个儿"), not a thing either.
_FUNCTION_CHARS = frozenset("能会要可想让把被给和与或及的了着过在是有就都也还再又只很太最上里中下来去时个")
# Phrases jieba may tag a noun, not things: one and a doubled measure word, "one by one"
# ("一行行加太累了"); a determiner and a measure word ("每档多少钱", "那档", "这招"); a verb,
# 个 and its object ("排个序", "洗个澡").
_NOT_A_THING = re.compile(r"一(.)\1|[每那这哪各某].+|.个.")


# Nouns every question may carry whatever its subject ("写笔记的时候").
_GENERIC_NOUNS = frozenset({"时候", "时间", "问题", "东西", "地方", "方法", "办法", "情况", "方式"})


def chinese_nouns(question: str, known: Callable[[str], bool]) -> list[str]:
    """The common nouns of the Chinese runs of `question` (two characters or more) that the
    vault does not know: "番茄钟" in "有没有自带番茄钟", "签证", "螃蟹". A question in the vault's
    domain that asks about a thing no page mentions is not covered, named or not."""
    if not has_han(question):
        return []
    out: list[str] = []
    for word, tag in tag_words(question):
        if tag != "n" or len(word) < 2 or not all_han(word):
            continue
        # "语雀上的知识库": jieba keeps a locative on an unknown word ("on Yuque"); the thing is
        # the word before it.
        if len(word) >= 3 and word[-1] in _LOCATIVE:
            word = word[:-1]
        if word[0] in _FUNCTION_CHARS or word[-1] in _FUNCTION_CHARS or word in _GENERIC_NOUNS:
            continue
        if _NOT_A_THING.fullmatch(word):
            continue
        if not known(word) and word not in out:
            out.append(word)
    return out


def ends_a_predicate(question: str, word: str) -> bool:
    """Whether `word` (first written) closes its clause or takes an aspect, a final particle or 的:
    what a verb does ("把长 prompt 切块，", "是怎么省钱的", "驱动自带的"), where a noun used as a
    verb's object or a modifier runs on ("投机解码", "划线和想法")."""
    at = question.find(word)
    if at < 0:
        return False
    after = question[at + len(word) : at + len(word) + 1]
    return after == "" or after in _PREDICATE_ENDS


_PREDICATE_ENDS = frozenset("，,。？?！!；;：:、的了着过吗呢吧啊嘛")


# "Does it have a built-in X?": X is the thing asked about. The first word after the marker,
# past articles and words that name no thing; a preposition or a generic head ends the search
# ("a built-in way to merge notes", "anything built in that…": nothing to look for).
_BUILT_IN = re.compile(r"\b(?:built[- ]?in|inbuilt)\s+([^.?!,;:()]*)", re.IGNORECASE)
_PAST = frozenset({"a", "an", "any", "the", "some"})
_NO_THING = frozenset(
    {"way", "ways", "feature", "features", "function", "option", "options", "tool", "tools",
     "support", "app", "anything", "something", "mode", "for", "with", "like", "so", "to",
     "that", "which", "in", "on", "inside", "while", "or", "and", "i", "it", "this", "one"}
)


def built_in_things(question: str) -> list[str]:
    """What an English question asks whether the product has built in: "pomodoro" in "is
    there a built-in pomodoro / focus timer?", "flashcards" in "built-in flashcards with
    spaced repetition", "text-to-speech"; nothing in "a built-in way to…"."""
    out: list[str] = []
    for match in _BUILT_IN.finditer(question):
        for token in match.group(1).split():
            word = _WORD.fullmatch(token.strip("/\"'“”‘’"))
            if word is None:  # "built in 1920", "built in /": no thing named
                break
            low = word.group().lower()
            if low in _PAST:
                continue
            if low not in _NO_THING and word.group() not in out:
                out.append(word.group())
            break
    return out
