"""Load Pages and the token budget: ranked pages read whole, capped, cut cleanly, fitted to the window.

A page is loaded whole up to a per-page cap (the skill's ~8,000 characters). A cut lands at a
paragraph or sentence end, never inside a code fence, and leaves a visible mark. Stubs
(`generation_complete: false`) are skipped. When the pages do not all fit, every page gets an
equal share of the budget (a long page is cut, a short one kept whole); when shares would get
too small to be useful, the lowest-ranked pages are left out instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from wikiq.errors import ContextTooSmall  # raised here, named here too
from wikiq.text import count_tokens
from wikiq.text.sentences import CUT_POINT
from wikiq.text.wiki_links import LABEL, WIKI_LINK, target_with_heading
from wikiq.vault.catalog import Catalog
from wikiq.vault.markdown import code_fence_spans, without_block_ids
from wikiq.vault.terms import match_terms

Weights = Mapping[str, float]  # question term -> IDF weight

TRUNCATION_MARK = "[… truncated: the rest of this page was not loaded]"
OMISSION_MARK = "[… part of this page left out …]"

_MANY_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class ContextSettings:
    """How the context window is shared; the defaults suit 4K to 1M token windows."""

    page_chars: int = 8000  # most characters loaded from one page
    answer_share: float = 0.25  # of the window, kept free for the answer …
    min_answer_tokens: int = 256
    max_answer_tokens: int = 4000  # … within these bounds
    answer_tokens: int | None = None  # a fixed answer reserve instead
    hint_share: float = 0.06  # of what is left after instructions and answer
    max_hint_tokens: int = 1200
    history_share: float = 0.25
    min_page_tokens: int = 120  # a share smaller than this is not worth loading
    margin: float = 0.06  # token counts are estimates; tokenizers differ


@dataclass(frozen=True)
class Budget:
    """Tokens for each part of the prompt; `pages` is what remains after the others."""

    window: int
    answer: int
    fixed: int  # instructions, framing and the question
    hint: int
    history: int
    pages: int

    def to_dict(self) -> dict[str, int]:
        return {
            "window": self.window,
            "answer": self.answer,
            "instructions": self.fixed,
            "hint": self.hint,
            "history": self.history,
            "pages": self.pages,
        }


def answer_reserve(window: int, settings: ContextSettings) -> int:
    """Tokens kept free for the answer itself."""
    if settings.answer_tokens:
        return min(settings.answer_tokens, window // 2)
    share = int(window * settings.answer_share)
    return max(settings.min_answer_tokens, min(settings.max_answer_tokens, share))


def plan_budget(
    window: int,
    fixed_tokens: int,
    settings: ContextSettings,
    *,
    model_name: str = "the model",
    with_pages: bool = True,
) -> Budget:
    """Split `window` between answer, instructions, hint, history and pages (the rest)."""
    answer = answer_reserve(window, settings)
    usable = int(window * (1 - settings.margin)) - answer - fixed_tokens
    needed = settings.min_page_tokens if with_pages else 0
    if usable < needed:
        least = int((fixed_tokens + needed + settings.min_answer_tokens) / (1 - settings.margin))
        raise ContextTooSmall(
            f"The context window of {model_name} ({window} tokens) is too small for the "
            f"instructions, a page and an answer: wikiq needs at least {least} tokens, so use a "
            "model with a bigger window or set --context if the model's window is bigger."
        )
    # Hint and history share what is left once one page is sure to fit.
    spare = usable - needed
    hint = min(settings.max_hint_tokens, int(spare * settings.hint_share)) if with_pages else 0
    history = int(spare * settings.history_share)
    return Budget(window, answer, fixed_tokens, hint, history, usable - hint - history)


@dataclass(frozen=True)
class LoadedPage:
    """A page as the model sees it: cleaned text, maybe cut, and its token cost."""

    index: int
    path: str
    title: str
    type: str
    text: str
    tokens: int
    truncated: bool


@dataclass
class PageContext:
    """The pages chosen for one answer, and those that were not, with the reason."""

    pages: list[LoadedPage] = field(default_factory=list)
    stubs: list[str] = field(default_factory=list)  # skipped: placeholders, not content
    left_out: list[str] = field(default_factory=list)  # did not fit the budget

    @property
    def tokens(self) -> int:
        return sum(p.tokens for p in self.pages)


def clean_page_text(body: str, catalog: Catalog | None = None) -> str:
    """A page body as prompt data: links become their labels, block ids and blank runs go.

    Links are flattened because the model must cite with the loaded pages' own paths; a body's
    `[[entities/moon|Moon]]` would otherwise teach it the prefix-less form the contract forbids.
    A link without a label reads as its page's title when `catalog` can resolve it.
    """
    spans = code_fence_spans(body)
    if not spans:
        text = _flatten_links(body, catalog)
    else:
        parts, pos = [], 0
        for start, end in spans:
            parts.append(_flatten_links(body[pos:start], catalog))
            parts.append(body[start:end])
            pos = end
        parts.append(_flatten_links(body[pos:], catalog))
        text = "".join(parts)
    text = without_block_ids(text)
    if "\n\n\n" in text:
        text = _MANY_BLANK_LINES.sub("\n\n", text)
    return text.strip()


def _flatten_links(text: str, catalog: Catalog | None) -> str:
    if "[[" not in text:
        return text

    def label(m: re.Match[str]) -> str:
        if m.group(LABEL) is not None and m.group(LABEL).strip():
            return m.group(LABEL).strip().rstrip("\\")
        written = target_with_heading(m)
        target = written.split("#", 1)[0].strip().rstrip("\\")
        if catalog is not None and target:
            i = catalog.find(target)
            if i is not None:
                return catalog.pages[i].title
        return target.rsplit("/", 1)[-1] or written.lstrip("#")

    return WIKI_LINK.sub(label, text)


def cut_point(text: str, limit: int) -> int:
    """Where to cut `text` to at most `limit` characters: a paragraph or sentence end, never
    inside a code fence (a fence that does not fit is left out whole)."""
    if limit >= len(text):
        return len(text)
    spans = code_fence_spans(text)
    for start, end in spans:
        if start < limit < end:
            limit = start
            break

    def outside(pos: int) -> bool:
        return not any(s < pos < e for s, e in spans)

    para = text.rfind("\n\n", 0, limit)
    while para > 0 and not outside(para):
        para = text.rfind("\n\n", 0, para)
    if para >= limit * 0.5:
        return para
    sentence = max(
        (m.end() for m in CUT_POINT.finditer(text, 0, limit) if outside(m.end())),
        default=-1,
    )
    if sentence >= limit * 0.3:
        return sentence
    line = text.rfind("\n", 0, limit)
    while line > 0 and not outside(line):
        line = text.rfind("\n", 0, line)
    if line >= limit * 0.3:
        return line
    space = text.rfind(" ", 0, limit)
    if space > 0 and outside(space) and space >= limit * 0.5:
        return space
    return max(para, sentence, line, 0) if limit < len(text) else limit


def truncate(text: str, max_chars: int) -> tuple[str, bool]:
    """`text` cut cleanly to about `max_chars`, with the truncation mark; (text, was_cut)."""
    if len(text) <= max_chars:
        return text, False
    at = cut_point(text, max_chars)
    return f"{text[:at].rstrip()}\n\n{TRUNCATION_MARK}", True


def fit_tokens(text: str, max_tokens: int, weights: Weights | None = None) -> tuple[str, bool]:
    """`text` cut cleanly so that it costs at most `max_tokens` (marks included).

    With the question's term `weights`, a page that must be cut keeps its first paragraph and
    then the paragraphs that match the question best (in page order, gaps marked), instead of
    only its beginning: on a small window the passage that answers is often further down.
    """
    tokens = count_tokens(text)
    if tokens <= max_tokens:
        return text, False
    if weights:
        chosen = _select_paragraphs(text, max_tokens, weights)
        if chosen is not None:
            return chosen, True
    return _fit_prefix(text, max_tokens, tokens), True


def _fit_prefix(text: str, max_tokens: int, tokens: int) -> str:
    chars = int(len(text) * max_tokens / tokens)
    while chars > 0:
        cut, _ = truncate(text, chars)
        if count_tokens(cut) <= max_tokens:
            return cut
        chars = int(chars * 0.85)
    return ""


def paragraphs(text: str) -> list[str]:
    """Blocks separated by blank lines; a code fence is one block, and a heading stays with the
    paragraph under it."""
    spans = code_fence_spans(text)
    cuts = [
        m.start()
        for m in re.finditer(r"\n[ \t]*\n", text)
        if not any(s <= m.start() < e for s, e in spans)
    ]
    blocks, pos = [], 0
    for cut in cuts:
        blocks.append(text[pos:cut].strip("\n"))
        pos = cut
    blocks.append(text[pos:].strip("\n"))
    merged: list[str] = []
    carry = ""
    for block in blocks:
        if not block.strip():
            continue
        if re.fullmatch(r"[ ]{0,3}#{1,6}[ \t].*", block):  # a lone heading: keep it with its text
            carry = f"{carry}\n\n{block}" if carry else block
            continue
        merged.append(f"{carry}\n\n{block}" if carry else block)
        carry = ""
    if carry:
        merged.append(carry)
    return merged


def _select_paragraphs(text: str, max_tokens: int, weights: Weights) -> str | None:
    blocks = paragraphs(text)
    costs = [count_tokens(b) for b in blocks]
    mark = count_tokens(OMISSION_MARK) + 2
    if len(blocks) < 2 or costs[0] + mark > max_tokens:
        return None
    # A substring test, not a tokenizer pass: stems are prefixes of their words, and a big
    # page has hundreds of paragraphs (segmenting Chinese ones would cost tens of ms).
    lowered = [b.lower() for b in blocks]
    scores = [sum(w for t, w in weights.items() if t in b) for b in lowered]
    if not any(scores[1:]):
        return None
    keep = {0}
    used = costs[0] + mark
    for k in sorted(range(1, len(blocks)), key=lambda k: (-scores[k], k)):
        if scores[k] <= 0:
            break
        if used + costs[k] + mark <= max_tokens:
            keep.add(k)
            used += costs[k] + mark
    parts: list[str] = []
    previous = -1
    for k in sorted(keep):
        if k != previous + 1:
            parts.append(OMISSION_MARK)
        parts.append(blocks[k])
        previous = k
    if previous != len(blocks) - 1:
        parts.append(TRUNCATION_MARK)
    return "\n\n".join(parts)


def load_pages(
    catalog: Catalog,
    indexes: Sequence[int],
    budget_tokens: int,
    settings: ContextSettings,
    *,
    limit: int,
    weights: Weights | None = None,
) -> PageContext:
    """Read up to `limit` of the ranked pages, skipping stubs, and fit them into the budget.

    `weights` (the question's terms) let a page that must be cut keep its best paragraphs.
    """
    ctx = PageContext()
    candidates: list[tuple[int, str, int, int]] = []  # page, text, tokens, cap in tokens
    for i in indexes:
        if len(candidates) == limit:
            break
        page = catalog.pages[i]
        if page.stub:
            ctx.stubs.append(page.path)
            continue
        text = clean_page_text(catalog.read_body(i), catalog)
        if not text:  # unreadable or blank: nothing to give the model
            continue
        size = count_tokens(text)
        long = len(text) > settings.page_chars
        cap = count_tokens(text[: settings.page_chars]) if long else size
        candidates.append((i, text, size, cap))

    wanted = [min(size, cap) for _, _, size, cap in candidates]
    keep = len(candidates)
    share = _equal_share(wanted, budget_tokens)
    while keep and share < min(settings.min_page_tokens, max(wanted[:keep])):
        keep -= 1  # the lowest-ranked page gives its share to the others
        share = _equal_share(wanted[:keep], budget_tokens)
    for i, text, size, cap in candidates[:keep]:
        room = min(cap, share)
        cut = False
        if size > room:
            text, cut = fit_tokens(text, room, weights)
            size = count_tokens(text)
        page = catalog.pages[i]
        if not text:
            ctx.left_out.append(page.path)
            continue
        ctx.pages.append(LoadedPage(i, page.path, page.title, page.type, text, size, cut))
    ctx.left_out.extend(catalog.pages[c[0]].path for c in candidates[keep:])
    return ctx


def question_weights(question: str, idf: Callable[[str], float]) -> dict[str, float]:
    """The question's terms, each weighed by how rare it is in the vault."""
    return {t: idf(t) for t in dict.fromkeys(match_terms(question))}


def _equal_share(sizes: Sequence[int], budget: int) -> int:
    """The largest per-page cap L with sum(min(size, L)) <= budget (water filling)."""
    if not sizes or sum(sizes) <= budget:
        return max(sizes, default=0)
    remaining, count = budget, len(sizes)
    for size in sorted(sizes):
        level = remaining // count
        if size > level:
            return level
        remaining -= size
        count -= 1
    return max(sizes)


def fit_history(turn_tokens: Sequence[int], budget_tokens: int) -> int:
    """How many of the most recent turns fit into the history budget."""
    used = 0
    kept = 0
    for tokens in reversed(turn_tokens):
        if used + tokens > budget_tokens:
            break
        used += tokens
        kept += 1
    return kept
