"""A running server sees the vault as it is now: pages added, edited, renamed and deleted
under it are reflected within two seconds, without a restart."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.web.conftest import DEMO, serve
from wikiq.retrieve import cascade
from wikiq.web.app import create_app
from wikiq.wiki import Wiki

ZORBLAX = "---\ntype: concept\n---\n# Zorblax\n\nThe zorblax quasar is a cold blue glow.\n"


def _within(seconds: float, check: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def test_pages_changed_under_a_running_server_are_seen_within_two_seconds(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(DEMO, vault)
    wiki = Wiki.open(vault)
    concepts = vault / "wiki" / "concepts"
    with serve(create_app(wiki)) as url, httpx.Client(base_url=url, timeout=30) as client:

        def top(question: str) -> list[str]:
            data = client.get("/api/search", params={"q": question}).json()
            return [] if data["pure_llm"] else [r["path"] for r in data["results"][:3]]

        assert "concepts/zorblax" not in top("zorblax quasar")
        (concepts / "zorblax.md").write_text(ZORBLAX)  # added
        assert _within(2.0, lambda: top("zorblax quasar")[:1] == ["concepts/zorblax"])

        (concepts / "zorblax.md").write_text(ZORBLAX.replace("cold blue glow", "warm red flicker"))
        assert _within(2.0, lambda: top("warm red flicker")[:1] == ["concepts/zorblax"])  # edited

        (concepts / "zorblax.md").rename(concepts / "zorblax-quasar.md")  # renamed
        assert _within(2.0, lambda: top("zorblax quasar")[:1] == ["concepts/zorblax-quasar"])
        page = client.get("/api/page", params={"path": "concepts/zorblax-quasar"})
        assert page.status_code == 200 and "warm red flicker" in page.json()["body"]

        (concepts / "zorblax-quasar.md").unlink()  # deleted
        assert _within(2.0, lambda: not any("zorblax" in p for p in top("zorblax quasar")))
        assert client.get("/api/page", params={"path": "concepts/zorblax-quasar"}).status_code == 404
    wiki.close()


def test_questions_in_a_loop_compare_the_vault_at_the_pace_its_comparison_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a watcher, each question compares the vault with the catalog, but no sooner
    than ten times as long as the last comparison took: at a million pages a comparison
    takes 2.7 s, and a loop of questions must not spend its time comparing."""
    import wikiq.wiki as wiki_module

    vault = tmp_path / "vault"
    shutil.copytree(DEMO, vault)
    wiki = Wiki.open(vault)
    compared: list[float] = []
    changes = wiki_module.vault_changes

    def slow_changes(catalog: object) -> object:
        compared.append(time.monotonic())
        time.sleep(0.2)  # a large vault's comparison
        return changes(catalog)

    monkeypatch.setattr(wiki_module, "vault_changes", slow_changes)
    wiki.refresh(min_interval=0)  # timed once
    started = time.monotonic()
    while time.monotonic() - started < 1.5:  # questions for 1.5 s (a 1 s pace would compare
        wiki.search("gravity assist")  # twice more; 10 x 0.2 s allows none)
    assert len(compared) == 1

    (vault / "wiki" / "concepts" / "zorblax.md").write_text(ZORBLAX)
    time.sleep(max(0.0, 2.1 - (time.monotonic() - compared[0])))  # ten times the comparison
    assert wiki.search("zorblax quasar").results[0].path == "concepts/zorblax"
    assert len(compared) == 2


def test_an_unchanged_vault_is_not_read_again(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(DEMO, vault)
    wiki = Wiki.open(vault)
    before = wiki.catalog
    assert wiki.refresh(min_interval=0) is False and wiki.catalog is before
    (vault / "wiki" / "concepts" / "zorblax.md").write_text(ZORBLAX)
    assert wiki.refresh(min_interval=0) is True and wiki.catalog is not before
    assert wiki.catalog.files_read == 1  # only the new page was read


def test_the_watcher_builds_the_new_indexes_before_questions_see_the_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question after an edit must not pay for rebuilding the indexes (~1.4 s on 8,000
    pages): the watcher builds them, and only then hands the new vault to questions."""
    vault = tmp_path / "vault"
    shutil.copytree(DEMO, vault)
    wiki = Wiki.open(vault)
    wiki.search("Apollo")  # the first indexes, built by this question
    built_by: list[str] = []
    real = cascade.cached_indexes

    def recording(*args: object, **kwargs: object) -> object:
        built_by.append(threading.current_thread().name)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cascade, "cached_indexes", recording)
    halt = wiki.watch(interval=0.1)
    try:
        (vault / "wiki" / "concepts" / "zorblax.md").write_text(ZORBLAX)
        assert _within(2.0, lambda: any("zorblax" in p.path for p in wiki.catalog.pages))
        assert [r.path for r in wiki.search("zorblax quasar").results][:1] == ["concepts/zorblax"]
    finally:
        halt()
        wiki.close()
    assert built_by == ["wikiq-refresh"]  # built once, by the watcher's refresh, never by the question


def test_a_question_after_a_body_edit_keeps_the_name_index_without_a_watcher(
    tmp_path: Path,
) -> None:
    """Without a watcher (a chat session, the Python API) the first question after an edit
    builds the new indexes; an edit that changes no page's names keeps the name index (4 of
    a rebuild's 6 s at 100,000 pages), and the edit is answered."""
    vault = tmp_path / "vault"
    shutil.copytree(DEMO, vault)
    wiki = Wiki.open(vault)
    wiki.search("Apollo")
    names = wiki.retriever.indexes.names
    page = vault / "wiki" / "concepts" / "gravity-assist.md"
    page.write_text(page.read_text() + "\nThe zorblax quasar glowed over the launch pad.\n")
    assert wiki.refresh(min_interval=0)
    assert [r.path for r in wiki.search("zorblax quasar").results][:1] == ["concepts/gravity-assist"]
    assert wiki.retriever.indexes.names is names
    (vault / "wiki" / "concepts" / "zorblax.md").write_text(ZORBLAX)  # a new page: new names
    assert wiki.refresh(min_interval=0)
    assert [r.path for r in wiki.search("zorblax quasar").results][:1] == ["concepts/zorblax"]
    assert wiki.retriever.indexes.names is not names
    wiki.close()
