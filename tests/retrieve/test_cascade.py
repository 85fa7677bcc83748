"""The cascade end to end on small vaults: arms, seeds, stubs, keywords, pureLLM, determinism."""

from __future__ import annotations

import json

import pytest

from tests.retrieve.conftest import CatalogFactory, page
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.result import (
    ARM_BODY,
    ARM_LEX,
    ARM_LLM,
    ARM_PURE_LLM,
    ARM_SUBJECT,
)
from wikiq.vault.catalog import Catalog

SPACE = {
    "entities/moon": page("Moon", "Earth's only natural satellite. See [[concepts/orbit]] and [[entities/apollo-11]].", type="entity", aliases=("Luna", "月球")),
    "entities/apollo-11": page("Apollo 11", "The first crewed landing on the [[entities/moon]], by [[entities/neil-armstrong]].", type="event"),
    "entities/neil-armstrong": page("Neil Armstrong", "The first person to walk on the [[entities/moon]] during [[entities/apollo-11]].", type="entity"),
    "concepts/orbit": page("Orbit", "A curved path around a body, bent by gravity. The [[entities/moon]] follows one."),
    "concepts/gravity-assist": page("Gravity assist", "A spacecraft steals momentum from a planet to change speed. See [[concepts/orbit]].", aliases=("slingshot",)),
    "entities/europa-clipper": "---\ntype: entity\ngeneration_complete: false\n---\n\n# Europa Clipper\n\nStub about the [[entities/moon]].\n",
}


@pytest.fixture
def space(make_catalog: CatalogFactory) -> Catalog:
    return make_catalog(SPACE)


def test_a_question_naming_a_page_is_a_strong_lexical_match(space: Catalog) -> None:
    r = Retriever(space).retrieve("Apollo 11")
    assert r.arm == ARM_LEX and not r.pure_llm
    assert r.seeds[0].path == "entities/apollo-11" and r.seeds[0].stage == "lex"
    assert r.seeds[0].matched == {"apollo": "title", "11": "title"}
    assert r.results[0].path == "entities/apollo-11" and r.results[0].score == 1.0
    # Its neighbours come next, found through the link graph.
    assert {"entities/moon", "entities/neil-armstrong"} <= {p.path for p in r.results[:4]}


def test_alias_match_in_another_language(space: Catalog) -> None:
    r = Retriever(space).retrieve("月球")
    assert r.arm == ARM_LEX and r.results[0].path == "entities/moon"
    assert r.seeds[0].matched == {"月球": "alias"}


def test_text_only_question_is_found_by_body_search(space: Catalog) -> None:
    r = Retriever(space).retrieve("steals momentum from a planet")
    assert r.arm == ARM_BODY
    assert r.results[0].path == "concepts/gravity-assist"


def test_a_partial_title_match_is_found_by_the_text_that_contains_it(space: Catalog) -> None:
    r = Retriever(space).retrieve("orbit diagrams")
    assert r.arm == ARM_BODY and r.results[0].path == "concepts/orbit"
    assert r.covered in ("yes", "uncertain") and not r.pure_llm


def test_uncovered_question_is_pure_llm_and_still_lists_the_closest_pages(space: Catalog) -> None:
    r = Retriever(space).retrieve("Which planet has the best beaches for a holiday?")
    assert r.arm == ARM_PURE_LLM and r.pure_llm and r.covered == "no"
    assert r.coverage["covered"] == "no" and r.coverage["probability"] < r.coverage["thresholds"]["not_covered"]
    # An agent can still look for itself: results are the best pages found.
    assert r.results and r.results[0].path == "concepts/gravity-assist"


def test_a_question_sharing_no_word_with_any_page_has_no_results(space: Catalog) -> None:
    r = Retriever(space).retrieve("sourdough starter recipe")
    assert r.pure_llm and r.covered == "no" and r.results == [] and r.seeds == []


def test_stubs_are_never_results_but_stay_in_the_graph(space: Catalog) -> None:
    r = Retriever(space).retrieve("Europa Clipper", k=10)
    assert r.seeds and r.seeds[0].path == "entities/europa-clipper"
    assert "entities/europa-clipper" not in [p.path for p in r.results]
    assert r.results and r.results[0].path == "entities/moon"  # reached through the stub's link


def test_excluded_pages_are_removed_before_ranking(space: Catalog) -> None:
    r = Retriever(space).retrieve("Apollo 11", exclude=frozenset({"entities/apollo-11"}))
    assert "entities/apollo-11" not in [p.path for p in r.results]
    assert r.seeds[0].path == "entities/apollo-11"  # still the entry point


def test_same_question_same_json_twice_and_across_retrievers(space: Catalog) -> None:
    def stable(r: Retriever) -> str:
        data = r.retrieve("Who was the first person to walk on the Moon?").to_dict("v", "wiki")
        data.pop("timings_ms")
        return json.dumps(data, sort_keys=True)

    first = stable(Retriever(space))
    assert first == stable(Retriever(space)) == stable(Retriever(space))


def test_search_json_has_exactly_the_design_keys(space: Catalog) -> None:
    data = Retriever(space).retrieve("Apollo 11").to_dict("/v", "wiki")
    assert list(data) == ["query", "vault", "wiki_folder", "arm", "covered", "pure_llm", "seeds", "results", "timings_ms", "coverage", "sources"]
    assert data["covered"] == "yes" and set(data["coverage"]) == {"covered", "probability", "thresholds", "features", "reason"}
    assert set(data["seeds"][0]) == {"path", "stage", "score", "matched"}
    assert set(data["results"][0]) == {"path", "title", "type", "score", "signals"}
    assert {"lex", "body", "ppr"} <= set(data["results"][0]["signals"])
    assert {"index", "lex", "ppr", "total"} <= set(data["timings_ms"])


# --- Stage 2 and 3: model keywords, only when names and text are weak -------------------------


class Keywords:
    """A keyword source that records every call."""

    def __init__(self, answer: list[str]) -> None:
        self.answer = answer
        self.calls: list[str] = []

    def __call__(self, question: str) -> list[str]:
        self.calls.append(question)
        return self.answer


def test_model_is_not_called_when_names_match_strongly(space: Catalog) -> None:
    kw = Keywords(["moon"])
    r = Retriever(space, keywords=kw).retrieve("Neil Armstrong")
    assert kw.calls == [] and r.arm == ARM_LEX


def test_model_keywords_find_seeds_when_the_question_shares_no_words(space: Catalog) -> None:
    kw = Keywords(["gravity assist", "引力弹弓", "slingshot"])
    r = Retriever(space, keywords=kw).retrieve("怎样借行星的力量加速？")
    assert kw.calls == ["怎样借行星的力量加速？"]
    assert r.arm == ARM_LLM and r.keywords == ["gravity assist", "引力弹弓", "slingshot"]
    assert r.seeds[0].path == "concepts/gravity-assist" and r.seeds[0].stage == "keywords"
    assert r.results[0].path == "concepts/gravity-assist"


def test_failed_keyword_extraction_degrades_to_the_next_stage(space: Catalog) -> None:
    # Without the glossary nothing else can read the question: not covered.
    alone = Retriever(space, keywords=Keywords([])).with_settings(rrf_translated=0.0)
    r = alone.retrieve("怎样借行星的力量加速？")
    assert r.arm == ARM_PURE_LLM and r.pure_llm
    # With it, "行星" (planet) and "加速" (speed up) are the page's own words.
    r = Retriever(space, keywords=Keywords([])).retrieve("怎样借行星的力量加速？")
    assert r.results[0].path == "concepts/gravity-assist" and r.covered == "uncertain"


def test_keyword_scan_is_exhaustive_the_page_at_position_1410_is_reachable(make_catalog: CatalogFactory) -> None:
    pages = {f"entities/filler-{n:04d}": page(f"Filler {n:04d}", f"Padding page number {n}.", type="entity") for n in range(1500)}
    pages["entities/filler-1410"] = page("Quantum entanglement", "Spooky action at a distance.", aliases=("量子纠缠",))
    catalog = make_catalog(pages)
    assert [p.path for p in catalog.pages].index("entities/filler-1410") == 1410
    kw = Keywords(["量子纠缠", "quantum entanglement"])
    r = Retriever(catalog, keywords=kw).retrieve("什么是那个幽灵般的超距作用的本质")
    assert r.arm == ARM_LLM
    assert r.results[0].path == "entities/filler-1410"


def _clinic(n_patients: int, *, with_sources: bool = True) -> dict[str, str]:
    """A wiki about one clinic: every page mentions "Larkspur Clinic", a few are its sources."""
    pages = {
        f"entities/patient-{n:02d}": page(f"Patient {n:02d}", f"A patient at the Larkspur Clinic, treated for [[concepts/asthma]] in week {n}.", type="entity")
        for n in range(n_patients)
    }
    pages["concepts/asthma"] = page("Asthma", "A chronic airway disease, common among Larkspur Clinic patients.")
    if with_sources:
        pages["sources/annual-report"] = page("Annual Report", "The Larkspur Clinic annual report: admissions, staff and budget.", type="source")
        pages["sources/intake-forms"] = page("Intake Forms", "How the clinic records a new patient. See [[concepts/asthma]].", type="source")
    return pages


def test_a_question_naming_the_whole_vaults_subject_gets_its_sources(make_catalog: CatalogFactory) -> None:
    r = Retriever(make_catalog(_clinic(40))).retrieve("Larkspur Clinic")
    assert r.arm == ARM_SUBJECT and not r.pure_llm
    # Both sources come first, even the one that never says "Larkspur".
    assert {p.path for p in r.results[:2]} == {"sources/annual-report", "sources/intake-forms"}
    by_path = {s.path: s for s in r.seeds}
    assert by_path["sources/annual-report"].matched == {"larkspur": "body", "clinic": "body"}
    assert by_path["sources/intake-forms"].matched == {"clinic": "body"}


def test_subject_rule_needs_sources_enough_pages_and_no_named_page(make_catalog: CatalogFactory) -> None:
    # A plain vault with no source pages: body search answers as before.
    r = Retriever(make_catalog(_clinic(40, with_sources=False))).retrieve("Larkspur Clinic")
    assert r.arm == ARM_BODY
    # In a handful of pages every word is common: not a subject question.
    r = Retriever(make_catalog(_clinic(10))).retrieve("Larkspur Clinic")
    assert r.arm != ARM_SUBJECT
    # A question that names a page is about that page, however common its words.
    catalog = make_catalog(_clinic(40) | {"entities/larkspur": page("Larkspur Clinic", "The clinic itself.", type="entity")})
    r = Retriever(catalog).retrieve("Larkspur Clinic")
    assert r.arm == ARM_LEX and r.results[0].path == "entities/larkspur"
    # A question with one uncommon word is an ordinary question.
    r = Retriever(make_catalog(_clinic(40))).retrieve("Larkspur Clinic budget")
    assert r.arm != ARM_SUBJECT


def test_no_subject_mode_switches_the_rule_off(make_catalog: CatalogFactory) -> None:
    r = Retriever(make_catalog(_clinic(40))).with_settings(mode="no-subject").retrieve("Larkspur Clinic")
    assert r.arm == ARM_BODY


def test_a_chinese_wrapper_around_an_english_name_still_names_the_page(space: Catalog, make_catalog: CatalogFactory) -> None:
    # "Moon 的资料" asks for material on the Moon: 资料 names nothing in the vault, and must
    # not turn a question that names a page into a weak match (which would call the model).
    r = Retriever(space).retrieve("Moon 的资料")
    assert r.arm == ARM_LEX and r.results[0].path == "entities/moon"
    assert r.query == "Moon 的资料"
    # Without it, a question of common words alone is the vault's subject, not "not covered".
    r = Retriever(make_catalog(_clinic(40))).retrieve("Larkspur Clinic 的详细信息")
    assert r.arm == ARM_SUBJECT and not r.pure_llm


def test_a_page_titled_with_a_filler_word_is_still_named_by_it(make_catalog: CatalogFactory) -> None:
    catalog = make_catalog(SPACE | {"concepts/sheji-xinxi": page("设计信息", "关于设计的信息。")})
    r = Retriever(catalog).retrieve("设计信息")
    assert r.arm == ARM_LEX and r.results[0].path == "concepts/sheji-xinxi"
