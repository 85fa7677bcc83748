"""The embedding index: where it lives, what a refresh re-embeds, rebuilds, resuming, search."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from tests.embed.fakes import FakeEmbedder
from tests.support.vaults import VaultFactory
from wikiq.embed.index import (
    PageVectors,
    build_index,
    index_path,
    index_state,
    load_index,
    read_meta,
)
from wikiq.errors import ModelError
from wikiq.vault.catalog import Catalog, open_catalog
from wikiq.vault.locate import locate_vault

PAGES = {
    "notes/cats.md": "---\naliases: [Felis]\n---\n# Cats\n\nFeline behaviour: naps and purring.\n",
    "notes/dogs.md": "# Dogs\n\nCanine companions that fetch and bark.\n",
    "notes/orbit.md": "# Orbit\n\nA curved path around the Moon, bent by gravity.\n",
    "notes/月球.md": "# 月球\n\n月球是地球唯一的天然卫星。\n",
}


def _open(vault: Path) -> Catalog:
    return open_catalog(locate_vault(vault))


@pytest.fixture
def vault(make_vault: VaultFactory) -> Path:
    return make_vault(PAGES)


def test_the_index_lives_in_the_cache_folder_beside_the_catalog_never_in_the_vault(
    vault: Path,
) -> None:
    catalog = _open(vault)
    report = build_index(catalog, FakeEmbedder())
    assert report.path == index_path(catalog.location)
    assert catalog.cache_file is not None and report.path.parent == catalog.cache_file.parent
    assert not any(p.suffix == ".npz" for p in vault.rglob("*"))
    assert report.embedded == 4 and report.rows == 4 and report.complete


def test_a_second_build_embeds_nothing_and_an_edit_re_embeds_only_that_page(
    vault: Path,
) -> None:
    build_index(_open(vault), FakeEmbedder())
    again = FakeEmbedder()
    assert build_index(_open(vault), again).embedded == 0
    assert again.passages == []

    (vault / "notes/dogs.md").write_text("# Dogs\n\nLoyal canine friends.\n", encoding="utf-8")
    edited = FakeEmbedder()
    report = build_index(_open(vault), edited)
    assert report.embedded == 1 and report.reused == 3
    assert len(edited.passages) == 1 and "Loyal canine" in edited.passages[0]


def test_a_touched_page_with_the_same_text_keeps_its_vectors(vault: Path) -> None:
    build_index(_open(vault), FakeEmbedder())
    page = vault / "notes/orbit.md"
    st = page.stat()  # a new modification time, the same text
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    touched = FakeEmbedder()
    report = build_index(_open(vault), touched)
    assert report.embedded == 0 and touched.passages == []
    # ... and the new key is remembered: the next run does not even read the page.
    assert index_state(load_index(report.path), _open(vault)).changed == []  # type: ignore[arg-type]


def test_a_deleted_page_leaves_the_index(vault: Path) -> None:
    build_index(_open(vault), FakeEmbedder())
    (vault / "notes/orbit.md").unlink()
    report = build_index(_open(vault), FakeEmbedder())
    index = load_index(report.path)
    assert report.removed == 1 and index is not None
    assert "notes/orbit" not in index.vectors and len(index.vectors) == 3


def test_another_model_or_text_choice_rebuilds_everything(vault: Path) -> None:
    build_index(_open(vault), FakeEmbedder("fake:one"))
    other = FakeEmbedder("fake:two")
    report = build_index(_open(vault), other)
    assert report.rebuilt and report.embedded == 4
    assert read_meta(report.path)["model"] == "fake:two"  # type: ignore[index]

    chunks = build_index(_open(vault), FakeEmbedder("fake:two"), text="chunks")
    assert chunks.rebuilt and chunks.embedded == 4
    assert load_index(chunks.path).text.startswith("chunks")  # type: ignore[union-attr]


def test_an_interrupted_build_keeps_its_work_and_the_next_run_resumes(vault: Path) -> None:
    failing = FakeEmbedder(fail_after=2)
    with pytest.raises(ModelError):
        build_index(_open(vault), failing, batch_texts=1, save_every=0.0)
    saved = load_index(index_path(_open(vault).location))
    assert saved is not None and len(saved.vectors) == 2 and not saved.complete

    resumed = FakeEmbedder()
    report = build_index(_open(vault), resumed, batch_texts=1)
    assert report.embedded == 2 and len(resumed.passages) == 2 and report.complete


def test_ctrl_c_saves_what_was_embedded(vault: Path) -> None:
    class Interrupting(FakeEmbedder):
        def embed_passages(self, texts):  # type: ignore[no-untyped-def]
            if self.passages:
                raise KeyboardInterrupt
            return super().embed_passages(texts)

    with pytest.raises(KeyboardInterrupt):
        build_index(_open(vault), Interrupting(), batch_texts=1, save_every=3600.0)
    saved = load_index(index_path(_open(vault).location))
    assert saved is not None and len(saved.vectors) == 1


def test_a_corrupt_index_file_reads_as_absent(vault: Path) -> None:
    path = build_index(_open(vault), FakeEmbedder()).path
    path.write_bytes(b"not a zip file")
    assert load_index(path) is None and read_meta(path) is None
    report = build_index(_open(vault), FakeEmbedder())
    assert report.rebuilt and report.embedded == 4


def test_search_ranks_by_meaning_and_pools_chunks_by_their_best(vault: Path) -> None:
    catalog = _open(vault)
    embedder = FakeEmbedder()
    index = load_index(build_index(catalog, embedder).path)
    assert index is not None
    vectors = PageVectors(index, catalog)
    query = embedder.embed_queries(["kitten naps"])[0]
    hits = vectors.search(query, 2)
    assert catalog.pages[hits[0][0]].path == "notes/cats"
    assert hits[0][1] > hits[1][1]

    # A page with two chunks scores by the better one.
    cats = index.vectors["notes/cats"]
    far = embedder.embed_passages(["unrelated words entirely"])
    index.vectors["notes/cats"] = np.vstack([far, cats])
    pooled = PageVectors(index, catalog)
    assert not pooled.one_per_page
    assert catalog.pages[pooled.search(query, 1)[0][0]].path == "notes/cats"


def test_similarity_is_centred_per_language_so_a_translation_can_win(
    make_vault: VaultFactory,
) -> None:
    # Twelve English and twelve Chinese pages: each language forms its own group.
    files = {f"en/p{n}.md": f"# Page {n}\n\nEnglish words about topic {n}.\n" for n in range(12)}
    files |= {f"zh/页{n}.md": f"# 页面{n}\n\n中文内容{n}。\n" for n in range(12)}
    catalog = _open(make_vault(files))
    embedder = FakeEmbedder()
    index = load_index(build_index(catalog, embedder).path)
    assert index is not None and index.langs["en/p1"] == "en" and index.langs["zh/页1"] == "zh"
    vectors = PageVectors(index, catalog)
    sims = vectors.similarities(embedder.embed_queries(["English words"])[0])
    for lang in ("en", "zh"):
        rows = [
            r
            for r, p in enumerate(vectors.pages)
            if index.langs[catalog.pages[int(p)].path] == lang
        ]
        assert abs(float(np.mean(sims[rows]))) < 1e-6, "each language averages zero"


def test_state_lists_pages_edited_or_added_since_the_build(vault: Path) -> None:
    build_index(_open(vault), FakeEmbedder())
    (vault / "notes/new.md").write_text("# New\n\nfresh.\n", encoding="utf-8")
    (vault / "notes/cats.md").write_text("# Cats\n\nchanged.\n", encoding="utf-8")
    catalog = _open(vault)
    state = index_state(load_index(index_path(catalog.location)), catalog)  # type: ignore[arg-type]
    assert state.missing == ["notes/new"] and state.changed == ["notes/cats"]
    assert not state.complete


def test_progress_counts_pages_once_their_vectors_are_in(vault: Path) -> None:
    calls: list[tuple[int, int]] = []
    build_index(
        _open(vault), FakeEmbedder(), batch_texts=2, progress=lambda d, t: calls.append((d, t))
    )
    assert calls[-1] == (4, 4)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls) and calls[0][0] >= 1


def test_an_index_written_with_text_arrays_still_loads(vault: Path) -> None:
    path = build_index(_open(vault), FakeEmbedder()).path
    with np.load(path) as data:
        parts = {k: data[k] for k in data.files}
    for key in ("meta", "pages"):  # the first layout kept its JSON as a numpy str array
        parts[key] = np.asarray(parts[key].tobytes().decode("utf-8"))
    np.savez(path, **parts)
    index = load_index(path)
    assert index is not None and len(index.vectors) == 4 and index.model == "fake:bow"


def test_a_save_removes_the_half_written_file_a_killed_build_left(tmp_path: Path) -> None:
    import time

    from wikiq.embed.index import EmbeddingIndex
    from wikiq.vault import store

    path = tmp_path / "index.npz"
    left = tmp_path / "index.npzq1w2e3.tmp"
    left.write_bytes(b"half an index")
    hours_ago = time.time() - 2 * store.STALE_TEMP_SECONDS
    os.utime(left, (hours_ago, hours_ago))
    index = EmbeddingIndex(model="fake", text="lead", dim=2)
    index.vectors["a"] = np.ones((1, 2), dtype=np.float32)
    index.keys["a"], index.digests["a"] = "k", "d"
    assert index.save(path) > 0
    assert load_index(path) is not None
    assert not left.exists()
