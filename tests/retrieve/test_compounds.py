"""A compound the vault writes apart ("slideshow" for "slides" and "show") is searched by its
parts; a word the vault uses is never split."""

from __future__ import annotations

from tests.retrieve.conftest import CatalogFactory, page
from wikiq.retrieve.cascade import Retriever
from wikiq.retrieve.compounds import with_parts

PRESENTING = {
    "plugins/slides": page("Slides", "Present a note as slides: each horizontal rule starts a new slide to show."),
    "plugins/export": page("Export to PDF", "Export a note as a PDF file from the file menu."),
    "plugins/canvas": page("Canvas", "Arrange cards on an infinite canvas."),
}


def test_an_unknown_compound_is_searched_by_the_two_words_the_vault_has() -> None:
    known = {"slide", "show", "notebook"}
    assert with_parts(["slideshow"], known) == ["slideshow", "slide", "show"]
    assert with_parts(["notebook"], known) == ["notebook"]  # known as written: never split
    assert with_parts(["pomodoro"], known) == ["pomodoro"]  # no two known parts
    assert with_parts(["slides"], known) == ["slides"]  # too short to be two words


def test_a_question_with_a_compound_finds_the_page_that_writes_it_apart(make_catalog: CatalogFactory) -> None:
    r = Retriever(make_catalog(PRESENTING))
    got = r.retrieve("Is there a slideshow mode?")
    assert got.results[0].path == "plugins/slides"


def test_the_plain_bm25_baseline_is_not_decompounded(make_catalog: CatalogFactory) -> None:
    plain = Retriever(make_catalog(PRESENTING)).with_settings(mode="bm25")
    assert plain.retrieve("Is there a slideshow mode?").results == []  # no word of it matches
