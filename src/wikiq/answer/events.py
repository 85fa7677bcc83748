"""What `Wiki.ask_stream` yields, in order: the retrieval, the answer's text as it comes, the answer."""

from __future__ import annotations

from dataclasses import dataclass

from wikiq.answer.result import Answer
from wikiq.retrieve.result import Retrieval


@dataclass(frozen=True)
class RetrievalDone:
    """The pages were chosen (or none were: `retrieval.pure_llm`); the model has not been asked."""

    retrieval: Retrieval


@dataclass(frozen=True)
class AnswerToken:
    """A piece of the answer as shown (checked, real folder name filled in); join them all and
    you get `Answer.text`."""

    text: str


@dataclass(frozen=True)
class AnswerDone:
    answer: Answer


AnswerEvent = RetrievalDone | AnswerToken | AnswerDone
