"""The coverage decision's thresholds, pinned by what a user of the demo vault sees.

Each question sits near a threshold of `retrieve/coverage.py`: moving NOT_COVERED or COVERED
(or the fitted weights) far enough to change one of these answers fails here, so a refit that
changes what users are told is a decision, not an accident. The probabilities are in the
comments (2026-12-03); `python bench/fit_coverage.py` is where the thresholds come from.
"""

from __future__ import annotations

import pytest

from tests.conftest import DEMO_VAULT
from wikiq.retrieve.coverage import COVERED, NOT_COVERED
from wikiq.wiki import Wiki


@pytest.fixture(scope="module")
def demo() -> Wiki:
    return Wiki.open(DEMO_VAULT)


def test_an_off_topic_question_just_below_the_cut_is_not_covered(demo: Wiki) -> None:
    # p ≈ 0.17: "flat", "fix" and "tyre" match a page or two of a space wiki, a little.
    asked = demo.search("How do I fix a flat bicycle tyre?")
    assert asked.covered == "no" and asked.pure_llm
    assert asked.coverage["probability"] < NOT_COVERED


def test_a_question_the_pages_answer_in_part_gets_the_caveat_not_a_refusal(demo: Wiki) -> None:
    # p ≈ 0.45: the Queqiao relay satellite has its page, but what it is for is said in
    # words the question does not use.
    asked = demo.search("鹊桥中继星有什么作用？")
    assert asked.covered == "uncertain" and not asked.pure_llm
    assert NOT_COVERED <= asked.coverage["probability"] < COVERED


def test_a_question_the_pages_answer_is_covered(demo: Wiki) -> None:
    # p ≈ 0.70 and 0.79: the Apollo 11 and Yuri Gagarin pages answer them, unnamed.
    for question in (
        "How did Apollo astronauts train for the landing?",
        "Who was the first human in space?",
    ):
        asked = demo.search(question)
        assert asked.covered == "yes", question
        assert asked.coverage["probability"] >= COVERED
