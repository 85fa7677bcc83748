"""Answering: a `Retrieval` turned into a grounded, cited, streamed answer (or an honest "not in
your vault"). `Wiki.ask` / `Wiki.ask_stream` are the entry points."""

from wikiq.answer.answerer import Answerer, AnswerSettings
from wikiq.answer.events import AnswerDone, AnswerEvent, AnswerToken, RetrievalDone
from wikiq.answer.result import Answer, Citation, Reference, Turn

__all__ = [
    "Answer",
    "AnswerDone",
    "AnswerEvent",
    "AnswerSettings",
    "AnswerToken",
    "Answerer",
    "Citation",
    "Reference",
    "RetrievalDone",
    "Turn",
]
