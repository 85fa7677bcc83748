"""`wikiq eval`: recall, all-gold, MRR, abstention and latency over a questions file.

Questions are JSON lines `{"id", "question", "gold": [paths], "kind"?, "exclude"?, "also_ok"?,
"gold_sources"?}`; `gold_sources` (source notes holding the answer) gives `source_recall@5`.
Excluded pages (leave-one-out: the page whose title is the query) are removed before scoring;
`also_ok` pages count as a hit for a single-gold question; a question answered as not covered
(pureLLM) scores 0, since its answer quotes no page.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wikiq.errors import WikiqError
from wikiq.retrieve.result import Retrieval

EVAL_DEPTH = 10  # recall@10 is the deepest metric


@dataclass(frozen=True)
class EvalQuestion:
    id: str
    question: str
    gold: tuple[str, ...]
    kind: str = ""
    exclude: tuple[str, ...] = ()
    also_ok: tuple[str, ...] = ()  # pages that also fully answer a single-gold question
    gold_sources: tuple[str, ...] = ()  # source notes that hold the answer


@dataclass
class QuestionOutcome:
    id: str
    kind: str
    arm: str
    pure_llm: bool
    results: list[str]
    ms: float
    gold: tuple[str, ...] = field(default=(), repr=False)
    covered: str = "yes"
    also_ok: tuple[str, ...] = field(default=(), repr=False)
    sources: list[str] = field(default_factory=list)  # distinct source notes, best first
    gold_sources: tuple[str, ...] = field(default=(), repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "arm": self.arm,
            "covered": self.covered,
            "pure_llm": self.pure_llm,
            "results": self.results,
            "sources": self.sources,
            "ms": round(self.ms, 3),
        }


def load_questions(path: Path) -> list[EvalQuestion]:
    """Read a questions file; a bad line is one clear error naming the line."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise WikiqError(f"Cannot read questions file {path}: {err.strerror or err}.") from None
    try:
        lines = raw.decode("utf-8-sig").splitlines()
    except UnicodeDecodeError as err:
        bad_line = raw[: err.start].count(b"\n") + 1
        raise WikiqError(
            f"{path}:{bad_line} is not UTF-8 text (byte {raw[err.start]:#04x}): save the file as UTF-8."
        ) from None
    out: list[EvalQuestion] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            q = EvalQuestion(
                id=str(data.get("id", number)),
                question=str(data["question"]),
                gold=tuple(str(g) for g in data.get("gold", [])),
                kind=str(data.get("kind") or ""),
                exclude=tuple(str(e) for e in data.get("exclude", [])),
                also_ok=tuple(str(e) for e in data.get("also_ok", [])),
                gold_sources=tuple(str(e) for e in data.get("gold_sources", [])),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            raise WikiqError(
                f'{path}:{number} is not a question line like {{"id": "q1", "question": "…", "gold": ["concepts/x"]}}.'
            ) from None
        out.append(q)
    return out


def run_questions(
    retrieve: Callable[[str, int, frozenset[str]], Retrieval],
    questions: Iterable[EvalQuestion],
    on_progress: Callable[[int], None] | None = None,
) -> list[QuestionOutcome]:
    """Answer every question in this process and record what came back and how long it took."""
    outcomes = []
    for n, q in enumerate(questions, start=1):
        start = time.perf_counter()
        r = retrieve(q.question, EVAL_DEPTH, frozenset(q.exclude))
        ms = (time.perf_counter() - start) * 1000.0
        results = [p.path for p in r.results if p.path not in q.exclude][:EVAL_DEPTH]
        notes = list(dict.fromkeys(x.path for x in r.sources))[:EVAL_DEPTH]
        outcomes.append(
            QuestionOutcome(
                q.id,
                q.kind,
                r.arm,
                r.pure_llm,
                results,
                ms,
                q.gold,
                r.covered,
                q.also_ok,
                notes,
                q.gold_sources,
            )
        )
        if on_progress:
            on_progress(n)
    return outcomes


def summarize(outcomes: list[QuestionOutcome]) -> dict[str, Any]:
    """n, recall@5, recall@10, all_gold@5, mrr, abstain_acc, false_abstain, covered counts,
    p50_ms, p95_ms."""
    answerable = [o for o in outcomes if o.gold]
    uncovered = [o for o in outcomes if not o.gold]

    def recall(o: QuestionOutcome, k: int) -> float:
        # A "not covered" answer quotes no page: it scores 0 whatever the list holds.
        if o.pure_llm:
            return 0.0
        top = set(o.results[:k])
        if len(o.gold) == 1 and o.also_ok:  # any page that fully answers it counts
            return float(bool(top & ({*o.gold, *o.also_ok})))
        return len(top & set(o.gold)) / len(set(o.gold))

    def rr(o: QuestionOutcome) -> float:
        if o.pure_llm:
            return 0.0
        good = {*o.gold, *o.also_ok} if len(o.gold) == 1 else set(o.gold)
        for rank, path in enumerate(o.results, start=1):
            if path in good:
                return 1.0 / rank
        return 0.0

    ms = np.asarray([o.ms for o in outcomes]) if outcomes else np.zeros(1)
    summary: dict[str, Any] = {
        "n": len(outcomes),
        "recall@5": _mean([recall(o, 5) for o in answerable]),
        "recall@10": _mean([recall(o, 10) for o in answerable]),
        "all_gold@5": _mean(
            [float(not o.pure_llm and set(o.gold) <= set(o.results[:5])) for o in answerable]
        ),
        "mrr": _mean([rr(o) for o in answerable]),
        "abstain_acc": _mean([float(o.pure_llm) for o in uncovered]),
        "false_abstain": _mean([float(o.pure_llm) for o in answerable]),
        "covered": {c: sum(o.covered == c for o in outcomes) for c in ("yes", "uncertain", "no")},
        # Note-level: the share of gold notes among the first five distinct notes of `sources`.
        "source_recall@5": _mean(
            [
                len(set(o.sources[:5]) & set(o.gold_sources)) / len(set(o.gold_sources))
                for o in outcomes
                if o.gold_sources
            ]
        ),
        "p50_ms": round(float(np.percentile(ms, 50)), 3),
        "p95_ms": round(float(np.percentile(ms, 95)), 3),
    }
    return summary


def report(outcomes: list[QuestionOutcome]) -> dict[str, Any]:
    """The `eval --json` object of DESIGN.md."""
    kinds = sorted({o.kind for o in outcomes if o.kind})
    return {
        "overall": summarize(outcomes),
        "by_kind": {kind: summarize([o for o in outcomes if o.kind == kind]) for kind in kinds},
        "per_question": [o.to_dict() for o in outcomes],
    }


def _mean(values: list[float]) -> float | None:
    return round(float(np.mean(values)), 4) if values else None
