"""How the cascade uses Stage 0: seeds only when it stands out, honest abstention when it
does not, and a ranking signal that never lets look-alikes outrank a named page."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.vaults import VaultFactory
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.result import ARM_LEX, ARM_PURE_LLM, ARM_SEMANTIC
from wikiq.vault.catalog import Catalog, open_catalog
from wikiq.vault.locate import locate_vault

TOPICS = ["orbit", "tides", "gravity", "comet", "nebula", "quasar", "pulsar", "meteor"]
TOPICS += ["eclipse", "aurora", "galaxy", "asteroid"]


@pytest.fixture
def catalog(make_vault: VaultFactory) -> Catalog:
    files = {
        f"notes/{t}.md": f"# {t.title()}\n\nAll about the {t}. See [[{TOPICS[(n + 1) % 12]}]].\n"
        for n, t in enumerate(TOPICS)
    }
    files["notes/ocean-tides.md"] = "# Ocean Tides\n\nThe sea rises twice a day.\n"
    root: Path = make_vault(files)
    return open_catalog(locate_vault(root))


def scripted(catalog: Catalog, sims: dict[str, float]) -> object:
    """A SemanticSource answering every question with these similarities (others: 0.0)."""

    def source(question: str, k: int) -> list[tuple[int, float]]:
        rows = [(catalog.by_path[f"notes/{t}"], sims.get(t, 0.0)) for t in TOPICS]
        return sorted(rows, key=lambda r: -r[1])[:k]

    return source


def test_a_page_that_stands_out_seeds_the_graph_when_no_word_matches(catalog: Catalog) -> None:
    source = scripted(catalog, {"comet": 0.12, "meteor": 0.11, "nebula": 0.02})
    r = Retriever(catalog).with_sources(semantic=source).retrieve("icy visitors from afar")  # type: ignore[arg-type]
    assert r.arm == ARM_SEMANTIC and not r.pure_llm
    assert [s.path for s in r.seeds] == ["notes/comet", "notes/meteor"]
    assert r.seeds[0].score == 1.0 and r.seeds[0].stage == "semantic"
    assert r.results[0].path == "notes/comet"
    assert "notes/meteor" in [p.path for p in r.results[:3]]
    assert r.covered == "uncertain"  # no word of it is in the vault: a caveat goes with it


def test_close_neighbours_that_do_not_stand_out_are_not_in_your_vault(catalog: Catalog) -> None:
    # High similarities everywhere, none standing out: what any unrelated question gets.
    flat = {t: 0.50 - 0.002 * n for n, t in enumerate(TOPICS)}
    r = (
        Retriever(catalog)
        .with_sources(semantic=scripted(catalog, flat))
        .retrieve(  # type: ignore[arg-type]
            "recipe for lemon cake"
        )
    )
    assert r.pure_llm and r.arm == ARM_PURE_LLM and r.covered == "no"


def test_a_named_page_keeps_its_ranking_whatever_the_embeddings_say(catalog: Catalog) -> None:
    plain = Retriever(catalog).retrieve("tides")
    loud = scripted(catalog, {"quasar": 0.3, "pulsar": 0.29})
    with_sem = Retriever(catalog).with_sources(semantic=loud).retrieve("tides")  # type: ignore[arg-type]
    assert plain.arm == with_sem.arm == ARM_LEX
    assert [p.path for p in with_sem.results] == [p.path for p in plain.results]


def test_after_a_strong_title_match_the_semantic_signal_is_damped(catalog: Catalog) -> None:
    source = scripted(catalog, {"nebula": 0.3})
    # "Ocean Tides" is named in full but the question says more: a strong title match.
    # Embedded although the words cover it, to see the signal's weight there.
    retriever = Retriever(catalog).with_settings(sem_when_covered=True)
    r = retriever.with_sources(semantic=source).retrieve("why ocean tides rise")  # type: ignore[arg-type]
    assert r.arm == ARM_LEX and r.seeds[0].path == "notes/ocean-tides"
    nebula = next((p for p in r.results if p.path == "notes/nebula"), None)
    sem = nebula.signals["sem"] if nebula else 0.0
    assert 0.0 < sem <= Retriever(catalog).settings.sem_after_names + 1e-9
