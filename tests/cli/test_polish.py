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


def test_doctor_on_a_plain_vault_counts_pages_without_a_types_list(make_vault: VaultFactory) -> None:
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
