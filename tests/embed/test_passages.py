"""What is embedded for a page's lead: its names whole, then as much of the lead as fits."""

from __future__ import annotations

from wikiq.embed.passages import LEAD_CHARS, LEAD_TOKENS, page_passages, text_spec
from wikiq.vault.page import Page


def _page(title: str, aliases: tuple[str, ...] = ()) -> Page:
    return Page(path=f"notes/{title}", file=f"notes/{title}.md", name=title, title=title,
                aliases=aliases)


def _chars(text: str) -> int:
    """A model whose every character is one token: easy to reason about."""
    return len(text)


def test_a_long_chinese_lead_is_cut_to_the_token_limit_with_the_names_whole() -> None:
    page = _page("张居正", aliases=("Zhang Juzheng",))
    body = "张居正是明朝万历年间的内阁首辅，推行一条鞭法与考成法。" * 12
    [passage] = page_passages(page, body, body, "lead", tokens=_chars)
    assert passage.startswith("张居正 (Zhang Juzheng)\n")
    assert len(passage) <= LEAD_TOKENS  # the longest start of the lead that fits
    assert len(passage) >= LEAD_TOKENS - 1
    assert body.startswith(passage.split("\n", 1)[1])


def test_a_lead_within_the_limit_is_kept_as_it_was() -> None:
    page = _page("Orbit")
    body = "A curved path around the Moon, bent by gravity."
    [passage] = page_passages(page, body, body, "lead", tokens=_chars)
    assert passage == "Orbit\nA curved path around the Moon, bent by gravity."


def test_without_the_models_count_an_estimate_still_bounds_a_chinese_lead() -> None:
    page = _page("月球")
    body = "月球是地球唯一的天然卫星，绕地球公转一周约二十七天。" * 15
    [passage] = page_passages(page, body, body, "lead")  # no tokens: the cl100k estimate
    lead = passage.split("\n", 1)[1]
    assert 20 < len(lead) < LEAD_CHARS  # cut by tokens, well before 300 characters
    english = "The Moon is Earth's only natural satellite and orbits it every 27 days. " * 3
    [kept] = page_passages(_page("Moon"), english, english, "lead")
    assert kept == "Moon\n" + english.strip()  # ~50 tokens of English: nothing cut


def test_the_index_spec_names_the_token_limit_so_a_change_rebuilds() -> None:
    assert text_spec("lead") == f"lead:{LEAD_CHARS}/{LEAD_TOKENS}t"
