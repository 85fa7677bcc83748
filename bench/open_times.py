"""Vault reading speed: first open (empty cache) and warm open, each in a fresh process.

    python bench/open_times.py ../shared/bench/ob-wiki /tmp/vault100k [--warm-reps 5]

For every vault: a cold open with an empty `WIKIQ_CACHE_DIR` (several times, median), then
warm opens in fresh processes over the filled cache (median), and repeated `open_catalog` calls
inside one process. Reported: `open_catalog` time, the whole process's wall time (interpreter
start and imports included), pages/s, peak memory of the child (`ru_maxrss`; for a cold open
also its worker processes), the catalog cache's size on disk, and the time until the first
question is answered (open + retrieval indexes + the question) and the memory then.
`--profile` adds cProfile's top lines for one cold and one warm open. The OS file cache is left as it is (this is a shared
machine), so "cold" means an empty wikiq cache, not cold disks; `--cold-disk` also drops the
vault's files from the OS cache before each cold open (posix_fadvise, no privileges needed), as
after a reboot or for a vault larger than the memory that caches it.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
OUT_DIR = BENCH_DIR / "out"
# The question the "ready" measurement answers: plain words any vault may hold.
READY_QUESTION = "how are these notes linked to each other and what do they explain"


class TreeMemory:
    """The largest total memory of this process and its workers, sampled twice a second as
    PSS (/proc/PID/smaps_rollup): a page shared by the parent and a worker it forked counts
    once, split between them, where the sum of each process's peak RSS counts it in both.
    0 where /proc does not tell."""

    def __init__(self, every: float = 0.5) -> None:
        import threading

        self.peak_kb = 0
        self._stop = threading.Event()
        self._every = every
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        self._sample()
        return self.peak_kb / 1024

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            self._sample()

    def _sample(self) -> None:
        total = sum(_pss_kb(pid) for pid in _tree(os.getpid()))
        self.peak_kb = max(self.peak_kb, total)


def _tree(pid: int) -> list[int]:
    """`pid` and every process below it (Linux's /proc/PID/task/TID/children)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo += [int(c) for c in fh.read().split()]
        except OSError:
            continue
    return found


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _child(vault: str, repeat: int, ready: bool, profile: str | None) -> None:
    """Runs in the fresh process: open the catalog, print one JSON line of measurements."""
    t_start = time.perf_counter()
    from wikiq.vault.catalog import open_catalog
    from wikiq.vault.locate import locate_vault

    t_imported = time.perf_counter()
    location = locate_vault(vault)
    profiler = cProfile.Profile() if profile else None
    t0 = time.perf_counter()
    c0 = time.process_time()
    if profiler:
        profiler.enable()
    # The library's default cache folder is the user's; the folder this run measures is
    # handed in by the parent, as the CLI hands its `cache_dir` setting down.
    cache_dir = Path(os.environ["WIKIQ_CACHE_DIR"])
    tree = TreeMemory()
    catalog = open_catalog(location, cache_dir=cache_dir)
    if profiler:
        profiler.disable()
    open_s = time.perf_counter() - t0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    result: dict[str, Any] = {
        "tree_pss_peak_mb": tree.stop(),
        "import_s": t_imported - t_start,
        "open_s": open_s,
        "open_cpu_s": time.process_time() - c0,
        "workers_cpu_s": kids.ru_utime + kids.ru_stime,
        "pages": len(catalog),
        "files_read": catalog.files_read,
    }
    if repeat > 1:
        times = []
        for _ in range(repeat - 1):
            t = time.perf_counter()
            open_catalog(location, cache_dir=cache_dir)
            times.append(time.perf_counter() - t)
        result["inprocess_open_s"] = statistics.median(times)
    if ready:
        from wikiq.retrieve.cascade import Retriever

        # Ready to answer, as a server is after its first question: the retrieval indexes
        # (loading the term counts only when they must be built) and one question answered.
        t = time.perf_counter()
        retriever = Retriever(catalog)
        retriever.indexes  # noqa: B018 - builds or loads the retrieval indexes
        result["indexes_s"] = time.perf_counter() - t
        t = time.perf_counter()
        retriever.retrieve(READY_QUESTION)
        result["question_s"] = time.perf_counter() - t
    if profiler and profile:
        buf = io.StringIO()
        pstats.Stats(profiler, stream=buf).sort_stats("cumulative").print_stats(25)
        Path(profile).write_text(buf.getvalue(), encoding="utf-8")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result["maxrss_mb"] = own / 1024  # Linux reports kilobytes
    result["workers_maxrss_mb"] = kids.ru_maxrss / 1024
    print(json.dumps(result))


def run_child(
    vault: Path,
    cache_dir: Path,
    *,
    repeat: int = 1,
    ready: bool = False,
    profile: Path | None = None,
) -> dict[str, Any]:
    """One fresh interpreter opening `vault` with `cache_dir` as its cache; its measurements."""
    cmd = [sys.executable, __file__, "--child", str(vault), "--repeat", str(repeat)]
    if ready:
        cmd.append("--ready")
    if profile:
        cmd += ["--profile-to", str(profile)]
    env = {**os.environ, "WIKIQ_CACHE_DIR": str(cache_dir)}
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"child failed on {vault}:\n{proc.stderr}")
    data: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    data["process_wall_s"] = wall
    return data


def evict_from_os_cache(vault: Path) -> None:
    """Drop the vault's Markdown files from the OS page cache, so the next read is from disk."""
    from wikiq.vault.scan import advise_files

    advise_files(vault.rglob("*.md"), os.POSIX_FADV_DONTNEED)


def dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def measure(
    vault: Path, cold_reps: int, warm_reps: int, profile: bool, cold_disk: bool = False
) -> dict[str, Any]:
    # Every cache and profile lives in one scratch folder, removed even if a child fails.
    with tempfile.TemporaryDirectory(prefix="wikiq-bench-") as tmp:
        scratch = Path(tmp)
        profiles: dict[str, str] = {}
        if profile:  # an extra cold open under cProfile, kept out of the timings
            prof = scratch / "cold.prof.txt"
            run_child(vault, scratch / "cold-profiled", profile=prof)
            profiles["cold"] = prof.read_text(encoding="utf-8")
        colds = []
        for rep in range(cold_reps):
            if cold_disk:
                evict_from_os_cache(vault)
            colds.append(run_child(vault, scratch / f"cold-{rep}"))
        keep = scratch / "cold-0"  # the filled cache every warm open reads
        cache_bytes = dir_size(keep)
        warms = [run_child(vault, keep) for _ in range(warm_reps)]
        repeated = run_child(vault, keep, repeat=6)  # 1 + 5 more opens in the same process
        # The first run may build (and cache) the retrieval indexes; the second finds them.
        ready_first = run_child(vault, keep, ready=True)
        ready = run_child(vault, keep, ready=True)
        # The cache a vault keeps once it has answered: the retrieval indexes too.
        cache_ready_bytes = dir_size(keep)
        if profile:
            prof = scratch / "warm.prof.txt"
            run_child(vault, keep, profile=prof)
            profiles["warm"] = prof.read_text(encoding="utf-8")
    if any(w["files_read"] for w in warms):
        print(f"warning: a warm open of {vault} re-read files", file=sys.stderr)

    def med(rows: list[dict[str, Any]], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    pages = colds[0]["pages"]
    cold_open = med(colds, "open_s")
    return {
        "vault": str(vault),
        "pages": pages,
        "cold_reps": cold_reps,
        "cold_disk": cold_disk,
        "warm_reps": warm_reps,
        "cold_open_s": cold_open,
        "cold_cpu_s": med(colds, "open_cpu_s") + med(colds, "workers_cpu_s"),
        "cold_process_wall_s": med(colds, "process_wall_s"),
        "cold_pages_per_s": pages / cold_open if cold_open else None,
        "cold_maxrss_mb": max(r["maxrss_mb"] for r in colds),
        "cold_workers_maxrss_mb": max(r["workers_maxrss_mb"] for r in colds),
        "cold_tree_pss_peak_mb": max(r["tree_pss_peak_mb"] for r in colds),
        "warm_open_s": med(warms, "open_s"),
        "warm_cpu_s": med(warms, "open_cpu_s"),
        "warm_open_all_s": [round(r["open_s"], 4) for r in warms],
        "warm_inprocess_open_s": repeated["inprocess_open_s"],
        "warm_import_s": med(warms, "import_s"),
        "warm_process_wall_s": med(warms, "process_wall_s"),
        "warm_pages_per_s": pages / med(warms, "open_s"),
        "warm_maxrss_mb": max(r["maxrss_mb"] for r in warms),
        "ready_first_indexes_s": ready_first["indexes_s"],
        "ready_question_s": ready["question_s"],
        "ready_indexes_s": ready["indexes_s"],
        "ready_maxrss_mb": ready["maxrss_mb"],
        "cache_mb": cache_bytes / 1e6,  # after the first open: the catalog's files
        "cache_ready_mb": cache_ready_bytes / 1e6,  # after a question: every file
        "profiles": profiles,
    }


def markdown(rows: list[dict[str, Any]]) -> str:
    head = (
        "| vault | pages | first open (s) | CPU (s) | pages/s | first-open RSS MB (main / workers) "
        "| warm open (s) | CPU (s) | in-process repeat (s) | process wall (s) | warm RSS MB "
        "| + retrieval indexes, first / cached (s) | + first question (s) | RSS ready MB "
        "| cache MB (open / ready) |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"| {Path(r['vault']).name} | {r['pages']:,} | {r['cold_open_s']:.2f} "
            f"| {r['cold_cpu_s']:.1f} | {r['cold_pages_per_s']:,.0f} "
            f"| {r['cold_maxrss_mb']:.0f} / {r['cold_workers_maxrss_mb']:.0f} "
            f"| {r['warm_open_s']:.3f} | {r['warm_cpu_s']:.3f} "
            f"| {r['warm_inprocess_open_s']:.3f} "
            f"| {r['warm_process_wall_s']:.2f} | {r['warm_maxrss_mb']:.0f} "
            f"| {r['ready_first_indexes_s']:.2f} / {r['ready_indexes_s']:.3f} "
            f"| {r['ready_question_s']:.3f} "
            f"| {r['ready_maxrss_mb']:.0f} | {r['cache_mb']:.1f} / {r.get('cache_ready_mb', 0):.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vaults", nargs="*", type=Path)
    parser.add_argument("--cold-reps", type=int, default=3)
    parser.add_argument("--warm-reps", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="print cProfile top lines")
    parser.add_argument(
        "--cold-disk",
        action="store_true",
        help="drop the vault's files from the OS cache before each first open (Linux)",
    )
    parser.add_argument("--out", type=Path, default=OUT_DIR / "open_times.json")
    # internal: the fresh child process
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--ready", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--profile-to", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.repeat, args.ready, args.profile_to)
        return 0
    if not args.vaults:
        parser.error("give at least one vault path")

    rows = []
    for vault in args.vaults:
        print(f"measuring {vault} …", file=sys.stderr)
        before = os.getloadavg()[0]
        row = measure(
            vault.resolve(), args.cold_reps, args.warm_reps, args.profile, args.cold_disk
        )
        row["loadavg"] = [before, os.getloadavg()[0]]
        rows.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M")
    args.out.write_text(
        json.dumps({"date": stamp, "rows": rows}, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    print(markdown(rows))
    loads = ", ".join(
        f"{Path(r['vault']).name} {r['loadavg'][0]:.1f}→{r['loadavg'][1]:.1f}" for r in rows
    )
    print(f"\n(load average during the runs: {loads}; {os.cpu_count()} cores)")
    for r in rows:
        for kind, text in r["profiles"].items():
            print(f"\n### cProfile, {kind} open of {Path(r['vault']).name}\n```\n{text}```")
    print(f"\n(JSON: {args.out}; {stamp})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
