"""Language detection and the language names given to a model."""

from __future__ import annotations

import pytest

from wikiq.text import detect_language, language_name


@pytest.mark.parametrize(
    "text,code",
    [
        ("How do I link two notes?", "en"),
        ("Obsidian plugin", "en"),
        ("对比学习有哪些应用？", "zh"),
        ("什么是Obsidian？", "zh"),
        ("InterVL和Janus的区别", "zh"),
        ("臺灣的機械學習課程", "zh"),
        ("東京タワーはどこですか", "ja"),
        ("東京タワー", "ja"),
        ("ポケモン是什么游戏，我很喜欢这个游戏的故事和人物设定", "zh"),
        ("한국어 문장입니다", "ko"),
        ("서울은 대한민국의 수도이다", "ko"),
        ("Qu'est-ce que l'apprentissage contrastif ?", "fr"),
        ("Wie verlinke ich Notizen in Obsidian?", "de"),
        ("¿Qué es el aprendizaje contrastivo?", "es"),
        ("O que é aprendizagem contrastiva?", "pt"),
        ("Che cos'è l'apprendimento contrastivo?", "it"),
        ("Как связать две заметки?", "other"),
        ("12 + 30 = ?", "other"),
        ("", "other"),
    ],
)
def test_detects(text: str, code: str) -> None:
    assert detect_language(text) == code


def test_english_sentence_with_a_chinese_term_is_english() -> None:
    assert detect_language("What does 对比学习 mean in this paper?") == "en"


def test_chinese_sentence_with_english_terms_is_chinese() -> None:
    assert detect_language("请比较GPT-4.5 Turbo和Claude在长文本上的表现") == "zh"


def test_long_text_is_judged_by_its_start() -> None:
    assert detect_language("这是中文。" * 500 + "English " * 5000) == "zh"


@pytest.mark.parametrize(
    "code,name",
    [
        ("en", "English"),
        ("zh", "中文"),
        ("ja", "日本語"),
        ("ko", "한국어"),
        ("fr", "Français"),
        ("de", "Deutsch"),
        ("es", "Español"),
        ("pt", "Português"),
        ("it", "Italiano"),
        ("other", "the language of the question"),
        ("xx", "the language of the question"),
    ],
)
def test_language_names(code: str, name: str) -> None:
    assert language_name(code) == name


def test_mostly_cjk_counts_the_scripts_and_their_punctuation() -> None:
    from wikiq.text.scripts import mostly_cjk

    assert mostly_cjk("同步的端到端加密密码忘了，数据还能找回吗？")
    assert mostly_cjk("한국어 문장입니다")  # Korean is CJK too
    assert not mostly_cjk("How does a gravity assist work?")
    assert not mostly_cjk("Sync 同步 settings and plugins")  # mostly Latin letters
    assert not mostly_cjk("")
