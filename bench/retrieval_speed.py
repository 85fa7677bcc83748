"""Warm retrieval latency of the whole cascade, and our PPR against networkx's, in one process.

    python bench/retrieval_speed.py ../shared/bench/ob-wiki ../shared/bench/loo/ob-wiki.jsonl
    python bench/retrieval_speed.py /tmp/vault100k /tmp/vault100k/questions.jsonl

The catalog and retrieval indexes are opened (and built if needed) first; a warm-up pass
answers a few questions; then every question is answered `--passes` times and the median
per question is kept. Printed: p50/p95/mean ms of `Retriever.retrieve`, the median of each
stage's own timing, the arms. Then Personalized PageRank on the same walk graph and the same
seeds (the seeds the cascade chose for the first `--ppr-questions` questions): our
`personalized_pagerank`, our dense-free power iteration when available, and
`networkx.pagerank(G, alpha=1-restart, personalization=seeds, dangling=seeds)` at its default
tolerance and at a tight one; the time ratio, and how many of the top 20 pages agree.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
OUT_DIR = BENCH_DIR / "out"
TOP = 20


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def cascade_latency(retriever: Any, questions: list[Any], passes: int) -> dict[str, Any]:
    warm = questions[: min(20, len(questions))]
    for q in warm:
        retriever.retrieve(q.question, k=10, exclude=frozenset(q.exclude))
    per_question: list[list[float]] = [[] for _ in questions]
    stages: dict[str, list[float]] = {}
    arms: Counter[str] = Counter()
    for p in range(passes):
        for i, q in enumerate(questions):
            t = time.perf_counter()
            r = retriever.retrieve(q.question, k=10, exclude=frozenset(q.exclude))
            per_question[i].append((time.perf_counter() - t) * 1000.0)
            if p == 0:
                arms[r.arm] += 1
                for stage, ms in r.timings_ms.items():
                    stages.setdefault(stage, []).append(ms)
    ms = [statistics.median(v) for v in per_question]
    return {
        "questions": len(questions),
        "passes": passes,
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "mean_ms": float(np.mean(ms)),
        "max_ms": max(ms),
        "stage_median_ms": {k: statistics.median(v) for k, v in stages.items()},
        "stage_p95_ms": {k: percentile(v, 95) for k, v in stages.items()},
        "arms": dict(arms.most_common()),
    }


def profile_pass(retriever: Any, questions: list[Any], lines: int = 30) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for q in questions:
        retriever.retrieve(q.question, k=10, exclude=frozenset(q.exclude))
    profiler.disable()
    buf = io.StringIO()
    pstats.Stats(profiler, stream=buf).sort_stats("tottime").print_stats(lines)
    return buf.getvalue()


def seed_sets(retriever: Any, questions: list[Any], count: int) -> list[dict[int, float]]:
    by_path = retriever.catalog.by_path
    out: list[dict[int, float]] = []
    for q in questions:
        r = retriever.retrieve(q.question, k=10, exclude=frozenset(q.exclude))
        weights: dict[int, float] = {}
        for seed in r.seeds:
            i = by_path.get(seed.path)
            if i is not None and seed.score > 0:
                weights[i] = max(weights.get(i, 0.0), float(seed.score))
        if weights:
            out.append(weights)
        if len(out) == count:
            break
    return out


def _time(fn: Any, reps: int) -> tuple[float, Any]:
    """Median ms over `reps` calls, and the last result."""
    times = []
    result = None
    for _ in range(reps):
        t = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t) * 1000.0)
    return statistics.median(times), result


def top_k(scores: np.ndarray | dict[int, float], k: int = TOP) -> list[int]:
    if isinstance(scores, dict):
        return [n for n, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]
    order = np.lexsort((np.arange(len(scores)), -scores))
    return [int(i) for i in order[:k]]


def ppr_versus_networkx(
    retriever: Any, seeds: list[dict[int, float]], reps: int, nx_tol_tight: float
) -> dict[str, Any]:
    import networkx as nx

    from wikiq.retrieve import ppr as ppr_module

    walk = retriever.indexes.walk
    restart = float(retriever.settings.restart)
    n = walk.size
    t = time.perf_counter()
    # The same row-stochastic walk (out- and weighted in-links): networkx renormalises each
    # row's weights, which are already probabilities, so both walk one and the same chain.
    graph = nx.from_scipy_sparse_array(walk.forward.to_scipy(), create_using=nx.DiGraph)
    build_ms = (time.perf_counter() - t) * 1000.0

    ours_push: list[float] = []
    ours_power: list[float] = []
    nx_default: list[float] = []
    nx_tight: list[float] = []
    agree_push: list[float] = []
    agree_default: list[float] = []
    agree_tight: list[float] = []
    power = getattr(ppr_module, "power_iteration", None)
    for weights in seeds:
        total = sum(weights.values())
        pers = {k: v / total for k, v in weights.items()}
        ms, ours = _time(
            lambda w=weights: ppr_module.personalized_pagerank(walk, w, restart=restart), reps
        )
        ours_push.append(ms)
        reference = ours
        if power is not None:
            ms, reference = _time(
                lambda w=weights: power(walk, w, restart=restart, tol=1e-10), reps
            )
            ours_power.append(ms)
        ms, nxd = _time(
            lambda p=pers: nx.pagerank(
                graph, alpha=1.0 - restart, personalization=p, dangling=p, weight="weight"
            ),
            reps,
        )
        nx_default.append(ms)
        ms, nxt = _time(
            lambda p=pers: nx.pagerank(
                graph,
                alpha=1.0 - restart,
                personalization=p,
                dangling=p,
                weight="weight",
                tol=nx_tol_tight,
                max_iter=1000,
            ),
            max(1, reps // 2),
        )
        nx_tight.append(ms)
        ref_top = set(top_k(np.asarray(reference)))
        agree_push.append(len(set(top_k(np.asarray(ours))) & ref_top) / TOP)
        agree_default.append(len(set(top_k(nxd)) & ref_top) / TOP)
        agree_tight.append(len(set(top_k(nxt)) & ref_top) / TOP)
    med = statistics.median
    result: dict[str, Any] = {
        "pages": n,
        "edges": int(walk.forward.nnz),
        "seed_sets": len(seeds),
        "restart": restart,
        "nx_graph_build_ms": build_ms,
        "ours_ms": med(ours_push),
        "nx_default_tol_ms": med(nx_default),
        "nx_tight_tol_ms": med(nx_tight),
        "nx_tight_tol": nx_tol_tight,
        "ratio_nx_default_over_ours": med(nx_default) / med(ours_push),
        "ratio_nx_tight_over_ours": med(nx_tight) / med(ours_push),
        "top20_agreement_ours": float(np.mean(agree_push)),
        "top20_agreement_nx_default": float(np.mean(agree_default)),
        "top20_agreement_nx_tight": float(np.mean(agree_tight)),
        "reference": "power_iteration tol 1e-10" if power is not None else "ours",
    }
    if ours_power:
        result["ours_power_ms"] = med(ours_power)
        result["ratio_nx_default_over_power"] = med(nx_default) / med(ours_power)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--passes", type=int, default=3, help="times each question is asked")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N questions")
    parser.add_argument("--ppr-questions", type=int, default=30, help="seed sets for PPR")
    parser.add_argument("--ppr-reps", type=int, default=5)
    parser.add_argument("--nx-tight-tol", type=float, default=1e-12)
    parser.add_argument("--no-ppr", action="store_true", help="skip the networkx comparison")
    parser.add_argument(
        "--profile", action="store_true", help="cProfile one more pass; print the top lines"
    )
    parser.add_argument("--out", type=Path, default=None, help="JSON file (default bench/out/)")
    args = parser.parse_args(argv)

    from wikiq.retrieve.cascade import Retriever
    from wikiq.retrieve.evaluate import load_questions
    from wikiq.vault.catalog import open_catalog
    from wikiq.vault.locate import locate_vault

    questions = load_questions(args.questions)
    if args.limit:
        questions = questions[: args.limit]
    t = time.perf_counter()
    # WIKIQ_CACHE_DIR, when set, is the cache to open (bench/scale.py hands its own down, so a
    # big vault's catalog is not built a second time in the user's cache).
    cache = os.environ.get("WIKIQ_CACHE_DIR")
    catalog = open_catalog(locate_vault(args.vault), cache_dir=Path(cache) if cache else None)
    open_s = time.perf_counter() - t
    retriever = Retriever(catalog)
    t = time.perf_counter()
    retriever.indexes  # noqa: B018 - load or build before timing questions
    indexes_s = time.perf_counter() - t

    load_before = os.getloadavg()[0]
    latency = cascade_latency(retriever, questions, args.passes)
    profile_text = profile_pass(retriever, questions) if args.profile else ""
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "vault": str(args.vault.resolve()),
        "questions_file": str(args.questions),
        "pages": len(catalog),
        "open_s": open_s,
        "indexes_s": indexes_s,
        "cascade": latency,
        "loadavg": [load_before, os.getloadavg()[0]],
    }
    if not args.no_ppr:
        seeds = seed_sets(retriever, questions, args.ppr_questions)
        report["ppr"] = ppr_versus_networkx(retriever, seeds, args.ppr_reps, args.nx_tight_tol)

    out = args.out or OUT_DIR / f"retrieval_speed-{args.vault.resolve().name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")

    c = latency
    print(
        f"## {args.vault.name}: {len(catalog):,} pages, {c['questions']} questions × {c['passes']}"
    )
    print(
        f"cascade warm latency: p50 {c['p50_ms']:.2f} ms, p95 {c['p95_ms']:.2f} ms, "
        f"mean {c['mean_ms']:.2f} ms, max {c['max_ms']:.1f} ms"
    )
    stages = ", ".join(
        f"{k} {v:.2f}" for k, v in c["stage_median_ms"].items() if k not in ("total", "index")
    )
    print(f"stage medians (ms): {stages}")
    print(f"arms: {c['arms']}")
    print(
        f"(load average {report['loadavg'][0]:.1f} → {report['loadavg'][1]:.1f}, {os.cpu_count()} cores)"
    )
    print(f"(catalog open {open_s:.2f} s, retrieval indexes {indexes_s:.2f} s, before timing)")
    if "ppr" in report:
        p = report["ppr"]
        print(
            f"PPR, {p['seed_sets']} seed sets, {p['pages']:,} nodes, {p['edges']:,} edges, "
            f"restart {p['restart']}:"
        )
        line = f"  ours {p['ours_ms']:.2f} ms"
        if "ours_power_ms" in p:
            line += f" (power iteration to 1e-10: {p['ours_power_ms']:.2f} ms)"
        print(line)
        print(
            f"  networkx.pagerank default tol {p['nx_default_tol_ms']:.1f} ms "
            f"(×{p['ratio_nx_default_over_ours']:.0f}), tol {p['nx_tight_tol']:g} "
            f"{p['nx_tight_tol_ms']:.1f} ms (×{p['ratio_nx_tight_over_ours']:.0f}); "
            f"networkx graph build {p['nx_graph_build_ms']:.0f} ms (not counted)"
        )
        print(
            f"  top-{TOP} agreement with {p['reference']}: ours {p['top20_agreement_ours']:.3f}, "
            f"networkx default {p['top20_agreement_nx_default']:.3f}, "
            f"networkx tight {p['top20_agreement_nx_tight']:.3f}"
        )
    if profile_text:
        print(f"\ncProfile of one pass over the questions (by internal time):\n{profile_text}")
    print(f"(JSON: {out})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
