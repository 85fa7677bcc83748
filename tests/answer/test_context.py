"""Loading pages into a token budget: whole when they fit, cut cleanly and visibly when not."""

from __future__ import annotations

import pytest

from tests.answer.conftest import MOON, ModelFactory
from tests.support.fake_llm import FakeLLM
from tests.support.vaults import VaultFactory, index_md
from wikiq.answer.context import (
    OMISSION_MARK,
    TRUNCATION_MARK,
    ContextSettings,
    ContextTooSmall,
    fit_tokens,
    load_pages,
    plan_budget,
    truncate,
)
from wikiq.config import Config
from wikiq.errors import ModelError
from wikiq.text import count_tokens
from wikiq.wiki import Wiki

PROSE = "The probe flew on. " * 20
FENCED = (
    "Intro paragraph about the script.\n\n"
    "```python\n" + "\n".join(f"x{n} = {n}  # step {n}" for n in range(60)) + "\n```\n\n"
    "Closing words after the code."
)


def fences_balanced(text: str) -> bool:
    return text.count("```") % 2 == 0


@pytest.mark.parametrize("limit", [40, 120, 400, 900, 1200])
def test_a_cut_never_lands_inside_a_code_fence(limit: int) -> None:
    cut, was_cut = truncate(FENCED, limit)

    assert was_cut
    assert fences_balanced(cut)
    assert cut.endswith(TRUNCATION_MARK)


def test_a_cut_ends_at_a_paragraph_when_one_is_near() -> None:
    text = "First paragraph, short.\n\n" + PROSE + "\n\nThird paragraph."

    cut, _ = truncate(text, len(text) - 10)

    assert cut.split("\n\n")[-2] == PROSE.strip()


def test_a_cut_ends_at_a_sentence_inside_a_long_paragraph() -> None:
    cut, _ = truncate(PROSE, 100)

    body = cut.removesuffix(TRUNCATION_MARK).rstrip()
    assert body.endswith("The probe flew on.")
    assert len(body) <= 100


def test_chinese_text_is_cut_at_a_full_stop() -> None:
    text = "月球是地球唯一的天然卫星。" * 30

    cut, _ = truncate(text, 100)

    assert cut.removesuffix(TRUNCATION_MARK).rstrip().endswith("。")


def test_when_a_page_must_shrink_it_keeps_the_paragraph_that_answers() -> None:
    filler = [f"Paragraph {n} talks about rockets and fuel in general terms." for n in range(12)]
    text = "\n\n".join(
        [
            "Lead: this page is about Apollo.",
            *filler[:8],
            "Armstrong walked on the Moon first.",
            *filler[8:],
        ]
    )
    weights = {"armstrong": 5.0, "moon": 2.0}

    cut, was_cut = fit_tokens(text, 60, weights)

    assert was_cut and count_tokens(cut) <= 60
    assert cut.startswith("Lead: this page is about Apollo.")
    assert "Armstrong walked on the Moon first." in cut
    assert OMISSION_MARK in cut


def long_page(title: str, paragraphs: int, word: str = "orbit") -> str:
    body = "\n\n".join(
        f"{title} paragraph {n}: the {word} changes slowly here." for n in range(paragraphs)
    )
    return f"---\ntype: concept\n---\n\n# {title}\n\n{body}\n"


def test_pages_share_the_budget_and_stubs_are_skipped(make_vault: VaultFactory) -> None:
    files = {f"wiki/concepts/p{n}.md": long_page(f"P{n}", 40) for n in range(4)}
    files["wiki/concepts/stub.md"] = (
        "---\ntype: concept\ngeneration_complete: false\n---\n\n# Stub\n\nTo be written.\n"
    )
    files["wiki/index.md"] = index_md("- [[concepts/p0|p0]]", heading="## Concepts")
    wiki = Wiki.open(make_vault(files), config=Config())
    order = [
        wiki.catalog.by_path[p]
        for p in ("concepts/stub", "concepts/p0", "concepts/p1", "concepts/p2", "concepts/p3")
    ]

    ctx = load_pages(wiki.catalog, order, 1200, ContextSettings(), limit=3)

    assert ctx.stubs == ["concepts/stub"]
    assert [p.path for p in ctx.pages] == ["concepts/p0", "concepts/p1", "concepts/p2"]
    assert ctx.tokens <= 1200
    assert all(p.truncated and p.text.endswith(TRUNCATION_MARK) for p in ctx.pages)
    assert max(p.tokens for p in ctx.pages) - min(p.tokens for p in ctx.pages) < 60  # fair shares


def test_when_shares_get_too_small_the_lowest_ranked_pages_are_left_out(
    make_vault: VaultFactory,
) -> None:
    files = {f"wiki/concepts/p{n}.md": long_page(f"P{n}", 40) for n in range(8)}
    files["wiki/index.md"] = index_md("- [[concepts/p0|p0]]", heading="## Concepts")
    wiki = Wiki.open(make_vault(files), config=Config())
    order = [wiki.catalog.by_path[f"concepts/p{n}"] for n in range(8)]

    ctx = load_pages(wiki.catalog, order, 500, ContextSettings(min_page_tokens=120), limit=8)

    assert [p.path for p in ctx.pages] == [
        "concepts/p0",
        "concepts/p1",
        "concepts/p2",
        "concepts/p3",
    ]
    assert ctx.left_out == [f"concepts/p{n}" for n in range(4, 8)]
    assert ctx.tokens <= 500


def test_a_short_page_is_loaded_whole_without_a_mark(make_vault: VaultFactory) -> None:
    files = {
        "wiki/concepts/short.md": long_page("Short", 2),
        "wiki/index.md": index_md("- [[concepts/short|short]]", heading="## Concepts"),
    }
    wiki = Wiki.open(make_vault(files), config=Config())

    ctx = load_pages(wiki.catalog, [0], 5000, ContextSettings(), limit=8)

    assert not ctx.pages[0].truncated
    assert "Short paragraph 1" in ctx.pages[0].text and "…" not in ctx.pages[0].text


def test_the_per_page_character_cap_applies_even_with_room_to_spare(
    make_vault: VaultFactory,
) -> None:
    files = {
        "wiki/concepts/big.md": long_page("Big", 400),
        "wiki/index.md": index_md("- [[concepts/big|big]]", heading="## Concepts"),
    }
    wiki = Wiki.open(make_vault(files), config=Config())

    ctx = load_pages(wiki.catalog, [0], 100_000, ContextSettings(page_chars=2000), limit=8)

    assert ctx.pages[0].truncated and len(ctx.pages[0].text) <= 2100


def test_the_budget_splits_the_window_and_never_overflows() -> None:
    budget = plan_budget(8192, 700, ContextSettings())

    parts = budget.answer + budget.fixed + budget.hint + budget.history + budget.pages
    assert parts <= 8192
    assert budget.answer == 2048 and budget.pages > budget.history > budget.hint > 0


def test_a_window_too_small_for_instructions_and_a_page_is_one_sentence() -> None:
    with pytest.raises(ContextTooSmall) as caught:
        plan_budget(1024, 900, ContextSettings(), model_name="local:tiny")

    message = str(caught.value)
    assert message.startswith("The context window of local:tiny (1024 tokens) is too small")
    assert message.endswith(".") and "\n" not in message


def test_ask_with_a_tiny_context_fails_before_calling_the_model(
    wiki: Wiki, make_model: ModelFactory, fake_llm: FakeLLM
) -> None:
    with pytest.raises(ModelError, match="too small"):
        wiki.ask(MOON, model=make_model(context_window=600))

    assert fake_llm.chat_requests == []


def test_the_prompt_sent_fits_the_window(
    wiki: Wiki, make_model: ModelFactory, fake_llm: FakeLLM
) -> None:
    fake_llm.script("Armstrong [[__WIKI_FOLDER__/entities/neil-armstrong]].")

    answer = wiki.ask(MOON, model=make_model(context_window=3000))

    request = fake_llm.chat_requests[-1].json
    prompt = sum(count_tokens(m["content"]) + 6 for m in request["messages"])
    assert prompt + request["max_tokens"] <= 3000
    assert answer.loaded  # some pages still made it
