"""The no-model answer: the passages of the top pages that best match the question, quoted.

It is labelled as extracted, not generated, and cited in the same link format as a model's
answer, with a `## References` section. Passages are paragraphs (or list items) of prose;
each is scored by the IDF weight of the question's terms it contains, and a long paragraph is
trimmed to the sentences around its best one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from wikiq.answer.context import clean_page_text, question_weights
from wikiq.answer.placeholder import PLACEHOLDER
from wikiq.retrieve.result import SourceExcerpt
from wikiq.text.scripts import mostly_cjk
from wikiq.text.sentences import ENDS_WITH_CJK_STOP, split_sentences
from wikiq.vault.catalog import Catalog
from wikiq.vault.markdown import CALLOUT, mask_code, without_block_ids
from wikiq.vault.terms import match_terms

MAX_QUOTES = 3
MAX_PER_PAGE = 2
MAX_QUOTE_CHARS = 480
MAX_QUOTE_CHARS_CJK = 200  # a Chinese character carries about as much as a short English word
MIN_PASSAGE_CHARS = 40
RELATIVE_FLOOR = 0.6  # a quote must score at least this share of the best one
LEAD_BONUS = 1.15  # a page's first paragraph says what the page is about


LABELS = {
    "en": {
        "extracted": (
            "*Extracted from your vault, not generated: no model is configured, so these are the "
            "passages that best match the question, quoted as written.*"
        ),
        "from": "From {link}:",
        "from_note": "From the source note {link}:",
        "nothing": (
            "*Extracted from your vault, not generated: no model is configured, and none of the "
            "closest pages has a passage that mentions the question's words. These pages came "
            "closest:*"
        ),
        # Words that fit every vault and every interface: the plugin only for LLM-Wiki vaults
        # ({plugin}), and no command-line flag (the web page and MCP have none).
        "uncovered": (
            "Add notes on it{plugin}, or configure a model for an answer from general "
            "knowledge."
        ),
        "plugin": " (for example, ingest a source with the LLM Wiki plugin)",
    },
    "zh": {
        "extracted": "*摘自你的知识库，并非生成的回答：未配置模型，以下是与问题最相关的原文段落。*",
        "from": "摘自 {link}：",
        "from_note": "摘自原始笔记 {link}：",
        "nothing": "*摘自你的知识库，并非生成的回答：未配置模型，且最接近的页面中没有提到问题关键词的段落。最接近的页面如下：*",
        "uncovered": "可以添加相关笔记{plugin}，或配置一个模型以获得基于通用知识的回答。",
        "plugin": "（例如用 LLM Wiki 插件导入资料）",
    },
}


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])


@dataclass(frozen=True)
class Passage:
    page_rank: int
    position: int
    text: str
    score: float


Idf = Callable[[str], float]


def idf_from_catalog(catalog: Catalog) -> Idf:
    """IDF of a term over the vault's page bodies (unknown terms weigh most)."""
    terms = catalog.terms
    n = max(1, terms.matrix.shape[0])
    df = np.bincount(terms.matrix.indices, minlength=len(terms.vocab))
    ids = terms.term_ids
    unseen = math.log(1.0 + (n + 0.5) / 0.5)

    def idf(term: str) -> float:
        j = ids.get(term)
        if j is None:
            return unseen
        return math.log(1.0 + (n - df[j] + 0.5) / (df[j] + 0.5))

    return idf


def passages(body: str) -> list[str]:
    """Prose paragraphs and long list items of a page, without headings, code or tables."""
    masked = mask_code(body)
    out: list[str] = []
    block: list[str] = []

    def flush() -> None:
        text = " ".join(block).strip()
        if len(text) >= MIN_PASSAGE_CHARS:
            out.append(text)
        block.clear()

    for raw, shown in zip(body.splitlines(), masked.splitlines(), strict=False):
        line = shown.strip()
        if not line or line.startswith(("#", "|", "---", "***")) or not line.strip("` "):
            flush()
            continue
        if re.match(r"^(?:[-*+]|\d+[.)])\s+", line):
            flush()
            block.append(without_block_ids(re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", raw).strip()))
            flush()
            continue
        quoted = raw.strip().lstrip(">").strip()
        block.append(CALLOUT.sub("", without_block_ids(quoted)))  # "[!tip] Title" is markup
    flush()
    return out


def _score(terms: set[str], question: dict[str, float]) -> float:
    return sum(w for t, w in question.items() if t in terms)


def best_excerpt(text: str, question: dict[str, float]) -> tuple[str, float]:
    """The paragraph's best sentence with its neighbours (up to a length), and its score.

    The score is led by the best single sentence — a paragraph that touches every question
    word in different sentences is weaker evidence than one sentence that says it all.
    """
    sentences = split_sentences(text)
    if not sentences:
        return "", 0.0
    scores = [_score(set(match_terms(s)), question) for s in sentences]
    best = max(range(len(sentences)), key=lambda k: (scores[k], -k))
    limit = MAX_QUOTE_CHARS_CJK if mostly_cjk(text) else MAX_QUOTE_CHARS
    lo = hi = best
    length = len(sentences[best])
    grew = True
    while grew:
        grew = False
        for nxt in (hi + 1, lo - 1):  # the sentence after first: it usually continues the thought
            if 0 <= nxt < len(sentences) and length + len(sentences[nxt]) + 1 <= limit:
                length += len(sentences[nxt]) + 1
                lo, hi = min(lo, nxt), max(hi, nxt)
                grew = True
                break
    excerpt = _join(sentences[lo : hi + 1])
    if len(excerpt) > limit:
        excerpt = _cut_words(excerpt, limit) + " …"
    if lo > 0:
        excerpt = "… " + excerpt
    if hi < len(sentences) - 1 and not excerpt.endswith("…"):
        excerpt += " …"
    total = _score(set(match_terms(excerpt)), question)
    return excerpt, scores[best] + 0.25 * (total - scores[best])


def _join(sentences: Sequence[str]) -> str:
    """Sentences back into text: a space after Latin punctuation, none after 。！？."""
    out = ""
    for sentence in sentences:
        if out and not ENDS_WITH_CJK_STOP.search(out):
            out += " "
        out += sentence
    return out


def _cut_words(text: str, limit: int) -> str:
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit // 2 else cut


def choose_passages(
    catalog: Catalog,
    ranked: Sequence[int],
    question: str,
    idf: Idf,
    page_scores: Sequence[float] | None = None,
) -> list[tuple[int, Passage]]:
    """The best passages of the ranked pages: (page number, passage), best first.

    `page_scores` (retrieval's relative scores, top = 1) weigh in: a passage on the page
    retrieval trusts most beats an equally good one on a page it barely chose.
    """
    weights = question_weights(question, idf)
    if not weights:
        return []
    found: list[tuple[int, Passage]] = []
    for rank, i in enumerate(ranked):
        body = clean_page_text(catalog.read_body(i), catalog)
        for position, text in enumerate(passages(body)):
            if not set(weights) & set(match_terms(text)):
                continue
            excerpt, score = best_excerpt(text, weights)
            page = page_scores[rank] if page_scores and rank < len(page_scores) else 1.0
            score *= (LEAD_BONUS if position == 0 else 1.0) * (0.7 + 0.3 * page)
            score *= 1 - 0.01 * rank  # ties go to the higher-ranked page
            found.append((i, Passage(rank, position, excerpt, score)))
    if not found:
        return []
    found.sort(key=lambda x: (-x[1].score, x[1].page_rank, x[1].position))
    floor = found[0][1].score * RELATIVE_FLOOR
    chosen: list[tuple[int, Passage]] = []
    per_page: dict[int, int] = {}
    for i, passage in found:
        if passage.score < floor or len(chosen) == MAX_QUOTES:
            break
        if per_page.get(i, 0) == MAX_PER_PAGE:
            continue
        per_page[i] = per_page.get(i, 0) + 1
        chosen.append((i, passage))
    return chosen


def extractive_text(
    catalog: Catalog,
    ranked: Sequence[int],
    question: str,
    idf: Idf,
    language: str,
    page_scores: Sequence[float] | None = None,
) -> tuple[str, list[int]]:
    """The extracted answer in raw (placeholder) form, and the pages it quotes.

    References are left to the citation checker, which builds them from the quoted pages.
    """
    words = labels(language)
    chosen = choose_passages(catalog, ranked, question, idf, page_scores)
    return extractive_from(catalog, chosen, ranked, words)


def extractive_from(
    catalog: Catalog,
    chosen: Sequence[tuple[int, Passage]],
    ranked: Sequence[int],
    words: dict[str, str],
) -> tuple[str, list[int]]:
    """`extractive_text` from passages already chosen (the caller weighs them first)."""
    if not chosen:
        return words["nothing"] + "\n", list(ranked)
    groups: dict[int, list[Passage]] = {}
    for i, passage in chosen:
        groups.setdefault(i, []).append(passage)
    parts = [words["extracted"]]
    for i, group in groups.items():
        link = f"[[{PLACEHOLDER}/{catalog.pages[i].path}]]"
        parts.append(words["from"].format(link=link))
        for passage in sorted(group, key=lambda p: p.position):
            parts.append("> " + passage.text)
    return "\n\n".join(parts) + "\n", list(groups)


def note_quote(
    sources: Sequence[SourceExcerpt], question: str, idf: Idf, *, floor: float = 0.0
) -> tuple[SourceExcerpt, str] | None:
    """The best source-note excerpt's best passage (trimmed like a page's), with its excerpt;
    None when no excerpt shares a word with the question or none scores `floor`."""
    found = note_quotes(sources, question, idf)
    best = max(found, key=lambda q: q[2], default=None)
    return (best[0], best[1]) if best and best[2] >= floor else None


def note_quotes(
    sources: Sequence[SourceExcerpt], question: str, idf: Idf
) -> list[tuple[SourceExcerpt, str, float]]:
    """Each of the best excerpts' best passage and its score, in retrieval's order (excerpts
    that share no word with the question left out)."""
    weights = question_weights(question, idf)
    out: list[tuple[SourceExcerpt, str, float]] = []
    for rank, x in enumerate(sources[:MAX_QUOTES]):
        best: tuple[str, float] | None = None
        for text in passages(x.text):
            if not set(weights) & set(match_terms(text)):
                continue
            quote, score = best_excerpt(text, weights)
            score *= 1 - 0.05 * rank  # ties go to the excerpt retrieval ranked higher
            if best is None or score > best[1]:
                best = (quote, score)
        if best is not None:
            out.append((x, *best))
    return out


def passage_span(text: str, question: str, idf: Idf) -> tuple[int, int] | None:
    """Where in `text` (an excerpt) the passage that best answers `question` lies, as
    character offsets; None when no passage shares a word with the question."""
    best: tuple[float, str] | None = None
    weights = question_weights(question, idf)
    for passage in passages(text):
        if set(weights) & set(match_terms(passage)):
            quote, score = best_excerpt(passage, weights)
            if best is None or score > best[0]:
                best = (score, quote)
    if best is None:
        return None
    # The quote joins whole sentences of the text, with "…" where it was cut.
    sentences = split_sentences(best[1].strip(" …"))
    if not sentences:
        return None
    first = _find_spaced(text, sentences[0].strip(" …"), 0)
    if first is None:
        return None
    last = _find_spaced(text, sentences[-1].strip(" …"), first[0])
    return (first[0], last[1]) if last is not None else None


def _find_spaced(text: str, needle: str, start: int) -> tuple[int, int] | None:
    """`needle` in `text` from `start`, any run of whitespace matching any other (passages
    join the note's wrapped lines with single spaces)."""
    words = needle.split()
    if not words:
        return None
    m = re.compile(r"\s+".join(map(re.escape, words))).search(text, start)
    return (m.start(), m.end()) if m else None


def note_quote_text(excerpt: SourceExcerpt, quote: str, language: str) -> str:
    """The quote in raw form, under a line naming the note as `[[raw/papers/orca]]`."""
    link = f"[[{excerpt.path}]]"
    return labels(language)["from_note"].format(link=link) + "\n\n> " + quote + "\n"
