"""The text Stage 0 embeds for a question: the question without the words that only say how
it is asked.

The local model's time grows with the question's tokens (~0.6 ms a token on two cores, and
a natural question is ~30 of them), while its function words move the vector little: on the
natural dev sets, dropping an English question's stop words, the final "?" and a Chinese
question's closing particle left recall@5 and abstention unchanged on every set and saved
4 tokens a question on average (9 on English help questions, 2 on mostly Chinese ob-wiki;
docs/BENCHMARKS.md, "Speed of the open ranking"). Chinese function words inside a question
are kept: dropping them (的, 了, 什么…) cost recall.
"""

from __future__ import annotations

import re

from wikiq.text.language import detect_language
from wikiq.text.stopwords import ENGLISH, QUESTION_SCAFFOLDING, frozenset_of_words

# Stop words kept: those that turn a question around ("notes without tags"; "can't" and the
# like are kept by their "n't"), and "won", which the list holds as the start of "won't".
KEPT = frozenset_of_words(
    """
    no not nor neither without never dont doesnt didnt isnt arent wasnt werent havent hasnt
    hadnt couldnt wouldnt shouldnt won
    """
)
_DROP_ENGLISH = (ENGLISH | QUESTION_SCAFFOLDING) - KEPT

# A whole word: not part of "built-in", "e.g." or "Sartre's".
_ENGLISH_WORD = re.compile(r"(?<![\w'’.-])[A-Za-z]+(?:['’][A-Za-z]+)?(?![\w'’-])")
_END = re.compile(r"[\s?？!！。.…~～]+$")
_CHINESE_START = re.compile(r"^\s*(?:请问)[，,：:\s]*")
_CHINESE_END = re.compile(r"[吗呢吧啊]+$")
_SPACES = re.compile(r"[ \t]{2,}")
_SPACE_BEFORE_MARK = re.compile(r"[ \t]+(?=[,;:?!])")


def question_text(question: str) -> str:
    """`question` as Stage 0 embeds it; the question itself when nothing would be left."""
    text = _END.sub("", question)
    language = detect_language(text)
    if language == "en":
        text = _ENGLISH_WORD.sub(_keep_english, text)
        text = _SPACE_BEFORE_MARK.sub("", _SPACES.sub(" ", text))
        text = _END.sub("", text.strip())
    elif language == "zh":
        text = _END.sub("", _CHINESE_END.sub("", _CHINESE_START.sub("", text)))
    return text.strip() or question


def _keep_english(match: re.Match[str]) -> str:
    word = match.group(0)
    if len(word) > 1 and word.isupper():  # an acronym that spells a stop word: IT, US, OR
        return word
    lower = word.lower().replace("’", "'")
    if lower.endswith("n't"):  # can't, won't: a negation
        return word
    return "" if lower.split("'")[0] in _DROP_ENGLISH else word
