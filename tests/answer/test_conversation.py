"""History from a browser or an agent is read with one set of limits, whatever the surface."""

from __future__ import annotations

from wikiq.answer.conversation import (
    MAX_HISTORY_TURNS,
    MAX_QUESTION_CHARS,
    MAX_TURN_CHARS,
    history_turns,
)
from wikiq.answer.result import Turn


def test_only_the_latest_turns_are_kept_oldest_first() -> None:
    raw = [{"question": f"q{i}", "answer": f"a{i}"} for i in range(MAX_HISTORY_TURNS + 5)]
    turns = history_turns(raw)
    assert len(turns) == MAX_HISTORY_TURNS
    assert turns[0] == Turn("q5", "a5")
    assert turns[-1] == Turn(f"q{MAX_HISTORY_TURNS + 4}", f"a{MAX_HISTORY_TURNS + 4}")


def test_long_turns_are_cut_and_malformed_ones_skipped() -> None:
    raw = [
        {"question": "x" * (MAX_QUESTION_CHARS + 10), "answer": "y" * (MAX_TURN_CHARS + 10)},
        {"question": "no answer"},
        {"question": 3, "answer": "a number is no question"},
        "not a turn",
    ]
    assert history_turns(raw) == [Turn("x" * MAX_QUESTION_CHARS, "y" * MAX_TURN_CHARS)]
