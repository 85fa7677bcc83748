"""What Stage 0 embeds per page, decided by measurement (issue 14, point 3).

    .venv/bin/python bench/embed_text_choice.py --chunk-cache DIR [--vaults sample50,...]

Three choices, each through the whole cascade (the fusion of the natural-questions issue) on
the natural dev sets, in one process with one question vector per question:

- `lead`: the vault's own index (`wikiq index --embed`: title, aliases, lead paragraph);
- `chunks`: every chunk of every page, a page scored by its best chunk (an index built with
  `WIKIQ_CACHE_DIR=DIR wikiq index --embed --text chunks`);
- `lead+rescore`: the lead index finds 40 candidates, which are then ordered by their best
  chunk (so it needs the chunk vectors too, but chunks never bring in a page on their own).

Prints recall@5 by kind (a not-covered answer scores 0), false not-covered, abstention on
`absent`, the index's vectors and size, and the semantic stage's median time per question.
Build times are measured separately (`/usr/bin/time wikiq index --embed ...`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from devsets import BENCH

from wikiq.embed.index import PageVectors, index_path, load_index
from wikiq.embed.semantic import catalog_index_path
from wikiq.llm import open_embedder
from wikiq.retrieve.evaluate import load_questions, run_questions, summarize
from wikiq.wiki import Wiki

VAULTS = {  # natural questions file -> vault folder
    "sample50": "sample50",
    "obsidian-help-en": "obsidian-help/en",
    "obsidian-help-zh": "obsidian-help/zh",
    "ai-operator-wiki": "ai-operator-wiki",
}
RESCORE_DEPTH = 40
Semantic = Callable[[str, int], list[tuple[int, float]]]


def choices(lead: PageVectors, chunks: PageVectors, embed: Callable[[str], np.ndarray]) -> dict[
    str, tuple[Semantic, list[float]]
]:
    """name -> (semantic source, the time each call took in ms)."""

    def timed(fn: Callable[[np.ndarray, int], list[tuple[int, float]]]) -> tuple[Semantic, list[float]]:
        times: list[float] = []

        def source(question: str, k: int) -> list[tuple[int, float]]:
            vec = embed(question)  # cached: the model's time is the same for every choice
            t = time.perf_counter()
            out = fn(vec, k)
            times.append((time.perf_counter() - t) * 1000)
            return out

        return source, times

    def rescore(vec: np.ndarray, k: int) -> list[tuple[int, float]]:
        candidates = [p for p, _ in lead.search(vec, RESCORE_DEPTH)]
        best_chunk = dict(chunks.search(vec, len(chunks)))
        ranked = sorted(candidates, key=lambda p: -best_chunk.get(p, -1.0))
        return [(p, best_chunk.get(p, 0.0)) for p in ranked[:k]]

    return {
        "lead": timed(lead.search),
        "chunks": timed(chunks.search),
        "lead+rescore": timed(rescore),
    }


def size_of(path: Path) -> int:
    return path.stat().st_size if path.is_file() else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunk-cache", type=Path, required=True)
    ap.add_argument("--vaults", default=",".join(VAULTS))
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    table: dict[str, dict] = {}
    pooled: dict[str, list] = defaultdict(list)
    for name in args.vaults.split(","):
        wiki = Wiki.open(BENCH / VAULTS[name])
        cat = wiki.catalog
        lead_path = catalog_index_path(wiki.location, cat)
        chunk_path = index_path(wiki.location, args.chunk_cache)
        lead_index, chunk_index = load_index(lead_path), load_index(chunk_path)
        if lead_index is None or chunk_index is None:
            print(f"{name}: missing index ({lead_path} or {chunk_path})", file=sys.stderr)
            continue
        embedder = open_embedder(lead_index.model)
        vectors: dict[str, np.ndarray] = {}

        def embed(q: str, _e=embedder, _v=vectors) -> np.ndarray:
            if q not in _v:
                _v[q] = np.asarray(_e.embed_queries([q])[0], dtype=np.float32)
            return _v[q]

        lead, chunks = PageVectors(lead_index, cat), PageVectors(chunk_index, cat)
        base = wiki.retriever
        questions = load_questions(BENCH / "natural" / f"{name}.jsonl")
        for choice, (source, times) in choices(lead, chunks, embed).items():
            retr = base.with_sources(semantic=source)
            outcomes = run_questions(lambda q, k, ex, r=retr: r.retrieve(q, k=k, exclude=ex), questions)
            pooled[choice] += outcomes
            s = summarize(outcomes)
            kinds = defaultdict(list)
            for o in outcomes:
                kinds[o.kind].append(o)
            index = lead_index if choice == "lead" else chunk_index
            rows = sum(len(v) for v in index.vectors.values())
            extra = size_of(lead_path) if choice == "lead+rescore" else 0
            table[f"{name}/{choice}"] = {
                "recall@5": s["recall@5"],
                "false_abstain": s["false_abstain"],
                "abstain_acc": s["abstain_acc"],
                "by_kind": {k: summarize(v)["recall@5"] for k, v in sorted(kinds.items())},
                "vectors": rows,
                "size_mb": round((size_of(lead_path if choice == "lead" else chunk_path) + extra) / 1e6, 2),
                "semantic_ms_p50": round(statistics.median(times), 2) if times else None,
            }
            print(name, choice, json.dumps(table[f"{name}/{choice}"]), flush=True)
    for choice, outcomes in pooled.items():
        s = summarize(outcomes)
        kinds = defaultdict(list)
        for o in outcomes:
            kinds[o.kind].append(o)
        table[f"pooled/{choice}"] = {
            "recall@5": s["recall@5"],
            "false_abstain": s["false_abstain"],
            "abstain_acc": s["abstain_acc"],
            "by_kind": {k: summarize(v)["recall@5"] for k, v in sorted(kinds.items())},
        }
        print("pooled", choice, json.dumps(table[f"pooled/{choice}"]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
