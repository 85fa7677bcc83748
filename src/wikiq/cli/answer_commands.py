"""`wikiq ask`, `wikiq chat`, `wikiq stats`: answers streamed to the terminal, and their log."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from wikiq.cli.answer_options import AnswerFlags, answering_command
from wikiq.cli.app import JsonOpt, app, print_json
from wikiq.config import load_config
from wikiq.errors import WikiqError

# rich and the output helpers load when a command prints (not when `wikiq search` registers
# these commands): importing rich costs a process ~45 ms.
if TYPE_CHECKING:
    from rich.console import Console

    from wikiq.answer.answerer import Answer, Turn
    from wikiq.answer.events import AnswerEvent
    from wikiq.wiki import Wiki

MAX_CHAT_TURNS = 50  # kept in memory; the budget decides how many reach the model

FaithfulOpt = Annotated[
    bool,
    typer.Option(
        "--faithful",
        help="Answer only by quoting the vault's source notes word for word, one citation per "
        "claim, and say when they are not enough (no wiki page, no general knowledge).",
    ),
]


@app.command()
@answering_command
def ask(
    question: Annotated[str, typer.Argument(help="Your question, in any language.")],
    json: JsonOpt = False,
    faithful: FaithfulOpt = False,
    *,
    flags: AnswerFlags,
) -> None:
    """Answer a question from your vault, with \\[\\[wiki-link]] citations and ## References.

    The answer streams as it is written. The first line says how the pages were found
    (Lex+PPR, LLM+PPR, Body+PPR, Sem+PPR, Sources+PPR) and whether the vault covers the question:
    yes; "may cover it only in part" (the answer starts with that caveat); or not covered (LLM+KB:
    a general-knowledge answer under a "not from your vault" banner, with the closest pages
    named on stderr). With no model, wikiq quotes the most relevant passages instead.
    --faithful answers only with verbatim quotes of the source notes the wiki was made from.

    Examples:\n
      wikiq ask "Who was the first person to walk on the Moon?"\n
      wikiq ask "嫦娥四号在哪里着陆？" --model ollama:qwen2.5:7b\n
      wikiq ask "What is delta-v?" --model local:smollm2 --base-url http://127.0.0.1:8080/v1\n
      wikiq ask "How does a gravity assist work?" --json | jq .citations\n
      wikiq ask "How long were the crews docked?" --faithful --cite numbered
    """
    wiki = flags.open()
    try:
        if json:
            print_json(wiki.ask(question, faithful=faithful).to_dict())
            return
        answer = stream_answer(wiki, question, faithful=faithful)
    finally:
        wiki.close()
    if answer is None:
        raise typer.Exit(130)
    from wikiq.cli.tips import semantic_index_tip

    semantic_index_tip(wiki, answer.retrieval.covered)


def stream_answer(
    wiki: Wiki,
    question: str,
    history: Sequence[Turn] = (),
    *,
    out: Console | None = None,
    shown_notes: set[str] | None = None,
    faithful: bool = False,
) -> Answer | None:
    """Print one answer as it streams; None when the user pressed Ctrl-C.

    Notes already in `shown_notes` are not repeated (a chat names its model once)."""
    from rich.console import Console

    from wikiq.answer.events import AnswerDone, AnswerToken, RetrievalDone
    from wikiq.cli.output import stdout_console

    out = out or stdout_console(soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    choice = wiki.choose_model()  # the same model ask_stream picks (opened once, cached)
    events: Generator[AnswerEvent, None, None] = wiki.ask_stream(
        question, history=history, faithful=faithful
    )
    wrote = False
    ends_with_newline = True
    try:
        for event in events:
            if isinstance(event, RetrievalDone):
                out.print(_header(event.retrieval.arm, event.retrieval.covered, choice.spec))
                out.file.flush()
            elif isinstance(event, AnswerToken):
                out.file.write(event.text)
                out.file.flush()
                wrote = True
                ends_with_newline = event.text.endswith("\n")
            elif isinstance(event, AnswerDone):
                if wrote and not ends_with_newline:
                    out.file.write("\n")
                _after(event.answer, err, shown_notes)
                return event.answer
    except KeyboardInterrupt:
        events.close()  # closes the model's connection
        if wrote and not ends_with_newline:
            out.file.write("\n")
        err.print("[yellow]Stopped.[/yellow]")
        return None
    except WikiqError:
        if wrote and not ends_with_newline:
            out.file.write("\n")
        out.file.flush()
        raise
    return None


_WHERE = {
    "yes": "from your vault",
    "uncertain": "from your vault, which may cover it only in part",
    "no": "not covered by your vault",
}


def _header(arm: str, covered: str, model: str | None) -> str:
    from rich.markup import escape

    where = _WHERE.get(covered, _WHERE["yes"])
    how = f"answered by {escape(model)}" if model else "no model: quoted passages"
    style = "bold yellow" if covered != "yes" else "bold cyan"
    return f"[{style}]{arm}[/{style}] [dim]· {where} · {how}[/dim]"


def _after(answer: Answer, err: Console, shown: set[str] | None = None) -> None:
    """Notes for the user on stderr, so the answer on stdout stays clean."""
    for note in answer.notes:
        if shown is not None:
            if note in shown:
                continue
            shown.add(note)
        err.print(note, style="dim", markup=False)
    if answer.flagged:
        err.print(
            f"[yellow]{len(answer.flagged)} link(s) did not point at a page this answer read; "
            "they are marked in the text.[/yellow]"
        )


@app.command()
@answering_command
def chat(*, flags: AnswerFlags) -> None:
    """Talk with your vault: follow-up questions keep the conversation, each finds its own pages.

    Every question gets a fresh retrieval for its topic; earlier turns go to the model as far
    as the context window allows (the oldest are dropped first). Type /exit (or Ctrl-D) to
    leave, /clear to start over. Ctrl-C stops an answer that is streaming.

    Examples:\n
      wikiq chat --model ollama:qwen2.5:7b\n
      wikiq chat --vault ~/Obsidian/MyVault
    """
    from rich.console import Console
    from rich.markup import escape

    from wikiq.cli.output import stdout_console

    wiki = flags.open()
    wiki.source_notes()  # a mistyped --sources folder is said now, not at the first question
    out = stdout_console(soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    choice = wiki.choose_model()
    who = choice.spec or "no model (answers quote your pages)"
    out.print(
        f"[bold]wikiq chat[/bold] [dim]· {wiki.location.vault} · {who} · "
        "/exit to leave, /clear to start over[/dim]"
    )
    shown_notes: set[str] = set()
    if choice.note():
        err.print(choice.note(), style="dim", markup=False)
        shown_notes.add(choice.note())
    history: list[Turn] = []
    try:
        while True:
            try:
                line = input("\n? ")
            except (EOFError, KeyboardInterrupt):
                out.print()
                break
            text = line.strip()
            if not text:
                continue
            if text in ("/exit", "/quit", "/q"):
                break
            if text == "/clear":
                history.clear()
                out.print("[dim]Conversation cleared.[/dim]")
                continue
            if text in ("/help", "/?"):
                out.print("[dim]/exit leave · /clear forget the conversation[/dim]")
                continue
            try:
                answer = stream_answer(wiki, text, history, out=out, shown_notes=shown_notes)
            except WikiqError as error:
                err.print(f"[red]{escape(str(error))}[/red]")
                continue
            if answer is not None:
                history.append(answer.turn())
                del history[:-MAX_CHAT_TURNS]
    finally:
        wiki.close()


@app.command()
def stats(
    vault: Annotated[
        Path | None,
        typer.Option(
            "--vault", "-V", help="Only questions asked of this vault.", show_default=False
        ),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """What you asked and how it went: questions, arms, the pureLLM rate, median latencies.

    Read from the local query log in wikiq's cache folder (questions stay on this machine). A
    high pureLLM rate means your vault does not cover what you keep asking.

    Examples:\n
      wikiq stats\n
      wikiq stats --json | jq .pure_llm_rate
    """
    from wikiq import querylog, wiring

    log = wiring.wire(load_config()).query_log_file
    records = querylog.read(log)
    if vault is not None:
        wanted = str(vault.expanduser().resolve())
        records = [r for r in records if r.get("vault") == wanted]
    summary = querylog.summarize(records)
    summary["log"] = str(log)
    if json:
        print_json(summary)
        return
    _print_stats(summary)


def _print_stats(s: dict[str, Any]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from wikiq.cli.output import stdout_console

    out = stdout_console()
    if not s["questions"]:
        out.print(f"No questions asked yet (log: {s['log']}).", markup=False)
        return
    rate = s["pure_llm_rate"] or 0.0
    out.print(f"[bold]Questions[/bold]   {s['questions']}  ({s['vaults']} vault(s))")
    out.print(
        f"[bold]pureLLM[/bold]     {s['pure_llm']} ({rate:.0%}) answered without a vault page"
    )
    out.print(f"[bold]Extractive[/bold]  {s['extractive']} answered without a model")
    table = Table(box=None, header_style="bold", title_justify="left")
    table.add_column("arm")
    table.add_column("questions", justify="right")
    table.add_column("share", justify="right")
    for arm, count in s["arms"].items():
        table.add_row(escape(arm), str(count), f"{count / s['questions']:.0%}")
    out.print(table)
    medians = "  ".join(
        f"{name} {value:.1f} ms" for name, value in s["median_ms"].items() if value is not None
    )
    out.print(f"[bold]Median[/bold]      {medians}")
    if s["flagged_links"]:
        out.print(f"[bold]Flagged links[/bold] {s['flagged_links']}")
    if s["recent_uncovered"]:
        out.print("[bold]Recent questions your vault did not cover[/bold]")
        for question in s["recent_uncovered"]:
            out.print(f"  • {question}", markup=False)
    out.print(f"[dim]log: {escape(str(s['log']))}[/dim]")
