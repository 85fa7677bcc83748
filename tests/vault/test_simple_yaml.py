"""The frontmatter fast path returns exactly what PyYAML returns, or steps aside."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from wikiq.vault.markdown import split_frontmatter
from wikiq.vault.simple_yaml import load_simple

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-vault" / "wiki"


def test_the_plugins_canonical_frontmatter_takes_the_fast_path() -> None:
    text = (
        'type: entity\ncreated: 2026-05-02\nupdated: 2026-06-11\nsources:\n  - "[[sources/a_3fa2c1]]"\n'
        'tags:\n  - "person"\nreviewed: true\naliases:\n  - "Armstrong"\n  - "阿姆斯特朗"\nempty: []\nnothing:\n'
    )
    fast = load_simple(text)
    assert fast is not None and fast == yaml.safe_load(text)
    assert fast["nothing"] is None and fast["empty"] == [] and fast["reviewed"] is True


def test_flow_lists_of_simple_items() -> None:
    text = 'sources: ["[[sources/a]]", "[[sources/b]]"]\ntags: [linguistics, 语言]\naliases: movement (regional)\nnone: []'
    assert load_simple(text) == yaml.safe_load(text)


def test_every_demo_page_reads_the_same_either_way() -> None:
    # The plugin's flat frontmatter is what the fast path is for: every demo page takes it,
    # and reads exactly as PyYAML reads it.
    read = 0
    for page in DEMO.rglob("*.md"):
        text = page.read_bytes().decode("utf-8").lstrip("\ufeff")
        fm = split_frontmatter(text)
        if not fm.text:
            continue
        fast = load_simple(fm.text)
        assert fast is not None, page
        assert fast == yaml.safe_load(fm.text), page
        read += 1
    assert read >= 40


def test_shapes_outside_the_fast_path_step_aside() -> None:
    for text in (
        "aliases: [a, [b]]",
        "aliases: [a, b,]",
        'aliases: ["a", b: c]',
        "title: Foo: Bar",
        "note: |\n  block",
        "a:\n  b: c",
        "x: yes",
        "x: 1.5",
        "x: 0123",
        'x: "esc\\"aped"',
        "x: &anchor v",
        "# comment\nx: 1",
        "- a\n- b",
        "x: v # trailing comment",
        "x: y\nx: z",
    ):
        assert load_simple(text) is None, text


_scalars = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12),
    st.sampled_from(
        [
            "true",
            "false",
            "yes",
            "no",
            "null",
            "~",
            "12",
            "0",
            "007",
            "1.5",
            "2026-01-02",
            "2026-13-02",
            "2026-06-10T12:40",
            "2026-06-10 12:40:00",
            "=",
            "a: b",
            "[]",
            "-x",
            "#x",
        ]
    ),
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["type", "title", "aliases", "tags", "reviewed", "x_y"]),
            st.one_of(_scalars, st.lists(_scalars, max_size=3)),
        ),
        max_size=5,
    )
)
def test_fast_path_agrees_with_pyyaml_whenever_it_answers(pairs: list[tuple[str, object]]) -> None:
    lines: list[str] = []
    for n, (key, value) in enumerate(pairs):
        if isinstance(value, list) and n % 2:
            lines.append(f"{key}: [{', '.join(str(v) for v in value)}]")
        elif isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"  - {item}" for item in value)
        else:
            lines.append(f"{key}: {value}")
    text = "\n".join(lines)
    fast = load_simple(text)
    if fast is None:
        return
    try:
        expected = yaml.safe_load(text)
    except yaml.YAMLError:
        raise AssertionError(f"fast path accepted text YAML rejects: {text!r}") from None
    assert fast == (expected or {}), text
