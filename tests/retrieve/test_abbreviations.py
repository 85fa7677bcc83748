"""A question's short Chinese word that the vault writes in full is not 'on no page'."""

from __future__ import annotations

from tests.retrieve.conftest import CatalogFactory, page
from wikiq.retrieve.abbreviations import Abbreviations
from wikiq.retrieve.cascade import Retriever


def test_a_short_form_finds_its_full_form_and_nothing_else() -> None:
    words = Abbreviations(["抗日战争", "北京大学", "下划线", "事后诸葛亮", "战争"])
    assert words.expansions("抗战") == ["抗日战争"]
    assert words.expansions("北大") == ["北京大学"]
    # Holding the word inside another one is not writing it in full: another thing.
    assert words.expansions("划线") == [] and words.expansions("诸葛亮") == []
    assert words.expansions("番茄") == [] and words.expansions("抗") == []


def test_a_question_in_short_form_is_not_judged_uncovered(make_catalog: CatalogFactory) -> None:
    vault = {
        "concepts/窑洞之问": page(
            "窑洞之问",
            "抗日战争胜利前夕，黄炎培访问延安，与毛泽东谈历史周期率：其兴也勃焉，其亡也忽焉。这段对话称为窑洞之问。",
        ),
        "concepts/延安": page("延安", "延安是陕北的城市，抗日战争时期的重要据点。"),
    }
    asked = Retriever(make_catalog(vault)).retrieve("抗战快结束时黄炎培去延安问的那段对话叫什么？")
    assert "抗战" not in asked.coverage["features"]["unknown_names"]
    assert asked.covered != "no" and asked.results[0].path == "concepts/窑洞之问"
