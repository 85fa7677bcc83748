"""Function words that carry no topic: dropped from matching tokens, used to guess language.

The lists are deliberately compact. A stop-word list only has to remove the words that would
otherwise match nearly every page (articles, pronouns, auxiliaries, question words); anything
rarer is left to the ranking's IDF weighting.
"""

from __future__ import annotations

import re


def frozenset_of_words(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text` (lets word lists be written as prose)."""
    return frozenset(text.split())


ENGLISH = frozenset_of_words(
    """
    a about above after again against all also am an and any are as at
    be because been before being below between both but by
    can could did do does doing done down during each either else ever every
    few for from further had has have having he her here hers herself him himself his how
    however i if in into is it its itself just let me more most much must my myself
    neither no nor not now of off on once only or other others our ours ourselves out over own
    per please same shall she should so some such tell than that the their theirs them
    themselves then there these they this those through thus to too under until up upon us
    very via was we were what whatever when whenever where whether which while who whom whose
    why will with within without would yet you your yours yourself yourselves
    may might many ll re ve don doesn didn isn aren wasn weren haven hasn hadn won wouldn
    shouldn couldn etc vs eg ie
    whats hows whys wheres whos thats theres heres im ive youre dont doesnt didnt isnt arent
    wasnt werent havent hasnt hadnt couldnt wouldnt shouldnt
    """
)

# Chinese function words and question fillers. Single characters are listed too: they matter
# when a one-character run stands alone ("InterVL和Janus" → "和") and when spotting runs of
# unknown characters (a name like 邵弁 next to 是/的 must not absorb them).
CHINESE = frozenset_of_words(
    """
    的 地 得 了 着 过 是 在 和 与 及 或 也 都 就 而 且 并 之 于 对 把 被 给 从 到 以 为 让 则 即
    所 其 这 那 哪 谁 几 吗 呢 吧 啊 呀 嘛 哦 么 请 能 会 要 有 不 没 还 又 很 更 最 太 个 等 些
    因为 所以 但是 但 如果 那么 这个 那个 这些 那些 这样 那样 这里 那里 这种 那种 其中 以及
    还是 就是 或者 而且 并且 然后 关于 对于 一个 一些 一种 一下 我 你 您 他 她 它 我们 你们
    他们 她们 它们 自己 什么 怎么 怎样 怎么样 如何 为什么 为何 哪些 哪个 哪里 哪儿 多少 是否
    有没有 没有 可以 可能 能否 应该 请问 告诉 介绍 解释 一下子
    """
)

# Words a Chinese question wraps its subject in ("邵弁的资料", "X 的详细信息", "X 的具体情况"):
# they ask for *something about* the subject and name nothing in the vault. Stripped from a
# question that names no page (a page may be titled with one: "个人信息"), never from pages.
QUESTION_FILLERS = frozenset_of_words(
    """
    资料 信息 内容 情况 简介 概述 概况 详细 具体 详情 讲讲 说说 讲解 聊聊 知识点
    详细信息 详细资料 详细情况 具体情况 具体内容 相关资料 相关信息 相关内容 基本情况
    基本信息 主要内容 相关 主要
    """
)

JAPANESE = frozenset_of_words(
    """
    これ それ あれ どれ この その あの どの ここ そこ どこ です ます でした ました する した
    して ある いる なる こと もの なに なん 何 いつ だれ 誰 どう どうして なぜ どんな ですか
    """
)

KOREAN = frozenset_of_words(
    """
    그 이 저 것 수 등 및 또는 그리고 하지만 그러나 그래서 무엇 무엇인가요 무엇입니까 뭐야
    뭔가요 어떻게 어떤 왜 누구 언제 어디 있다 있는 없는 하는 한다 이다 입니다 대해 대한 위한
    """
)

CJK: frozenset[str] = CHINESE | JAPANESE | KOREAN

# Enough of each language's most frequent words to tell Latin-script languages apart.
FRENCH = frozenset_of_words(
    """
    le la les un une des du de et est sont que qui quoi quel quelle quels quelles dans pour
    avec sur par pas ne ce cette ces il elle ils elles nous vous je au aux ou où comment
    pourquoi qu être avoir été son sa ses leur leurs mais plus très aussi
    """
)

GERMAN = frozenset_of_words(
    """
    der die das den dem des ein eine einen einem einer und ist sind war was wer wie wo warum
    welche welcher welches nicht mit für auf im in zu zum zur von vom bei aus ich du er sie es
    wir ihr auch oder aber dass wird werden kann können hat haben sich über noch nur
    """
)

SPANISH = frozenset_of_words(
    """
    el la los las un una unos unas de del y es son que qué quién cuál cuáles cómo dónde por
    para con sin en no se su sus lo al como más pero este esta estos estas está están ser
    muy también ya porque cuando
    """
)

PORTUGUESE = frozenset_of_words(
    """
    o a os as um uma uns umas de do da dos das e é são que quem qual quais como onde por
    para com sem em no na nos nas não se seu sua seus suas ao à mais mas este esta isso
    isto está estão ser muito também já porque quando
    """
)

ITALIAN = frozenset_of_words(
    """
    il lo la i gli le un uno una di del della dei delle e è sono che chi cosa cos quale
    quali come dove perché per con su in nel nella non si suo sua suoi al alla più ma
    questo questa anche molto già quando essere
    """
)


# Question scaffolding: words that say how something is asked, not what about ("is there a
# way to…", "有没有办法", "这种东西叫什么"). Dropped from the question's terms for ranking
# and for the coverage decision, never from pages (a page may well be about "ways").
QUESTION_SCAFFOLDING = frozenset_of_words(
    """
    way ways thing things kind sort someone somebody something anything actually exactly
    possible want wants need needs know
    办法 东西 叫做 不能 能不能 一回事 有没有 这篇 那篇 到底 究竟 是不是 想要 想知道
    """
)


# Where a question that asks two things is cut: sentence ends, semicolons, and a comma or
# "and" before a new question word ("…, and how do I…", "…？还能…", "…，另外…").
_PARTS = re.compile(
    r"[?？!！。;；]+|[,，]\s*(?=and\b|but\b|also\b|还|另外|以及|并且|而且|同时|那)"
    r"|\band\s+(?=how|what|which|where|when|why|who|can|is|are|do|does)\b",
    re.IGNORECASE,
)


def question_parts(question: str) -> list[str]:
    """The parts of a question that asks several things, in order (one part if it asks one)."""
    return [p.strip() for p in _PARTS.split(question) if p and p.strip()]


# Finer: every clause, cut at any punctuation between phrases, a spaced dash, and "and",
# "but", "or" (what the coverage decision reads clause by clause, retrieve/coverage.py).
_CLAUSES = re.compile(
    r"[?？!！。;；,，:：、—–()（）“”\"]+|\s-\s|\b(?:and|but|or)\b", re.IGNORECASE
)


def question_clauses(question: str) -> list[str]:
    """The clauses of a question, in order ("我把…关掉了，结果…合错了。…保留几天？": three)."""
    return [c.strip() for c in _CLAUSES.split(question) if c and c.strip()]


# A sentence ends after 。？！?! or after a full stop before a capital ("e.g. x" runs on).
_SENTENCE_ENDS = re.compile(r"(?<=[?？!！。])|(?<=\.)(?=\s+[A-Z])")


def asking_sentences(question: str) -> list[str]:
    """The sentences that ask (end in a question mark); the whole question if none does
    ("My notes are in Mandarin. Does the plugin work for Chinese?": the second)."""
    sentences = _sentences(question)
    return [s for s in sentences if _asks(s)] or [question]


# A question that starts by pointing back ("这个观点…", "他…", "It…") asks about the sentence
# before it.
_POINTS_BACK = re.compile(
    r"^(?:这|那|此|该|它|他|她|其|(?:this|that|these|those|it|he|she|they)\b)", re.IGNORECASE
)


# "…present straight from a note instead of building a PowerPoint", "不想换整套皮肤，只想…":
# what follows says what the asker does not want, up to the next comma, conjunction or
# sentence end. Not "要不要" ("whether to"), which asks; not "而不是", whose object runs on
# into the clause that asks ("按意思相近而不是按键值相等把两张表连起来").
_NOT_WANTED = re.compile(
    r"\b(?:instead of|rather than)\b[^,;:.?!]*?(?=\s+(?:and|or|but|so)\b|[,;:.?!]|$)"
    r"|(?:不想|(?<!要)不要|不用)[^，,。？?！!；;：:]*",
    re.IGNORECASE,
)


def without_unwanted(text: str) -> str:
    """`text` without what it says the asker does not want (see _NOT_WANTED)."""
    return _NOT_WANTED.sub(" ", text)


# "我是研究生，想买…", "作为新手，…": a clause that opens with who the asker is sets the
# scene; a thing it names ("研究生") is not what the question looks for. Only at a clause's
# start ("VS Code 里我是按住某个键…", "作为世界本体的意志" say something else), and not "我是想
# 问…", which asks.
_ABOUT_THE_ASKER = re.compile(
    r"(?:^|(?<=[，,。？?！!；;：:\s]))(?:我们?是|作为)(?!想|说|问|要|觉得|不是)[^，,。？?！!；;：:]*"
)


def without_the_asker(text: str) -> str:
    """`text` without the clauses in which the asker says who they are (_ABOUT_THE_ASKER)."""
    return _ABOUT_THE_ASKER.sub(" ", text)


def asked_about(question: str) -> list[str]:
    """The sentences that ask, each with the statement before it when it points back to it
    ("…说智人胜过了尼安德特人。这个观点他是怎么论证的？": both); the whole question if none asks.
    What a sentence says is not wanted ("instead of building a PowerPoint") is left out."""
    sentences = _sentences(question)
    kept = [
        s
        for i, s in enumerate(sentences)
        if _asks(s)
        or (i + 1 < len(sentences) and _asks(sentences[i + 1]) and _POINTS_BACK.match(sentences[i + 1]))
    ]
    return [without_unwanted(s) for s in kept] or [question]


# A Chinese term glossed in English in brackets ("投机解码（speculative decoding）", "局部敏感
# 哈希（LSH）"): the asker names a term of art in both languages, and that is what the question
# is about, even in a sentence that only sets the scene.
_GLOSSED = re.compile(r"[\u4e00-\u9fff]\s*[（(]\s*[A-Za-z][A-Za-z .\-]*[）)]")


def glossing_sentences(question: str) -> list[str]:
    """The sentences that gloss a Chinese term in English (see _GLOSSED)."""
    return [s for s in _sentences(question) if _GLOSSED.search(s)]


def _sentences(question: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_ENDS.split(question) if s.strip()]


def _asks(sentence: str) -> bool:
    return sentence.endswith(("?", "？"))


def content_terms(terms: list[str]) -> list[str]:
    """The question's terms without its scaffolding; all of them if nothing else is left."""
    kept = [t for t in terms if t not in QUESTION_SCAFFOLDING]
    return kept or terms
