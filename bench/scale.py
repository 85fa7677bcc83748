"""How wikiq grows with the vault: issue 18's table at several sizes, with growth exponents.

    python bench/scale.py [--sizes 10000,100000,1000000] [--root /tmp/wikiq-scale]
        [--cold-reps 1] [--warm-reps 3] [--questions 200]

For each size, a generated vault (`bench/make_vault.py ROOT/vN --pages N`, made once and
reused), then, each in fresh processes so nothing is shared with this one:

- `bench/open_times.py`: first open with an empty cache (wall, peak memory of the parent and of
  the workers), warm open, memory once the first question is answered, cache size on disk;
- `bench/retrieval_speed.py --no-ppr`: cascade latency p50 / p95 over the vault's generated
  questions (warm, one process);
- `bench/edit_seen.py`: one edited page seen by a running server (median and slowest of six
  edits, some made while the watcher's refresh runs; it appends lines to the generated vault).

Prints one Markdown table (a row per figure, a column per size) and the growth exponent between
consecutive sizes (log of the ratio over log of the size ratio: 1.0 grows like the vault, below
1 slower), and writes it all to `bench/out/scale.json`. Generating 1M pages writes 4.4 GB and
takes minutes; the first open of it, several more: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
OUT = BENCH_DIR / "out" / "scale.json"

# (label, how to read it from the two reports, unit)
FIGURES: list[tuple[str, str, str]] = [
    ("first open (empty cache), wall", "cold_open_s", "s"),
    ("peak memory, first open (parent + workers)", "cold_peak_mb", "MB"),
    ("the same, sampled PSS of the process tree (shared pages once)", "cold_tree_pss_mb", "MB"),
    ("warm open in a fresh process", "warm_open_s", "s"),
    ("memory when ready to answer", "ready_maxrss_mb", "MB"),
    ("cascade latency p50", "p50_ms", "ms"),
    ("cascade latency p95", "p95_ms", "ms"),
    ("cache on disk after the first open (catalog)", "cache_mb", "MB"),
    ("cache on disk when ready (with the retrieval indexes)", "cache_ready_mb", "MB"),
    ("one edited page seen by a running server, median", "edit_seen_s", "s"),
    ("the same, slowest of six", "edit_seen_max_s", "s"),
]


def run(cmd: list[str], env: dict[str, str] | None = None) -> None:
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, env=env)


def vault_for(root: Path, size: int) -> Path:
    vault = root / f"v{size}"
    if not (vault / "questions.jsonl").is_file():
        run([sys.executable, str(BENCH_DIR / "make_vault.py"), str(vault), "--pages", str(size), "--force"])
    return vault


def measure(vault: Path, size: int, args: argparse.Namespace) -> dict[str, Any]:
    opened = args.root / f"open-{size}.json"
    speed = args.root / f"speed-{size}.json"
    run(
        [
            sys.executable,
            str(BENCH_DIR / "open_times.py"),
            str(vault),
            "--cold-reps",
            str(args.cold_reps),
            "--warm-reps",
            str(args.warm_reps),
            "--out",
            str(opened),
        ]
    )
    run(
        [
            sys.executable,
            str(BENCH_DIR / "retrieval_speed.py"),
            str(vault),
            str(vault / "questions.jsonl"),
            "--no-ppr",
            "--limit",
            str(args.questions),
            "--out",
            str(speed),
        ],
        # A cache of its own beside the vault: not the user's, and kept for the next run.
        env={**os.environ, "WIKIQ_CACHE_DIR": str(args.root / f"cache-{size}")},
    )
    edited = args.root / f"edit-{size}.json"
    run(
        [sys.executable, str(BENCH_DIR / "edit_seen.py"), str(vault), "--out", str(edited)],
        env={**os.environ, "WIKIQ_CACHE_DIR": str(args.root / f"cache-{size}")},
    )
    o = json.loads(opened.read_text())["rows"][0]
    c = json.loads(speed.read_text())["cascade"]
    e = json.loads(edited.read_text())
    return {
        "pages": o["pages"],
        "cold_open_s": o["cold_open_s"],
        "cold_peak_mb": o["cold_maxrss_mb"] + o["cold_workers_maxrss_mb"],
        "cold_tree_pss_mb": o.get("cold_tree_pss_peak_mb", 0.0),
        "warm_open_s": o["warm_open_s"],
        "ready_maxrss_mb": o["ready_maxrss_mb"],
        "p50_ms": c["p50_ms"],
        "p95_ms": c["p95_ms"],
        "cache_mb": o["cache_mb"],
        "cache_ready_mb": o.get("cache_ready_mb", 0.0),
        "edit_seen_s": e["edit_seen_median_s"],
        "edit_seen_max_s": e["edit_seen_max_s"],
    }


def exponent(a: float, b: float, size_a: int, size_b: int) -> float | None:
    if a <= 0 or b <= 0:
        return None
    return math.log(b / a) / math.log(size_b / size_a)


def table(rows: dict[int, dict[str, Any]]) -> str:
    sizes = sorted(rows)
    head = ["figure", *(f"{s:,} pages" for s in sizes)]
    head += [f"exponent {a:,}→{b:,}" for a, b in itertools.pairwise(sizes)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, key, unit in FIGURES:
        values = [rows[s][key] for s in sizes]
        cells = [f"{v:,.2f} {unit}" if v < 100 else f"{v:,.0f} {unit}" for v in values]
        for i in range(len(sizes) - 1):
            e = exponent(values[i], values[i + 1], sizes[i], sizes[i + 1])
            cells.append("—" if e is None else f"{e:.2f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--root", type=Path, default=Path("/tmp/wikiq-scale"))
    ap.add_argument("--cold-reps", type=int, default=1)
    ap.add_argument("--warm-reps", type=int, default=3)
    ap.add_argument("--questions", type=int, default=200)
    args = ap.parse_args()
    args.root.mkdir(parents=True, exist_ok=True)
    rows: dict[int, dict[str, Any]] = {}
    load = [os.getloadavg()[0]]
    for size in (int(s) for s in args.sizes.split(",")):
        rows[size] = measure(vault_for(args.root, size), size, args)
    load.append(os.getloadavg()[0])
    text = table(rows)
    stamp = time.strftime("%Y-%m-%d %H:%M")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"date": stamp, "loadavg": load, "rows": rows}, indent=2))
    print(text)
    print(f"\n({stamp}; load average {load[0]:.1f} → {load[1]:.1f} on {os.cpu_count()} cores; {OUT})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
