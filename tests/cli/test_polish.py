"""Words and output that fit the vault and the interface (issue 13's rough edges)."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_wikiq
from tests.support.vaults import VaultFactory
from wikiq.wiki import Wiki

DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "demo-vault")


def test_show_prints_the_page_text_and_meta_leaves_it_out() -> None:
    full = run_wikiq("show", "concepts/orbit", "--vault", DEMO)
    assert full.code == 0 and "An orbit is the curved path" in full.stdout
    assert "links out" in full.stdout
    meta = run_wikiq("show", "concepts/orbit", "--vault", DEMO, "--meta")
    assert meta.code == 0 and "An orbit is the curved path" not in meta.stdout
    assert "links out" in meta.stdout


def test_doctor_on_a_plain_vault_counts_pages_without_a_types_list(
    make_vault: VaultFactory,
) -> None:
    vault = make_vault({"Notes/a.md": "# A\n\nText.\n", "Notes/b.md": "# B\n\nMore [[a]].\n"})
    res = run_wikiq("doctor", "--vault", str(vault))
    assert res.code == 0
    line = next(li for li in res.stdout.splitlines() if li.startswith("Pages"))
    assert line.split() == ["Pages", "2"]


def test_the_not_covered_advice_fits_the_vault_and_names_no_flag(make_vault: VaultFactory) -> None:
    plain = make_vault({"Notes/a.md": "# Orbit\n\nA curved path.\n"}, name="plain")
    answer = Wiki.open(plain).ask("How do I bake sourdough bread?")
    assert answer.pure_llm and "LLM Wiki plugin" not in answer.text and "--model" not in answer.text
    demo = Wiki.open(DEMO).ask("How do I bake sourdough bread?")
    assert demo.pure_llm and "LLM Wiki plugin" in demo.text and "--model" not in demo.text


def test_pages_lists_one_aligned_line_per_page_whatever_the_titles(
    make_vault: VaultFactory,
) -> None:
    from rich.cells import cell_len

    vault = make_vault(
        {
            "wiki/index.md": "- [[concepts/orbit]]\n",
            "wiki/concepts/orbit.md": "---\ntype: concept\n---\n# Orbit\n\nA path.\n",
            "wiki/concepts/kant.md": "---\ntype: concept\ntitle: 伊曼纽尔·康德\n---\nText.\n",
            "wiki/entities/tab.md": '---\ntype: entity\ntitle: "Two\\nlines\\tand a tab"\n---\nText.\n',
        }
    )
    res = run_wikiq("pages", "--vault", str(vault))
    assert res.code == 0
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["path", "type", "title", "flags"] and lines[-1] == "3 page(s)"
    body = lines[1:-1]
    assert len(body) == 3  # a title's line break does not start a new row
    assert any("Two lines and a tab" in li for li in body)
    # Each column starts at the same place on every row (a Chinese character is two wide).
    title_at = {
        cell_len(li[: li.index(t)])
        for li, t in zip(body, ("伊曼纽尔·康德", "Orbit", "Two"), strict=True)
    }
    assert len(title_at) == 1
    assert "not-in-index" in next(li for li in body if "kant" in li)
