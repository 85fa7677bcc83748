"""Stage 0 with the question as asked against the question as embedded (embed/question_text.py),
paired in one process.

    .venv/bin/python bench/question_text_speed.py VAULT QUESTIONS.jsonl [--n 60] [--rounds 2]

Each question runs through the cascade twice in a row, once embedding the question as asked and
once as Stage 0 embeds it, in alternating order, with the query cache cleared before each: the
two see the same machine, so the ratio holds on a shared machine whose speed drifts (whole-run
figures, as bench/embed_latency.py gives, move more than this difference). Reports p50 of the
`semantic` stage and of the whole question for both, the paired ratio, and the same over the
pairs in which both embeddings got two engine threads (engine_threads.py: no other task running).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from wikiq.embed import semantic as semantic_module
from wikiq.embed.semantic import SemanticSearch, catalog_index_path
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.evaluate import load_questions
from wikiq.wiki import Wiki

AS_EMBEDDED = semantic_module.question_text


def as_asked(question: str) -> str:
    return question


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    wiki = Wiki.open(args.vault)
    questions = [q.question for q in load_questions(args.questions)][: args.n]
    base = Retriever(wiki.catalog)
    base.indexes  # noqa: B018 - built before timing
    sem = SemanticSearch(wiki.catalog, catalog_index_path(wiki.location, wiki.catalog))
    retriever = base.with_sources(semantic=sem)
    if sem.load() is None:
        raise SystemExit(f"no usable index: {sem.problem}")
    retriever.retrieve(questions[0])  # loads the model
    chosen = [0]  # engine threads the last embedding got (local model only)
    threads = getattr(sem.embedder, "_threads", None)
    if threads is not None:
        choose = threads.set_for_one_text

        def recording() -> int:
            chosen[0] = choose()
            return chosen[0]

        threads.set_for_one_text = recording

    pairs: list[dict[str, tuple[int, float, float]]] = []
    for round_ in range(args.rounds):
        for i, question in enumerate(questions[1:]):
            order = ("asked", "embedded") if (i + round_) % 2 else ("embedded", "asked")
            pair = {}
            for name in order:
                semantic_module.question_text = AS_EMBEDDED if name == "embedded" else as_asked
                sem._queries.clear()
                timings = retriever.retrieve(question).timings_ms
                pair[name] = (chosen[0], timings.get("semantic", 0.0), timings["total"])
            pairs.append(pair)
    semantic_module.question_text = AS_EMBEDDED

    out = {
        "vault": str(args.vault),
        "all": summary(pairs),
        "two_threads": summary([p for p in pairs if p["asked"][0] == p["embedded"][0] == 2]),
        "loadavg": Path("/proc/loadavg").read_text().split()[:4],
    }
    print(json.dumps(out, indent=2))


def summary(pairs: list[dict[str, tuple[int, float, float]]]) -> dict[str, Any] | None:
    if not pairs:
        return None

    def p50(name: str, field: int) -> float:
        return round(statistics.median(p[name][field] for p in pairs), 2)

    return {
        "pairs": len(pairs),
        "stage0_ms_p50": {"asked": p50("asked", 1), "embedded": p50("embedded", 1)},
        "total_ms_p50": {"asked": p50("asked", 2), "embedded": p50("embedded", 2)},
        "stage0_ratio": round(p50("embedded", 1) / p50("asked", 1), 3),
        "total_ratio": round(p50("embedded", 2) / p50("asked", 2), 3),
    }


if __name__ == "__main__":
    main()
