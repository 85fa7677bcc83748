"""Edit → answerable under a running server (issue 18's last figure), on a generated vault.

    python bench/edit_seen.py VAULT [--gaps 0,8,4,6,10,10] [--seed 7] [--out FILE]

Opens VAULT as `serve` and `mcp` do (`Wiki.open`, one question, `Wiki.watch()`), lets the
watcher settle, then appends a line with a word no page holds to a random page of `wiki/`,
one edit after each gap (seconds), and times each edit until a search for the word puts that
page first. With the default gaps some edits come while the watcher's refresh (the exact
rebuild, once the vault is quiet) is running. At the end it waits for that refresh and checks
that every edit is still found. Prints one JSON object and writes it to `--out`.

It writes into the vault: only for vaults made by `bench/make_vault.py` (they hold
`questions.jsonl` beside `wiki/`), never yours. The cache is `WIKIQ_CACHE_DIR` (scale.py passes
the size's own).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

SETTLE_S = 20.0  # the watcher's first scan and its preparation (~10 s at a million pages)
SEARCH_PAUSE_S = 0.02


def _refreshing() -> bool:
    return any(t.name == "wikiq-refresh" and t.is_alive() for t in threading.enumerate())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--gaps", default="0,8,4,6,10,10")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if not (args.vault / "questions.jsonl").is_file():
        print(f"{args.vault}: not a vault made by bench/make_vault.py; not editing it")
        return 2
    os.environ.setdefault("WIKIQ_EMBED", "off")
    from wikiq.wiki import Wiki

    t = time.perf_counter()
    wiki = Wiki.open(args.vault)
    wiki.search("cadence theory")
    opened = time.perf_counter() - t
    halt = wiki.watch()
    time.sleep(SETTLE_S)
    folder = args.vault / "wiki" / "concepts"
    names = sorted(os.listdir(folder))
    rng = random.Random(args.seed)
    edits = []
    for gap in (float(g) for g in args.gaps.split(",")):
        time.sleep(gap)
        page = folder / names[rng.randrange(len(names))]
        word = f"zyxqwv{rng.randrange(10**9)}"
        want = f"concepts/{page.name[:-3]}"
        during = _refreshing()
        t = time.perf_counter()
        with page.open("a", encoding="utf-8") as fh:
            fh.write(f"\nA new line about {word}.\n")
        while True:
            results = wiki.search(word).results
            if results and results[0].path == want:
                break
            time.sleep(SEARCH_PAUSE_S)
        seen = time.perf_counter() - t
        edits.append({"seconds": round(seen, 3), "while_refreshing": during, "word": word, "page": want})
        print(f"edit -> answerable {seen:.2f} s (a refresh running: {during})", file=sys.stderr, flush=True)
    t = time.perf_counter()
    while _refreshing() or wiki.pending_edits:
        time.sleep(0.5)
    rebuilt = time.perf_counter() - t
    found = sum(
        1
        for e in edits
        if (r := wiki.search(e["word"]).results) and r[0].path == e["page"]
    )
    halt()
    times = [e["seconds"] for e in edits]
    report = {
        "vault": str(args.vault),
        "pages": len(wiki.catalog),
        "open_and_first_search_s": round(opened, 1),
        "edits": edits,
        "edit_seen_median_s": round(statistics.median(times), 3),
        "edit_seen_max_s": max(times),
        "last_refresh_s": round(wiki.refresh_seconds or 0.0, 1),
        "waited_for_the_rebuild_s": round(rebuilt, 1),
        "found_after_the_rebuild": f"{found}/{len(edits)}",
    }
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
