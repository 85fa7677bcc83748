"""`wikiq search` and `wikiq eval`: retrieval on its own, explained and measured."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from wikiq.cli.app import (
    JsonOpt,
    SourcesOpt,
    VaultOpt,
    WikiFolderOpt,
    app,
    open_wiki,
    print_json,
    sources_config,
)
from wikiq.errors import ConfigError
from wikiq.retrieve.cascade import MODES, RetrieverSettings
from wikiq.retrieve.coverage import COVERED, NOT_COVERED, NOT_WORKED_OUT

# rich (~35 ms) and the eval helpers load only where they print or measure: a search piped
# as JSON never needs them.
if TYPE_CHECKING:
    from rich.console import Console

    from wikiq.retrieve.result import Retrieval

RetrieverOpt = Annotated[
    str,
    typer.Option(
        "--retriever",
        help="Which stages run: full, lexical (titles/aliases only), body (text only), no-ppr, mc-ppr (Monte Carlo PPR, as the plugin), no-subject (without the Sources+PPR rule).",
    ),
]
TopKOpt = Annotated[
    int, typer.Option("-k", "--top-k", min=1, max=200, help="How many pages to return.")
]


def _settings(retriever: str) -> RetrieverSettings:
    if retriever not in MODES:
        raise ConfigError(f"Unknown --retriever '{retriever}': choose one of {', '.join(MODES)}.")
    return RetrieverSettings(mode=retriever)


@app.command()
def search(
    question: Annotated[str, typer.Argument(help="What you want to find, in any language.")],
    vault: VaultOpt = None,
    wiki_folder: WikiFolderOpt = None,
    k: TopKOpt = 8,
    json: JsonOpt = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Show which words matched which titles, the seeds, PPR mass and every signal.",
        ),
    ] = False,
    retriever: RetrieverOpt = "full",
    sources: SourcesOpt = None,
) -> None:
    """Find the pages that answer a question, without asking a model to write an answer.

    Examples:\n
      wikiq search "gravity assist"\n
      wikiq search "嫦娥四号在哪里着陆？" --explain\n
      wikiq search "heart failure" --json | jq '.results[].path'
    """
    wiki = open_wiki(vault, wiki_folder, sources_config(sources), for_questions=True)
    result = wiki.search(question, k=k, settings=_settings(retriever))
    if json:
        print_json(result.to_dict(str(wiki.location.vault), wiki.location.wiki_folder))
        return
    from wikiq.cli.tips import semantic_index_tip

    print_retrieval(result, explain=explain)
    semantic_index_tip(wiki, result.covered)


# Below this many columns, `--explain` drops the title column and shortens the signals.
WIDE_EXPLAIN = 130
SHORT_SIGNAL_NAMES = {
    "link_out": "out",
    "centrality": "cent",
    "rank_text": "text",
    "rank_translated": "transl",
    "rank_part0": "part1",
    "rank_part1": "part2",
    "rank_lead": "lead",
    "rank_passages": "pass",
    "rank_names": "names",
    "rank_sem": "sem",
    "rank_graph": "graph",
}


def print_retrieval(r: Retrieval, *, explain: bool = False, console: Console | None = None) -> None:
    from rich.markup import escape
    from rich.table import Table

    from wikiq.cli.output import stdout_console

    out = console or stdout_console()
    if r.pure_llm:
        out.print(f"[bold yellow]{r.arm}[/bold yellow]  not covered by this vault: ", end="")
        out.print(f"{r.reason}.", markup=False, highlight=False)
        if not r.results:
            return
        out.print("[dim]Closest in your vault:[/dim]")
    else:
        style = "bold cyan" if r.covered == "yes" else "bold yellow"
        label = "" if r.covered == "yes" else "  [yellow](may cover it only in part)[/yellow]"
        out.print(f"[{style}]{r.arm}[/{style}]{label}  ", end="")
        out.print(r.reason, markup=False, highlight=False)
    if explain:
        _print_coverage(r, out)
        seeds = Table(
            title="Seeds (entry points into the link graph)",
            box=None,
            header_style="bold",
            title_justify="left",
        )
        for col in ("page", "stage", "score", "matched words"):
            seeds.add_column(col, overflow="fold")
        for s in r.seeds:
            matched = ", ".join(f"{w}→{f}" for w, f in s.matched.items())
            seeds.add_row(escape(s.path), s.stage, f"{s.score:.3f}", escape(matched))
        out.print(seeds)
        if r.keywords:
            out.print("model keywords: " + ", ".join(r.keywords), markup=False)
    # On a narrow terminal the signals keep their own columns and the titles make way (the
    # path names the page too), so no cell is folded mid-word.
    compact = explain and out.width < WIDE_EXPLAIN
    table = Table(box=None, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("page", overflow="fold")
    if not compact:
        table.add_column("title", overflow="fold")
    signals = _signal_columns(r)
    if explain:
        for col in signals:
            header = SHORT_SIGNAL_NAMES.get(col, col) if compact else col.replace("_", " ")
            table.add_column(header, justify="right", no_wrap=True)
    digits = 2 if compact else 3
    for n, p in enumerate(r.results, start=1):
        row = [str(n), f"{p.score:.2f}", escape(p.path)] + ([] if compact else [escape(p.title)])
        if explain:
            row += [_signal(p.signals.get(col), col, digits) for col in signals]
        table.add_row(*row)
    out.print(table)
    _print_sources(r, out)
    if explain:
        timings = "  ".join(f"{k} {v:.2f}ms" for k, v in r.timings_ms.items())
        out.print(f"[dim]{timings}[/dim]")


SOURCES_SHOWN = 3  # excerpts under the pages in the terminal (--json has them all)


def _print_sources(r: Retrieval, out: Console) -> None:
    """The best source-note excerpts, one line each (vault text printed as text, not markup)."""
    if not r.sources:
        return
    out.print("[bold]Source notes[/bold]")
    for x in r.sources[:SOURCES_SHOWN]:
        line = " ".join(x.text.split())
        short = line[:160] + ("…" if len(line) > 160 else "")
        out.print(f"  {x.score:.2f}  [[{x.path}]]  {short}", markup=False, highlight=False)


# Open questions are ranked by reciprocal rank fusion: each channel's rank is what counts.
RANK_SIGNALS = (
    "rank_text",
    "rank_translated",
    "rank_part0",
    "rank_part1",
    "rank_lead",
    "rank_passages",
    "rank_names",
    "rank_sem",
    "rank_keywords",
    "rank_graph",
    "rrf",
)


def _signal_columns(r: Retrieval) -> list[str]:
    """The signals behind this ranking: channel ranks for an open question, the plugin's
    signals (names, text, PPR) for a named one; embeddings only when Stage 0 ran."""
    if any("rrf" in p.signals for p in r.results):
        present = {k for p in r.results for k in p.signals}
        return [c for c in RANK_SIGNALS if c in present]
    signals = ["lex", "body", "lead", "ppr", "link_out", "centrality"]
    if any(p.signals.get("sem") for p in r.results):
        signals.insert(3, "sem")
    return signals


def _signal(value: float | None, column: str, digits: int) -> str:
    if value is None:
        return "–"
    if column.startswith("rank_"):
        return str(int(value))
    return f"{value:.{digits}f}"


def _print_coverage(r: Retrieval, out: Console) -> None:
    """The coverage decision: its inputs, the fitted probability and the two thresholds."""
    c = r.coverage
    if not c:
        return
    features = "  ".join(
        f"{k} –"
        if NOT_WORKED_OUT.get(k) == v  # worked out only when it could change the decision
        else f"{k} {v:.0f}"
        if k == "words"  # a count
        else f"{k} {v:.2f}"
        if isinstance(v, float | int)
        else f"{k} {', '.join(map(str, v)) or '–'}"
        for k, v in c.get("features", {}).items()
    )
    cuts = c.get("thresholds", {})
    low = float(cuts.get("not_covered", NOT_COVERED))
    # Above the model's own cut: what everyday questions score on this vault (background.py);
    # below it: a long question's (coverage.model_cut).
    why = (
        ": this vault's background"
        if low > NOT_COVERED
        else ": a long question"
        if low < NOT_COVERED
        else ""
    )
    out.print(
        f"covered: {c.get('covered')}  probability {c.get('probability', 0.0):.3f}  "
        f"(not covered below {low:.2f}{why}, covered from {float(cuts.get('covered', COVERED)):.2f})",
        markup=False,
        highlight=False,
    )
    out.print(f"  {features}", markup=False, highlight=False, style="dim")


@app.command(name="eval")
def eval_command(
    questions: Annotated[
        Path,
        typer.Argument(
            help='JSON lines: {"id", "question", "gold": [paths], "kind"?, "exclude"?}.'
        ),
    ],
    vault: VaultOpt = None,
    wiki_folder: WikiFolderOpt = None,
    json: JsonOpt = False,
    retriever: RetrieverOpt = "full",
    sources: SourcesOpt = None,
    no_model: Annotated[
        bool,
        typer.Option(
            "--no-model",
            help="Leave the configured model out (no Stage 2 keywords), to measure the "
            "retrieval alone. Without it, eval runs what `search` runs.",
        ),
    ] = False,
) -> None:
    """Measure retrieval on a questions file: recall@5/@10, all-gold@5, MRR, abstention, latency.

    Every question runs in this one process (warm indexes), so latencies are per question.
    Figures are given overall and per "kind"; a question answered as not covered scores 0,
    and "covered y/u/n" counts the coverage decision's answers (yes / uncertain / no).
    --retriever bm25 is the baseline: plain BM25 over titles, aliases and text.

    Examples:\n
      wikiq eval examples/demo-questions.jsonl --vault examples/demo-vault\n
      wikiq eval questions.jsonl --retriever lexical --json
    """
    from rich.markup import escape
    from rich.table import Table

    from wikiq.cli.output import stdout_console
    from wikiq.cli.progress import progress_bar
    from wikiq.retrieve.evaluate import load_questions, report, run_questions

    wiki = open_wiki(vault, wiki_folder, sources_config(sources), for_questions=True)
    settings = _settings(retriever)
    items = load_questions(questions)
    retr = wiki.searcher(settings=settings, use_model=not no_model)
    retr.warm()  # indexes and their vocabularies built before timing the first question
    with progress_bar("Evaluating", show=sys.stderr.isatty() and not json) as update:
        outcomes = run_questions(
            lambda q, k, ex: retr.retrieve(q, k=k, exclude=ex),
            items,
            on_progress=lambda n: update(n, len(items)),
        )
    data = report(outcomes)
    if json:
        print_json(data)
        return
    table = Table(box=None, header_style="bold")
    cols = [
        "n",
        "recall@5",
        "recall@10",
        "all_gold@5",
        "mrr",
        "abstain_acc",
        "false_abstain",
        "p50_ms",
        "p95_ms",
    ]
    table.add_column("set")
    for c in cols:
        table.add_column(c, justify="right")
    table.add_column("covered y/u/n", justify="right")
    extra = []  # source_recall@5 only for questions files with gold_sources
    if data["overall"].get("source_recall@5") is not None:
        extra.append("source_recall@5")
        table.add_column("source_recall@5", justify="right")
    rows = [("overall", data["overall"]), *data["by_kind"].items()]
    for name, summary in rows:
        counts = summary["covered"]
        covered = f"{counts['yes']}/{counts['uncertain']}/{counts['no']}"
        table.add_row(
            escape(name),
            *[_fmt(summary[c]) for c in cols],
            covered,
            *[_fmt(summary[c]) for c in extra],
        )
    stdout_console().print(table)


def _fmt(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
