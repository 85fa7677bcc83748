"""Chunking for embeddings: exact offsets, headings first, and the three fence rules."""

from __future__ import annotations

import itertools
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wikiq.vault.chunking import Chunk, chunk_page
from wikiq.vault.markdown import code_fence_spans, split_frontmatter

_FENCE_LINE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)")  # used with .match(text, pos)

# --- a generator of Markdown pages --------------------------------------------------------

words = st.sampled_from(
    ["orbit", "the", "Moon", "gravity", "月球", "轨道", "引力", "x=1;", "[[link]]", "a.", "b!"]
)
line_text = st.lists(words, min_size=1, max_size=14).map(" ".join)
heading = st.tuples(st.integers(1, 4), line_text).map(lambda t: "#" * t[0] + " " + t[1])
paragraph = st.lists(line_text, min_size=1, max_size=5)
code_line = st.one_of(
    line_text,
    st.just("# a comment, not a heading"),
    st.just("    indented()"),
    st.just(""),
    st.integers(60, 300).map(lambda n: "y" * n),  # longer than small budgets
)


@st.composite
def fence(draw: st.DrawFn) -> list[str]:
    marker = draw(st.sampled_from(["```", "~~~", "````"]))
    lang = draw(st.sampled_from(["", "python", "sh", "yaml"]))
    body = draw(st.lists(code_line, min_size=0, max_size=25))
    if marker == "````":
        body = [*body, "```"]  # a shorter fence inside a longer one is code
    closed = draw(st.booleans()) or draw(st.booleans())
    return [marker + lang, *body, *([marker] if closed else [])]


@st.composite
def page(draw: st.DrawFn) -> str:
    blocks = draw(
        st.lists(st.one_of(heading.map(lambda h: [h]), paragraph, fence()), min_size=0, max_size=10)
    )
    lines: list[str] = []
    for block in blocks:
        lines.extend(block)
        lines.extend([""] * draw(st.integers(0, 2)))
        if block and _FENCE_LINE.match(block[0]) and not _is_closed(block):
            break  # an unclosed fence runs to the end of the page
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines)
    if draw(st.booleans()):
        text = f"---{newline}title: T{newline}aliases: [a]{newline}---{newline}" + text
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text


def _is_closed(block: list[str]) -> bool:
    marker = _FENCE_LINE.match(block[0]).group(1)  # type: ignore[union-attr]
    return len(block) > 1 and block[-1].strip() == marker


def _body_start(text: str) -> int:
    bom = 1 if text.startswith("\ufeff") else 0
    return bom + split_frontmatter(text).body_start


def _unclosed(text: str) -> bool:
    """Whether `text` leaves a code fence open at its end."""
    spans = code_fence_spans(text)
    if not spans:
        return False
    fs, fe = spans[-1]
    lines = text[fs:fe].splitlines()
    marker = _FENCE_LINE.match(lines[0]).group(1)  # type: ignore[union-attr]
    last = lines[-1].strip()
    return len(lines) < 2 or not (set(last) == {marker[0]} and len(last) >= len(marker))


budgets = st.integers(min_value=40, max_value=400)
overlaps = st.integers(min_value=0, max_value=120)
PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- properties ---------------------------------------------------------------------------


@PROPERTY
@given(page(), budgets, overlaps)
def test_every_chunk_is_an_exact_slice_of_the_text_and_of_the_file_bytes(
    text: str, budget: int, overlap: int
) -> None:
    raw = text.encode("utf-8")
    for c in chunk_page(text, budget=budget, overlap=overlap):
        assert text[c.start : c.end] == c.text
        assert raw[c.byte_start : c.byte_end] == c.text.encode("utf-8")
        assert c.text.strip(), "no empty chunks"


@PROPERTY
@given(page(), budgets, overlaps)
def test_chunks_are_in_order_inside_the_body_and_cover_all_of_it(
    text: str, budget: int, overlap: int
) -> None:
    chunks = chunk_page(text, budget=budget, overlap=overlap)
    start = _body_start(text)
    assert all(c.start >= start for c in chunks)
    assert all(a.start < b.start and a.end < b.end for a, b in itertools.pairwise(chunks))
    covered = [False] * len(text)
    for c in chunks:
        covered[c.start : c.end] = [True] * (c.end - c.start)
    missed = [i for i in range(start, len(text)) if not text[i].isspace() and not covered[i]]
    assert not missed, f"uncovered text at {missed[:5]}: {text[missed[0] : missed[0] + 20]!r}"


@PROPERTY
@given(page(), budgets, overlaps)
def test_no_chunk_is_longer_than_the_budget_once_its_fences_are_balanced(
    text: str, budget: int, overlap: int
) -> None:
    for c in chunk_page(text, budget=budget, overlap=overlap):
        assert len(c.balanced) <= budget


@PROPERTY
@given(page(), budgets, overlaps)
def test_a_code_block_that_fits_the_budget_is_never_cut(
    text: str, budget: int, overlap: int
) -> None:
    start = _body_start(text)
    fences = [(start + s, start + e) for s, e in code_fence_spans(text[start:])]
    chunks = chunk_page(text, budget=budget, overlap=overlap)
    for fs, fe in fences:
        fe = fs + len(text[fs:fe].rstrip())
        marker = _FENCE_LINE.match(text, fs).group(1)  # type: ignore[union-attr]
        newline = "\r\n" if text[fs:fe].split("\n", 1)[0].endswith("\r") else "\n"
        closer = len(newline + marker) if _unclosed(text[fs:fe]) else 0  # added to close it
        if fe - fs + closer > budget:
            continue
        for c in chunks:
            assert not fs < c.start < fe, "a chunk starts inside a fitting code block"
            assert not fs < c.end < fe, "a chunk ends inside a fitting code block"


@PROPERTY
@given(page(), budgets, overlaps)
def test_every_chunk_opens_and_closes_its_code_blocks_with_their_own_marker_and_language(
    text: str, budget: int, overlap: int
) -> None:
    start = _body_start(text)
    fences = [(start + s, start + e) for s, e in code_fence_spans(text[start:])]
    for c in chunk_page(text, budget=budget, overlap=overlap):
        assert not _unclosed(c.balanced), f"open fence in {c.balanced!r}"
        if c.fence_open:
            owner = next(fs for fs, fe in fences if fs < c.start < fe or fs < c.start <= fe)
            marker, lang = _FENCE_LINE.match(text, owner).groups()  # type: ignore[union-attr]
            assert c.fence_open.rstrip("\r\n") in (marker + lang, marker)
            assert c.fence_close in ("", "\n" + marker, "\r\n" + marker)
        if c.fence_close:
            assert c.fence_close.strip() in ("```", "~~~", "````")


# --- behaviours, by example --------------------------------------------------------------


def test_a_long_page_is_cut_at_its_headings_and_chunks_know_their_section() -> None:
    intro = "Intro sentence about orbits. " * 12
    first = "Details of the first section. " * 12
    second = "Details of the second section. " * 12
    text = f"# Guide\n\n{intro}\n\n## First\n\n{first}\n\n## Second\n\n{second}\n"
    chunks = chunk_page(text, budget=500, overlap=80)
    starts = [text[c.start :].split("\n", 1)[0] for c in chunks]
    assert starts == ["# Guide", "## First", "## Second"]
    assert [c.heading for c in chunks] == ["Guide", "Guide > First", "Guide > Second"]


def test_small_sections_are_merged_into_one_chunk() -> None:
    text = "# A\n\nshort.\n\n## B\n\nalso short.\n\n## C\n\ntiny.\n"
    chunks = chunk_page(text, budget=500)
    assert len(chunks) == 1 and chunks[0].text == text.rstrip()


def test_paragraphs_of_one_section_overlap_at_the_cut() -> None:
    paragraphs = [f"Paragraph {n} says something about gravity and orbits." for n in range(20)]
    text = "\n\n".join(paragraphs)
    chunks = chunk_page(text, budget=200, overlap=60)
    assert len(chunks) > 3
    for a, b in itertools.pairwise(chunks):
        assert b.start < a.end <= b.start + 60 + 2, "the next chunk repeats the end of this one"


def test_a_comment_line_in_code_is_not_a_heading() -> None:
    code = "```python\n# set up\nx = 1\n# and run\nrun(x)\n```"
    text = f"Some text first.\n\n{code}\n\nAfter.\n"
    chunks = chunk_page(text, budget=300)
    assert len(chunks) == 1 and chunks[0].heading == ""


def test_a_big_code_block_is_cut_between_lines_and_each_piece_is_a_valid_block() -> None:
    lines = [f"value_{n} = compute({n})" for n in range(40)]
    code = "~~~python\r\n" + "\r\n".join(lines) + "\r\n~~~"
    text = f"# Code\r\n\r\n{code}\r\n"
    chunks = [c for c in chunk_page(text, budget=200, overlap=40) if "value_" in c.text]
    assert len(chunks) >= 4
    assert chunks[0].text.startswith("~~~python\r\n") and not chunks[0].fence_open
    assert chunks[-1].text.endswith("~~~") and not chunks[-1].fence_close
    for c in chunks[1:-1]:
        assert c.fence_open == "~~~python\r\n" and c.fence_close == "\r\n~~~"
        assert c.balanced.startswith("~~~python\r\nvalue_")
    for c in chunks:
        body = [ln for ln in c.text.split("\r\n") if ln.startswith("value_")]
        assert all(ln in lines for ln in body), "cut between lines, never inside one"
    for a, b in itertools.pairwise(chunks):
        assert b.start < a.end, "consecutive pieces overlap"


def test_a_line_longer_than_the_budget_is_cut_inside_with_exact_offsets() -> None:
    long_line = "z" * 500
    text = f"```\n{long_line}\n```\n"
    chunks = chunk_page(text, budget=120, overlap=20)
    pieces = "".join(c.text for c in chunks if set(c.text) == {"z"})
    assert pieces == long_line
    assert all(len(c.balanced) <= 120 for c in chunks)
    assert all(text[c.start : c.end] == c.text for c in chunks)


def test_offsets_count_bytes_of_a_bom_frontmatter_and_cjk() -> None:
    text = "\ufeff---\r\ntitle: 月球\r\n---\r\n# 月球\r\n\r\n月球是地球唯一的天然卫星。\r\n"
    (chunk,) = chunk_page(text)
    raw = text.encode("utf-8")
    assert chunk.text == "# 月球\r\n\r\n月球是地球唯一的天然卫星。"
    assert raw[chunk.byte_start : chunk.byte_end].decode("utf-8") == chunk.text
    assert chunk.byte_start == len("\ufeff---\r\ntitle: 月球\r\n---\r\n".encode())


def test_an_empty_body_has_no_chunks() -> None:
    assert chunk_page("---\ntitle: x\n---\n\n  \n") == []


def test_balanced_text_of_a_plain_chunk_is_the_text() -> None:
    c = Chunk(0, 5, 0, 5, "hello")
    assert c.balanced == "hello"
