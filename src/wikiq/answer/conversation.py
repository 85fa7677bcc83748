"""A conversation's history as the interfaces receive it (JSON from a browser or an agent),
read into `Turn`s with one set of limits, so every surface keeps the same amount of history."""

from __future__ import annotations

from typing import Any

from wikiq.answer.result import Turn

# Older turns rarely matter to a follow-up, and each one costs context; the answerer drops
# more when the window is small (`fit_history`).
MAX_HISTORY_TURNS = 10
MAX_TURN_CHARS = 20_000  # of one earlier answer
MAX_QUESTION_CHARS = 4_000


def history_turns(raw: list[Any]) -> list[Turn]:
    """The last `MAX_HISTORY_TURNS` of `[{question, answer}]`, each cut to the limits; an entry
    that is not such an object is skipped."""
    history: list[Turn] = []
    for turn in raw[-MAX_HISTORY_TURNS:]:
        if not isinstance(turn, dict):
            continue
        q, a = turn.get("question"), turn.get("answer")
        if isinstance(q, str) and isinstance(a, str):
            history.append(Turn(q[:MAX_QUESTION_CHARS], a[:MAX_TURN_CHARS]))
    return history
