"""Re-check the abstention sets: how many pages of each vault contain each question's key terms.

    python bench/abstain/check_terms.py [--vaults-root ../shared/bench]

Every question in `bench/abstain/<vault>.jsonl` (and `heldout/<vault>.jsonl`) carries `key_terms`, the words a page would
need to mention to answer it. A count of 0 means the vault never mentions the term; the few
non-zero counts were read by hand and are incidental (listed in README.md). Run this after
editing a set, or against a newer copy of a vault.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_ROOT = HERE.parent.parent.parent / "shared" / "bench"
_LATIN = re.compile(r"[a-z0-9 \-]+")


def page_texts(wiki: Path) -> list[str]:
    return [p.read_text(encoding="utf-8", errors="replace").lower() for p in wiki.rglob("*.md")]


def count(texts: list[str], term: str) -> int:
    term = term.lower()
    if _LATIN.fullmatch(term):  # whole-word start for Latin terms ("flu" is not "fluid")
        pattern = re.compile(r"\b" + re.escape(term))
        return sum(1 for t in texts if pattern.search(t))
    return sum(1 for t in texts if term in t)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vaults-root", type=Path, default=DEFAULT_ROOT)
    args = parser.parse_args(argv)
    for qfile in sorted(HERE.glob("*.jsonl")) + sorted(HERE.glob("heldout/*.jsonl")):
        wiki = args.vaults_root / qfile.stem / "wiki"
        if not wiki.is_dir():
            print(f"{qfile.name}: vault {wiki} not found", file=sys.stderr)
            continue
        texts = page_texts(wiki)
        questions = [json.loads(line) for line in qfile.read_text(encoding="utf-8").splitlines()]
        clean = 0
        label = qfile.relative_to(HERE).with_suffix("")
        print(f"## {label}: {len(questions)} questions, {len(texts)} pages")
        for q in questions:
            hits = {t: count(texts, t) for t in q["key_terms"]}
            if any(hits.values()):
                found = ", ".join(f"{t}={n}" for t, n in hits.items() if n)
                print(f"  {q['id']}  {q['question']}  — pages mentioning: {found}")
            else:
                clean += 1
        print(f"  {clean} of {len(questions)} with no key term anywhere in the vault")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
