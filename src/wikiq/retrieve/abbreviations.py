"""Chinese abbreviations (缩略语) a vault writes in full: 抗战 for 抗日战争, 北大 for 北京大学.

A question often uses the short form of a word its pages spell out. Before a Chinese word of a
question is judged to be on no page (the unknown-name and unknown-noun rules of the coverage
decision), the vault's vocabulary is searched for a longer word that starts with the same
character and holds the others in order with a few characters between them. A word that merely
contains the question's word ("下划线" for "划线", "事后诸葛亮" for "诸葛亮") is not an
expansion: there the vault has the characters for something else. On the dev sets this rescues
抗战 → 抗日战争 and no absent question's word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from wikiq.text.scripts import HAN

# Characters an abbreviation may skip between two it keeps (抗[日]战[争]).
MAX_GAP = 2
_HAN_WORD = re.compile(f"^[{HAN}]{{3,}}$")


class Abbreviations:
    """The vault's longer Chinese words, searched for the full forms of short ones."""

    def __init__(self, vocabulary: Iterable[str]) -> None:
        # By first character (an expansion starts with the word's): searching all of them
        # at once cost ~0.6 ms a word in ob-wiki's vocabulary.
        by_first: dict[str, list[str]] = {}
        for w in vocabulary:
            if _HAN_WORD.match(w):
                by_first.setdefault(w[0], []).append(w)
        self._words = {first: "\n".join(words) for first, words in by_first.items()}

    def expansions(self, word: str) -> list[str]:
        """The vault's words `word` abbreviates (["抗日战争"] for "抗战"), at most a few."""
        words = self._words.get(word[:1], "")
        if len(word) < 2 or not words:
            return []
        gap = f"[^\\n]{{0,{MAX_GAP}}}"
        pattern = re.escape(word[0]) + "".join(gap + re.escape(c) for c in word[1:])
        out = []
        for m in re.finditer(f"^{pattern}[^\\n]*$", words, re.MULTILINE):
            full = m.group(0)
            if word not in full and len(full) <= 2 * len(word) + 1:
                out.append(full)
                if len(out) == 3:
                    break
        return out
