"""A question's Chinese cut through jieba's word table gives rjieba's own cut, word for word."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DEMO_VAULT
from wikiq.text.han_words import build_han_words, open_han_words, tag_apart, word_share
from wikiq.text.tokenize import TOKENIZER_FINGERPRINT

rjieba = pytest.importorskip("rjieba")
pytest.importorskip("jieba")

SAMPLES = [
    "知识管理有什么方法",
    "嫦娥四号在哪里着陆",
    "邵弁的资料",
    "关系图谱里能不能只看跟当前这篇笔记有连接的那些",
    "推理系统里跨请求复用的那类方法包括哪两种",
    "抗战时期北大南迁",
    "學習",  # traditional characters: the HMM joins them
    "的",
    "黑格尔精神现象学句读自我如何成为一个实体",
]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("segmenter")
    assert build_han_words(folder, TOKENIZER_FINGERPRINT)  # checked against rjieba as it is built
    return folder


def test_the_table_cuts_as_rjieba_does(table: Path) -> None:
    words = open_han_words(table, TOKENIZER_FINGERPRINT)
    assert words is not None
    runs = list(SAMPLES)
    for page in sorted(DEMO_VAULT.rglob("*.md")):
        runs += [r for r in page.read_text(encoding="utf-8").split() if r and all("\u4e00" <= c <= "\u9fff" for c in r)]
    for run in runs:
        assert words.cut(run) == rjieba.cut(run), run
        assert words.tag(run) == rjieba.tag(run), run
        assert words.tag(run, hmm=False) == rjieba.tag(run, False), run  # dictionary words
    mixed = "Obsidian 能不能 OCR？李世民在长安的玄武门，GPT-4.5 呢, the total 总数"
    assert words.tag(mixed) == rjieba.tag(mixed) and words.cut(mixed) == rjieba.cut(mixed)
    assert not words.handles("a\ue000b")  # private use: left to rjieba


def test_how_common_a_word_is_comes_from_the_table_or_the_dictionary_alike(table: Path) -> None:
    words = open_han_words(table, TOKENIZER_FINGERPRINT)
    for word in ("老板", "番茄", "全价", "量子纠缠态", "的"):
        assert word_share(word, words) == word_share(word, None)
    # An everyday word is far more common than a rare one; a word jieba does not list is 0.
    assert word_share("老板", None) > 10 * word_share("全价", None) > 0  # type: ignore[operator]
    assert word_share("量子纠缠态", None) == 0.0


def test_the_counts_are_kept_in_the_cache_folder_for_the_next_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikiq.text import han_words

    expected = word_share("老板", None)
    assert word_share("老板", None, tmp_path) == expected
    assert list(tmp_path.glob("jieba-counts-*.tsv"))
    han_words._counts.cache_clear()  # a new process: the dictionary is not read again
    han_words._dictionary.cache_clear()

    def unread(source: Path) -> None:
        raise AssertionError("the dictionary was read again")

    monkeypatch.setattr(han_words, "_read_dictionary", unread)
    assert word_share("老板", None, tmp_path) == expected
    assert word_share("量子纠缠态", None, tmp_path) == 0.0


def test_a_word_comes_apart_as_if_the_dictionary_did_not_list_it(table: Path) -> None:
    words = open_han_words(table, TOKENIZER_FINGERPRINT)
    assert rjieba.tag("越往后", False) == [("越往后", "nr")]  # a rare entry tagged a name
    for source in (words, None):
        assert [w for w, _ in tag_apart("越往后", source)] == ["越", "往后"]
        assert [w for w, _ in tag_apart("青苗法", source)] == ["青苗", "法"]


def test_no_table_is_opened_for_another_tokenizer(table: Path) -> None:
    assert open_han_words(table, "another") is None
    assert open_han_words(table / "missing", TOKENIZER_FINGERPRINT) is None


def test_a_process_cuts_a_question_without_loading_the_whole_dictionary(table: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from wikiq.text import tokenize\n"
        "from wikiq.text.tokenize import use_word_table\n"
        f"use_word_table(Path({str(table)!r}))\n"
        "print(' '.join(tokenize('知识管理有什么方法')), 'rjieba' in sys.modules)\n"
        "import rjieba  # the compiled module loaded for the table is the one the package uses\n"
        "print(' '.join(tokenize('知识管理有什么方法')), rjieba.cut('知识管理') == ['知识', '管理'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "知识 管理 方法 False"  # cut through the table, rjieba's dictionary unloaded
    assert out[1] == "知识 管理 方法 True"  # then by rjieba's whole dictionary: the same

