"""A vault's own background: a question scoring no better than everyday questions the vault
cannot answer is not covered there, whatever the coverage model makes of its words."""

from __future__ import annotations

import random
import re
from pathlib import Path

from tests.retrieve.conftest import CatalogFactory, page
from tests.retrieve.test_open_questions import NOTES_APP
from tests.support.vaults import VaultFactory
from wikiq.config import load_config
from wikiq.retrieve.background import FLOOR_MAX, QUESTIONS, cached_floor, floor_of
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.coverage import NOT_COVERED
from wikiq.retrieve.result import ARM_NOTES
from wikiq.wiki import Wiki

# An encyclopedic vault: sixty film pages whose plots use every everyday word there is (here,
# those of the background's own questions, and a few more).
_EVERYDAY = sorted(
    {w.lower() for q in QUESTIONS["en"] for w in re.findall(r"[A-Za-z]+", q) if len(w) > 3}
    | {"fridge", "fresh", "keep", "sweater", "wool", "wash"}
)
_rng = random.Random(7)
FILMS = {
    f"entities/film-{i}": page(
        f"Film {i}", f"A {1950 + i} film. " + " ".join(_rng.sample(_EVERYDAY, 40)) + ".", type="entity"
    )
    for i in range(60)
}


def test_an_everyday_question_no_better_than_the_background_is_not_covered(
    make_catalog: CatalogFactory,
) -> None:
    r = Retriever(make_catalog(FILMS))
    asked = r.retrieve("How do I wash a wool sweater?")  # most of its words are on some page
    assert NOT_COVERED < asked.coverage["probability"] < FLOOR_MAX
    assert asked.covered == "no" and asked.pure_llm
    assert "everyday questions" in asked.coverage["reason"]
    assert asked.coverage["thresholds"]["not_covered"] == FLOOR_MAX
    assert asked.results  # the closest pages are still listed
    # What the vault is about stays covered.
    assert r.retrieve("Which 1953 film is about a dog?").covered == "yes"


def test_a_focused_vault_keeps_the_models_own_cut(make_catalog: CatalogFactory) -> None:
    r = Retriever(make_catalog(NOTES_APP))
    # Everyday questions share next to no word with a notes app's manual: its floor is the
    # model's own cut, and a question the model leans towards stays covered.
    leaning = r.retrieve("can I export a note with a different date format string")
    assert NOT_COVERED <= leaning.coverage["probability"] < FLOOR_MAX
    assert leaning.coverage["thresholds"]["not_covered"] == NOT_COVERED
    assert leaning.covered == "yes"


def test_the_background_is_measured_once_and_kept(tmp_path: Path) -> None:
    asked: list[str] = []

    def score(question: str) -> float:
        asked.append(question)
        return 0.5

    first = cached_floor("en", score, NOT_COVERED, tmp_path, ["vault", 1])
    assert first == 0.5 and len(asked) == len(QUESTIONS["en"])
    assert cached_floor("en", score, NOT_COVERED, tmp_path, ["vault", 1]) == 0.5
    assert len(asked) == len(QUESTIONS["en"])  # read back, not measured again
    cached_floor("en", score, NOT_COVERED, tmp_path, ["vault", 2])  # the vault changed
    assert len(asked) == 2 * len(QUESTIONS["en"])
    assert len(list(tmp_path.glob("background-en-*.json"))) == 1  # the old measure is gone
    (next(tmp_path.glob("background-en-*.json"))).write_text("{broken", encoding="utf-8")
    assert cached_floor("en", score, NOT_COVERED, tmp_path, ["vault", 2]) == 0.5  # measured anew
    assert cached_floor("fr", score, NOT_COVERED, tmp_path, ["vault", 2]) == NOT_COVERED


def test_the_floor_lies_between_the_models_cut_and_its_ceiling() -> None:
    assert floor_of([0.01] * 40, NOT_COVERED) == NOT_COVERED
    assert floor_of([0.99] * 40, NOT_COVERED) == FLOOR_MAX
    assert floor_of([0.1] * 20 + [0.4] * 20, NOT_COVERED) == 0.4  # above most of them
    assert floor_of([], NOT_COVERED) == NOT_COVERED


def test_a_note_that_answers_it_keeps_a_question_below_the_background_open(
    make_vault: VaultFactory,
) -> None:
    # The pages rate it as everyday questions rate here; the note the wiki was made from is
    # about exactly that: the answer says the pages may not cover it, and quotes the note.
    files: dict[str, str | bytes] = {
        f"wiki/{path}.md": text for path, text in FILMS.items()
    }
    files["wiki/index.md"] = "# Index\n\n" + "".join(f"- [[{p}]]\n" for p in FILMS)
    files["raw/care/wool.md"] = (
        "# Wool care\n\nTo wash a wool sweater, use cold water and a wool detergent, never "
        "wring it, and dry the sweater flat on a towel.\n"
    )
    vault = make_vault(files)
    question = "How do I wash a wool sweater?"
    off = Wiki.open(vault, config=load_config(flags={"sources": "off"})).search(question)
    assert off.covered == "no" and "everyday questions" in off.reason
    on = Wiki.open(vault).search(question)
    assert on.covered == "uncertain" and not on.pure_llm and on.arm == ARM_NOTES
    assert on.sources[0].path == "raw/care/wool"
