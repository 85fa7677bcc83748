"""The one coverage decision: does the vault cover this question? yes / uncertain / no.

A question is judged from features that mean the same on every vault (shares and ratios, never
a raw BM25 score, which grows with a vault's size and a question's length), combined by a
logistic regression fitted on covered and uncovered dev questions of five vaults
(`python bench/fit_coverage.py`, which prints the coefficients below and leave-one-vault-out
figures; docs/BENCHMARKS.md has them). The lower threshold is chosen to keep false "not
covered" answers rare; between the two thresholds the answer is given from the pages with a
caveat, and the model is told they may not fully cover the question.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, Literal, cast

from wikiq.retrieve.background import FLOOR_MAX

Covered = Literal["yes", "uncertain", "no"]


@dataclass(frozen=True)
class CoverageFeatures:
    """What the cheap channels say about one question (each in [0, 1])."""

    text_coverage: float  # share of the question's IDF weight found in the best text page
    text_best3: float  # the same, best of the top three text pages
    known: float  # share of the question's IDF weight found anywhere in the vault
    text_gap: float  # how far the best text score stands above the next nine (relative)
    name: float  # best match of a whole title or alias that is not a common word
    # Two rules, not weights (the fit has no embedding index to learn Stage 0 from):
    sem_standout: float  # Stage 0: the best page's lead over its rivals (0 without an index)
    foreign: float  # share of the vault NOT written in the question's language
    # A word the question writes as a name ("DeepSpeed", "ICDs") that no page mentions: a
    # rule below, not a weight, and like the nouns it settles only doubtful questions.
    unknown_names: tuple[str, ...] = ()
    # A name the question asks about that one page mentions in passing: no other page holds
    # it, that page is not titled with it, and it is not among the ten that best match the
    # rest of the question ("Zotero" in the help vault's Credits). Weighed as an unknown name.
    passing_names: tuple[str, ...] = ()
    # The things the question asks about that no page mentions: Chinese common nouns ("番茄"
    # in "有没有自带番茄钟", "签证") and what an English question asks to have built in
    # ("pomodoro" in "a built-in pomodoro timer"). A rule below, not a weight.
    unknown_nouns: tuple[str, ...] = ()
    # The best share of one clause's distinctive words on one page, over the clauses of three
    # words or more (0: not worked out, a question of one clause). Read only for a question
    # the cut alone would refuse (`wants_parts`): a rule below, not a weight.
    best_part: float = 0.0
    # For a question the side-name rule would leave uncertain: the least share, over the
    # unknown names, of the other distinctive words of the clause the name stands in found on
    # one page (1: not worked out). A rule below, not a weight.
    name_context: float = 1.0
    # How many distinct distinctive words the shares above are over (0: not counted): a long
    # question's cut is lower (`model_cut`). A rule's input, not a weight.
    words: float = 0.0

    @property
    def asked_names(self) -> tuple[str, ...]:
        """The names the question asks about that no page mentions, or one only in passing."""
        return self.unknown_names + self.passing_names

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            # Read field by field: `asdict` deep-copies, ~0.1 ms a question for two calls.
            f.name: round(v, 4)
            for f in fields(self)
            if isinstance(v := getattr(self, f.name), float)
        }
        out["unknown_names"] = list(self.unknown_names)
        out["passing_names"] = list(self.passing_names)
        out["unknown_nouns"] = list(self.unknown_nouns)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CoverageFeatures:
        """The features `to_dict` wrote (as `search --json` and bench/fit_coverage.py keep them)."""
        floats = {f.name for f in fields(cls) if f.type == "float"}
        return cls(
            **{k: float(v) for k, v in data.items() if k in floats},
            unknown_names=tuple(data.get("unknown_names", ())),
            passing_names=tuple(data.get("passing_names", ())),
            unknown_nouns=tuple(data.get("unknown_nouns", ())),
        )

    def model_inputs(self) -> dict[str, float]:
        """The features the fitted model weighs (`foreign`, `sem_standout` and the unknown
        names and nouns are rules, not weights)."""
        return {k: getattr(self, k) for k in COEFFICIENTS}


# The rules' inputs worked out only when they could change the decision (`wants_parts`,
# `wants_name_context`): while they are not, each keeps its default, which means so.
NOT_WORKED_OUT: dict[str, float] = {
    f.name: cast(float, f.default)
    for f in fields(CoverageFeatures)
    if f.name in ("best_part", "name_context")
}


# A question in a language that this share of the vault or more is not written in: its words
# cannot show that the vault lacks the answer (the page may say it in the other language),
# so it is never judged "not covered" on text alone.
FOREIGN = 0.9
# The noun rule asks more: most pages are in the question's language. A thing is translated
# more often than a name is, so in a vault that is partly in another language the page may
# call it by its other name (all dev vaults where the rule fires are at 0.2 or below).
NATIVE = 0.5
# A noun no page mentions is evidence only where a vault of this size would be expected to
# use it: its share of general Chinese (jieba's dictionary counts) times the vault's terms must
# reach this. A small vault lacks most rare words whatever it covers ("全价", "分词", "双链" in a
# 74,000-term help vault: 0.02-0.04), while a common word it never uses is telling ("番茄" 0.14,
# "老板" 4.6; in a 2.9-million-term vault nearly every dictionary word reaches it). Over the
# dev, fresh and abstention sets: 0.02 / 0.03 / 0.05 / 0.1 / 0.2 / no rule: false "not covered"
# on the four fresh sets (329 answerable) 15 / 14 / 12 / 12 / 11 / 9 (18 with every noun), their
# absent questions abstained 37 / 37 / 37 / 37 / 35 / 29 of 71 (37), the dev sets' 17 / 17 / 17
# / 16 / 15 / 14 of 31 (18) (docs/BENCHMARKS.md, "How common a missing word is").
NOUN_EXPECTED = 0.05
# A name no page mentions decides "not covered" only below this probability: above it the
# question's words are clearly answered and the name is often a side detail ("…my notes are
# mostly in Mandarin"); the answer is then "uncertain", saying which name no page mentions.
# Higher than the noun rule's cut (COVERED): a name says more about what is asked than a
# common noun. On 116 answerable questions written apart from the dev sets (bench/natural2)
# the rule with no cut made 12 false "not covered" answers; at 0.5 / 0.6 / 0.7 / 0.8: 7 / 8 /
# 8 / 11, while the absent questions it settles were 15 / 16 / 18 / 20 of the dev sets' 31
# (docs/BENCHMARKS.md, "Fresh questions").
NAME_RULE_BELOW = 0.7
# Above that cut, the name is a side detail only if the words of its own clause are answered:
# a page must hold this share of the clause's other distinctive words. "…, or a supported way
# to add giscus or Disqus?" (0), "How do you fuse BM25 keyword scores…" (0.23): the clause
# around the name is what is asked, and no page answers it. Over the dev, fresh and abstention
# sets, a cut of 0.3 / 0.4 / 0.5 / 0.6 abstains on 6 / 8 / 8 / 10 more of their absent
# questions than no cut, and refuses none of their answerable ones (their unknown names stand
# in sentences that do not ask). Measured before that, such names' clauses held 1.0, 1.0,
# 0.67, 0.54, 0.33 and 0.12, and the cut was first kept at 0.5. Leave one vault out chose
# 0.6 or 0.7 for every fold, and since names count only where the question asks, none of the
# 828 answerable questions of the dev and ten unseen sets reaches this step below 1.0, while
# absent ones do at 0-0.75: at 0.6 ScaNN's dev question (0.598) is refused too
# (docs/BENCHMARKS.md, "The clause a name stands in" and "Session 11").
NAME_CONTEXT = 0.6
# A Stage 0 page standing this far above its ten nearest rivals is evidence on its own
# (centred cosine; on the dev sets with a lead index: 0 of 158 uncovered questions reach it,
# 10% of the answerable natural ones and half of the older sets' questions do).
SEM_STANDOUT = 0.04
# A long question that asks several things, one of which a page answers (half its distinctive
# words or so on one page), is covered in part, whatever the other clauses' chatty words dilute:
# "我把合并笔记时的确认提示关掉了，结果手一抖把两篇笔记合错了。这种情况还能救回来吗？那个自动快照
# 默认保留几天？" (the last clause's page holds 0.57 of it; p 0.17). On every dev, fresh and
# abstention set, of the questions the cut alone refused, three answerable ones have such a
# clause (0.54-0.74) and no uncovered one does (their best: 0.36); any cut from 0.4 to 0.5,
# with clauses of two or three words or more, gives the same (docs/BENCHMARKS.md, "A clause a
# page answers").
PART_COVERED = 0.45
PART_MIN_TERMS = 3

# Fitted by `python bench/fit_coverage.py` (logistic regression, L2 0.1, balanced classes)
# on the natural dev questions, bench/abstain and the older dev sets; see docs/BENCHMARKS.md.
# fitted:begin (written by `python bench/fit_coverage.py --write`; do not edit by hand)
INTERCEPT = -4.495
COEFFICIENTS: dict[str, float] = {
    "text_coverage": 1.271,
    "text_best3": 1.209,
    "known": 2.348,
    "text_gap": 4.963,
    "name": 2.508,
}
# Below NOT_COVERED the vault does not cover the question; at COVERED and above it does.
NOT_COVERED = 0.18
COVERED = 0.5
# fitted:end

# A long question (a paragraph of context around what it asks: "上下文长到一张卡的显存根本装不下
# 时，听说有种做法是…") holds many distinctive words no page needs, so its shares run low even
# where a page answers it: its cut is NOT_COVERED × LONG_QUESTION_WORDS / its words. On the
# natural sets (dev and eight fresh, 930 questions) the cut alone refused no absent question
# longer than 14 words, and 4 answerable ones (16-31 words); at 14 and below it refuses both
# (docs/BENCHMARKS.md, "Long questions").
LONG_QUESTION_WORDS = 14


def model_cut(features: CoverageFeatures) -> float:
    """The model's cut for this question: NOT_COVERED, lower for a long question."""
    if features.words <= LONG_QUESTION_WORDS:
        return NOT_COVERED
    return NOT_COVERED * LONG_QUESTION_WORDS / features.words


@dataclass(frozen=True)
class Coverage:
    covered: Covered
    probability: float
    features: CoverageFeatures
    reason: str
    # Not covered below this: NOT_COVERED, or this vault's background (retrieve/background.py)
    floor: float = NOT_COVERED

    def to_dict(self) -> dict[str, Any]:
        return {
            "covered": self.covered,
            "probability": round(self.probability, 4),
            "thresholds": {"not_covered": round(self.floor, 4), "covered": max(COVERED, self.floor)},
            "features": self.features.to_dict(),
            "reason": self.reason,
        }


def coverage_probability(features: CoverageFeatures) -> float:
    """The fitted model's probability that the vault covers the question."""
    z = INTERCEPT + sum(COEFFICIENTS[k] * v for k, v in features.model_inputs().items())
    return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))


def decide_coverage(
    features: CoverageFeatures, floor: Callable[[], float] | float = NOT_COVERED
) -> Coverage:
    """Covered / uncertain / not covered, with the sentence `--explain` and answers show.
    `floor`: not covered below it (NOT_COVERED, or this vault's background, read only for a
    probability that it could change: from NOT_COVERED up to background.FLOOR_MAX)."""
    p = coverage_probability(features)
    ruled = not_covered_by_rule(features, p)
    if ruled is not None:
        return Coverage("no", p, features, ruled)
    if p >= NAME_RULE_BELOW and features.asked_names and features.foreign < FOREIGN:
        if features.name_context < NAME_CONTEXT:
            return Coverage("no", p, features, _unknown_name_reason(features))
        # The words are answered, a name is not: the pages may cover all but that detail.
        return Coverage("uncertain", p, features, _side_name_reason(features))
    kept = _kept_uncertain(features)
    cut = model_cut(features)
    if NOT_COVERED <= p < FLOOR_MAX and kept is None:
        cut = floor() if callable(floor) else floor
    if p >= max(COVERED, cut):
        label: Covered = "yes"
    elif p >= cut:
        label = "uncertain"
    elif kept is not None:
        return Coverage("uncertain", p, features, kept, cut)
    elif p >= NOT_COVERED:  # above the model's cut, below what everyday questions reach here
        return Coverage("no", p, features, _background_reason(features), cut)
    else:
        label = "no"
    return Coverage(label, p, features, _reason(label, features), cut)


def _kept_uncertain(f: CoverageFeatures) -> str | None:
    """Why a question the words leave below the cut is still not refused (None: nothing keeps
    it): Stage 0 found a page close in meaning, it is asked in a language the pages are not
    written in, or one of its clauses a page answers."""
    if f.sem_standout >= SEM_STANDOUT:
        return _SEM_REASON
    if f.foreign >= FOREIGN:
        return _FOREIGN_REASON
    if f.best_part >= PART_COVERED:
        return _part_reason(f)
    return None


def wants_name_context(coverage: Coverage) -> bool:
    """Whether the clause around an unknown name (`name_context`) could change this
    decision: the question is uncertain only because of a name beside answered words."""
    f = coverage.features
    return (
        coverage.covered == "uncertain"
        and bool(f.asked_names)
        and f.foreign < FOREIGN
        and coverage.probability >= NAME_RULE_BELOW
        and f.name_context == NOT_WORKED_OUT["name_context"]
    )


def wants_parts(coverage: Coverage) -> bool:
    """Whether the clauses' own coverage (`best_part`) could change this decision: the
    question is refused by the cut alone, not by a rule, and it was not worked out yet."""
    f = coverage.features
    return (
        coverage.covered == "no"
        and f.best_part == NOT_WORKED_OUT["best_part"]
        and not_covered_by_rule(f, coverage.probability) is None
    )


def not_covered_by_rule(
    features: CoverageFeatures, p: float, covered: float = COVERED
) -> str | None:
    """Why a rule, whatever the cut, judges the question not covered (None when none does);
    `p` is the model's probability and `covered` its upper cut (bench/fit_coverage.py passes
    the ones it is fitting)."""
    if features.asked_names and features.foreign < FOREIGN and p < NAME_RULE_BELOW:
        # The question is about something the vault never names (or names only in passing,
        # away from the rest of the question); in another language the vault may name it
        # differently ("Tibetan" in a vault that writes 藏族).
        return _unknown_name_reason(features)
    if (
        features.unknown_nouns
        and features.foreign < NATIVE
        and p < covered
        and features.sem_standout < SEM_STANDOUT
    ):
        # Not clearly covered, and the thing asked about is on no page. Alone it is weak
        # evidence (a colloquial word is often tagged a noun: "毛病", "路子"), so it only
        # settles questions the words left in doubt.
        return _unknown_noun_reason(features.unknown_nouns)
    return None


_SEM_REASON = "embeddings found a page close in meaning to the question, though few words match"
_FOREIGN_REASON = (
    "the question is in a language most pages are not written in, so their words cannot "
    "show whether the vault covers it"
)


def _background_reason(f: CoverageFeatures) -> str:
    return (
        f"the best page holds {f.text_coverage:.0%} of the question's distinctive words, no more "
        "than everyday questions this vault does not cover find in it"
    )


def _part_reason(f: CoverageFeatures) -> str:
    return (
        f"one part of the question is answered by a page ({f.best_part:.0%} of its distinctive "
        "words), the rest matches little: the pages may cover it only in part"
    )


def _quoted(names: tuple[str, ...]) -> str:
    return ", ".join(f"'{n}'" for n in names[:3])


def _unknown_name_reason(f: CoverageFeatures) -> str:
    if f.unknown_names:
        return f"no page mentions {_quoted(f.unknown_names)}, which the question asks about"
    return (
        f"{_quoted(f.passing_names)}, which the question asks about, is mentioned on one page "
        "only, and that page does not match the rest of the question"
    )


def _side_name_reason(f: CoverageFeatures) -> str:
    if f.unknown_names:
        return f"the pages match the question's words, but none mentions {_quoted(f.unknown_names)}"
    return (
        f"the pages match the question's words, but {_quoted(f.passing_names)} is mentioned "
        "only on one page that does not"
    )


def _unknown_noun_reason(nouns: tuple[str, ...]) -> str:
    return f"no page mentions {_quoted(nouns)}, and the question's other words match little"


def _reason(label: Covered, f: CoverageFeatures) -> str:
    found = f"the best page holds {f.text_coverage:.0%} of the question's distinctive words"
    if f.known < 1.0:
        found += f", the vault {f.known:.0%} of them"
    if label == "yes":
        if f.name >= 0.5 and f.name > f.text_coverage:
            return "the question names a page"
        return found
    if label == "uncertain":
        return found + ": the pages may cover it only in part"
    return found + ": too little to answer from"
