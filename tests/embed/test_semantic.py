"""Stage 0 in search: used by itself when an index exists, honest abstention, refresh,
and search that goes on when the model cannot be used."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from tests.embed.fakes import FakeEmbedder
from tests.support.vaults import VaultFactory
from wikiq.embed import semantic as semantic_module
from wikiq.embed.index import build_index, load_index
from wikiq.embed.semantic import SemanticSearch, semantic_source
from wikiq.errors import ModelError
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.result import ARM_PURE_LLM, ARM_SEMANTIC
from wikiq.wiki import Wiki

PAGES = {
    "notes/feline-behaviour.md": "# Feline behaviour\n\nWhy a feline naps, purrs and hunts.\n",
    "notes/canine-training.md": "# Canine training\n\nTeaching a canine to sit.\n",
    "notes/orbit.md": "# Orbit\n\nA curved path around the Moon, bent by gravity. See [[tides]].\n",
    "notes/tides.md": "# Tides\n\nThe sea rises twice a day.\n",
    "notes/gravity.md": "# Gravity\n\nMasses attract each other. See [[orbit]].\n",
}


@pytest.fixture
def vault(make_vault: VaultFactory) -> Path:
    return make_vault(PAGES)


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    """The embedder search opens for an index: the fake, whatever the index's model name."""
    embedder = FakeEmbedder()
    monkeypatch.setattr(semantic_module, "open_embedder", lambda *a, **k: embedder)
    return embedder


def _indexed(vault: Path) -> Wiki:
    wiki = Wiki.open(vault)
    build_index(wiki.catalog, FakeEmbedder())
    return Wiki.open(vault)


def test_search_uses_the_index_by_itself_and_finds_what_no_word_matches(
    vault: Path, fake_model: FakeEmbedder
) -> None:
    before = Wiki.open(vault).search("cats")
    assert before.pure_llm, "no title or text says 'cats'"

    result = _indexed(vault).search("cats")
    assert result.arm == ARM_SEMANTIC and not result.pure_llm
    assert result.results[0].path == "notes/feline-behaviour"
    assert result.seeds[0].stage == "semantic"
    assert "semantic" in result.timings_ms and fake_model.queries == ["cats"]


def test_stage_0_embeds_the_question_without_the_words_that_only_ask_it(
    vault: Path, fake_model: FakeEmbedder
) -> None:
    result = _indexed(vault).search("is there a way to keep my cats calm?")
    assert fake_model.queries == ["keep cats calm"]
    assert result.results[0].path == "notes/feline-behaviour"


def test_a_question_the_vault_does_not_cover_still_gets_not_in_your_vault(
    vault: Path, fake_model: FakeEmbedder
) -> None:
    result = _indexed(vault).search("quantum chromodynamics lecture")
    assert result.pure_llm and result.arm == ARM_PURE_LLM and result.covered == "no"


def test_a_vault_without_an_index_searches_exactly_as_before(vault: Path) -> None:
    wiki = Wiki.open(vault)
    assert wiki.retriever.semantic is None
    assert semantic_source(wiki.location, wiki.catalog) is None


def test_wikiq_embed_off_turns_stage_0_off(
    vault: Path, fake_model: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = _indexed(vault)
    monkeypatch.setenv("WIKIQ_EMBED", "off")
    assert Wiki.open(vault).retriever.semantic is None
    monkeypatch.delenv("WIKIQ_EMBED")
    assert Wiki.open(vault).retriever.semantic is not None
    assert wiki.search("cats").arm == ARM_SEMANTIC


def test_a_few_edited_pages_are_re_embedded_on_the_first_question(
    vault: Path, fake_model: FakeEmbedder
) -> None:
    wiki = _indexed(vault)
    (vault / "notes/tides.md").write_text("# Tides\n\nKittens watch the sea.\n", encoding="utf-8")
    wiki = Wiki.open(vault)
    result = wiki.search("cats")  # no word of it on a page: Stage 0 is asked, and loads
    assert fake_model.passages and "Kittens watch" in fake_model.passages[0]
    assert result.results[0].path == "notes/feline-behaviour"
    assert wiki.retriever.semantic is not None and wiki.retriever.semantic.refreshed == 1  # type: ignore[attr-defined]
    index = load_index(semantic_module.catalog_index_path(wiki.location, wiki.catalog))
    assert index is not None and index.complete


def test_many_edited_pages_wait_for_wikiq_index_and_old_vectors_serve(
    vault: Path, fake_model: FakeEmbedder
) -> None:
    wiki = _indexed(vault)
    source = SemanticSearch(
        wiki.catalog,
        semantic_module.catalog_index_path(wiki.location, wiki.catalog),
        embedder=fake_model,
        auto_refresh=0,
    )
    (vault / "notes/tides.md").write_text("# Tides\n\nchanged.\n", encoding="utf-8")
    assert source("cats", 3)
    assert fake_model.passages == [] and source.refreshed == 0


def test_when_the_model_cannot_be_used_search_goes_on_without_it_and_says_so(
    vault: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def unavailable(*args: object, **kwargs: object) -> FakeEmbedder:
        raise ModelError("The local embedding model needs the optional extra.")

    monkeypatch.setattr(semantic_module, "open_embedder", unavailable)
    wiki = _indexed(vault)
    question = "why do stars explode and masses attract"
    with caplog.at_level(logging.WARNING, logger="wikiq.embed"):
        # Questions whose words leave doubt: the ones Stage 0 is asked about.
        result = wiki.search(question)
        wiki.search("how high does the sea rise in a storm surge")
    plain = Retriever(wiki.catalog).retrieve(question)
    assert result.results and [r.path for r in result.results] == [r.path for r in plain.results]
    assert result.covered == plain.covered
    warnings = [r for r in caplog.records if "without embeddings" in r.getMessage()]
    assert len(warnings) == 1, "said once, not on every question"
    assert wiki.retriever.semantic is not None
    assert "optional extra" in (wiki.retriever.semantic.problem or "")  # type: ignore[attr-defined]


def test_an_index_of_another_vector_size_is_not_used(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = _indexed(vault)  # built with 512 numbers per vector
    monkeypatch.setattr(semantic_module, "open_embedder", lambda *a, **k: FakeEmbedder(dim=32))
    source = semantic_source(wiki.location, wiki.catalog)
    assert source is not None and source("cats", 3) == []
    assert "rebuild" in (source.problem or "")


def test_a_question_its_words_clearly_cover_is_not_embedded(
    vault: Path, fake_model: FakeEmbedder
) -> None:
    """Stage 0 is consulted where the words leave doubt; where they clearly cover the
    question, the answer comes without waiting for the model, and is the same."""
    wiki = _indexed(vault)
    plain = Retriever(wiki.catalog).retrieve("gravity and the moon")
    assert plain.covered == "yes"
    result = wiki.retriever.retrieve("gravity and the moon")
    assert fake_model.queries == [] and "semantic" not in result.timings_ms
    assert [r.path for r in result.results] == [r.path for r in plain.results]
    assert wiki.retriever.retrieve("cats").results[0].path == "notes/feline-behaviour"
    assert fake_model.queries == ["cats"], "no word covers 'cats': embedded"


def test_semantic_hits_rank_pages_in_fusion_when_words_also_match(
    vault: Path, fake_model: FakeEmbedder
) -> None:
    """With `sem_when_covered`, every question is embedded and Stage 0 joins the fusion."""
    wiki = _indexed(vault)
    plain = Retriever(wiki.catalog).retrieve("gravity and the moon")
    fused = wiki.retriever.with_settings(sem_when_covered=True).retrieve("gravity and the moon")
    assert fused.arm == plain.arm, "words found the seeds; embeddings only add a signal"
    assert any(r.signals.get("sem", 0.0) > 0 for r in fused.results)
    assert all(r.signals.get("sem", 0.0) == 0.0 for r in plain.results)


def test_the_model_is_loading_before_the_first_question(
    vault: Path, fake_model: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's first question does not wait for the model from scratch: opening the
    retriever starts loading it, and the question then finds it ready."""
    import threading

    opened = threading.Event()

    def opening(*args: object, **kwargs: object) -> FakeEmbedder:
        opened.set()
        return fake_model

    monkeypatch.setattr(semantic_module, "open_embedder", opening)
    wiki = _indexed(vault)
    stop = wiki.watch()  # what `serve` and `mcp` do
    try:
        semantic = wiki.retriever.semantic
        assert semantic is not None
        assert opened.wait(10), "the model was not loaded until a question came"
        assert semantic.load() is not None and fake_model.queries == []  # no question yet
        assert wiki.search("cats").results[0].path == "notes/feline-behaviour"
    finally:
        stop()


def test_a_one_shot_search_its_words_cover_never_loads_the_model(
    vault: Path, fake_model: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`wikiq search` answers one question: when its words clearly cover it, the model is
    not loaded at all (it cost a process 0.2 s); a question that needs it loads it then."""
    opened: list[str] = []

    def opening(*args: object, **kwargs: object) -> FakeEmbedder:
        opened.append("model")
        return fake_model

    monkeypatch.setattr(semantic_module, "open_embedder", opening)
    wiki = _indexed(vault)
    assert wiki.search("gravity and the moon").results[0].path in {"notes/gravity", "notes/orbit"}
    time.sleep(0.2)  # a background load, had one started, would have opened the model by now
    assert opened == []
    assert wiki.search("cats").results[0].path == "notes/feline-behaviour"
    assert opened == ["model"]


def test_an_unchanged_vault_skips_the_page_by_page_check_and_an_edit_does_not(
    vault: Path, fake_model: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index saved after the catalog last changed cannot hold a stale page: search does
    not compare every page's key (which builds every page); after an edit it does."""
    wiki = _indexed(vault)
    checked: list[int] = []
    real = semantic_module.index_state

    def counting(index, catalog):  # type: ignore[no-untyped-def]
        checked.append(len(catalog.pages))
        return real(index, catalog)

    monkeypatch.setattr(semantic_module, "index_state", counting)
    assert wiki.search("cats").results[0].path == "notes/feline-behaviour"
    assert checked == []
    page = next(vault.rglob("canine-training.md"))
    page.write_text("# Canine training\n\nTeaching a canine to sit, and cats to purr.\n")
    edited = Wiki.open(vault)
    assert edited.search("cats").results
    # The index is checked when it loads: opening the retriever starts that, and a question
    # its words cover ("cats" is on the edited page now) does not wait for it.
    assert edited.retriever.semantic is not None and edited.retriever.semantic.load()
    assert checked == [len(edited.catalog.pages)]
    assert edited.retriever.semantic.refreshed == 1


def test_a_build_that_saves_after_an_edit_it_never_saw_does_not_hide_the_edit(
    vault: Path, fake_model: FakeEmbedder
) -> None:
    """A long build (a server's, in the background) embeds a page; the page is edited and a
    search reads the vault again; then the build saves. Its index is newer than the catalog
    that holds the edit, yet holds the page as it was: the page must still be re-embedded."""
    before = Wiki.open(vault)
    build_index(before.catalog, FakeEmbedder())  # the build embeds tides as it was
    (vault / "notes/tides.md").write_text("# Tides\n\nKittens watch the sea.\n", encoding="utf-8")
    edited = Wiki.open(vault)  # a search reads the vault again
    build_index(before.catalog, FakeEmbedder())  # ...and the build, still on the old catalog, saves
    assert edited.search("kitten").results
    semantic = edited.retriever.semantic
    assert semantic is not None and semantic.load()  # loaded in the background, or by now
    assert fake_model.passages and "Kittens watch" in fake_model.passages[0]
    assert semantic.refreshed == 1
