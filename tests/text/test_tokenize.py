"""Matching tokens, CJK bigrams and query terms."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wikiq.text import tokenize


def test_english_drops_stop_words_and_keeps_order() -> None:
    assert tokenize("What is the mission of the Apollo program?") == [
        "mission",
        "apollo",
        "program",
    ]


def test_question_words_are_stop_words() -> None:
    assert tokenize("Who/what/which/how does it work?") == ["work"]


def test_duplicates_are_kept_for_term_frequency() -> None:
    assert tokenize("orbit the orbit, orbit!") == ["orbit", "orbit", "orbit"]


def test_numbers_are_kept_even_single_digits() -> None:
    assert tokenize("Apollo 11 and GPT 4") == ["apollo", "11", "gpt", "4"]


def test_single_latin_letters_are_dropped() -> None:
    assert tokenize("x y z vector") == ["vector"]


def test_hyphens_and_dots_split_like_the_slug() -> None:
    assert tokenize("GPT-4.5 Turbo") == ["gpt", "4", "5", "turbo"]
    assert tokenize("gpt-4-5-turbo") == tokenize("GPT-4.5 Turbo")


def test_apostrophes_split_and_the_suffix_falls_away() -> None:
    assert tokenize("Armstrong's first step") == ["armstrong", "first", "step"]


def test_letters_and_digits_in_one_word_stay_together() -> None:
    assert tokenize("gpt4o h2o") == ["gpt4o", "h2o"]


def test_underscore_splits_words() -> None:
    assert tokenize("snake_case") == ["snake", "case"]


def test_nfkc_folds_fullwidth_forms() -> None:
    assert tokenize("ＧＰＴ４ Ｔｕｒｂｏ") == ["gpt4", "turbo"]


def test_accented_latin_words_stay_whole_and_fold_to_their_base_letters() -> None:
    # A question typed without diacritics finds the page written with them, and back.
    assert tokenize("Über café naïve") == ["uber", "cafe", "naive"]
    assert tokenize("Akinoshū Kenji") == tokenize("Akinoshu Kenji") == ["akinoshu", "kenji"]
    assert tokenize("Tiếng Việt") == ["tieng", "viet"]


def test_other_alphabets_are_words_and_lose_one_letter_words_too() -> None:
    assert tokenize("Москва и Αθήνα") == ["москва", "αθήνα"]


def test_chinese_is_segmented_and_stop_words_removed() -> None:
    assert tokenize("对比学习的应用有哪些") == ["对比", "学习", "应用"]


def test_mixed_chinese_and_latin() -> None:
    assert tokenize("InterVL和Janus的区别") == ["intervl", "janus", "区别"]


def test_what_is_question_in_chinese() -> None:
    assert tokenize("什么是Obsidian？") == ["obsidian"]


def test_single_character_cjk_token_is_dropped_inside_a_run() -> None:
    # 中 is a one-character word of the run 知识图谱中的链接.
    assert tokenize("知识图谱中的链接") == ["知识", "图谱", "链接"]


def test_one_character_nouns_and_adjectives_inside_a_run_are_words() -> None:
    # What the question asks about may be one character ("a cat or a dog", "smaller"), as
    # "cat" is an English word; light verbs, prepositions and measure words are not (用, 把, 个).
    assert tokenize("宠物到底是猫还是狗") == ["宠物", "到底", "猫", "狗"]
    assert "小" in tokenize("索引是不是总比模型小")
    assert tokenize("用把这个放进去") == ["放进去"]
    # The commonest (人, 时) are function words as often as nouns: still dropped.
    assert tokenize("调研时") == ["调研"]


def test_single_character_run_is_kept_unless_a_stop_word() -> None:
    assert tokenize("猫 and 狗") == ["猫", "狗"]
    assert tokenize("A和B") == []


def test_unknown_name_is_one_token_wherever_it_appears() -> None:
    assert tokenize("邵弁是谁") == ["邵弁"]
    assert "邵弁" in tokenize("明代学者邵弁认为")


def test_japanese_keeps_kanji_words_and_katakana_runs() -> None:
    assert tokenize("東京タワーはどこですか") == ["東京", "タワー"]


def test_hiragana_is_kept_only_as_a_whole_run() -> None:
    assert tokenize("すし") == ["すし"]
    assert "はどこですか" not in tokenize("東京タワーはどこですか")


def test_katakana_middle_dot_separates_names() -> None:
    assert tokenize("ドナルド・トランプ") == ["ドナルド", "トランプ"]


def test_korean_words_are_space_separated_runs() -> None:
    assert tokenize("한국어 문장입니다") == ["한국어", "문장입니다"]


def test_page_text_and_question_agree() -> None:
    page = "The Apollo 11 mission landed on the Moon. 嫦娥四号着陆在月球背面。"
    question = "Apollo 11 moon landing? 嫦娥四号在哪里着陆"
    assert {"apollo", "11", "moon", "嫦娥", "四号", "着陆"} <= set(tokenize(page))
    assert {"apollo", "11", "moon", "嫦娥", "四号", "着陆"} <= set(tokenize(question))


def test_empty_and_punctuation_only_give_no_tokens() -> None:
    assert tokenize("") == []
    assert tokenize("?!… ，。") == []


def test_half_width_katakana_and_radicals_are_normalised() -> None:
    assert tokenize("ｶﾀｶﾅ") == ["カタカナ"]
    assert tokenize("⼈⼯智能") == tokenize("人工智能")


def test_decomposed_accents_match_composed_ones() -> None:
    assert tokenize("e\u0301cole") == tokenize("école") == ["ecole"]


def test_question_fillers_go_but_words_that_contain_them_stay() -> None:
    from wikiq.text.tokenize import strip_fillers

    assert strip_fillers("邵弁的资料") == "邵弁的"
    assert strip_fillers("Pinewood Heart Center 的详细信息") == "Pinewood Heart Center 的"
    assert strip_fillers("资料库是什么") == "资料库是什么"  # 资料库 (database) is one word
    assert strip_fillers("How does a gravity assist work?") == "How does a gravity assist work?"


def _install(root: Path, version: str, mtime: int) -> Path:
    package = root / "rjieba"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .rjieba import *\n")
    (package / "rjieba.so").write_bytes(b"\0" * 4096)
    (root / f"rjieba-{version}.dist-info").mkdir()
    for f in package.iterdir():
        os.utime(f, ns=(mtime, mtime))
    return package


def test_the_cache_key_follows_the_segmenter_version_not_its_install_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two environments with the same rjieba share a cache; another rjieba rebuilds it."""
    import importlib
    import importlib.util
    from types import SimpleNamespace

    module = importlib.import_module("wikiq.text.tokenize")

    def key(package: Path) -> str:
        spec = SimpleNamespace(submodule_search_locations=[str(package)])
        monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)
        return str(module._fingerprint())

    first = key(_install(tmp_path / "a", "0.2.2", 1_000_000_000_000_000_000))
    second = key(_install(tmp_path / "b", "0.2.2", 1_700_000_000_000_000_000))
    other = key(_install(tmp_path / "c", "0.3.0", 1_000_000_000_000_000_000))
    assert first == second
    assert other != first
