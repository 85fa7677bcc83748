"""Stage 0 measured: recall with and without embeddings, side by side, on the bench sets.

    .venv/bin/python bench/embed_eval.py [--sets sample50,crosslang-split,...]
        [--text lead] [--knn] [--set sem_strong_similarity=0.87] [--json OUT]

For every set, in one process and over the same catalog: the cascade without Stage 0, the
cascade with it, and (with `--knn`) embeddings alone (the top pages by cosine). The index is
the vault's own (`wikiq index --embed`) for `--text lead`, else the side file written by
`bench/embed_build.py --out ~/.cache/wikiq/bench/embed/<set>-<text>.npz`.

Off-domain sets (`offdomain-<vault>`) ask a vault questions from other vaults, and the
`abstain-<vault>` / `abstain-heldout-<vault>` sets are bench/abstain's hand-written questions a
vault does not cover; their gold is empty, so `abstain_acc` is the share answered "not in your
vault" (pureLLM) — what Stage 0's absolute threshold must keep.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from crosslang import build as build_crosslang
from crosslang import default_out
from devsets import BENCH, DEV_SETS

from wikiq.embed.semantic import SemanticSearch, catalog_index_path
from wikiq.retrieve.cascade import Retriever, RetrieverSettings
from wikiq.retrieve.evaluate import (
    EvalQuestion,
    load_questions,
    report,
    run_questions,
)
from wikiq.retrieve.settings import FusionWeights
from wikiq.vault.cache import cache_root
from wikiq.wiki import Wiki

SIDE = cache_root() / "bench" / "embed"
ABSTAIN = Path(__file__).resolve().parent / "abstain"
SIDE_NAMES = {
    "sample50": "sample50",
    "loo-ai-operator": "ai-operator",
    "loo-ob-wiki": "ob-wiki",
    "2wiki": "2wiki",
    "crosslang-split": "crosslang-split",
}
DEFAULT_SETS = [
    "sample50",
    "loo-ai-operator",
    "loo-ob-wiki",
    "2wiki",
    "crosslang-split",
    "crosslang-both",
    "crosslang-split-aliases",
    "offdomain-sample50",
    "offdomain-ai-operator",
    "offdomain-ob-wiki",
    "offdomain-2wiki",
    "offdomain-crosslang-split",
    *(f"abstain-{v}" for v in ("sample50", "ai-operator", "ob-wiki", "2wiki")),
    *(f"abstain-heldout-{v}" for v in ("sample50", "ai-operator", "ob-wiki", "2wiki")),
]
OFFDOMAIN_N = 100


def crosslang_set(layout: str, keep_aliases: bool) -> tuple[Path, Path]:
    out = default_out(layout, keep_aliases)
    if not (out / "questions.jsonl").is_file():
        build_crosslang(out, layout, keep_aliases)
    return out, out / "questions.jsonl"


def set_paths(name: str) -> tuple[Path, Path | None]:
    if name in DEV_SETS:
        return DEV_SETS[name]
    if name == "crosslang-split":
        return crosslang_set("split", False)
    if name == "crosslang-both":
        return crosslang_set("both", False)
    if name == "crosslang-split-aliases":
        return crosslang_set("split", True)
    if name.startswith("abstain-"):
        # bench/abstain: hand-written questions each vault does not cover (heldout/: never
        # used for tuning).
        target = name.removeprefix("abstain-")
        held = target.startswith("heldout-")
        target = target.removeprefix("heldout-")
        vault = {"ai-operator": "ai-operator-wiki", "2wiki": "2wiki-hipporag"}.get(target, target)
        folder = ABSTAIN / "heldout" if held else ABSTAIN
        return BENCH / vault, folder / f"{vault}.jsonl"
    if name.startswith("offdomain-"):
        target = name.removeprefix("offdomain-")
        vaults = {
            "sample50": BENCH / "sample50",
            "ai-operator": BENCH / "ai-operator-wiki",
            "ob-wiki": BENCH / "ob-wiki",
            "2wiki": BENCH / "2wiki-hipporag",
            "crosslang-split": default_out("split", False),
        }
        return vaults[target], None
    raise SystemExit(f"unknown set {name}")


def offdomain_questions(target: str, n: int = OFFDOMAIN_N) -> list[EvalQuestion]:
    """Questions written for other vaults, whose subject this vault does not cover."""
    pools: dict[str, list[str]] = {
        "2wiki": [q.question for q in load_questions(DEV_SETS["2wiki"][1])],
        "sample50": [q.question for q in load_questions(DEV_SETS["sample50"][1])],
        "help": [
            q.question for q in load_questions(crosslang_set("both", False)[1])
        ],  # Obsidian help titles, English and Chinese
        "ob-wiki": [q.question for q in load_questions(DEV_SETS["loo-ob-wiki"][1])],
    }
    sources = {
        "sample50": ["2wiki", "help", "ob-wiki"],
        "ai-operator": ["2wiki", "sample50", "ob-wiki"],
        "ob-wiki": ["2wiki", "sample50", "help"],
        "2wiki": ["help", "sample50", "ob-wiki"],
        "crosslang-split": ["2wiki", "sample50", "ob-wiki"],
    }[target]
    rng = random.Random(42)
    picked: list[str] = []
    for src in sources:
        pool = pools[src]
        picked += rng.sample(pool, min(len(pool), n // len(sources) + 1))
    return [EvalQuestion(f"off-{k}", q, (), kind="offdomain") for k, q in enumerate(picked[:n])]


def index_file(name: str, wiki: Wiki, text: str) -> Path:
    """The vault's own index for `lead`; a side file for other text choices."""
    if text == "lead":
        return catalog_index_path(wiki.location, wiki.catalog)
    key = name.removeprefix("offdomain-").removeprefix("abstain-").removeprefix("heldout-")
    return SIDE / f"{SIDE_NAMES.get(key, key)}-{text}.npz"


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """`key=value` pairs for RetrieverSettings; `w_sem=0.5` sets the sem weight of both
    weight sets, `w_sem_named` / `w_sem_open` one of them."""
    names = {f.name: f.type for f in fields(RetrieverSettings)}
    out: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key in ("w_sem", "w_sem_named", "w_sem_open"):
            out[key] = float(value)
        elif key in names:
            out[key] = type(getattr(RetrieverSettings(), key))(value)
        else:
            raise SystemExit(f"unknown setting {key}")
    return out


def apply_overrides(settings: RetrieverSettings, overrides: dict[str, Any]) -> RetrieverSettings:
    plain = {k: v for k, v in overrides.items() if not k.startswith("w_sem")}
    settings = replace(settings, **plain)
    named: FusionWeights = settings.named
    open_: FusionWeights = settings.open
    if "w_sem" in overrides:
        named = replace(named, sem=overrides["w_sem"])
        open_ = replace(open_, sem=overrides["w_sem"])
    if "w_sem_named" in overrides:
        named = replace(named, sem=overrides["w_sem_named"])
    if "w_sem_open" in overrides:
        open_ = replace(open_, sem=overrides["w_sem_open"])
    return replace(settings, named=named, open=open_)


def knn_recall(sem: SemanticSearch, questions: list[EvalQuestion], catalog: Any) -> dict[str, Any]:
    """Embeddings alone: recall@5/@10 of the top pages by cosine (excluded pages removed)."""
    r5, r10 = [], []
    for q in questions:
        if not q.gold:
            continue
        hits = [catalog.pages[p].path for p, _ in sem(q.question, 10 + len(q.exclude))]
        hits = [h for h in hits if h not in q.exclude]
        gold = set(q.gold)
        r5.append(len(gold & set(hits[:5])) / len(gold))
        r10.append(len(gold & set(hits[:10])) / len(gold))
    return {"knn_recall@5": _mean(r5), "knn_recall@10": _mean(r10)}


def evaluate(
    name: str, text: str, overrides: dict[str, Any], knn: bool, limit: int | None
) -> dict[str, Any]:
    vault, qfile = set_paths(name)
    wiki = Wiki.open(vault)
    if qfile is None:
        questions = offdomain_questions(name.removeprefix("offdomain-"))
    else:
        questions = load_questions(qfile)
    if limit:
        questions = questions[:limit]
    path = index_file(name, wiki, text)
    if not path.is_file():
        return {"set": name, "error": f"no index at {path}"}
    base = Retriever(wiki.catalog)
    base.indexes  # noqa: B018
    sem = SemanticSearch(wiki.catalog, path, auto_refresh=0)
    t = time.perf_counter()
    sem.load()
    load_s = time.perf_counter() - t
    settings = apply_overrides(RetrieverSettings(), overrides)
    with_sem = base.with_settings(**settings.__dict__).with_sources(semantic=sem)
    if questions:
        sem(questions[0].question, 1)  # the model's first call is not a warm query

    sem_ms: list[float] = []
    arms: dict[str, int] = {}

    def run(retriever: Retriever, record: bool) -> dict[str, Any]:
        def retrieve(q: str, k: int, ex: frozenset[str]) -> Any:
            r = retriever.retrieve(q, k=k, exclude=ex)
            if record:
                sem_ms.append(r.timings_ms.get("semantic", 0.0))
                arms[r.arm] = arms.get(r.arm, 0) + 1
            return r

        return report(run_questions(retrieve, questions))

    without = run(base, False)
    with_ = run(with_sem, True)
    out: dict[str, Any] = {
        "set": name,
        "text": text,
        "n": len(questions),
        "index": str(path),
        "load_s": round(load_s, 3),
        "without": without["overall"],
        "with": with_["overall"],
        "by_kind": {
            kind: {"without": without["by_kind"][kind], "with": with_["by_kind"][kind]}
            for kind in with_["by_kind"]
        },
        "arms_with": arms,
        "sem_p50_ms": round(float(np.percentile(sem_ms, 50)), 2) if sem_ms else None,
        "sem_p95_ms": round(float(np.percentile(sem_ms, 95)), 2) if sem_ms else None,
    }
    if knn:
        out.update(knn_recall(sem, questions, wiki.catalog))
    return out


def _mean(values: list[float]) -> float | None:
    return round(float(np.mean(values)), 4) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(DEFAULT_SETS))
    parser.add_argument("--text", default="lead")
    parser.add_argument("--knn", action="store_true")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None, help="append results here")
    args = parser.parse_args()
    overrides = parse_overrides(args.overrides)
    header = f"{'set':26} {'n':>4} {'R@5 without':>11} {'R@5 with':>9} {'Δ':>7} "
    header += f"{'abstain w/o':>11} {'abstain w/':>10} {'sem p50':>8} {'knn R@5':>8}"
    print(header)
    for name in args.sets.split(","):
        res = evaluate(name, args.text, overrides, args.knn, args.limit)
        res["overrides"] = overrides
        if args.json:
            with open(args.json, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(res, ensure_ascii=False) + "\n")
        if "error" in res:
            print(f"{name:26} {res['error']}")
            continue
        w, s = res["without"], res["with"]
        delta = (s["recall@5"] or 0) - (w["recall@5"] or 0) if w["recall@5"] is not None else 0
        print(
            f"{name:26} {res['n']:>4} {_f(w['recall@5']):>11} {_f(s['recall@5']):>9} "
            f"{delta:>+7.3f} {_f(w['abstain_acc']):>11} {_f(s['abstain_acc']):>10} "
            f"{_f(res['sem_p50_ms']):>8} {_f(res.get('knn_recall@5')):>8}",
            flush=True,
        )


def _f(value: object) -> str:
    return "–" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


if __name__ == "__main__":
    main()
