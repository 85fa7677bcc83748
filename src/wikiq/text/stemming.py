"""A light, conservative English stemmer: plurals, possessives, -ed and -ing.

It follows steps 1a, 1b and 5a of Porter's algorithm, with the S-stemmer's `-ies` → `-y` so
`galaxies` and `galaxy` meet at a readable word. Step 5a (drop a final `e`) is what makes
`cause`, `causes` and `caused` meet at `caus`. Derivational suffixes (-ation, -ness, ...)
are left alone: over-stemming merges unrelated words and costs more precision than it gains.
Known miss: `-ie` nouns (`movie` → `movi`, `movies` → `movy`).
"""

from __future__ import annotations

import re

from wikiq.text.stopwords import frozenset_of_words

_ASCII_WORD = re.compile(r"[a-z]+")
_VOWEL = re.compile(r"[aeiou]|(?<=[^aeiou])y")
# Words that look inflected but are not, or whose naive stem collides with another word.
_KEEP = frozenset_of_words(
    """
    series species news physics mathematics economics politics ethics statistics always
    perhaps whereas thus bias gas lens atlas canvas chaos cosmos ethos pathos
    during hundred sacred naked wicked nothing something anything everything beijing nanjing
    """
)
_DOUBLE_KEEP = frozenset("lsz")


def _has_vowel(s: str) -> bool:
    return _VOWEL.search(s) is not None


def _measure(s: str) -> int:
    """Porter's m: the number of vowel→consonant transitions in `s`."""
    m = 0
    prev_vowel = False
    for i, ch in enumerate(s):
        vowel = ch in "aeiou" or (ch == "y" and i > 0 and s[i - 1] not in "aeiou")
        if prev_vowel and not vowel:
            m += 1
        prev_vowel = vowel
    return m


def _ends_cvc(s: str) -> bool:
    """Consonant-vowel-consonant ending, last consonant not w/x/y (`hop`, `bas`)."""
    if len(s) < 3:
        return False
    c1, v, c2 = s[-3], s[-2], s[-1]
    return c1 not in "aeiou" and v in "aeiouy" and c2 not in "aeiouwxy"


def _fix_stem(s: str) -> str:
    """Porter 1b repairs after removing -ed/-ing: creat→create, stopp→stop, bas→base."""
    if s.endswith(("at", "bl", "iz")):
        return s + "e"
    if len(s) >= 2 and s[-1] == s[-2] and s[-1] not in "aeiou" and s[-1] not in _DOUBLE_KEEP:
        return s[:-1]
    if _measure(s) == 1 and _ends_cvc(s):
        return s + "e"
    return s


def _strip_plural(w: str) -> str:
    if len(w) < 4:  # gas, yes, bus
        return w
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith("ies"):
        return w if w.endswith(("eies", "aies")) or len(w) <= 4 else w[:-3] + "y"
    if w.endswith(("xes", "ches", "shes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _strip_verbal(w: str) -> str:
    if w.endswith("eed"):  # agreed → agree, but need and speed stay
        return w[:-1] if _measure(w[:-3]) > 0 else w
    if w.endswith("ied") and len(w) > 4:
        return w[:-3] + "y"
    for suffix in ("ed", "ing"):
        if w.endswith(suffix):
            base = w[: -len(suffix)]
            # The stem must keep a vowel: bed, sing, thing and string are not inflected.
            return _fix_stem(base) if _has_vowel(base) else w
    return w


def _drop_final_e(w: str) -> str:
    """Porter 5a: `create`→`creat`, `cause`→`caus`, but `base` and `hope` keep theirs."""
    if not w.endswith("e") or len(w) < 3:
        return w
    base = w[:-1]
    m = _measure(base)
    return base if m > 1 or (m == 1 and not _ends_cvc(base)) else w


def stem(token: str) -> str:
    """Fold English inflections: `missions`→`mission`, `galaxies`→`galaxy`, `landed`→`land`.

    Stems are match keys, not words: `created` → `creat`.

    Tokens that are not plain lowercase ASCII words (CJK, digits, accented words) are
    returned unchanged, as are one- and two-letter words.
    """
    if token.endswith(("'s", "’s")):
        token = token[:-2]
    if len(token) <= 2 or token in _KEEP or _ASCII_WORD.fullmatch(token) is None:
        return token
    singular = _strip_plural(token)
    if singular in _KEEP:
        return singular
    return _drop_final_e(_strip_verbal(singular))
