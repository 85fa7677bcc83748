"""Questions that name no page: text is the backbone, the other channels cannot bury its best
hit, names count only when they are names, and "covered" is one decision with its inputs shown."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.retrieve.conftest import CatalogFactory, page
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.coverage import (
    COVERED,
    FOREIGN,
    NAME_CONTEXT,
    NAME_RULE_BELOW,
    NATIVE,
    NOT_COVERED,
    PART_COVERED,
    SEM_STANDOUT,
    CoverageFeatures,
    coverage_probability,
    decide_coverage,
    model_cut,
)
from wikiq.retrieve.missing_words import MissingWords
from wikiq.retrieve.names import without_disambiguator
from wikiq.retrieve.rank_fusion import Channel, reciprocal_rank_fusion
from wikiq.retrieve.result import ARM_BODY
from wikiq.text.han_singles import evidence_terms
from wikiq.text.name_words import (
    book_titles,
    built_in_things,
    chinese_names,
    chinese_nouns,
    ends_a_predicate,
    name_phrases,
    name_words,
    phrase_listed_as_name,
    unlisted_nouns,
)
from wikiq.text.stopwords import (
    asked_about,
    asking_sentences,
    content_terms,
    glossing_sentences,
    question_parts,
    without_the_asker,
    without_unwanted,
)
from wikiq.vault.catalog import Catalog

# --- reciprocal rank fusion --------------------------------------------------------------------


def test_the_text_channels_first_page_is_not_buried_by_pages_middling_everywhere() -> None:
    # Page 9 is second in three other lists; page 1 is first in the text list only.
    channels = [
        Channel("text", [1, 9, 2, 3], 2.0),
        Channel("lead", [5, 9, 6], 0.5),
        Channel("names", [7, 9], 0.5),
        Channel("graph", [8, 9], 0.5),
    ]
    fused = reciprocal_rank_fusion(channels)
    assert fused[0].page == 1 and fused[1].page == 9
    assert fused[1].ranks == {"text": 2, "lead": 2, "names": 2, "graph": 2}


def test_without_the_bonus_the_same_lists_would_bury_it() -> None:
    # The bonus is what keeps it first: the test above is not passing by accident.
    channels = [Channel("text", [1, 9, 2], 2.0), Channel("lead", [5, 9], 0.5), Channel("names", [7, 9], 0.5), Channel("graph", [8, 9], 0.5)]
    plain = reciprocal_rank_fusion(channels, first_bonus=0.0, near_bonus=0.0)
    assert plain[0].page == 9


def test_the_best_page_of_one_part_of_a_question_keeps_its_place() -> None:
    # Page 4 is first for the question's first part and fourth in the text; page 6, fifth in
    # the text and first of the leads, would pass it. With the part's bonus it stays ahead.
    channels = [
        Channel("text", [1, 5, 7, 4, 6], 2.0),
        Channel("lead", [6], 1.0),
        Channel("part0", [4], 0.5),
        Channel("part1", [1], 0.5),
    ]
    plain = [f.page for f in reciprocal_rank_fusion(channels)]
    kept = [f.page for f in reciprocal_rank_fusion(channels, first_of={"part0": 0.01, "part1": 0.01})]
    assert plain == [1, 5, 7, 6, 4] and kept == [1, 5, 7, 4, 6]


def test_a_page_two_channels_rank_first_is_not_buried() -> None:
    # "叔本华…的宠物是猫还是狗？": the names and the passages put page 4 first, the text 25th;
    # pages the text ranks 2-6 would pass it on their text ranks alone.
    text = [1, 2, 3, 5, 6, 7, *range(10, 28), 4]
    channels = [
        Channel("text", text, 2.0),
        Channel("lead", [5, 6, 7], 1.0),
        Channel("passages", [4, 1, 2], 0.35),
        Channel("names", [4], 0.5),
    ]
    fused = [f.page for f in reciprocal_rank_fusion(channels)]
    assert fused.index(4) < 5
    # One channel's first alone gets no such place.
    alone = [f.page for f in reciprocal_rank_fusion(channels[:3])]
    assert alone.index(4) >= 5


def test_fusion_is_deterministic_and_a_page_counts_once_per_channel() -> None:
    channels = [Channel("text", [3, 3, 4], 2.0), Channel("lead", [4, 3], 0.5)]
    a, b = reciprocal_rank_fusion(channels), reciprocal_rank_fusion(channels)
    assert [(f.page, f.score) for f in a] == [(f.page, f.score) for f in b]
    assert a[0].page == 3 and a[0].ranks == {"text": 1, "lead": 2}


# --- the coverage decision ---------------------------------------------------------------------


def _features(**kw: float) -> CoverageFeatures:
    base = dict(text_coverage=0.0, text_best3=0.0, known=0.0, text_gap=0.0, name=0.0, sem_standout=0.0, foreign=0.0)
    return CoverageFeatures(**{**base, **kw})  # type: ignore[arg-type]


def test_a_page_holding_every_distinctive_word_means_covered() -> None:
    d = decide_coverage(_features(text_coverage=1.0, text_best3=1.0, known=1.0, text_gap=0.5))
    assert d.covered == "yes" and d.probability >= COVERED


def test_words_the_vault_never_uses_mean_not_covered() -> None:
    d = decide_coverage(_features(text_coverage=0.1, text_best3=0.1, known=0.1, text_gap=0.1))
    assert d.covered == "no" and d.probability < NOT_COVERED
    assert "10%" in d.reason  # the reason printed is the evidence itself


def test_the_decision_is_monotonic_in_each_piece_of_evidence() -> None:
    low = _features(text_coverage=0.3, text_best3=0.3, known=0.5, text_gap=0.2)
    for name in ("text_coverage", "text_best3", "known", "text_gap", "name"):
        more = CoverageFeatures(**{**low.__dict__, name: getattr(low, name) + 0.3})
        assert coverage_probability(more) > coverage_probability(low), name


def test_three_answers_with_thresholds_in_order() -> None:
    assert 0.0 < NOT_COVERED < COVERED < 1.0
    middle = _features(text_coverage=0.4, text_best3=0.45, known=0.6, text_gap=0.3)
    p = coverage_probability(middle)
    expected = "yes" if p >= COVERED else "uncertain" if p >= NOT_COVERED else "no"
    assert decide_coverage(middle).covered == expected


def test_a_question_in_a_language_the_vault_lacks_is_never_not_covered_on_words_alone() -> None:
    nothing = _features()
    assert decide_coverage(nothing).covered == "no"
    foreign = decide_coverage(_features(foreign=FOREIGN))
    assert foreign.covered == "uncertain" and "language" in foreign.reason


def test_a_stage0_page_that_stands_out_is_evidence_by_itself() -> None:
    d = decide_coverage(_features(sem_standout=SEM_STANDOUT))
    assert d.covered == "uncertain" and "embeddings" in d.reason
    assert decide_coverage(_features(sem_standout=SEM_STANDOUT / 2)).covered == "no"


def test_a_long_question_matching_a_little_is_kept_open_a_short_one_is_not() -> None:
    # A paragraph of context dilutes the shares: the same evidence that refuses a question of
    # ten distinctive words keeps one of thirty open, with the caveat; far less still refuses,
    # and a rule (a name no page mentions) refuses at any length.
    weak = dict(text_coverage=0.12, text_best3=0.12, known=0.3, text_gap=0.35)
    short = decide_coverage(_features(**weak, words=10))
    assert short.covered == "no" and short.probability < NOT_COVERED
    long = decide_coverage(_features(**weak, words=30))
    assert long.probability == short.probability and long.covered == "uncertain"
    assert "may cover it only in part" in long.reason
    assert model_cut(long.features) < NOT_COVERED == model_cut(short.features)
    assert decide_coverage(_features(text_coverage=0.05, known=0.1, words=30)).covered == "no"
    named = replace(_features(**weak, words=30), unknown_names=("Zotero",))
    assert decide_coverage(named).covered == "no"


# --- question text -----------------------------------------------------------------------------


def test_question_scaffolding_is_not_content() -> None:
    assert content_terms(["way", "write", "math", "thing"]) == ["write", "math"]
    assert content_terms(["办法", "加密"]) == ["加密"]
    assert content_terms(["way"]) == ["way"]  # nothing else left: keep what there is


def test_a_question_asking_two_things_has_two_parts() -> None:
    assert question_parts("How do I jump to a note, and how do I run a command?") == ["How do I jump to a note", "how do I run a command"]
    assert question_parts("碑文是谁翻译的？一共多少字？") == ["碑文是谁翻译的", "一共多少字"]
    assert question_parts("What is an orbit") == ["What is an orbit"]


def test_a_parenthetical_disambiguator_is_not_the_name() -> None:
    assert without_disambiguator("The V.I.P.s (film)") == "The V.I.P.s"
    assert without_disambiguator("水星（行星）") == "水星"
    assert without_disambiguator("(film)") == "(film)"  # all there is: kept


# --- end to end on a small vault ---------------------------------------------------------------

FILMS = {
    "entities/the-vips-film": page("The V.I.P.s (film)", "A 1963 film with Elizabeth Taylor, delayed by fog at an airport.", type="entity"),
    "entities/titanic-film": page("Titanic (film)", "A 1997 film by [[entities/james-cameron]] about the sinking ship.", type="entity"),
    "entities/james-cameron": page("James Cameron", "A Canadian filmmaker from Kapuskasing.", type="entity"),
    "concepts/time": page("Time", "Time passes. Every page here mentions time, the film, the year."),
    **{f"entities/extra-{n}": page(f"Extra {n}", f"A page about time number {n}.", type="entity") for n in range(6)},
}


@pytest.fixture
def films(make_catalog: CatalogFactory) -> Catalog:
    return make_catalog(FILMS)


def test_film_alone_does_not_name_a_page_titled_with_it_in_parentheses(films: Catalog) -> None:
    r = Retriever(films).retrieve("which film had the longest delay")
    assert all(m.name != "The V.I.P.s (film)" for m in Retriever(films)._names("film").lex)
    assert r.coverage["features"]["name"] == 0.0


def test_a_one_word_title_on_most_pages_is_a_common_word_not_a_name(films: Catalog) -> None:
    r = Retriever(films).retrieve("how much time does a ship take to sink")
    assert r.coverage["features"]["name"] == 0.0  # "Time" is on nearly every page


def test_a_named_entitys_neighbour_gets_a_place_in_the_top_five(films: Catalog) -> None:
    # The answer is on the page Titanic links to, which shares no word with the question.
    question = "Where is the director of the Titanic film from, and which year did the ship sink in it?"
    r = Retriever(films).retrieve(question)
    top = [p.path for p in r.results[:5]]
    assert r.arm == ARM_BODY and top[0] == "entities/titanic-film" and "entities/james-cameron" in top
    without = Retriever(films).with_settings(graph_slot=0, rrf_graph=0.0).retrieve(question)
    assert "entities/james-cameron" not in [p.path for p in without.results[:5]]


SHIPS = {
    "entities/titanic-film": FILMS["entities/titanic-film"],
    "entities/james-cameron": FILMS["entities/james-cameron"],
    "concepts/evacuation": page("Evacuation", "Lifeboats carry passengers off a sinking liner; davits lower lifeboats."),
    "concepts/damage": page("Damage", "An iceberg tears the hull below the waterline: a hull breach floods it."),
    "concepts/signals": page("Signals", "Distress rockets fired at night call rescue ships to a sinking liner."),
    "concepts/compartments": page("Compartments", "Bulkheads split the hull; a breach past four bulkheads sinks a liner."),
    "concepts/radio-room": page("Radio room", "The wireless telegraph sent the distress call; rescue ships answered."),
    "concepts/watch": page("Watch", "The lookout saw the iceberg too late to turn the liner."),
    **{f"concepts/extra-{n}": page(f"Extra {n}", f"A page about weather number {n}.") for n in range(6)},
}


def test_a_name_mentioned_in_passing_does_not_give_its_neighbour_a_place(
    make_catalog: CatalogFactory,
) -> None:
    # The film is a small part of what is asked: the fifth place stays with a page the text
    # found, not the film's director, whom the question is not about.
    question = (
        "Apart from the Titanic film, how did lifeboats, icebergs, a hull breach, bulkheads, the "
        "wireless telegraph, the lookout, distress rockets and rescue ships play out when a liner sank?"
    )
    ships = Retriever(make_catalog(SHIPS))
    top = [p.path for p in ships.retrieve(question).results[:5]]
    assert top[0] == "entities/titanic-film" and "concepts/damage" in top
    assert "entities/james-cameron" not in top
    slot_always = ships.with_settings(graph_slot_name_share=0.0).retrieve(question)
    assert "entities/james-cameron" in [p.path for p in slot_always.results[:5]]


def test_the_plain_bm25_mode_ranks_by_text_alone_and_never_abstains(films: Catalog) -> None:
    r = Retriever(films).with_settings(mode="bm25").retrieve("sourdough recipe with fog")
    assert not r.pure_llm and r.results[0].path == "entities/the-vips-film"
    assert set(r.results[0].signals) == {"body"}


def test_model_keywords_join_the_ranking_when_the_text_found_something_but_is_unsure(
    films: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikiq.retrieve import cascade
    from wikiq.retrieve.coverage import Coverage

    def unsure(features: CoverageFeatures, floor: object = None) -> Coverage:
        return Coverage("uncertain", (NOT_COVERED + COVERED) / 2, features, "unsure")

    monkeypatch.setattr(cascade, "decide_coverage", unsure)
    calls: list[str] = []

    def keywords(question: str) -> list[str]:
        calls.append(question)
        return ["James Cameron"]

    r = Retriever(films, keywords=keywords).retrieve("which ship film had the longest delay")
    assert calls and r.arm == ARM_BODY and r.covered == "uncertain"
    named = [p for p in r.results if p.path == "entities/james-cameron"]
    assert named and "rank_keywords" in named[0].signals
    assert r.results[0].path != "entities/james-cameron"  # the text's best page stays first


# --- a name the vault never mentions -----------------------------------------------------------

NOTES_APP = {
    "plugins/templates": page("Templates", "Insert a template into a note; dates take a format string."),
    "plugins/export": page("Export to PDF", "Export a note as a PDF file from the file menu."),
    "sync/plans": page("Sync plans", "Sync Plus stores 100 GB; the largest file is 200 MB."),
    "zh/history": page("唐朝", "唐朝是中国历史上的一个朝代，唐太宗在位时国力强盛。"),
}


def test_words_written_as_names_are_acronyms_inner_capitals_and_capitals_mid_sentence() -> None:
    assert name_words("How do you fuse BM25 scores with DeepSpeed?") == ["BM25", "DeepSpeed"]
    assert name_words("Can I hook Zotero up to it? Also, can I?") == ["Zotero"]  # "Also", "I": no
    # A name written right against Chinese ends where the Latin letters end.
    assert name_words("我用vLLM部署，在SIFT1M上测，跟'放 SSD'的系统比") == ["vLLM", "SIFT1M", "SSD"]
    assert name_words("Obsidian 能不能识别图片里的文字（OCR）") == ["OCR"]  # a first word may just start it
    # Letters right after a number are a unit or part of one token, not a name.
    assert name_words("随机读 4KB 小块，70B 模型，《1Q84》的译者，H100 上的 FP8") == ["H100", "FP8"]
    # In a hyphenated word the name is its parts with capitals or digits.
    assert name_words("With PQ-compressed vectors, is TensorRT-LLM or GPT-4o faster?") == [
        "PQ",
        "TensorRT-LLM",
        "GPT-4o",
    ]


def test_a_question_about_a_name_no_page_mentions_is_not_covered(make_catalog: CatalogFactory) -> None:
    r = Retriever(make_catalog(NOTES_APP))
    asked = r.retrieve("Can Zotero export citations?")
    assert asked.covered == "no" and asked.pure_llm
    assert "'Zotero'" in asked.coverage["reason"]
    assert asked.results and asked.results[0].path == "plugins/export"  # still the closest pages


def test_a_book_title_no_page_holds_whole_is_a_name_no_page_mentions(
    make_catalog: CatalogFactory,
) -> None:
    """《人类简史》: a vault may hold 人类 and 简史 apart and never the book."""
    assert book_titles("赫拉利在《人类简史》里说的认知革命是什么？") == ["人类简史"]
    vault = {
        **NOTES_APP_ZH,
        "历史/人类": page("人类", "人类的历史很长。"),
        "历史/简史": page("简史", "一部简史只讲大事。"),
    }
    r = Retriever(make_catalog(vault))
    asked = r.retrieve("《人类简史》里怎么讲人类的历史？")
    assert "人类简史" in asked.coverage["features"]["unknown_names"]
    held = make_catalog({**vault, "书/人类简史": page("人类简史", "一本讲人类历史的简史。")})
    again = Retriever(held).retrieve("《人类简史》里怎么讲人类的历史？")
    assert "人类简史" not in again.coverage["features"]["unknown_names"]


def test_a_people_or_language_named_by_its_place_is_mentioned_where_the_place_is(
    make_catalog: CatalogFactory,
) -> None:
    """"…moved to the European one": the vault writes Europe; "Solidity" is no such word."""
    vault = {**NOTES_APP, "sync/regions": page("Sync regions", "Servers stand in Europe and Asia.")}
    r = Retriever(make_catalog(vault))
    moved = r.retrieve("Can my Sync plans be moved to the European servers?")
    assert moved.coverage["features"]["unknown_names"] == []
    asked = r.retrieve("Can I write Sync plans in Solidity?")
    assert asked.coverage["features"]["unknown_names"] == ["Solidity"]


def test_names_written_one_after_the_other_are_one_name(make_catalog: CatalogFactory) -> None:
    """"Apple Watch": a vault may hold "Apple" and "watch" on different pages and never the
    watch; the two words are one name, mentioned only where both are."""
    assert name_phrases("Is there an Obsidian app for Apple Watch? Or Google Analytics?") == [
        "Apple Watch",
        "Google Analytics",
    ]
    assert name_phrases("Does Obsidian export to PDF?") == []  # one name alone
    vault = {
        **NOTES_APP,
        "import/apple": page("Import from Apple Notes", "Export your Apple notes first."),
        "embed/video": page("Embed videos", "Paste a link such as youtube.com/watch?v=1."),
    }
    r = Retriever(make_catalog(vault))
    asked = r.retrieve("Is there an app for the Apple Watch to take notes?")
    assert asked.coverage["features"]["unknown_names"] == ["Apple Watch"]
    held = r.retrieve("How do I import Apple Notes into a note?")
    assert "Apple Notes" not in held.coverage["features"]["unknown_names"]


def test_a_name_one_page_mentions_in_passing_away_from_the_question_counts_as_unknown(
    make_catalog: CatalogFactory,
) -> None:
    """"Zotero" is on the credits page only: when that page is not among those that match the
    rest of the question, the vault mentions the name in passing and does not cover it."""
    vault = {
        **NOTES_APP,
        "about/credits": page("Credits", "Thanks to the Zotero, Pandoc and Mermaid teams."),
    }
    catalog = make_catalog(vault)
    r = Retriever(catalog)
    words = MissingWords(r.indexes.text, lambda: None)
    credits = catalog.by_path["about/credits"]
    question = "Can I insert citations from Zotero?"
    assert words.passing(question, question, lambda name, holder: False) == ("Zotero",)
    # …not when its page is near the question, nor when the name is not asked.
    assert words.passing(question, question, lambda name, holder: holder == credits) == ()
    assert words.passing(question, "Can I insert citations?", lambda name, holder: False) == ()
    # A name more than one page holds is no passing mention.
    both = make_catalog({**vault, "plugins/cite": page("Citations", "Zotero keys in a note.")})
    again = MissingWords(Retriever(both).indexes.text, lambda: None)
    assert again.passing(question, question, lambda name, holder: False) == ()
    # A page titled with the name is about it, whatever the rest of the question matches
    # ("Who was born first, X or Y?").
    about = make_catalog({**vault, "about/credits": page("Zotero", "Thanks to the Zotero team.")})
    assert Retriever(about).retrieve(
        "Can I insert a template from Zotero into a note?"
    ).coverage["features"]["passing_names"] == []
    # The whole cascade: the credits page ranks first for the name, not for the rest.
    asked = r.retrieve("Can I insert a template from Zotero into a note?")
    assert asked.coverage["features"]["passing_names"] == ["Zotero"]
    kept = r.retrieve("Which teams does the vault thank in its credits, Zotero among them?")
    assert kept.coverage["features"]["passing_names"] == []
    # Weighed as an unknown name, with a reason that says what is true.
    doubtful = _features(text_coverage=0.3, text_best3=0.3, known=0.8, text_gap=0.3)
    ruled = decide_coverage(replace(doubtful, passing_names=("Zotero",)))
    assert ruled.covered == "no" and "'Zotero'" in ruled.reason and "one page only" in ruled.reason
    assert name_words("Is it OK to symlink the folder?") == []  # "OK" is an everyday word


def test_a_name_no_page_mentions_beside_words_a_page_answers_leaves_the_question_uncertain(
    make_catalog: CatalogFactory,
) -> None:
    """The name may be a side detail ("…my notes are mostly in Mandarin"): the pages are used,
    with the caveat that none mentions it, instead of "not covered" or a plain "yes"."""
    r = Retriever(make_catalog(NOTES_APP))
    asked = r.retrieve("Can I export a note as a PDF file with Zotero?")
    assert asked.covered == "uncertain" and not asked.pure_llm
    assert "'Zotero'" in asked.coverage["reason"]
    assert asked.results[0].path == "plugins/export"
    # The same question without the unknown name is covered: the name is what decided.
    assert r.retrieve("Can I export a note as a PDF?").covered == "yes"


def test_the_sentences_that_ask_are_the_ones_ending_in_a_question_mark() -> None:
    asked = asking_sentences("My notes are in Mandarin. Does the plugin work for Chinese? Thanks.")
    assert asked == ["Does the plugin work for Chinese?"]
    # "e.g." does not end a sentence; a question with no question mark asks all of it.
    assert asking_sentences("How do I fuse scores, e.g. with RRF?") == ["How do I fuse scores, e.g. with RRF?"]
    assert asking_sentences("is there an apple watch app") == ["is there an apple watch app"]
    assert asking_sentences("我在 macOS 上用 Alfred。怎么追加到笔记末尾？") == ["怎么追加到笔记末尾？"]


def test_a_name_that_only_sets_the_scene_is_not_what_is_asked(make_catalog: CatalogFactory) -> None:
    """"I use Zotero." says where the asker comes from; the question is the next sentence, which
    the vault answers. The same name inside the question is what decides."""
    r = Retriever(make_catalog(NOTES_APP))
    scene = r.retrieve("I keep my sources in Zotero. How do I export a note as a PDF file?")
    assert scene.covered == "yes" and scene.coverage["features"]["unknown_names"] == []
    asked = r.retrieve("How do I export a note from Zotero as a PDF file?")
    assert asked.coverage["features"]["unknown_names"] == ["Zotero"] and asked.covered != "yes"


def test_a_statement_the_question_points_back_to_is_part_of_what_is_asked(
    make_catalog: CatalogFactory,
) -> None:
    """"…胜过了尼安德特人。这个观点他是怎么论证的？": the question asks about the sentence before
    it, so the names there count; a question that does not point back leaves them aside."""
    assert asked_about("有人说智人胜过了尼安德特人。这个观点是怎么论证的？") == [
        "有人说智人胜过了尼安德特人。",
        "这个观点是怎么论证的？",
    ]
    assert asked_about("A friend uses Alfred. How would I build a link?") == ["How would I build a link?"]
    r = Retriever(make_catalog(NOTES_APP))
    back = r.retrieve("听说唐朝有个李世民。他是怎么当上皇帝的？")
    assert back.coverage["features"]["unknown_names"] == ["李世民"] and back.covered == "no"
    aside = r.retrieve("听说唐朝有个李世民。唐朝的国力为什么强盛？")
    assert aside.coverage["features"]["unknown_names"] == []


def test_what_the_question_says_it_does_not_want_is_not_what_is_asked(
    make_catalog: CatalogFactory,
) -> None:
    """"…instead of building a PowerPoint": the asker says what they do not want; a vault that
    never mentions PowerPoint may still answer the rest."""
    assert asked_about("Can I present from a note instead of building a PowerPoint, and how?") == [
        "Can I present from a note  , and how?"
    ]
    # "不想换整套皮肤，只想…": the skin is what the asker does not want; "要不要" asks.
    assert without_unwanted("不想换整套皮肤，只想改标题颜色") == " ，只想改标题颜色"
    assert without_unwanted("要不要重新训练模型？") == "要不要重新训练模型？"
    r = Retriever(make_catalog(NOTES_APP))
    aside = r.retrieve("How do I export a note as a PDF file rather than a Zotero export?")
    assert aside.coverage["features"]["unknown_names"] == []
    asked = r.retrieve("How do I export a note as a PDF file into Zotero?")
    assert asked.coverage["features"]["unknown_names"] == ["Zotero"]


def test_a_name_whose_own_clause_no_page_answers_is_what_is_asked(make_catalog: CatalogFactory) -> None:
    """The question's other clause is answered; the clause with the name ("…, or does Disqus
    add comments under it?") holds words no page has: the name is the thing asked about."""
    r = Retriever(make_catalog(NOTES_APP))
    asked = r.retrieve("I export a note as a PDF file from the file menu, but can Disqus add visitor comments?")
    assert asked.coverage["probability"] >= NAME_RULE_BELOW  # the words alone: uncertain
    assert asked.covered == "no" and "'Disqus'" in asked.coverage["reason"]
    assert asked.coverage["features"]["name_context"] < NAME_CONTEXT
    side = r.retrieve("I export a note as a PDF file from the file menu, but can Disqus export a note as a PDF?")
    assert side.covered == "uncertain" and side.coverage["features"]["name_context"] >= NAME_CONTEXT


def test_the_name_context_cut_decides_between_uncertain_and_not_covered() -> None:
    clear = CoverageFeatures(text_coverage=1.0, text_best3=1.0, known=1.0, text_gap=1.0, name=0.0,
                             sem_standout=0.0, foreign=0.0, unknown_names=("Disqus",))
    assert coverage_probability(clear) >= NAME_RULE_BELOW
    assert decide_coverage(clear).covered == "uncertain"  # not worked out: 1.0
    assert decide_coverage(replace(clear, name_context=NAME_CONTEXT)).covered == "uncertain"
    assert decide_coverage(replace(clear, name_context=NAME_CONTEXT - 0.01)).covered == "no"


def test_a_chinese_name_no_page_mentions_is_not_covered_but_a_place_in_something_is_no_name(
    make_catalog: CatalogFactory,
) -> None:
    r = Retriever(make_catalog(NOTES_APP))
    asked = r.retrieve("唐朝的李世民是怎么当上皇帝的？")
    assert asked.covered == "no" and "李世民" in asked.coverage["reason"]
    # jieba tags "库里" ("in the vault") as the name Curry: not a name here.
    assert chinese_names("怎么把网页存进库里", lambda w: False) == []
    assert chinese_names("李世民是谁", lambda w: False) == ["李世民"]
    # jieba's "other proper noun" (nz) is given to compounds of everyday words: no name.
    assert chinese_names("支持哪些图片格式？新手机连不上", lambda w: False) == []
    # "属性里加什么" is cut 属性 / 里加 and 里加 tagged Riga: 里 belongs to the word before it.
    assert chinese_names("要在笔记属性里加什么？", lambda w: False) == []
    assert chinese_names("里加是哪个国家的首都", lambda w: False) == ["里加"]  # asked as a name
    assert chinese_names("我在上海工作", lambda w: False) == ["上海"]  # 上 does begin names
    # The HMM joins words across a boundary and calls it a name: "一行行加太累了" gave 加太累
    # (加 / 太 / 累), "戴久了" 戴久 (戴 / 久). A name the dictionary lacks whose first word is a
    # verb, adverb or preposition is such a join; one that starts with a name stays.
    assert chinese_names("一行行加太累了", lambda w: False) == []
    assert chinese_names("面具要是戴久了会怎样", lambda w: False) == []
    assert chinese_names("伍子胥逃往吴国时过昭关", lambda w: False)[-1] == "昭关"
    # A count is no name either: "分给多张卡" (张 / 卡, "several cards").
    assert chinese_names("把序列切成几段分给多张卡", lambda w: False) == []
    assert "上建" not in chinese_names("在十亿级数据上建索引", lambda w: False)  # 上 / 建
    # The dictionary lists a few such phrases as rare names ("越往后", 3 in 60 million words:
    # 越 / 往后); rare names that start with a word stay names (青苗法: 青苗 / 法).
    assert phrase_listed_as_name("越往后")
    assert not phrase_listed_as_name("青苗法") and not phrase_listed_as_name("李世民")


def test_what_an_english_question_asks_to_have_built_in_is_the_thing_asked_about() -> None:
    assert built_in_things("is there a built-in pomodoro / focus timer I can run?") == ["pomodoro"]
    assert built_in_things("Does it have built-in flashcards with spaced repetition?") == ["flashcards"]
    assert built_in_things("Is there any built-in text-to-speech, and can I pick a voice?") == ["text-to-speech"]
    # A way, a feature or "anything" is no thing to look for.
    assert built_in_things("Is there a built-in way to fold one note into another?") == []
    assert built_in_things("is there anything built in that shows the launch time?") == []
    assert built_in_things("The bridge was built in 1920 by the Romans.") == []  # no thing named


def test_a_question_about_a_built_in_thing_no_page_mentions_is_not_covered(
    make_catalog: CatalogFactory,
) -> None:
    r = Retriever(make_catalog(NOTES_APP))
    asked = r.retrieve("Is there a built-in pomodoro timer for my notes?")
    assert asked.covered == "no" and "'pomodoro'" in asked.coverage["reason"]
    # What the vault documents is found as before.
    assert r.retrieve("Is there a built-in template for dates in a note?").covered != "no"


def test_a_word_jieba_tags_as_a_name_that_the_dictionary_knows_as_a_word_is_no_name(
    make_catalog: CatalogFactory,
) -> None:
    # "卡住" ("to jam") is tagged a person's name (nr); CC-CEDICT writes it in lower case.
    r = Retriever(make_catalog(NOTES_APP))
    asked = r.retrieve("同步的时候总是卡住，怎么给命令绑定快捷键？")
    assert "卡住" not in asked.coverage["features"]["unknown_names"]
    # A name the dictionary writes capitalised ("Li Shimin, …") is still a name.
    named = r.retrieve("唐朝的李世民是怎么当上皇帝的？")
    assert "李世民" in named.coverage["features"]["unknown_names"]


# --- a long question with one clause a page answers --------------------------------------------

APP_HELP = {
    "plugins/file-recovery": page(
        "File recovery",
        "File recovery takes snapshots of your notes at intervals. Snapshots are kept for seven "
        "days by default; the retention period can be changed in the settings, and a note "
        "deleted or merged by mistake can be restored from a snapshot.",
    ),
    "editing/merge": page("Merge notes", "The merge command joins two notes into one after a confirmation prompt."),
    "interface/appearance": page("Appearance", "Themes, fonts and font size are chosen in the appearance settings."),
    "plugins/templates": page("Templates", "Templates insert prepared text into a note, with the date and time in a chosen format."),
    "sync/plans": page("Sync plans", "Sync keeps your vault the same on every device; the plan decides the storage and file size."),
    "publish/site": page("Publish", "Publish turns notes into a website with its own domain, password and analytics."),
}
CHATTER = "My phone died on the train, the cafe wifi was awful, my laptop battery is failing and my cousin laughed at me"


def test_a_chatty_question_with_one_clause_a_page_answers_is_covered_in_part(
    make_catalog: CatalogFactory,
) -> None:
    """The chatter's words, on no page, dilute the whole question's share below the cut; the
    clause the file-recovery page answers keeps it from being refused."""
    r = Retriever(make_catalog(APP_HELP))
    asked = r.retrieve(f"{CHATTER}: how long are snapshots kept by default?")
    assert asked.coverage["probability"] < NOT_COVERED  # the cut alone would refuse it
    assert asked.covered == "uncertain" and not asked.pure_llm
    assert asked.coverage["features"]["best_part"] >= PART_COVERED
    assert "one part of the question" in asked.coverage["reason"]
    assert asked.results[0].path == "plugins/file-recovery"
    # The same chatter asking what no page answers is still not covered.
    off = r.retrieve(f"{CHATTER}: which wine goes with grilled salmon?")
    assert off.covered == "no" and off.pure_llm


def test_a_clause_a_page_answers_does_not_outvote_a_rule() -> None:
    doubtful = _features(text_coverage=0.1, text_best3=0.1, known=0.3, text_gap=0.1)
    assert coverage_probability(doubtful) < NOT_COVERED
    assert decide_coverage(doubtful).covered == "no"
    assert decide_coverage(replace(doubtful, best_part=PART_COVERED - 0.01)).covered == "no"
    assert decide_coverage(replace(doubtful, best_part=PART_COVERED)).covered == "uncertain"
    # A thing no page mentions, or a name, still settles it (the rules come first).
    ruled = replace(doubtful, best_part=0.9, unknown_nouns=("番茄",))
    assert decide_coverage(ruled).covered == "no"


# --- a thing the vault never mentions ----------------------------------------------------------

NOTES_APP_ZH = {
    "核心插件/模板": page("模板", "模板插件可以把预先写好的文字插入笔记，日期和时间可以按格式写入。"),
    "同步/同步计划": page("同步计划", "官方同步在电脑和手机之间同步笔记，标准版单个文件最大 5 MB。"),
    "编辑/快捷键": page("快捷键", "在设置里可以给命令绑定快捷键，也可以打开 Vim 键位来移动光标。"),
}


# Twenty pages on the sky (~38,000 terms): enough text that a common word it never uses is
# telling ("番茄", with ~117 in jieba's 60 million words, would be expected 0.07 times), a rare
# one ("全价", ~33) not (0.02; coverage.NOUN_EXPECTED).
_SKY = [
    "行星绕着恒星运行，轨道的形状由引力决定。", "彗星靠近太阳时会拖出长长的尾巴。",
    "月球的潮汐力让海水每天涨落两次。", "火山喷发把地下的岩浆带到地表。",
    "板块缓慢移动，山脉在碰撞处隆起。", "星云是恒星诞生的地方，由气体和尘埃组成。",
    "日食发生在月亮挡住太阳的时候。", "陨石坑记录了天体撞击的历史。",
]
NOTES_APP_ZH_AND_SKY = {
    **NOTES_APP_ZH,
    **{f"天文/篇{i}": page(f"篇{i}", "".join(_SKY[(i + j) % 8] for j in range(300))) for i in range(20)},
}


def test_chinese_nouns_are_things_not_words_jieba_cut_across() -> None:
    assert "番茄" in chinese_nouns("Obsidian 有没有自带番茄钟或者专注计时的功能？", lambda w: False)
    # "文件树能不能" is cut as 文件 / 树能: a noun glued to 能 is a cut across words, and
    # "时候" is in every question.
    assert "树能" not in chinese_nouns("左边那个文件树能不能自动跳到当前笔记", lambda w: False)
    assert chinese_nouns("写笔记的时候怎么办", lambda w: w == "笔记") == []
    # "一行行" (one line after another) is an adverb jieba tags a noun.
    assert chinese_nouns("给十几行开头都加个横线，一行行加太累了", lambda w: False) == ["横线"]
    # A determiner and a measure word ("每档", "那档": each tier), a verb, 个 and its object
    # ("排个序": sort them): phrases, not things.
    assert chinese_nouns("分几档、每档多少钱？先买最便宜那档", lambda w: False) == []
    assert chinese_nouns("最后还按从多到少排个序", lambda w: False) == []
    # 个 starts a count or a size ("分箱个数", the number of bins), not a thing.
    counted = chinese_nouns("最后还按分箱个数从多到少排序", lambda w: False)
    assert "分箱" in counted and "个数" not in counted


def test_a_noun_no_dictionary_lists_is_a_name() -> None:
    # jieba guessed "语雀" (a note app) and kept "on" with it (语雀上): the thing is 语雀, and a
    # word no dictionary lists is a name, whatever its tag.
    assert unlisted_nouns("怎么把语雀上的知识库导入到 Obsidian？", lambda w: False) == ["语雀"]
    assert "长图" in unlisted_nouns("能不能把笔记一键生成分享用的长图？", lambda w: False)
    # Not a guess that joins a verb to a noun ("建图": 建 / 图), nor a people named by its
    # place ("羌人": a vault may write 羌族), nor a word the vault knows.
    assert unlisted_nouns("Vamana 建图时用什么算法找候选邻居？", lambda w: False) == []
    assert unlisted_nouns("最后为什么不全用？", lambda w: False) == []  # 全 / 用: "use all"
    assert unlisted_nouns("哪本书里说大禹是西部羌人出身？", lambda w: False) == []
    assert unlisted_nouns("怎么把语雀上的知识库导入？", lambda w: w == "语雀") == []
    # Nor a guess with grammar inside ("键和值": keys and values), nor one that took the first
    # character of the word before it ("在建好图之后": 建好 is the word, 图 the noun).
    assert unlisted_nouns("然后键和值的分块在卡之间传下去", lambda w: False) == []
    assert unlisted_nouns("能不能在建好图之后调整顺序？", lambda w: False) == []


def test_a_question_about_an_app_no_page_mentions_is_not_covered(make_catalog: CatalogFactory) -> None:
    r = Retriever(make_catalog(NOTES_APP_ZH))
    asked = r.retrieve("模板插件能不能导入语雀上的文档？")
    assert asked.covered == "no" and "语雀" in asked.coverage["reason"]
    assert r.retrieve("模板插件能不能把日期写入笔记？").covered != "no"


def test_a_thing_no_page_mentions_is_not_covered_unless_the_words_settle_it(
    make_catalog: CatalogFactory,
) -> None:
    r = Retriever(make_catalog(NOTES_APP_ZH_AND_SKY))
    asked = r.retrieve("有没有自带的番茄钟可以在写笔记时计时？")
    assert asked.covered == "no" and asked.pure_llm and "番茄" in asked.coverage["reason"]
    assert asked.results  # the closest pages are still listed
    # Asked about what a page says, the question is covered even with a word no page uses.
    kept = r.retrieve("模板插件可以把预先写好的文字插入笔记吗？有什么窍门？")
    assert kept.coverage["features"]["unknown_nouns"] == ["窍门"]
    assert kept.covered != "no" and kept.results[0].path == "核心插件/模板"


def test_a_thing_the_question_says_it_does_not_want_is_not_looked_for(
    make_catalog: CatalogFactory,
) -> None:
    r = Retriever(make_catalog(NOTES_APP_ZH_AND_SKY))
    asked = r.retrieve("模板插件里有番茄钟吗？")
    assert "番茄" in asked.coverage["features"]["unknown_nouns"]
    aside = r.retrieve("不想用番茄钟，模板插件能把日期和时间写入笔记吗？")
    assert aside.coverage["features"]["unknown_nouns"] == []


def test_a_thing_in_a_sentence_that_only_sets_the_scene_is_not_what_is_asked(
    make_catalog: CatalogFactory,
) -> None:
    # "上飞机没网" says where the asker will be; the question is the sentence that asks.
    r = Retriever(make_catalog(NOTES_APP_ZH_AND_SKY))
    scene = r.retrieve("模板插件插入的图片是外链，上飞机没网就全裂了。能把日期和时间写入笔记吗？")
    assert "飞机" not in scene.coverage["features"]["unknown_nouns"]
    on_board = r.retrieve("模板插件能在飞机上把日期和时间写入笔记吗？")
    assert "飞机" in on_board.coverage["features"]["unknown_nouns"]
    asked = r.retrieve("模板插件插入的图片是外链。上飞机没网的时候能用番茄钟吗？")
    assert "番茄" in asked.coverage["features"]["unknown_nouns"]
    # A term the asker glosses in English is the subject, wherever it stands.
    glossed = r.retrieve("想给模板插件加个番茄钟（pomodoro timer）。它能把日期写入笔记吗？")
    assert "番茄" in glossed.coverage["features"]["unknown_nouns"]
    assert glossing_sentences("想开投机解码（speculative decoding）提速。草稿模型选多大？") == [
        "想开投机解码（speculative decoding）提速。"
    ]
    assert glossing_sentences("图片里的文字（OCR）能搜到吗？路径（绝对）呢？") == ["图片里的文字（OCR）能搜到吗？"]
    # Nor is who the asker says they are.
    student = r.retrieve("我是研究生，模板插件能把日期和时间写入笔记吗？")
    assert "研究生" not in student.coverage["features"]["unknown_nouns"]
    asked_for = r.retrieve("模板插件能把研究生的日期写入笔记吗？")
    assert "研究生" in asked_for.coverage["features"]["unknown_nouns"]
    assert without_the_asker("我是研究生，想买同步。作为老师呢？") == " ，想买同步。 ？"
    assert without_the_asker("我是想问同步。VS Code 里我是按住键拖") == "我是想问同步。VS Code 里我是按住键拖"


def test_a_noun_written_as_a_verb_is_an_action_not_a_missing_thing(
    make_catalog: CatalogFactory,
) -> None:
    # "切块" (to cut into pieces) closes its clause: the question asks how to do something;
    # as a modifier ("投机解码") or a listed thing ("划线和想法") the word still counts.
    assert ends_a_predicate("把长 prompt 切块，开销多大？", "切块")
    assert ends_a_predicate("这两招是怎么省钱的？", "省钱")
    assert not ends_a_predicate("vLLM 里怎么开投机解码？", "投机")
    assert not ends_a_predicate("能不能同步微信读书里的划线和想法？", "划线")
    r = Retriever(make_catalog(NOTES_APP_ZH_AND_SKY))
    as_verb = r.retrieve("模板插件能帮我省钱吗？")
    assert "省钱" not in as_verb.coverage["features"]["unknown_nouns"]
    as_noun = r.retrieve("模板插件有没有自带番茄钟？")
    assert "番茄" in as_noun.coverage["features"]["unknown_nouns"]


def test_a_word_too_rare_for_the_vaults_size_is_no_evidence(make_catalog: CatalogFactory) -> None:
    # A help vault of this size lacks most rare words whatever it covers: "全价" (full price)
    # does not settle a question on the sync plan's limits.
    r = Retriever(make_catalog(NOTES_APP_ZH_AND_SKY))
    asked = r.retrieve("同步标准版是全价吗？单个文件最大多少？")
    assert "全价" not in asked.coverage["features"]["unknown_nouns"]
    assert asked.covered == "uncertain" and asked.results[0].path == "同步/同步计划"
    # Three pages are too little text for even a common word's absence to say anything.
    small = Retriever(make_catalog(NOTES_APP_ZH)).retrieve("有没有自带的番茄钟可以在写笔记时计时？")
    assert small.coverage["features"]["unknown_nouns"] == []


def test_an_unknown_noun_alone_does_not_outvote_clear_evidence() -> None:
    clear = _features(text_coverage=1.0, text_best3=1.0, known=0.9, text_gap=0.6)
    assert decide_coverage(replace(clear, unknown_nouns=("路子",))).covered == "yes"
    doubtful = _features(text_coverage=0.4, text_best3=0.45, known=0.6, text_gap=0.3)
    assert NOT_COVERED <= coverage_probability(doubtful) < COVERED  # "uncertain" on words alone
    assert decide_coverage(replace(doubtful, unknown_nouns=("签证",))).covered == "no"
    foreign = replace(doubtful, unknown_nouns=("签证",), foreign=FOREIGN)
    assert decide_coverage(foreign).covered == "uncertain"  # it may say it in another language


def test_an_unknown_noun_in_a_partly_foreign_vault_is_no_evidence() -> None:
    # Most pages in another language: the page may call the thing by its other name.
    doubtful = _features(text_coverage=0.4, text_best3=0.45, known=0.6, text_gap=0.3)
    partly = replace(doubtful, unknown_nouns=("签证",), foreign=NATIVE + 0.1)
    assert decide_coverage(partly).covered == "uncertain"


def test_a_thing_the_vault_names_in_english_is_not_unknown(make_catalog: CatalogFactory) -> None:
    pages = {**NOTES_APP_ZH_AND_SKY, "导出/图片": page("导出图片", "可以把笔记导出为 poster 图片，分享给别人。")}
    r = Retriever(make_catalog(pages))
    asked = r.retrieve("能不能把笔记一键生成分享用的海报？")
    assert "海报" not in asked.coverage["features"]["unknown_nouns"]  # 海报: poster
    assert asked.covered != "no"
    assert "番茄" in r.retrieve("有没有自带的番茄钟可以在写笔记时计时？").coverage["features"]["unknown_nouns"]


# --- one-character words ---------------------------------------------------------------------

PETS = {
    "人物/叔本华": page(
        "叔本华",
        "德国哲学家，悲观主义的代表，认为意志是世界的本质。他终生未娶，晚年与一只猫为伴。",
        type="entity",
    ),
    "人物/康德": page("康德", "德国哲学家，一生没有离开柯尼斯堡，晚年养过一只狗。", type="entity"),
    "概念/仓库": page("仓库", "仓库是存放笔记的文件夹，每个仓库有自己的设置。"),
    **{
        f"概念/杂项{i}": page(f"杂项{i}", f"关于{topic}的笔记。")
        for i, topic in enumerate(["园艺", "烹饪", "天文", "航海", "书法", "茶道"])
    },
}


def test_a_one_character_noun_finds_the_page_that_holds_it(make_catalog: CatalogFactory) -> None:
    # The two pages share every other word; only 猫 or 狗 tells them apart (when one-character
    # words were dropped, both questions found the shorter page first).
    r = Retriever(make_catalog(PETS))
    assert r.retrieve("德国哲学家晚年的猫").results[0].path == "人物/叔本华"
    assert r.retrieve("德国哲学家晚年的狗").results[0].path == "人物/康德"


def test_a_one_character_word_is_not_counted_as_coverage_evidence(make_catalog: CatalogFactory) -> None:
    # 库 alone is rare in a vault that writes 仓库: it ranks pages, but whether a page holds
    # it says little, so the coverage shares leave it out (a question of nothing else keeps it).
    assert evidence_terms(["设置", "库"]) == ["设置"]
    assert evidence_terms(["猫"]) == ["猫"]
    r = Retriever(make_catalog(PETS))
    with_char = r.retrieve("新建的库怎么沿用仓库的设置？").coverage["features"]
    without = r.retrieve("新建的怎么沿用仓库的设置？").coverage["features"]
    assert with_char["text_coverage"] == without["text_coverage"]
    assert with_char["known"] == without["known"]


# --- passages ----------------------------------------------------------------------------------

_SYSTEMS = [
    "thrusters burn hydrazine", "radiators shed heat", "antennas relay telemetry",
    "docking ports align capsules", "solar arrays charge batteries", "treadmills keep muscles",
    "the medical kit holds bandages", "airlocks cycle before spacewalks",
]
_HANDBOOK = "A handbook of the station's systems.\n\n" + "\n\n".join(
    f"## Part {i}\n\n" + " ".join(f"On the station the {s}, as checked in drill {d}." for d in range(4))
    for i, s in enumerate(_SYSTEMS)
) + "\n\n## Galley\n\nThe galley rehydrates freeze-dried meals with recycled water.\n"
_NEAR = {
    "water-recovery": "Water recovery makes recycled water from condensate; the loop is tested weekly.",
    "freeze-drying": "Freeze-drying removes water from food; freeze-dried food keeps for years.",
    "meals": "Meals on long flights are planned by dietitians; each meal is packed by day.",
    "galley-design": "Galley design on aircraft puts ovens and carts near the doors.",
    "rehydration": "Rehydration after exercise restores water lost as sweat.",
    "camping-food": "Camping food is often freeze-dried meals: add hot water and wait.",
    "grey-water": "Grey water is recycled water from sinks, used again for flushing.",
    "ship-galley": "A ship's galley cooks meals for the crew in rough seas.",
    "astronaut-food": "Astronaut food came in tubes; later meals came freeze-dried.",
}


def test_a_long_pages_one_answering_section_is_its_passage_rank(make_catalog: CatalogFactory) -> None:
    # Whole-page BM25 holds the handbook down by its length (its other sections are about
    # other things); its galley section is the best passage in the vault.
    pages = {"concepts/station-handbook": page("Station handbook", _HANDBOOK)}
    pages |= {f"concepts/{name}": page(name.replace("-", " ").title(), text) for name, text in _NEAR.items()}
    r = Retriever(make_catalog(pages))
    result = r.retrieve("how are freeze-dried meals rehydrated with recycled water in the galley", k=20)
    signals = next(p.signals for p in result.results if p.path == "concepts/station-handbook")
    assert signals["rank_passages"] == 1
    assert signals["rank_text"] > 5
    off = r.with_settings(rrf_passages=0.0).retrieve("freeze-dried meals in the galley", k=20)
    assert not any("rank_passages" in p.signals for p in off.results)
