"""Follow-up questions: searched with what they follow when they name nothing, alone otherwise."""

from __future__ import annotations

from wikiq.answer import Turn
from wikiq.answer.follow_up import refers_back, search_text
from wikiq.wiki import Wiki

MOON = "Who was the first person to walk on the Moon?"


def test_short_questions_that_point_back_are_follow_ups() -> None:
    for q in ("When was he born?", "And what mission was it?", "那它呢？", "他是哪一年出生的？", "What about its orbit?"):
        assert refers_back(q), q
    for q in ("What is a Hohmann transfer orbit?", "嫦娥四号在哪里着陆？", "And who was the first human in space?", "Explain how the rocket equation links its mass ratio, exhaust velocity and delta-v for staged rockets"):
        assert not refers_back(q), q


def test_a_chain_of_follow_ups_reaches_back_to_the_question_that_named_the_subject() -> None:
    earlier = ["What is the weather like?", MOON, "When was he born?"]
    assert search_text("And what mission was it?", earlier, names_a_page=False) == f"{MOON} When was he born? And what mission was it?"
    assert search_text("And what mission was it?", earlier, names_a_page=True) is None
    assert search_text("When was he born?", [], names_a_page=False) is None


def test_a_conversation_without_a_model_keeps_its_subject(wiki: Wiki) -> None:
    first = wiki.ask(MOON)
    born = wiki.ask("When was he born?", history=[first.turn()])
    assert born.citations and born.citations[0].path == "entities/neil-armstrong"
    assert any(n.startswith("Searched together with the earlier question(s)") for n in born.notes)
    mission = wiki.ask("And what mission was it?", history=[first.turn(), born.turn()])
    assert {"entities/neil-armstrong", "entities/apollo-11"} <= {c.path for c in mission.citations}


def test_a_follow_up_that_names_a_new_subject_is_searched_alone(wiki: Wiki) -> None:
    first = wiki.ask(MOON)
    other = wiki.ask("What is the Hohmann transfer orbit?", history=[first.turn()])
    assert other.citations[0].path == "concepts/hohmann-transfer-orbit"
    assert not any(n.startswith("Searched together") for n in other.notes)
    assert "entities/neil-armstrong" not in {c.path for c in other.citations}


def test_an_unrelated_earlier_question_does_not_change_a_later_ones_pages(wiki: Wiki) -> None:
    alone = wiki.ask("How does a gravity assist work?")
    after = wiki.ask("How does a gravity assist work?", history=[Turn("谁是王阳明？", "一位哲学家。")])
    assert [c.path for c in after.citations] == [c.path for c in alone.citations]
