"""Reading one page: frontmatter, links in every form, code fences, headings, summaries."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wikiq.vault.markdown import (
    code_fence_spans,
    extract_links,
    first_heading,
    split_frontmatter,
    summary_line,
)
from wikiq.vault.page import parse_page


def test_frontmatter_is_parsed_and_body_starts_after_it() -> None:
    text = '---\ntype: entity\naliases:\n  - "Moon"\n---\n# The Moon\nBody.\n'
    fm = split_frontmatter(text)
    assert fm.data == {"type": "entity", "aliases": ["Moon"]}
    assert text[fm.body_start :] == "# The Moon\nBody.\n"
    assert fm.error is None


def test_no_frontmatter_means_the_whole_text_is_body() -> None:
    fm = split_frontmatter("# Title\n---\nnot yaml\n")
    assert fm.data == {} and fm.body_start == 0 and fm.error is None


def test_broken_yaml_yields_empty_data_and_a_one_line_error() -> None:
    fm = split_frontmatter("---\naliases: [unclosed\ntype: entity\n---\nBody\n")
    assert fm.data == {}
    assert fm.error is not None and "broken frontmatter" in fm.error and "\n" not in fm.error


def test_unclosed_frontmatter_is_reported() -> None:
    fm = split_frontmatter("---\ntype: entity\nno closing line\n")
    assert fm.error is not None and "never closed" in fm.error


def test_frontmatter_that_is_not_a_mapping_is_reported() -> None:
    fm = split_frontmatter("---\n- a\n- b\n---\nBody\n")
    assert fm.data == {} and fm.error is not None


def test_every_link_form_is_found() -> None:
    body = (
        "See [[entities/moon]], [[Neil Armstrong|Armstrong]], [[concepts/orbit#Kepler's laws]],\n"
        "[[entities/moon#^first-landing]] and ![[concepts/lagrange-point]].\n"
    )
    links = extract_links(body)
    assert [(link.target, link.heading, link.label, link.embed) for link in links] == [
        ("entities/moon", None, None, False),
        ("Neil Armstrong", None, "Armstrong", False),
        ("concepts/orbit", "Kepler's laws", None, False),
        ("entities/moon", "^first-landing", None, False),
        ("concepts/lagrange-point", None, None, True),
    ]


def test_links_inside_code_fences_and_inline_code_are_ignored() -> None:
    body = "Real [[a]].\n```python\nx = '[[not-a-link]]'\n```\nInline `[[nope]]` and [[b]].\n~~~\n[[also-not]]\n~~~\n"
    assert [link.target for link in extract_links(body)] == ["a", "b"]


def test_links_in_frontmatter_are_found_and_marked() -> None:
    links = extract_links("Body [[x]]", 'sources:\n  - "[[sources/notes_abc123]]"\n')
    assert [(link.target, link.in_frontmatter) for link in links] == [
        ("sources/notes_abc123", True),
        ("x", False),
    ]


def test_escaped_pipe_in_a_table_link_is_not_part_of_the_target() -> None:
    links = extract_links("| [[Table view\\|Table]] | x |")
    assert [(link.target, link.label) for link in links] == [("Table view", "Table")]


def test_unclosed_fence_runs_to_the_end() -> None:
    text = "a\n```\ncode [[x]]\n"
    assert code_fence_spans(text) == [(2, len(text))]
    assert extract_links(text) == []


def test_fence_closes_only_with_the_same_marker() -> None:
    text = "````\n```\n[[inside]]\n````\n[[outside]]\n"
    assert [link.target for link in extract_links(text)] == ["outside"]


def test_first_heading_skips_headings_inside_code() -> None:
    assert first_heading("```\n# comment\n```\n# Real Title\n") == "Real Title"
    assert first_heading("no heading here") is None


def test_summary_is_first_plain_line_cut_to_100_chars() -> None:
    body = "# Title\n\n## Description\n\n" + "x" * 150 + "\n"
    assert summary_line(body) == "x" * 100


def test_page_with_bom_and_crlf_keeps_exact_byte_offsets() -> None:
    text = "---\r\ntype: concept\r\naliases: [Orbit, 轨道]\r\n---\r\n# Orbit\r\nBody ✓\r\n"
    raw = b"\xef\xbb\xbf" + text.encode("utf-8")
    parsed = parse_page(raw, "concepts/orbit.md")
    page = parsed.page
    assert page.type == "concept"
    assert page.aliases == ("Orbit", "轨道")
    assert page.title == "Orbit"
    assert raw[page.body_offset :].decode("utf-8") == "# Orbit\r\nBody ✓\r\n"
    assert page.problem is None


def test_broken_yaml_page_still_yields_a_page_titled_by_its_file_name() -> None:
    raw = b"---\naliases: [oops\n---\nText about [[orbit]].\n"
    page = parse_page(raw, "entities/luna.md").page
    assert page.title == "luna" and page.name == "luna"
    assert page.type == "entity"  # from its folder
    assert page.problem is not None
    assert page.links == ("orbit",)


def test_alias_forms_list_string_and_comma_string() -> None:
    as_list = parse_page(b"---\naliases:\n  - A\n  - B\n---\n", "x.md").page
    as_string = parse_page(b"---\naliases: Single\n---\n", "x.md").page
    as_commas = parse_page(b"---\naliases: One, Two\n---\n", "x.md").page
    singular = parse_page(b"---\nalias: Solo\n---\n", "x.md").page
    assert as_list.aliases == ("A", "B")
    assert as_string.aliases == ("Single",)
    assert as_commas.aliases == ("One", "Two")
    assert singular.aliases == ("Solo",)


def test_flags_and_unknown_keys_are_kept() -> None:
    raw = (
        b"---\ntype: entity\nreviewed: true\ngeneration_complete: false\ntags:\n  - person\n"
        b'custom_key: 42\nsources:\n  - "[[sources/a_123456]]"\n---\n# Name\n'
    )
    parsed = parse_page(raw, "entities/name.md")
    page = parsed.page
    assert page.reviewed and page.stub
    assert page.tags == ("person",)
    assert page.source_links == ("sources/a_123456",)
    assert parsed.frontmatter["custom_key"] == 42
    assert page.links == ("sources/a_123456",)


def test_undecodable_bytes_are_reported_not_fatal() -> None:
    page = parse_page(b"# Caf\xe9\nbody", "x.md").page
    assert page.problem is not None and "UTF-8" in page.problem
    assert page.title.startswith("Caf")


def test_a_binary_file_named_md_is_reported_and_none_of_it_is_read() -> None:
    # A PNG saved as `.md`: its bytes would otherwise be searched and quoted as words.
    raw = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR [[concepts/x]] orbit"
    parsed = parse_page(raw, "concepts/image.md", size=len(raw))
    assert parsed.page.problem is not None and "not a text file" in parsed.page.problem
    assert parsed.body == "" and parsed.page.links == ()
    assert parsed.page.title == "image"
    assert parsed.page.body_offset == len(raw)  # Catalog.read_body reads nothing of it


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parsers_never_raise_on_arbitrary_text(text: str) -> None:
    split_frontmatter(text)
    extract_links(text, text)
    first_heading(text)
    summary_line(text)
    parse_page(text.encode("utf-8", errors="surrogatepass"), "p.md")


@settings(max_examples=200, deadline=None)
@given(st.binary())
def test_page_parser_never_raises_on_arbitrary_bytes(raw: bytes) -> None:
    page = parse_page(raw, "folder/page.md").page
    assert page.path == "folder/page"
    assert 0 <= page.body_offset <= len(raw)


# Frontmatter made of YAML's own pieces (keys, anchors, aliases, flow lists, quotes, links), so
# the fuzzing reaches the YAML loader and the alias guard, not only the "not YAML" paths.
_YAML_PIECES = st.sampled_from(
    [
        "a: ", "tags: ", "aliases: ", "title: ", "&x ", "&y ", "*x", "*y", "[", "]", ", ", "{", "}",
        ": ", "- ", "\n", "\n  ", "'", '"', "[[wiki/entities/x]]", "[[a|b]]", "#", "!!str ", "? ",
        "lol", "é", "中文", "\t", "|", ">", "---", "...",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_YAML_PIECES, max_size=60), st.lists(_YAML_PIECES, max_size=20))
def test_yaml_shaped_frontmatter_never_raises_and_always_yields_a_mapping(
    head: list[str], body: list[str]
) -> None:
    text = "---\n" + "".join(head) + "\n---\n# Title\n" + "".join(body)
    fm = split_frontmatter(text)
    assert isinstance(fm.data, dict) and all(isinstance(k, str) for k in fm.data)
    page = parse_page(text.encode("utf-8"), "p.md").page
    assert page.path == "p"


@settings(max_examples=50, deadline=2000)
@given(st.integers(min_value=2, max_value=12), st.integers(min_value=2, max_value=12))
def test_nested_aliases_are_refused_before_they_expand(width: int, depth: int) -> None:
    # width ** depth values from depth * width aliases: refused (and fast) once it is large.
    lines = [f"l0: &l0 [{', '.join(['x'] * width)}]"]
    for d in range(1, depth):
        lines.append(f"l{d}: &l{d} [{', '.join([f'*l{d - 1}'] * width)}]")
    fm = split_frontmatter("---\n" + "\n".join(lines) + "\n---\nbody\n")
    if width**depth > 20_000:
        assert fm.data == {} and fm.error and "expand" in fm.error
