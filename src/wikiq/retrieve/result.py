"""What retrieval returns: the arm, the seeds and why, the ranked pages and the signals behind them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Arm labels (seed 000): which stage found the entry points into the graph.
ARM_LEX = "Lex+PPR"  # a strong title/alias match, no model needed
ARM_LLM = "LLM+PPR"  # model-extracted keywords found the seeds
ARM_BODY = "Body+PPR"  # page text leads: a question that names no page
ARM_SUBJECT = "Sources+PPR"  # the question names the whole vault's subject: its sources
ARM_SEMANTIC = "Sem+PPR"  # embeddings lead (optional Stage 0)
ARM_PURE_LLM = "LLM+KB"  # not covered: pureLLM, answer from general knowledge
ARM_NOTES = "Src+PPR"  # only a source note outside the wiki answers it (pages still ranked)


@dataclass(frozen=True)
class Seed:
    """An entry point into the link graph and the evidence that chose it."""

    path: str
    stage: str  # "lex", "keywords", "body", "semantic", "subject"
    score: float
    matched: dict[str, str] = field(default_factory=dict)  # question word -> field it matched

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "stage": self.stage,
            "score": round(self.score, 4),
            "matched": self.matched,
        }


@dataclass(frozen=True)
class RankedPage:
    path: str
    title: str
    type: str
    score: float  # relative: the top result is 1.0
    signals: dict[str, float]  # raw signal values: lex, body, ppr, centrality, …

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "type": self.type,
            "score": round(self.score, 4),
            "signals": {k: round(v, 4) for k, v in self.signals.items()},
        }


@dataclass(frozen=True)
class SourceExcerpt:
    """A passage of a source note: `text` is exactly the note's `[start:end]` (characters)."""

    path: str  # vault-relative, no `.md`: `raw/papers/orca_osdi2022`
    title: str
    start: int
    end: int
    score: float  # relative: the best excerpt is 1.0
    text: str
    pages: tuple[str, ...] = ()  # pages that link to the note

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "start": self.start,
            "end": self.end,
            "score": round(self.score, 4),
            "text": self.text,
            "pages": list(self.pages),
        }


@dataclass
class Retrieval:
    """The outcome of `retrieve`: everything `search --json` prints and answering needs."""

    query: str
    arm: str
    pure_llm: bool
    seeds: list[Seed]
    results: list[RankedPage]
    timings_ms: dict[str, float]
    keywords: list[str] = field(default_factory=list)  # from the model, when Stage 2 ran
    reason: str = ""  # one sentence: why this arm (shown by --explain)
    explain: dict[str, Any] = field(default_factory=dict)  # extra detail for --explain
    covered: str = "yes"  # the coverage decision: "yes", "uncertain" or "no" (= pure_llm)
    coverage: dict[str, Any] = field(default_factory=dict)  # its features and probability
    sources: list[SourceExcerpt] = field(default_factory=list)  # source-note excerpts, best first

    def to_dict(self, vault: str = "", wiki_folder: str = "") -> dict[str, Any]:
        """The `search --json` object of DESIGN.md, key for key."""
        return {
            "query": self.query,
            "vault": vault,
            "wiki_folder": wiki_folder,
            "arm": self.arm,
            "covered": self.covered,
            "pure_llm": self.pure_llm,
            "seeds": [s.to_dict() for s in self.seeds],
            "results": [r.to_dict() for r in self.results],
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
            "coverage": self.coverage,
            "sources": [x.to_dict() for x in self.sources],
        }
