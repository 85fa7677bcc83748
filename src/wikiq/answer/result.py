"""What answering returns: the checked answer, its citations and references, and how it was made."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wikiq.llm.base import Usage
from wikiq.retrieve.result import Retrieval


@dataclass(frozen=True)
class Turn:
    """One earlier exchange of a conversation; `answer` is the raw (placeholder) text."""

    question: str
    answer: str


@dataclass(frozen=True)
class Citation:
    """A page the answer cites that was really loaded for it."""

    path: str  # page identity, e.g. entities/neil-armstrong
    title: str
    type: str
    link: str  # as shown: [[wiki/entities/neil-armstrong]]

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "title": self.title, "type": self.type, "link": self.link}


@dataclass(frozen=True)
class Reference:
    """One line of `## References`."""

    path: str
    title: str
    description: str
    link: str  # as shown: [[wiki/entities/neil-armstrong|Neil Armstrong]]

    def to_dict(self) -> dict[str, str]:
        return {
            "path": self.path,
            "title": self.title,
            "description": self.description,
            "link": self.link,
        }


@dataclass
class Answer:
    """A finished answer. `text` is what to show (checked, folder filled in); `raw_text` is the
    placeholder form to keep in history."""

    question: str
    text: str
    arm: str
    pure_llm: bool
    extractive: bool
    citations: list[Citation]
    references: list[Reference]
    flagged: list[str]  # links that were not kept as citations, as the model wrote them
    retrieval: Retrieval
    timings_ms: dict[str, float]
    usage: Usage
    model: str | None
    raw_text: str
    loaded: list[str] = field(default_factory=list)  # page paths given to the model
    notes: list[str] = field(default_factory=list)  # e.g. "2 earlier turns left out"
    budget: dict[str, int] = field(default_factory=dict)
    usage_estimated: bool = False  # the server reported no token counts: wikiq's estimate
    keyword_usage: Usage = field(default_factory=Usage)  # Stage 2's model calls for this answer
    vault: str = ""
    wiki_folder: str = ""

    @property
    def total_tokens(self) -> int:
        """Every token this answer cost: the answer itself and its keyword extraction."""
        return self.usage.total_tokens + self.keyword_usage.total_tokens

    def turn(self) -> Turn:
        """This exchange as history for the next question."""
        return Turn(self.question, self.raw_text)

    def to_dict(self) -> dict[str, Any]:
        """The `wikiq ask --json` object."""
        return {
            "question": self.question,
            "answer": self.text,
            "arm": self.arm,
            "covered": self.retrieval.covered if self.retrieval is not None else "yes",
            "pure_llm": self.pure_llm,
            "extractive": self.extractive,
            "model": self.model,
            "citations": [c.to_dict() for c in self.citations],
            "references": [r.to_dict() for r in self.references],
            "flagged": list(self.flagged),
            "loaded": list(self.loaded),
            "notes": list(self.notes),
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
            "usage": {
                "prompt_tokens": self.usage.prompt_tokens + self.keyword_usage.prompt_tokens,
                "completion_tokens": (
                    self.usage.completion_tokens + self.keyword_usage.completion_tokens
                ),
                "total_tokens": self.total_tokens,
                "estimated": self.usage_estimated,
                "keywords": {
                    "prompt_tokens": self.keyword_usage.prompt_tokens,
                    "completion_tokens": self.keyword_usage.completion_tokens,
                },
            },
            "budget": dict(self.budget),
            "retrieval": self.retrieval.to_dict(self.vault, self.wiki_folder),
            "raw_answer": self.raw_text,
        }
