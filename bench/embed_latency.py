"""What Stage 0 adds to a query's latency, warm, on one vault (and what the first query costs).

    .venv/bin/python bench/embed_latency.py VAULT QUESTIONS.jsonl [--n 200] [--json OUT]

Runs every question through the cascade with the vault's embedding index attached and reports
the `semantic` stage time (embedding the question plus the brute-force search) as p50/p95 over
all questions (0 for a question whose words clearly cover it: the cascade skips Stage 0 there)
and over the questions that ran it; the model's time and the vector search are also timed
apart for every question; the first question (loading the index and the model)
is reported apart. The question is embedded as Stage 0 embeds it (embed/question_text.py);
`question_tokens` counts what the model reads, as asked and as embedded. Run it on an
otherwise idle machine: the model's threads share the cores.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from wikiq.embed.question_text import question_text
from wikiq.embed.semantic import SemanticSearch, catalog_index_path
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.evaluate import load_questions
from wikiq.wiki import Wiki


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    wiki = Wiki.open(args.vault)
    questions = [q.question for q in load_questions(args.questions)][: args.n]
    path = catalog_index_path(wiki.location, wiki.catalog)
    base = Retriever(wiki.catalog)
    base.indexes  # noqa: B018 - the lexical indexes are not what is measured
    sem = SemanticSearch(wiki.catalog, path, auto_refresh=0)
    retriever = base.with_sources(semantic=sem)

    t = time.perf_counter()
    vectors = sem.load()
    load_ms = (time.perf_counter() - t) * 1000
    if vectors is None:
        raise SystemExit(f"no usable index at {path}: {sem.problem}")
    t = time.perf_counter()
    retriever.retrieve(questions[0])
    first_ms = (time.perf_counter() - t) * 1000

    stage, ran, embed, search, total, total_without = [], [], [], [], [], []
    assert sem.embedder is not None
    # Three passes, so that each measures questions as a server meets them (the model, when it
    # runs, leaves the caches cold for what follows) and none inherits another's warm caches.
    for q in questions[1:]:  # the model and the vector search, on every question
        t = time.perf_counter()
        qv = sem.embedder.embed_queries([question_text(q)])[0]
        embed.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        vectors.search(qv, 60)
        search.append((time.perf_counter() - t) * 1000)
    for q in questions[1:]:  # warm-up: what each retriever loads on first need (glossary...)
        retriever.retrieve(q)
        base.retrieve(q)
    for q in questions[1:]:  # the cascade with Stage 0, where the question asks for it
        sem._queries.clear()  # warm model and index, but every question embedded afresh
        r = retriever.retrieve(q)
        stage.append(r.timings_ms.get("semantic", 0.0))  # 0 when the question skipped it
        if "semantic" in r.timings_ms:
            ran.append(r.timings_ms["semantic"])
        total.append(r.timings_ms.get("total", 0.0))
    for q in questions[1:]:  # the cascade without Stage 0
        total_without.append(base.retrieve(q).timings_ms.get("total", 0.0))

    count = getattr(sem.embedder, "token_count", None)  # the local model only
    tokens = (
        {
            "asked_p50": float(np.median([count(q, query=True) for q in questions[1:]])),
            "embedded_p50": float(
                np.median([count(question_text(q), query=True) for q in questions[1:]])
            ),
        }
        if count is not None
        else None
    )

    def pct(values: list[float]) -> dict[str, float]:
        return {
            "p50": round(float(np.percentile(values, 50)), 2),
            "p95": round(float(np.percentile(values, 95)), 2),
        }

    out = {
        "vault": str(args.vault),
        "pages": len(wiki.catalog),
        "vectors": len(vectors.matrix),
        "questions": len(questions) - 1,
        "index_and_model_load_ms": round(load_ms, 1),
        "first_query_ms": round(first_ms, 1),
        "question_tokens": tokens,
        "stage0_ms": pct(stage),
        "stage0_ran": len(ran),  # questions whose words left doubt (Retriever._wants_semantic)
        "stage0_ms_when_run": pct(ran) if ran else None,
        "embed_question_ms": pct(embed),
        "vector_search_ms": pct(search),
        "query_total_ms_with": pct(total),
        "query_total_ms_without": pct(total_without),
    }
    print(json.dumps(out, indent=2))
    if args.json:
        with open(args.json, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
