"""Which languages a vault is written in, and what that means for a question in another one."""

from __future__ import annotations

import pytest

from tests.retrieve.conftest import CatalogFactory, page
from wikiq import sparse
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.languages import VaultLanguages, vault_languages

ENGLISH = {
    f"concepts/topic-{n}": page(f"Topic {n}", f"The Titanic sank in 1912; this is note number {n} about ships and the sea.")
    for n in range(8)
}


def test_a_vault_of_english_pages_is_english_and_has_no_cjk_pages(make_catalog: CatalogFactory) -> None:
    langs = vault_languages(make_catalog(ENGLISH))
    assert langs.cjk_pages == 0.0 and langs.share_of("en") == 1.0 and langs.share_of("zh") == 0.0


@pytest.mark.parametrize("entries_at_a_time", [1 << 24, 1, 7])
def test_pages_mostly_in_chinese_are_counted_as_cjk(
    make_catalog: CatalogFactory, entries_at_a_time: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sparse, "ENTRY_SLICE", entries_at_a_time)  # counted in slices
    chinese = {
        f"concepts/zh-{n}": page(f"主题 {n}", "泰坦尼克号在一九一二年沉没，这是关于船和大海的笔记。")
        for n in range(3)
    }
    mixed = {**ENGLISH, **chinese, "concepts/both": page("Both", "Titanic 泰坦尼克号 ship")}
    assert vault_languages(make_catalog(mixed)).cjk_pages == 3 / 12


def test_share_of_a_language_in_a_mixed_vault() -> None:
    mixed = VaultLanguages(cjk_pages=0.8, latin={"en": 1.0})
    assert mixed.share_of("zh") == 0.8 and abs(mixed.share_of("en") - 0.2) < 1e-9
    # No Latin-script page was sampled: the rest of the vault is all there is to go on.
    assert abs(VaultLanguages(cjk_pages=0.97).share_of("en") - 0.03) < 1e-9
    assert mixed.share_of("other") == 1.0  # an unknown language: no claim either way


def test_a_chinese_question_over_an_english_vault_is_uncertain_not_dismissed(make_catalog: CatalogFactory) -> None:
    # Its only shared word is a name: the text cannot show that the vault lacks the answer.
    r = Retriever(make_catalog(ENGLISH)).retrieve("Titanic 号是在哪一年沉没的？")
    assert r.coverage["features"]["foreign"] >= 0.9
    assert r.covered == "uncertain" and not r.pure_llm and r.results
