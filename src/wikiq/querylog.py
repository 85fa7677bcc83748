"""A local log of answered questions (JSON lines in the user cache folder) and `stats` over it.

pureLLM is a named state so it can be counted: a high pureLLM rate says the vault does not
cover what its owner keeps asking. The log stays on this machine and never enters a vault.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from wikiq.answer.result import Answer
from wikiq.vault.cache import cache_root

LOG_FILE = "queries.jsonl"
RECENT_UNCOVERED = 5


def log_path(cache_dir: Path | None = None) -> Path:
    return cache_root(cache_dir) / LOG_FILE


def record(answer: Answer) -> dict[str, Any]:
    """The log line for one answer."""
    t = answer.timings_ms
    return {
        "ts": round(time.time(), 3),
        "vault": answer.vault,
        "question": answer.question,
        "arm": answer.arm,
        "pure_llm": answer.pure_llm,
        "extractive": answer.extractive,
        "model": answer.model,
        "citations": len(answer.citations),
        "flagged": len(answer.flagged),
        "ms": {
            key: round(t[key], 2)
            for key in ("retrieve", "to_model", "first_token", "total")
            if key in t
        },
        "tokens": answer.total_tokens,
    }


def append(answer: Answer, path: Path | None = None) -> None:
    """Add one answer to the log; a log that cannot be written is skipped silently."""
    target = path or log_path()
    line = json.dumps(record(answer), ensure_ascii=False) + "\n"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # One write of a short line in append mode: concurrent writers do not interleave.
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        pass


def read(path: Path | None = None) -> list[dict[str, Any]]:
    """Every readable line of the log (broken lines skipped)."""
    target = path or log_path()
    try:
        lines = target.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("arm"), str):
            out.append(item)
    return out


def summarize(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Questions, arm counts, the pureLLM rate and median latencies."""
    items = list(records)
    n = len(items)
    arms = Counter(str(r["arm"]) for r in items)
    pure = sum(1 for r in items if r.get("pure_llm"))
    extractive = sum(1 for r in items if r.get("extractive"))
    medians: dict[str, float | None] = {}
    for key in ("retrieve", "to_model", "first_token", "total"):
        values = [
            float(r["ms"][key])
            for r in items
            if isinstance(r.get("ms"), dict) and isinstance(r["ms"].get(key), int | float)
        ]
        medians[key] = round(statistics.median(values), 2) if values else None
    uncovered = [str(r.get("question", "")) for r in items if r.get("pure_llm")]
    return {
        "questions": n,
        "arms": dict(arms.most_common()),
        "pure_llm": pure,
        "pure_llm_rate": round(pure / n, 4) if n else None,
        "extractive": extractive,
        "flagged_links": sum(int(r.get("flagged") or 0) for r in items),
        "median_ms": medians,
        "vaults": len({r.get("vault") for r in items}),
        "recent_uncovered": uncovered[-RECENT_UNCOVERED:][::-1],
    }
