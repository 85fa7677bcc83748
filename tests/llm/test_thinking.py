"""Reasoning blocks never reach the caller, whole or streamed, however the tags are split."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from wikiq.llm.thinking import ThinkFilter, strip_thinking


def stream_through_filter(chunks: list[str]) -> str:
    think = ThinkFilter()
    return "".join(think.feed(c) for c in chunks) + think.finish()


def test_strip_removes_think_block_and_the_blank_lines_after_it() -> None:
    assert strip_thinking("<think>The user wants X.</think>\n\nX is 4.") == "X is 4."


def test_strip_leaves_text_without_reasoning_untouched() -> None:
    assert strip_thinking("  Plain answer with <b>tags</b> and a < sign.\n") == (
        "  Plain answer with <b>tags</b> and a < sign.\n"
    )


def test_unterminated_think_at_the_end_leaves_only_the_answer_before_it() -> None:
    assert strip_thinking("<think>still thinking when the tokens ran out") == ""
    assert strip_thinking("Answer first. <think>then rambling") == "Answer first. "


def test_orphan_closing_tag_drops_the_reasoning_before_it() -> None:
    # Templates that open <think> inside the prompt send back only the closing tag.
    assert strip_thinking("reasoning about it\n</think>\n\nThe answer.") == "The answer."


def test_several_think_blocks_are_all_removed() -> None:
    assert strip_thinking("<think>a</think>One, <think>b</think>two.") == "One, two."


def test_tags_split_across_chunks_are_filtered() -> None:
    chunks = ["<thi", "nk>sec", "ret</th", "ink>\n", "\nVis", "ible"]
    assert stream_through_filter(chunks) == "Visible"


def test_filter_releases_visible_text_immediately_and_holds_only_a_possible_tag() -> None:
    think = ThinkFilter()
    assert think.feed("Hello <") == "Hello "
    assert think.feed("b>bold") == "<b>bold"
    assert think.feed(" <th") == " "
    assert think.finish() == "<th"  # not a tag after all


def test_text_inside_a_think_block_is_never_released() -> None:
    think = ThinkFilter()
    assert think.feed("<think>") == ""
    assert think.feed("private ") == ""
    assert think.feed("thoughts") == ""
    assert think.finish() == ""


def cut(text: str, cuts: list[int]) -> list[str]:
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


pieces = st.text(alphabet="ab <>/\nthink", max_size=12).filter(lambda t: "think>" not in t)


@given(pieces, pieces, st.lists(st.integers(min_value=0, max_value=60), max_size=8))
def test_any_chunking_shows_the_answer_and_none_of_the_thought(
    thought: str, answer: str, cuts: list[int]
) -> None:
    text = f"<think>{thought}</think>{answer}"
    assert stream_through_filter(cut(text, cuts)) == strip_thinking(text)
    assert strip_thinking(text) == answer.lstrip()


@given(
    st.lists(st.sampled_from(["<think>", "</think>", "<th", "ink>", "a", " b", "<", "\n"])),
    st.lists(st.integers(min_value=0, max_value=60), max_size=8),
)
def test_any_chunking_of_any_text_filters_the_same_as_one_chunk(
    parts: list[str], cuts: list[int]
) -> None:
    text = "".join(parts)
    assert stream_through_filter(cut(text, cuts)) == stream_through_filter([text])
