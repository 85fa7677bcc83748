"""The large-vault cuts of the cascade, on and off, in one process over the same indexes.

    WIKIQ_CACHE_DIR=/tmp/wikiq-scale/cache-1000000 \
        python bench/cascade_ab.py /tmp/wikiq-scale/v1000000 /tmp/wikiq-scale/v1000000/questions.jsonl 200

"Off" scores every posting of a question's terms (no MaxScore pruning, body.PRUNE_FROM), runs
every push round of the graph walk over the whole vault (ppr.SPARSE_ROUND) and picks the walk's
best pages by sorting the whole vault, as before 2026-12-03. Three passes, the modes alternating
so that the machine's drift falls on both; per question the median of its three times; printed:
p50/p95 and each stage's median per mode, whether both modes ranked the same pages (they must),
and the six questions the cuts slowed most, stage by stage.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import wikiq.retrieve.body as body
import wikiq.retrieve.cascade as cascade
import wikiq.retrieve.ppr as ppr
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.evaluate import load_questions
from wikiq.vault.catalog import open_catalog
from wikiq.vault.locate import locate_vault

ON = {"prune_from": body.PRUNE_FROM, "sparse_round": ppr.SPARSE_ROUND}
BEST_REACHED = cascade.best_reached


def _sort_whole_vault(visits: np.ndarray, n: int) -> np.ndarray:
    k = min(n, int(np.count_nonzero(visits)))
    return np.argsort(-visits, kind="stable")[:k]


def set_mode(on: bool) -> None:
    body.PRUNE_FROM = ON["prune_from"] if on else 10**15
    ppr.SPARSE_ROUND = ON["sparse_round"] if on else 10**15
    cascade.best_reached = BEST_REACHED if on else _sort_whole_vault


def main() -> None:
    vault, questions_file, n = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    cache = os.environ.get("WIKIQ_CACHE_DIR")
    t = time.perf_counter()
    catalog = open_catalog(locate_vault(vault), cache_dir=Path(cache) if cache else None)
    retriever = Retriever(catalog)
    retriever.indexes  # noqa: B018 - loaded or built before timing
    print(f"open + indexes {time.perf_counter() - t:.1f} s", flush=True)
    questions = [q.question for q in load_questions(questions_file)][:n]
    for q in questions[:5]:
        retriever.retrieve(q)
    totals: dict[bool, dict[int, list[float]]] = {True: {}, False: {}}
    stages: dict[bool, dict[int, list[dict[str, float]]]] = {True: {}, False: {}}
    ranked: dict[bool, list[list[str]]] = {True: [], False: []}
    for rep in range(3):
        for on in (True, False) if rep % 2 == 0 else (False, True):
            set_mode(on)
            for i, q in enumerate(questions):
                out = retriever.retrieve(q)
                totals[on].setdefault(i, []).append(out.timings_ms["total"])
                stages[on].setdefault(i, []).append(dict(out.timings_ms))
                if rep == 0:
                    ranked[on].append([r.path for r in out.results])
    same = sum(a == b for a, b in zip(ranked[True], ranked[False], strict=True))
    print(f"same ranking in both modes: {same} of {len(questions)}")
    median = {on: {i: statistics.median(v) for i, v in totals[on].items()} for on in totals}

    def stage_medians(on: bool, i: int | None = None) -> dict[str, float]:
        rows = [r for k, rs in stages[on].items() if i is None or k == i for r in rs]
        names = sorted({k for r in rows for k in r})
        return {k: round(statistics.median(r.get(k, 0.0) for r in rows), 2) for k in names}

    for on in (False, True):
        per_q = list(median[on].values())
        print(
            f"{'on ' if on else 'off'} p50 {np.percentile(per_q, 50):.1f} ms, "
            f"p95 {np.percentile(per_q, 95):.1f} ms; stages {stage_medians(on)}"
        )
    for i in sorted(median[False], key=lambda i: median[False][i] - median[True][i])[:6]:
        print(f"q{i} off {median[False][i]:.1f} on {median[True][i]:.1f} ms: {questions[i][:60]}")
        print(f"   off {stage_medians(False, i)}\n   on  {stage_medians(True, i)}")


if __name__ == "__main__":
    main()
