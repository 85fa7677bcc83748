"""The dev sets of ../shared/bench: which vault each questions file runs against."""

from __future__ import annotations

from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent.parent / "shared" / "bench"

# name -> (vault folder, questions file)
DEV_SETS: dict[str, tuple[Path, Path]] = {
    "sample50": (BENCH / "sample50", BENCH / "sample50" / "questions.jsonl"),
    "loo-ai-operator": (BENCH / "ai-operator-wiki", BENCH / "loo" / "ai-operator-wiki.jsonl"),
    "loo-ob-wiki": (BENCH / "ob-wiki", BENCH / "loo" / "ob-wiki.jsonl"),
    "2wiki": (BENCH / "2wiki-hipporag", BENCH / "2wiki-hipporag" / "questions.jsonl"),
}
