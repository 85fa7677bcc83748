"""Leave-one-vault-out check of the open-question fusion weights (retrieve/settings.py).

    python bench/fusion_lovo.py [--embed] [--only rrf_passages]

Runs a small grid of the reciprocal-rank-fusion weights (lead, question parts, graph, names,
passages; the text channel stays at 2.0) over the natural dev questions of the five vaults
(`--only`: one weight's values, the others as shipped). For each
vault, the configuration best on the other four is chosen and scored on it: the held-out
recall@5 says how much of the gain carries over to questions the weights never saw, next to
the shipped settings and plain BM25 on the same questions.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
from devsets import NATURAL_SETS  # noqa: E402

GRID = {
    "rrf_lead": (0.0, 0.5, 1.0),
    "rrf_parts": (0.0, 0.5, 1.0),
    "rrf_graph": (0.0, 0.25, 0.5),
    "rrf_names": (0.0, 0.5),
    "rrf_passages": (0.0, 0.35, 0.75),
}
# `--only rrf_passages`: the finer steps of one weight.
ONLY = {
    "rrf_passages": (0.0, 0.2, 0.35, 0.5, 0.75),
    "rrf_lead": (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--embed", action="store_true", help="use Stage 0 where an index exists")
    ap.add_argument("--only", choices=sorted(GRID), help="vary this weight alone")
    args = ap.parse_args()
    grid = {args.only: ONLY.get(args.only, GRID[args.only])} if args.only else GRID
    from wikiq.embed.semantic import semantic_source
    from wikiq.retrieve.cascade import Retriever
    from wikiq.retrieve.evaluate import load_questions, run_questions, summarize
    from wikiq.retrieve.settings import RetrieverSettings
    from wikiq.vault.catalog import open_catalog
    from wikiq.vault.locate import locate_vault

    retrievers: dict[str, tuple[Any, list[Any]]] = {}
    for name, (vault, questions) in NATURAL_SETS.items():
        location = locate_vault(vault)
        catalog = open_catalog(location)
        r = Retriever(catalog)
        semantic = semantic_source(location, catalog) if args.embed else None
        if semantic is not None:
            r = r.with_sources(semantic=semantic)
        retrievers[name] = (r, [q for q in load_questions(questions) if q.gold])

    def score(settings: dict[str, Any]) -> dict[str, tuple[float, int]]:
        out = {}
        for name, (base, questions) in retrievers.items():
            r = base.with_settings(**settings)
            rows = run_questions(lambda q, k, ex, r=r: r.retrieve(q, k=k, exclude=ex), questions)
            out[name] = (summarize(rows)["recall@5"] or 0.0, len(questions))
        return out

    configs = [dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())]
    results = [(c, score(c)) for c in configs]
    shipped = RetrieverSettings()
    default = score({})
    bm25 = score({"mode": "bm25"})

    def pooled(s: dict[str, tuple[float, int]], skip: str = "") -> float:
        items = [v for k, v in s.items() if k != skip]
        return sum(r * n for r, n in items) / sum(n for _, n in items)

    if args.only:  # one weight: every value's figures, vault by vault
        print(f"{args.only:>14} " + " ".join(f"{n.removeprefix('natural-'):>18}" for n in retrievers) + "  pooled")
        for config, got in results:
            cells = " ".join(f"{got[n][0]:18.3f}" for n in retrievers)
            print(f"{config[args.only]:14} {cells}  {pooled(got):.3f}")
    print(f"{len(configs)} configurations; shipped: " + ", ".join(f"{k} {getattr(shipped, k)}" for k in grid))
    print(f"{'held-out vault':28} {'chosen on the others':52} {'held-out':>8} {'shipped':>8} {'bm25':>6}")
    held = 0.0
    total = 0
    for name in retrievers:
        best = max(results, key=lambda cr: pooled(cr[1], skip=name))
        r, n = best[1][name]
        held += r * n
        total += n
        chosen = ", ".join(f"{k.removeprefix('rrf_')} {v}" for k, v in best[0].items())
        print(f"{name:28} {chosen:52} {r:8.3f} {default[name][0]:8.3f} {bm25[name][0]:6.3f}")
    print(
        f"{'pooled':28} {'':52} {held / total:8.3f} {pooled(default):8.3f} {pooled(bm25):6.3f}"
    )
    best_all = max(results, key=lambda cr: pooled(cr[1]))
    print("best in-sample: " + ", ".join(f"{k} {v}" for k, v in best_all[0].items()) + f" → {pooled(best_all[1]):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
