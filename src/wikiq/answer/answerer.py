"""The answer pipeline: retrieve → load pages → assemble the prompt → stream → check citations.

With no model it answers extractively (quoted passages); when retrieval finds nothing it is a
pureLLM answer — a banner, no citations — from the model's general knowledge, or, with no
model, one honest line saying the vault has no page about it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from wikiq.answer.citations import (
    CitationChecker,
    LinkChecker,
    check_text,
    links_to_placeholder,
)
from wikiq.answer.context import (
    Budget,
    ContextSettings,
    PageContext,
    fit_history,
    load_pages,
    plan_budget,
    question_weights,
)
from wikiq.answer.events import AnswerDone, AnswerEvent, AnswerToken, RetrievalDone
from wikiq.answer.excerpts import (
    EXCERPT_SHARE,
    EXCERPT_SHARE_NOTES_ONLY,
    LoadedExcerpt,
    excerpt_reserve,
    load_excerpts,
)
from wikiq.answer.extractive import (
    RELATIVE_FLOOR,
    Idf,
    choose_passages,
    extractive_from,
    idf_from_catalog,
    labels,
    note_quote,
    note_quote_text,
    note_quotes,
)
from wikiq.answer.faithful import (
    FAITHFUL_EXCERPTS,
    faithful_labels,
    faithful_system_prompt,
    faithful_user_message,
    unquoted,
)
from wikiq.answer.follow_up import search_text, standalone
from wikiq.answer.hint import build_hint
from wikiq.answer.placeholder import to_display
from wikiq.answer.prompts import build_messages, system_prompt, user_message
from wikiq.answer.result import Answer, Citation, Reference, Turn
from wikiq.errors import EmptyQuestion, ModelError
from wikiq.llm.base import ChatModel, Message, Usage
from wikiq.retrieve.result import ARM_LEX, ARM_NOTES, Retrieval, SourceExcerpt
from wikiq.text import count_tokens, detect_language, language_name
from wikiq.vault.catalog import Catalog

__all__ = ["Answer", "AnswerSettings", "Answerer", "Citation", "Reference", "Turn"]

# Retrieval is asked for this many candidates beyond the pages loaded: the hint names them.
HINT_CANDIDATES = 16
NOTE_TYPE = "source-note"  # a citation's type when it cites a source note, not a page
_MESSAGE_OVERHEAD = 6  # tokens a chat template spends around each message

# The banners say why the vault does not cover the question (the coverage decision's reason,
# in English: "no page mentions 'Zotero', which the question asks about"), not that no page
# matches: the closest pages are listed, and often match some of its words.
BANNERS = {
    "en": (
        "> ⚠ **Not from your vault — verify.** Your vault does not cover this question "
        "({reason}), so this answer comes from the model's general knowledge.\n\n"
    ),
    "zh": "> ⚠ **并非来自你的知识库——请核实。** 知识库没有涵盖这个问题，以下回答来自模型的通用知识。\n\n",
}
# An answer from pages that may cover the question only in part (coverage "uncertain").
CAVEATS = {
    "en": "> ℹ **Your vault may cover this only in part** — check what the pages say.\n\n",
    "zh": "> ℹ **你的知识库可能只部分涵盖这个问题**——请核对页面原文。\n\n",
}
# Pages named (never quoted, never cited) under an answer the vault does not cover.
CLOSEST_PAGES = 3
BANNERS_NO_MODEL = {
    "en": "> ⚠ **Not from your vault.** Your vault does not cover this question: {reason}.\n\n",
    "zh": "> ⚠ **并非来自你的知识库。** 知识库没有涵盖这个问题。\n\n",
}


def _banner(banners: dict[str, str], language: str, reason: str) -> str:
    """The not-covered banner in the answer's language, with the decision's reason."""
    return banners.get(language, banners["en"]).format(
        reason=reason or "too few of its words are on any page"
    )


@dataclass(frozen=True)
class AnswerSettings:
    pages: int = 8  # most pages loaded into one answer
    context: ContextSettings = field(default_factory=ContextSettings)
    context_window: int | None = None  # overrides the model's window
    temperature: float | None = None
    purpose: str = ""  # the wiki's purpose.md
    instructions: str = ""  # the user's custom query instructions
    cite: str = "wiki"  # "wiki": [[wiki-links]]; "numbered": [1] markers (CITE_STYLES)


Retrieve = Callable[[str, int], Retrieval]
CITE_STYLES = ("wiki", "numbered")


class Answerer:
    """Answers questions over one catalog with a given retrieval function."""

    def __init__(
        self,
        catalog: Catalog,
        retrieve: Retrieve,
        settings: AnswerSettings | None = None,
        idf: Callable[[], Idf] | None = None,
    ) -> None:
        """`idf`: where the words' weights come from, for choosing passages (by default the
        page bodies' counts, read from the cache and added up on first use)."""
        self.catalog = catalog
        self.retrieve = retrieve
        self.settings = settings or AnswerSettings()
        self._idf: Idf | None = None
        self._idf_source = idf

    @property
    def wiki_folder(self) -> str:
        return self.catalog.location.wiki_folder

    def stream(
        self,
        question: str,
        *,
        model: ChatModel | None,
        history: Sequence[Turn] = (),
        k: int | None = None,
        notes: Sequence[str] = (),
        retrieve: Retrieve | None = None,
        faithful: bool = False,
    ) -> Iterator[AnswerEvent]:
        """Retrieval, then the answer's text as it comes, then the checked `Answer`.

        `retrieve` replaces the answerer's retrieval for this call (e.g. one with Stage 2).
        `faithful`: only verbatim quotes of source-note excerpts (faithful.py).
        """
        question = question.strip()
        if not question:
            raise EmptyQuestion()
        t0 = time.perf_counter()
        k = max(1, k or self.settings.pages)
        find = retrieve or self.retrieve
        wide = find(question, k + HINT_CANDIDATES)
        notes = list(notes)
        # A follow-up that names nothing ("when was he born?") is searched with the questions
        # it follows (follow_up.py); one that names its own subject is searched alone.
        names_a_page = wide.arm == ARM_LEX or bool(wide.coverage.get("features", {}).get("name"))
        earlier = [t.question for t in history]
        joined = search_text(question, earlier, names_a_page=names_a_page)
        if joined is not None:
            rewritten = standalone(model, earlier, question) if model is not None else None
            wide = replace(find(rewritten or joined, k + HINT_CANDIDATES), query=question)
            notes.append(
                f"Searched as “{rewritten}” (the follow-up made a question that stands alone)."
                if rewritten
                else f"Searched together with the earlier question(s): “{joined}”."
            )
        retrieval = replace(wide, results=wide.results[:k])
        if retrieval.pure_llm and retrieval.results:
            notes.append(_closest_note(retrieval))
        timings = {"retrieve": _ms(t0)}
        yield RetrievalDone(retrieval)
        ranked = [
            self.catalog.by_path[r.path] for r in wide.results if r.path in self.catalog.by_path
        ]
        code = detect_language(question)
        run = _Run(question, retrieval, code, notes, timings, t0)
        if faithful:
            yield from self._faithful(run, model)
        elif model is None:
            yield from self._extractive(run, ranked, k)
        else:
            yield from self._generate(run, model, ranked, k, history)

    # --- with a model ----------------------------------------------------------------------

    def _generate(
        self,
        run: _Run,
        model: ChatModel,
        ranked: list[int],
        k: int,
        history: Sequence[Turn],
    ) -> Iterator[AnswerEvent]:
        t = time.perf_counter()
        prompt = self._prompt(run, model, ranked, k, history)
        run.timings["assemble"] = _ms(t)
        checker = self._checker(
            [p.index for p in prompt.pages.pages], prompt.excerpts, pure=run.retrieval.pure_llm
        )
        yield from self._model_answer(run, model, prompt, checker)

    def _checker(
        self, loaded: Sequence[int], excerpts: Sequence[LoadedExcerpt], *, pure: bool
    ) -> CitationChecker:
        links = LinkChecker(
            self.catalog, loaded, pure_llm=pure, notes={x.path: x.title for x in excerpts}
        )
        return CitationChecker(links, numbered=self.settings.cite == "numbered")

    def _model_answer(
        self, run: _Run, model: ChatModel, prompt: _Prompt, checker: CitationChecker
    ) -> Iterator[AnswerEvent]:
        """Stream the model's answer through the citation check, then the `Answer`."""
        run.timings["to_model"] = _ms(run.t0)
        stream = model.stream(
            prompt.messages, max_tokens=prompt.budget.answer, temperature=self.settings.temperature
        )
        pure = run.retrieval.pure_llm
        shown: list[str] = []
        if pure:
            banner = _banner(BANNERS, run.language, run.retrieval.reason)
            shown.append(banner)
            yield AnswerToken(banner)
        elif run.retrieval.covered == "uncertain":
            shown.append(_caveat(run.language))
            yield AnswerToken(shown[-1])
        t = time.perf_counter()
        for chunk in stream:
            if "first_token" not in run.timings:
                run.timings["first_token"] = _ms(run.t0)
            out = checker.feed(chunk)
            if out:
                shown.append(to_display(out, self.wiki_folder))
                yield AnswerToken(shown[-1])
        if not checker.has_text:
            raise ModelError(
                f"{model.name} returned an empty answer (a reasoning model may have spent its "
                "whole budget thinking): try again, or give it more room with --answer-tokens."
            )
        tail = checker.finish()
        if tail:
            shown.append(to_display(tail, self.wiki_folder))
            yield AnswerToken(shown[-1])
        run.timings["generate"] = _ms(t)
        run.timings["total"] = _ms(run.t0)
        usage = Usage(stream.usage.prompt_tokens, stream.usage.completion_tokens)
        estimated = usage.total_tokens == 0
        if estimated:  # the server reported nothing (llama.cpp streams, some proxies)
            usage = Usage(
                sum(count_tokens(m.content) + _MESSAGE_OVERHEAD for m in prompt.messages),
                count_tokens(checker.raw_text),
            )
        answer = self._answer(
            run, "".join(shown), checker, prompt.pages, usage, model.name, budget=prompt.budget
        )
        answer.usage_estimated = estimated
        yield AnswerDone(answer)

    def _prompt(
        self,
        run: _Run,
        model: ChatModel,
        ranked: list[int],
        k: int,
        history: Sequence[Turn],
    ) -> _Prompt:
        """Budget the window, fit history, load pages, build the hint, then the messages."""
        s = self.settings
        pure = run.retrieval.pure_llm
        language = language_name(run.language)
        sources = [] if pure else run.retrieval.sources
        system = system_prompt(
            language,
            pure_llm=pure,
            purpose=s.purpose,
            instructions=s.instructions,
            notes=bool(sources),
        )
        # Everything in the prompt except pages, hint and history, for the budget.
        fixed = system + user_message(run.question, [], pure_llm=pure)
        budget = plan_budget(
            s.context_window or model.context_window,
            count_tokens(fixed) + 3 * _MESSAGE_OVERHEAD,
            s.context,
            model_name=model.name,
            with_pages=not pure,
        )
        kept_history, history_tokens = self._fit_history(history, budget, run)
        pages = PageContext()
        hint = ""
        excerpts: list[LoadedExcerpt] = []
        if not pure:
            room = budget.pages + budget.history - history_tokens  # unused history goes to pages
            share = EXCERPT_SHARE_NOTES_ONLY if run.retrieval.arm == ARM_NOTES else EXCERPT_SHARE
            held = excerpt_reserve(sources, room, share)
            pages = load_pages(
                self.catalog,
                ranked,
                room - held,
                s.context,
                limit=k,
                weights=question_weights(run.question, self._get_idf()),
            )
            # The excerpts come after the pages, in what the pages left (at least `held`).
            excerpts = load_excerpts(sources, room - pages.tokens)
            if pages.left_out:
                run.notes.append(
                    f"{len(pages.left_out)} page(s) did not fit the context window and were "
                    "left out."
                )
            loaded = [p.index for p in pages.pages]
            hint, _ = build_hint(self.catalog, loaded, ranked, budget.hint)
        user = user_message(
            run.question,
            pages.pages,
            excerpts=excerpts,
            hint=hint,
            arm=run.retrieval.arm,
            pure_llm=pure,
            partial=run.retrieval.covered == "uncertain",
        )
        earlier = [
            (turn.question, links_to_placeholder(turn.answer, self.catalog))
            for turn in kept_history
        ]
        messages = build_messages(system, earlier, user, wiki_folder=self.wiki_folder)
        return _Prompt(messages, budget, pages, excerpts)

    def _fit_history(
        self, history: Sequence[Turn], budget: Budget, run: _Run
    ) -> tuple[list[Turn], int]:
        costs = [
            count_tokens(t.question) + count_tokens(t.answer) + 2 * _MESSAGE_OVERHEAD
            for t in history
        ]
        kept = fit_history(costs, budget.history)
        if kept < len(history):
            run.notes.append(
                f"{len(history) - kept} earlier turn(s) left out to fit the context window."
            )
        return list(history[len(history) - kept :]), sum(costs[len(costs) - kept :])

    def _get_idf(self) -> Idf:
        if self._idf is None:
            source = self._idf_source
            self._idf = source() if source is not None else idf_from_catalog(self.catalog)
        return self._idf

    # --- without a model -------------------------------------------------------------------

    def _extractive(self, run: _Run, ranked: list[int], k: int) -> Iterator[AnswerEvent]:
        t = time.perf_counter()
        words = labels(run.language)
        ctx = PageContext()
        shown: list[str] = []
        notes: dict[str, str] = {}  # the source note quoted, if any: path -> title
        if run.retrieval.pure_llm:
            banner = _banner(BANNERS_NO_MODEL, run.language, run.retrieval.reason)
            shown.append(banner)
            yield AnswerToken(banner)
            plugin = words["plugin"] if self.catalog.location.layout == "llm-wiki" else ""
            raw = words["uncovered"].format(plugin=plugin) + "\n"
            quoted: list[int] = []
        else:
            if run.retrieval.covered == "uncertain":
                shown.append(_caveat(run.language))
                yield AnswerToken(shown[-1])
            scores = {r.path: r.score for r in run.retrieval.results}
            pages = [i for i in ranked if not self.catalog.pages[i].stub][:k]
            ctx.stubs = [
                self.catalog.pages[i].path for i in ranked[:k] if self.catalog.pages[i].stub
            ]
            chosen = choose_passages(
                self.catalog,
                pages,
                run.question,
                self._get_idf(),
                [scores.get(self.catalog.pages[i].path, 0.0) for i in pages],
            )
            raw, quoted = extractive_from(self.catalog, chosen, pages, words)
            # A note is quoted beside the pages only when its passage matches the question
            # about as well as theirs (a detail they lack), and alone when only it covers it.
            only_notes = run.retrieval.arm == ARM_NOTES
            floor = 0.0 if only_notes or not chosen else chosen[0][1].score * RELATIVE_FLOOR
            found = note_quote(run.retrieval.sources, run.question, self._get_idf(), floor=floor)
            if found is not None:
                excerpt, quote = found
                notes[excerpt.path] = excerpt.title
                block = note_quote_text(excerpt, quote, run.language)
                if only_notes:
                    raw, quoted = words["extracted"] + "\n\n" + block, []
                else:
                    raw = raw.rstrip("\n") + "\n\n" + block
        checker = check_text(
            LinkChecker(self.catalog, quoted, pure_llm=run.retrieval.pure_llm, notes=notes),
            raw,
            numbered=self.settings.cite == "numbered",
        )
        yield from self._quoted_answer(run, checker, ctx, t, shown)

    def _quoted_answer(
        self, run: _Run, checker: CitationChecker, ctx: PageContext, t: float, shown: list[str]
    ) -> Iterator[AnswerEvent]:
        """A no-model answer, already checked, shown block by block after what `shown` holds
        (a banner, a caveat), then the `Answer`."""
        for block in _blocks(to_display(checker.raw_text, self.wiki_folder)):
            shown.append(block)
            yield AnswerToken(block)
        run.timings["extract"] = _ms(t)
        run.timings["total"] = _ms(run.t0)
        answer = self._answer(run, "".join(shown), checker, ctx, Usage(), None, budget=None)
        answer.loaded = [self.catalog.pages[i].path for i in checker.links.loaded]
        yield AnswerDone(answer)

    # --- faithful to the source notes --------------------------------------------------------

    def _faithful(self, run: _Run, model: ChatModel | None) -> Iterator[AnswerEvent]:
        """Quotes of source-note excerpts only: no page, no general knowledge. A question the
        vault does not cover, or that no excerpt matches, gets one honest sentence."""
        t = time.perf_counter()
        words = faithful_labels(run.language)
        sources = [] if run.retrieval.pure_llm else run.retrieval.sources
        if model is not None and sources:
            prompt = self._faithful_prompt(run, model, sources)
            if prompt.excerpts:
                run.timings["assemble"] = _ms(t)
                checker = self._checker([], prompt.excerpts, pure=False)
                for event in self._model_answer(run, model, prompt, checker):
                    if isinstance(event, AnswerDone):
                        texts = [x.text for x in prompt.excerpts]
                        missing = unquoted(event.answer.raw_text, texts)
                        if missing:
                            event.answer.notes.append(
                                f"{len(missing)} quotation(s) are not word for word in the "
                                "excerpts: " + "; ".join(f"“{q[:80]}”" for q in missing)
                            )
                    yield event
                return
        quotes = [] if model is not None else self._faithful_quotes(run, sources)
        found = words["extracted"] + "\n\n" + "\n".join(quotes)
        raw = found if quotes else words["nothing"] + "\n"
        notes = {x.path: x.title for x in sources}
        checker = check_text(
            LinkChecker(self.catalog, [], pure_llm=False, notes=notes),
            raw,
            numbered=self.settings.cite == "numbered",
        )
        yield from self._quoted_answer(run, checker, PageContext(), t, [])

    def _faithful_quotes(self, run: _Run, sources: Sequence[SourceExcerpt]) -> list[str]:
        """The best passage of each of the best excerpts, when it matches the question about as
        well as the best one does (the same floor as pages' quotes)."""
        found = note_quotes(sources, run.question, self._get_idf())
        floor = max((score for _, _, score in found), default=0.0) * RELATIVE_FLOOR
        return [
            note_quote_text(x, quote, run.language) for x, quote, score in found if score >= floor
        ]

    def _faithful_prompt(
        self, run: _Run, model: ChatModel, sources: Sequence[SourceExcerpt]
    ) -> _Prompt:
        """The faithful rules and the excerpts alone, within the window."""
        s = self.settings
        system = faithful_system_prompt(language_name(run.language))
        fixed = system + faithful_user_message(run.question, [])
        budget = plan_budget(
            s.context_window or model.context_window,
            count_tokens(fixed) + 2 * _MESSAGE_OVERHEAD,
            s.context,
            model_name=model.name,
            with_pages=True,
        )
        room = budget.pages + budget.history  # no pages and no history: all for excerpts
        excerpts = load_excerpts(sources, room, limit=FAITHFUL_EXCERPTS)
        user = faithful_user_message(run.question, excerpts)
        messages = [Message("system", system), Message("user", user)]
        return _Prompt(messages, budget, PageContext(), excerpts)

    # --- the result ------------------------------------------------------------------------

    def _answer(
        self,
        run: _Run,
        text: str,
        checker: CitationChecker,
        ctx: PageContext,
        usage: Usage,
        model: str | None,
        *,
        budget: Budget | None,
    ) -> Answer:
        folder = self.wiki_folder
        citations = [
            Citation(c.path, c.title, c.type, to_display(f"[[__WIKI_FOLDER__/{c.path}]]", folder))
            for c in checker.links.cited_pages()
        ] + [
            Citation(n.path, n.title, NOTE_TYPE, f"[[{n.path}]]")
            for n in checker.links.cited_note_list()
        ]
        references = [
            Reference(
                r.path,
                r.title,
                r.description,
                f"[[{r.path}|{r.title}]]"
                if r.note
                else to_display(f"[[__WIKI_FOLDER__/{r.path}|{r.title}]]", folder),
            )
            for r in checker.references
        ]
        if ctx.stubs:
            run.notes.append(f"Skipped {len(ctx.stubs)} stub page(s) (generation_complete: false).")
        return Answer(
            question=run.question,
            text=text,
            arm=run.retrieval.arm,
            pure_llm=run.retrieval.pure_llm,
            extractive=model is None,
            citations=citations,
            references=references,
            flagged=[to_display(f, folder) for f in checker.links.flagged],
            retrieval=run.retrieval,
            timings_ms=run.timings,
            usage=usage,
            model=model,
            raw_text=checker.raw_text,
            loaded=[p.path for p in ctx.pages],
            notes=run.notes,
            budget=budget.to_dict() if budget else {},
            vault=str(self.catalog.location.vault),
            wiki_folder=folder,
        )


@dataclass(frozen=True)
class _Prompt:
    messages: list[Message]
    budget: Budget
    pages: PageContext
    excerpts: list[LoadedExcerpt]


@dataclass
class _Run:
    """The state of one question while it is being answered."""

    question: str
    retrieval: Retrieval
    language: str
    notes: list[str]
    timings: dict[str, float]
    t0: float


def _blocks(text: str) -> list[str]:
    """Text split after each blank line, so a no-model answer still arrives piece by piece."""
    parts = text.split("\n\n")
    return [p + "\n\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def _caveat(language: str) -> str:
    return CAVEATS.get(language, CAVEATS["en"])


def _closest_note(retrieval: Retrieval) -> str:
    """The pages that came closest to a question the vault does not cover, by name only."""
    names = ", ".join(f"{r.title} ({r.path})" for r in retrieval.results[:CLOSEST_PAGES])
    return f"Closest in your vault (not quoted): {names}."
