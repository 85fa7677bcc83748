"""Fit the coverage decision (src/wikiq/retrieve/coverage.py) and report how it carries over.

    python bench/fit_coverage.py [--write]

Collects the coverage features of every question of the natural dev sets (answerable and
`absent`), bench/abstain (uncovered, not the held-out files) and the older dev sets
(sample50, leave-one-out, 2wiki: all answerable), fits a logistic regression (L2, classes
balanced, each older set weighted as 50 questions so it cannot drown the natural ones; named
and foreign-language questions left out, since rules decide them), picks
the thresholds, and prints in-sample and leave-one-vault-out figures: false "not covered" on
answerable questions and abstention on uncovered ones, on the fresh sets (bench/natural2,
neither fitted nor capped on) too. `--write` writes the fitted constants
into coverage.py (between its `fitted:begin` and `fitted:end` lines). Stage 0 is left out (no
embedding index is assumed): its standout is a rule in coverage.py, not a weight.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
from devsets import BENCH, DEV_SETS, FRESH_SETS  # noqa: E402

from wikiq.retrieve.coverage import (  # noqa: E402
    FOREIGN,
    NOT_COVERED,
    CoverageFeatures,
    model_cut,
    not_covered_by_rule,
)

NATURAL = {  # questions file -> vault folder
    "sample50": "sample50",
    "obsidian-help-en": "obsidian-help/en",
    "obsidian-help-zh": "obsidian-help/zh",
    "ai-operator-wiki": "ai-operator-wiki",
    "ob-wiki": "ob-wiki",
}
COVERAGE_PY = BENCH_DIR.parent / "src" / "wikiq" / "retrieve" / "coverage.py"
OLD_SET_WEIGHT = 50.0
L2 = 0.1
# Targets the thresholds are chosen for (issue 10): false "not covered" at most this share of
# answerable natural questions (the issue allows 3%; the rest is a margin for the hidden sets:
# at 2.5% the cut rose to 0.22 once the abbreviation rule freed budget, and leave-one-vault-out
# false "not covered" went to 3.9%; at 2% it is 1.7%)...
MAX_FALSE_ABSTAIN = 0.02
# Whose answerable questions the false "not covered" cap counts: the dev sets'. The fresh sets
# (bench/natural2, written apart) are neither fitted on nor capped on: their figures say how
# the fit carries over to questions written by others, as the hidden sets are.
CAPPED_SETS = ("natural/",)
# "covered: yes" from here up; between the two cuts the answer carries a caveat.
COVERED_FROM = 0.5


def _rows(path: Path) -> list[dict]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def collect() -> list[dict]:
    """One record per question: vault, set, answerable, features."""
    from wikiq.retrieve.cascade import Retriever
    from wikiq.vault.catalog import open_catalog
    from wikiq.vault.locate import locate_vault

    groups: dict[Path, list[tuple[str, dict, float]]] = {}
    for name, folder in NATURAL.items():
        for r in _rows(BENCH / "natural" / f"{name}.jsonl"):
            groups.setdefault(BENCH / folder, []).append((f"natural/{name}", r, 1.0))
    for name, (vault, questions) in FRESH_SETS.items():
        for r in _rows(questions):
            groups.setdefault(vault, []).append((f"fresh/{name}", r, 1.0))
    for f in sorted((BENCH_DIR / "abstain").glob("*.jsonl")):
        for r in _rows(f):
            groups.setdefault(BENCH / f.stem, []).append(("abstain", r, 1.0))
    for name, (vault, questions) in DEV_SETS.items():
        rows = _rows(questions)
        for r in rows:
            groups.setdefault(vault, []).append((name, r, OLD_SET_WEIGHT / len(rows)))
    out = []
    for vault, items in groups.items():
        retriever = Retriever(open_catalog(locate_vault(vault)))
        for set_name, r, weight in items:
            got = retriever.retrieve(r["question"], k=5, exclude=frozenset(r.get("exclude", [])))
            out.append(
                {
                    "vault": vault.name
                    if vault.parent.name != "obsidian-help"
                    else f"help-{vault.name}",
                    "set": set_name,
                    "id": r.get("id"),
                    "answerable": bool(r.get("gold")),
                    "weight": weight,
                    "features": got.coverage["features"],
                    # Questions the decision never abstains on: a page named, or asked in a
                    # language the vault is not written in (coverage.FOREIGN).
                    "named": got.arm in ("Lex+PPR", "Sources+PPR")
                    or got.coverage["features"]["foreign"] >= FOREIGN,
                    # No page shares a word with it: "not covered" whatever the model says.
                    "empty": not got.results,
                }
            )
        print(f"  {vault.name}: {len(items)} questions", file=sys.stderr, flush=True)
    return out


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted logistic regression by Newton's method; returns [intercept, coefficients...]."""
    pos, neg = w[y == 1].sum(), w[y == 0].sum()
    w = np.where(y == 1, w / pos, w / neg) * len(y) / 2  # balanced classes
    xb = np.hstack([np.ones((len(x), 1)), x])
    beta = np.zeros(xb.shape[1])
    reg = np.diag([0.0] + [L2] * x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-xb @ beta))
        grad = xb.T @ (w * (p - y)) + reg @ beta
        hess = (xb * (w * p * (1 - p))[:, None]).T @ xb + reg
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def probabilities(beta: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(beta[0] + x @ beta[1:])))


def ruled_out(p: np.ndarray, recs: list[dict]) -> np.ndarray:
    """The questions coverage.py's rules judge "not covered" whatever the cut: a name no page
    mentions, or a thing no page mentions in a question not clearly covered."""
    return np.array(
        [
            not_covered_by_rule(CoverageFeatures.from_dict(r["features"]), prob, COVERED_FROM)
            is not None
            for prob, r in zip(p, recs, strict=True)
        ],
        dtype=bool,
    )


def length_scale(recs: list[dict]) -> np.ndarray:
    """How far each question's cut sits below the model's (coverage.model_cut: 1 but for a
    long question), as a factor on any cut tried."""
    return np.array(
        [model_cut(CoverageFeatures.from_dict(r["features"])) / NOT_COVERED for r in recs]
    )


def thresholds(p: np.ndarray, recs: list[dict]) -> tuple[float, float]:
    """NOT_COVERED: among the cuts with false abstention ≤ MAX_FALSE_ABSTAIN on the natural
    answerable questions and ≤ 1% on the older sets, the one that abstains on the most uncovered
    questions, then costs the fewest answerable ones, then is the highest (the far end of a
    plateau: a question just above the dev set's cut is more often uncovered than not);
    COVERED: COVERED_FROM."""
    nat = np.array([r["set"].startswith(CAPPED_SETS) and r["answerable"] for r in recs])
    old = np.array([r["set"] in DEV_SETS for r in recs])
    uncovered = np.array([not r["answerable"] for r in recs])
    effective = np.array([not r["named"] for r in recs])  # named questions never abstain
    ruled = ruled_out(p, recs)
    scale = length_scale(recs)
    low, best = 0.0, (-1, 0)
    for t in np.arange(0.01, 0.9, 0.01):
        no = ((p < t * scale) & effective) | ruled
        fa_nat = np.mean(no[nat])
        fa_old = np.mean(no[old])
        key = (int(no[uncovered].sum()), -int(no[nat].sum()))
        if fa_nat <= MAX_FALSE_ABSTAIN and fa_old <= 0.01 and key >= best:
            low, best = float(t), key
    # With classes balanced in the fit, 0.5 is where covered becomes the likelier reading.
    high = max(low, COVERED_FROM)
    return round(low, 2), round(max(high, low), 2)


def report(
    p: np.ndarray, recs: list[dict], low: float | np.ndarray, label: str
) -> None:
    def share(mask: np.ndarray, cond: np.ndarray) -> str:
        return (
            f"{cond[mask].mean():.1%} ({int(cond[mask].sum())}/{int(mask.sum())})"
            if mask.any()
            else "—"
        )

    effective = np.array([not r["named"] for r in recs])
    empty = np.array([r.get("empty", False) for r in recs])
    abstain = ((p < low * length_scale(recs)) & effective) | empty | ruled_out(p, recs)
    nat_ans = np.array([r["set"].startswith("natural/") and r["answerable"] for r in recs])
    nat_abs = np.array([r["set"].startswith("natural/") and not r["answerable"] for r in recs])
    fresh_ans = np.array([r["set"].startswith("fresh/") and r["answerable"] for r in recs])
    fresh_abs = np.array([r["set"].startswith("fresh/") and not r["answerable"] for r in recs])
    bench_abs = np.array([r["set"] == "abstain" for r in recs])
    old = np.array([r["set"] in DEV_SETS for r in recs])
    print(
        f"  {label:28} false not-covered: natural {share(nat_ans, abstain)}, older sets "
        f"{share(old, abstain)}, fresh {share(fresh_ans, abstain)}; abstained: natural absent "
        f"{share(nat_abs, abstain)}, fresh absent {share(fresh_abs, abstain)}, "
        f"bench/abstain {share(bench_abs, abstain)}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="print the constants for coverage.py")
    ap.add_argument("--cache", type=Path, default=BENCH_DIR / "out" / "coverage_features.json")
    ap.add_argument(
        "--reuse", action="store_true", help="reuse the features saved by a previous run"
    )
    args = ap.parse_args()
    from wikiq.retrieve.coverage import COEFFICIENTS

    if args.reuse and args.cache.is_file():
        recs = json.loads(args.cache.read_text())
    else:
        recs = collect()
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        args.cache.write_text(json.dumps(recs))
    names = list(COEFFICIENTS)
    x = np.array([[r["features"][n] for n in names] for r in recs])
    y = np.array([float(r["answerable"]) for r in recs])
    w = np.array([r["weight"] for r in recs])
    # The model is fitted only where it decides: named and foreign-language questions are
    # never judged "not covered" (a rule), so they would only teach it easy positives.
    judged = np.array([not r["named"] and not r["set"].startswith("fresh/") for r in recs])
    beta = fit(x[judged], y[judged], w[judged])
    p = probabilities(beta, x)
    low, high = thresholds(p, recs)
    print(f"features: {', '.join(names)}")
    print(
        f"in-sample fit: intercept {beta[0]:.3f}, "
        + ", ".join(f"{n} {b:.3f}" for n, b in zip(names, beta[1:], strict=True))
    )
    print(f"thresholds: not covered below {low}, covered from {high}")
    report(p, recs, low, "in-sample")
    # Leave one vault out: fit and choose thresholds without it, judge it.
    vaults = sorted({r["vault"] for r in recs})
    p_out = np.zeros(len(recs))
    low_out = np.zeros(len(recs))
    for v in vaults:
        test = np.array([r["vault"] == v for r in recs])
        train = ~test & judged
        b = fit(x[train], y[train], w[train])
        lo, _ = thresholds(
            probabilities(b, x[~test]), [r for r, t in zip(recs, test, strict=True) if not t]
        )
        p_out[test] = probabilities(b, x[test])
        low_out[test] = lo
        report(
            p_out[test],
            [r for r, t in zip(recs, test, strict=True) if t],
            lo,
            f"held out: {v} (cut {lo})",
        )
    print("  pooled leave-one-vault-out:")
    report(p_out, recs, low_out, "all vaults")
    block = "\n".join(
        [
            "# fitted:begin (written by `python bench/fit_coverage.py --write`; do not edit by hand)",
            f"INTERCEPT = {beta[0]:.3f}",
            "COEFFICIENTS: dict[str, float] = {",
            *(f'    "{n}": {b:.3f},' for n, b in zip(names, beta[1:], strict=True)),
            "}",
            "# Below NOT_COVERED the vault does not cover the question; at COVERED and above it does.",
            f"NOT_COVERED = {low}",
            f"COVERED = {high}",
            "# fitted:end",
        ]
    )
    if args.write:
        text = COVERAGE_PY.read_text(encoding="utf-8")
        start, end = text.index("# fitted:begin"), text.index("# fitted:end") + len("# fitted:end")
        COVERAGE_PY.write_text(text[:start] + block + text[end:], encoding="utf-8")
        print(f"wrote the fitted constants into {COVERAGE_PY.relative_to(BENCH_DIR.parent)}")
    else:
        print("\n" + block)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
