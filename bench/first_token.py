"""Time to the model: from a question to the moment the prompt is handed to the chat model.

    python bench/first_token.py ../shared/bench/ob-wiki ../shared/bench/loo/ob-wiki.jsonl

Measures retrieval plus page loading, the hint and prompt assembly — everything wikiq does
before the model can write its first token — in one warm process (indexes built and one
warm-up question first). The model is a stub that records the moment `stream()` is called and
answers at once, so no network or model time is included. Stage 2 (keyword model) is off: the
seed's "≤ 300 ms before the chat model" is for questions that need no model to find pages.
Stage 0 (embeddings) runs when `wikiq index --embed` has built an index for the vault, as it
would for the user; `--no-semantic` measures without it.

Prints p50 / p95 / mean / max in milliseconds (and the retrieval and assembly medians);
`--json` prints them as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from wikiq.config import Config
from wikiq.llm.base import Completion, Message, Usage
from wikiq.retrieve.cascade import Retriever
from wikiq.wiki import Wiki


class _Stream:
    def __init__(self) -> None:
        self.usage = Usage(1, 1)

    def __iter__(self) -> Iterator[str]:
        yield "ok"


class StubModel:
    """A chat model that does nothing but note when it was asked to answer."""

    def __init__(self, context_window: int) -> None:
        self._window = context_window
        self.called_at = 0.0
        self.prompt_chars = 0

    @property
    def name(self) -> str:
        return "stub:first-token"

    @property
    def context_window(self) -> int:
        return self._window

    def complete(self, messages: Sequence[Message], **_: Any) -> Completion:
        return Completion("")

    def stream(self, messages: Sequence[Message], **_: Any) -> _Stream:
        self.called_at = time.perf_counter()
        self.prompt_chars = sum(len(m.content) for m in messages)
        return _Stream()


def load_questions(path: Path, limit: int | None) -> list[str]:
    questions = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            questions.append(str(json.loads(line)["question"]))
    return questions[:limit] if limit else questions


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("questions", type=Path, help="JSON lines with a 'question' field")
    parser.add_argument("--context", type=int, default=32768, help="the stub's context window")
    parser.add_argument("--pages", type=int, default=8, help="pages loaded per answer")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--no-semantic", action="store_true", help="leave Stage 0 out")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    config = Config({"keyword_model": "none", "query_log": False, "pages": args.pages})
    t = time.perf_counter()
    wiki = Wiki.open(args.vault, config=config)
    open_ms = (time.perf_counter() - t) * 1000
    if args.no_semantic:
        wiki._retriever = Retriever(wiki.catalog)  # the cascade without embeddings
    semantic = wiki.retriever.semantic is not None
    model = StubModel(args.context)
    questions = load_questions(args.questions, args.limit)
    if not questions:
        print("no questions", file=sys.stderr)
        return 2

    t = time.perf_counter()
    wiki.ask(questions[0], model=model)  # builds the indexes and warms every lazy table
    warmup_ms = (time.perf_counter() - t) * 1000

    to_model: list[float] = []
    retrieve: list[float] = []
    assemble: list[float] = []
    pure = 0
    for question in questions:
        model.called_at = 0.0
        start = time.perf_counter()
        answer = wiki.ask(question, model=model)
        to_model.append((model.called_at - start) * 1000)
        retrieve.append(answer.timings_ms["retrieve"])
        assemble.append(answer.timings_ms.get("assemble", 0.0))
        pure += answer.pure_llm

    result = {
        "vault": str(args.vault),
        "pages": len(wiki.catalog),
        "questions": len(to_model),
        "pure_llm": pure,
        "open_ms": round(open_ms, 1),
        "warmup_ms": round(warmup_ms, 1),
        "to_model_ms": {
            "p50": round(percentile(to_model, 0.5), 2),
            "p95": round(percentile(to_model, 0.95), 2),
            "mean": round(statistics.fmean(to_model), 2),
            "max": round(max(to_model), 2),
        },
        "median_ms": {
            "retrieve": round(statistics.median(retrieve), 2),
            "assemble": round(statistics.median(assemble), 2),
        },
        "semantic": semantic,
        "context": args.context,
        "pages_per_answer": args.pages,
    }
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return 0
    t2m = result["to_model_ms"]
    print(
        f"{result['vault']}: {result['pages']} pages, {result['questions']} questions "
        f"({pure} pureLLM), {args.pages} pages per answer, {args.context}-token window, "
        f"Stage 0 embeddings {'on' if semantic else 'off'}"
    )
    print(
        f"question → prompt handed to the model: p50 {t2m['p50']} ms, p95 {t2m['p95']} ms, "
        f"mean {t2m['mean']} ms, max {t2m['max']} ms"
    )
    print(
        f"  medians: retrieval {result['median_ms']['retrieve']} ms, "
        f"assembly {result['median_ms']['assemble']} ms (open {result['open_ms']} ms, "
        f"first question {result['warmup_ms']} ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
