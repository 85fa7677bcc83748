"""The catalog: pages, graph, terms, and a cache that re-reads only what changed."""

from __future__ import annotations

import gc
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from tests.support.vaults import VaultFactory, index_md
from wikiq.vault import catalog as catalog_module
from wikiq.vault import reading as reading_module
from wikiq.vault.cache import CatalogCache
from wikiq.vault.catalog import open_catalog, vault_changes
from wikiq.vault.locate import locate_vault
from wikiq.vault.scan import advise_reading
from wikiq.vault.terms import TERM_FIELDS, TermIndex

PAGES = {
    "wiki/index.md": index_md(
        "- [[entities/moon|moon]] `aliases: Luna, 月球` - The Moon is Earth's only natural satellite.",
        "- [[concepts/orbit|orbit]] `aliases: 轨道` - An orbit is a curved path.",
        "- [[entities/ghost|ghost]] - listed but missing on disk",
    ),
    "wiki/log.md": "# Wiki Operation Log\n[[entities/moon]]\n",
    "wiki/schema/config.md": "# Wiki Schema Configuration\n",
    "wiki/entities/moon.md": (
        '---\ntype: entity\naliases:\n  - "Luna"\nsources:\n  - "[[sources/notes_abc123]]"\n---\n'
        "# Moon\n\n## Description\n\nThe Moon orbits Earth; see [[concepts/orbit|orbit]] and "
        "[[entities/sergei-korolev]].\n"
    ),
    "wiki/concepts/orbit.md": "---\ntype: concept\n---\n# Orbit\n\nA path around [[moon]]. Gravity bends it.\n",
    "wiki/concepts/space-debris.md": "# Space debris\n\nJunk in [[concepts/orbit]].\n",
    "wiki/sources/notes_abc123.md": "---\ntype: source\n---\n# Notes - Summary\n\nAbout [[entities/moon]].\n",
    "wiki/entities/stub.md": "---\ntype: entity\ngeneration_complete: false\n---\n",
    "wiki/.obsidian/ignored.md": "# not a page\n",
    "raw/notes.md": "# raw note outside the wiki\n",
}


def _open(vault: Path, **kw: object):  # type: ignore[no-untyped-def]
    return open_catalog(locate_vault(vault), **kw)  # type: ignore[arg-type]


def test_pages_are_every_md_under_the_wiki_except_plugin_files(make_vault: VaultFactory) -> None:
    catalog = _open(make_vault(PAGES))
    assert [p.path for p in catalog.pages] == [
        "concepts/orbit",
        "concepts/space-debris",
        "entities/moon",
        "entities/stub",
        "sources/notes_abc123",
    ]


def test_index_flags_aliases_and_missing_entries(make_vault: VaultFactory) -> None:
    catalog = _open(make_vault(PAGES))
    moon = catalog.pages[catalog.by_path["entities/moon"]]
    assert moon.in_index and moon.aliases == ("Luna", "月球")  # frontmatter + index aliases
    assert not catalog.pages[catalog.by_path["concepts/space-debris"]].in_index
    assert catalog.index_missing == ["entities/ghost"]


def test_graph_has_body_and_frontmatter_links_and_records_dead_ones(
    make_vault: VaultFactory,
) -> None:
    catalog = _open(make_vault(PAGES))
    idx = catalog.by_path
    moon, orbit, notes = idx["entities/moon"], idx["concepts/orbit"], idx["sources/notes_abc123"]
    assert set(catalog.out_links[moon]) == {orbit, notes}
    assert catalog.out_links[orbit] == (moon,)  # bare basename link resolved
    assert catalog.graph.shape == (5, 5)
    assert orbit in catalog.graph.row(moon) and moon in catalog.graph.row(orbit)
    assert sorted(catalog.in_links(orbit)) == sorted([moon, idx["concepts/space-debris"]])
    assert [(d.page, d.target) for d in catalog.dead_links] == [
        ("entities/moon", "entities/sergei-korolev")
    ]


def test_stub_flag_and_body_read_by_offset(make_vault: VaultFactory) -> None:
    catalog = _open(make_vault(PAGES))
    assert catalog.pages[catalog.by_path["entities/stub"]].stub
    body = catalog.read_body(catalog.by_path["concepts/orbit"])
    assert body == "# Orbit\n\nA path around [[moon]]. Gravity bends it.\n"


def test_body_terms_are_indexed(make_vault: VaultFactory) -> None:
    catalog = _open(make_vault(PAGES))
    row = catalog.terms.row(catalog.by_path["concepts/orbit"])
    assert row.get("gravity") == 1 and "path" in row


class _ReadSpy:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.files: list[str] = []
        real = reading_module.read_one

        def spy(root: Path, file: str, st: object):  # type: ignore[no-untyped-def]
            self.files.append(file)
            return real(root, file, st)  # type: ignore[arg-type]

        monkeypatch.setattr(reading_module, "read_one", spy)  # pages read here
        monkeypatch.setattr(catalog_module, "read_one", spy)  # a page whose counts were lost


def test_unchanged_vault_opens_without_reading_any_page(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(PAGES)
    first = _open(vault)
    assert first.files_read == 5
    spy = _ReadSpy(monkeypatch)
    second = _open(vault)
    assert spy.files == [] and second.files_read == 0
    assert [p.path for p in second.pages] == [p.path for p in first.pages]
    assert second.out_links == first.out_links
    # Terms come back from the cache too, identical.
    assert second.terms.row(0) == first.terms.row(0)


def test_one_edited_page_rereads_one_file(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(PAGES)
    _open(vault)
    page = vault / "wiki/concepts/space-debris.md"
    page.write_text("# Space debris\n\nJunk near [[entities/moon]] now, called kessler.\n")
    os.utime(page, ns=(page.stat().st_atime_ns, page.stat().st_mtime_ns + 5_000_000_000))
    spy = _ReadSpy(monkeypatch)
    catalog = _open(vault)
    assert spy.files == ["concepts/space-debris.md"]
    i = catalog.by_path["concepts/space-debris"]
    assert catalog.out_links[i] == (catalog.by_path["entities/moon"],)
    assert catalog.terms.row(i).get("kessler") == 1
    # Unchanged pages keep their terms.
    assert catalog.terms.row(catalog.by_path["concepts/orbit"]).get("gravity") == 1


def test_added_and_removed_pages_are_picked_up(make_vault: VaultFactory) -> None:
    vault = make_vault(PAGES)
    _open(vault)
    (vault / "wiki/concepts/space-debris.md").unlink()
    (vault / "wiki/entities/mars.md").write_text("# Mars\n\nRed planet, [[concepts/orbit]].\n")
    catalog = _open(vault)
    paths = [p.path for p in catalog.pages]
    assert "concepts/space-debris" not in paths and "entities/mars" in paths
    assert catalog.terms.matrix.shape[0] == len(paths)
    assert catalog.terms.row(catalog.by_path["entities/mars"]).get("red") == 1


def test_index_change_is_picked_up_without_rereading_pages(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(PAGES)
    _open(vault)
    index = vault / "wiki/index.md"
    index.write_text(index_md("- [[entities/moon|moon]] `aliases: Selene`"))
    os.utime(index, ns=(index.stat().st_atime_ns, index.stat().st_mtime_ns + 5_000_000_000))
    spy = _ReadSpy(monkeypatch)
    catalog = _open(vault)
    assert spy.files == []
    assert catalog.pages[catalog.by_path["entities/moon"]].aliases == ("Luna", "Selene")
    assert not catalog.pages[catalog.by_path["concepts/orbit"]].in_index


@pytest.mark.parametrize("damage", [b"", b"not a pickle", pickle.dumps({"format": -1})])
def test_corrupt_or_old_cache_is_rebuilt_silently(make_vault: VaultFactory, damage: bytes) -> None:
    vault = make_vault(PAGES)
    first = _open(vault)
    assert first.cache_file is not None
    first.cache_file.write_bytes(damage)
    again = _open(vault)
    assert again.files_read == 5 and len(again.pages) == 5


def test_lost_terms_file_is_rebuilt_not_silently_emptied(make_vault: VaultFactory) -> None:
    vault = make_vault(PAGES)
    first = _open(vault)
    store = CatalogCache(first.location)
    store.terms_path.write_bytes(b"garbage")
    page = vault / "wiki/concepts/orbit.md"
    os.utime(page, ns=(page.stat().st_atime_ns, page.stat().st_mtime_ns + 5_000_000_000))
    catalog = _open(vault)
    assert catalog.terms.row(catalog.by_path["entities/moon"]).get("orbit", 0) >= 1


def test_term_counts_are_stored_in_one_byte_with_two_byte_terms_and_read_back_the_same(
    make_vault: VaultFactory,
) -> None:
    vault = make_vault(PAGES)
    first = _open(vault)
    kept = CatalogCache(first.location).load_terms(first.built_at)
    assert kept is not None
    for name in TERM_FIELDS:
        built, loaded = first.field_terms(name), kept[name]
        assert loaded.matrix.data.dtype == np.uint8 and loaded.matrix.indices.dtype == np.uint16
        assert [loaded.row(i) for i in range(loaded.matrix.shape[0])] == [
            built.row(i) for i in range(built.matrix.shape[0])
        ]
    # An edit rebuilds from the stored counts: the unchanged pages keep theirs.
    page = vault / "wiki/concepts/orbit.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nPerigee apogee.\n", encoding="utf-8")
    again, fresh = _open(vault), _open(vault, use_cache=False)
    assert again.files_read == 1
    moon = fresh.by_path["entities/moon"]
    assert again.terms.row(moon) == fresh.terms.row(moon)
    assert again.terms.row(fresh.by_path["concepts/orbit"]).get("perige") == 1


def test_passage_starts_that_do_not_fit_their_rows_are_refused_and_rebuilt(
    make_vault: VaultFactory,
) -> None:
    vault = make_vault(PAGES)
    first = _open(vault)
    store = CatalogCache(first.location)
    terms = store.load_terms(first.built_at)
    assert terms is not None and terms["passages"].entries == len(first.pages)
    passages = terms["passages"]
    assert passages.entry_starts is not None  # the stub page has no passage
    bad = passages.entry_starts.copy()
    bad[-1] += 3  # past the rows there are
    terms["passages"] = TermIndex(passages.vocab, passages.matrix, entry_starts=bad)
    assert store.save_terms(terms, first.built_at)
    assert store.load_terms(first.built_at) is None
    page = vault / "wiki/concepts/orbit.md"
    os.utime(page, ns=(page.stat().st_atime_ns, page.stat().st_mtime_ns + 5_000_000_000))
    again = _open(vault)
    fresh = _open(vault, use_cache=False)
    moon = again.by_path["entities/moon"]
    assert _rows(again.field_terms("passages"), moon) == _rows(fresh.field_terms("passages"), moon)


def test_cache_lives_outside_the_vault(make_vault: VaultFactory, _isolated_cache: Path) -> None:
    vault = make_vault(PAGES)
    catalog = _open(vault)
    assert catalog.cache_file is not None
    assert _isolated_cache in catalog.cache_file.parents
    assert vault not in catalog.cache_file.parents


def test_unwritable_cache_folder_is_not_an_error(make_vault: VaultFactory, tmp_path: Path) -> None:
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the cache folder should be")
    catalog = _open(make_vault(PAGES), cache_dir=blocker)
    assert catalog.cache_file is None and len(catalog.pages) == 5


def test_parallel_and_serial_reads_agree(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"wiki/index.md": index_md("- [[entities/p0|p0]]")}
    for k in range(60):
        files[f"wiki/entities/p{k}.md"] = (
            f"# Page {k}\n\nLinks to [[entities/p{(k + 1) % 60}]] about topic{k % 7}.\n"
        )
    vault = make_vault(files)
    serial = _open(vault, use_cache=False)
    monkeypatch.setattr(reading_module, "PARALLEL_READ_MIN_FILES", 10)
    parallel = _open(vault, use_cache=False)
    assert [p.path for p in parallel.pages] == [p.path for p in serial.pages]
    assert parallel.out_links == serial.out_links
    for i in range(len(serial.pages)):
        for name in TERM_FIELDS:
            assert _rows(parallel.field_terms(name), i) == _rows(serial.field_terms(name), i)
    # Pages from the workers share one string per name: a link target is its page's path.
    by_path = {p.path: p for p in parallel.pages}
    linking = by_path["entities/p0"]
    assert linking.links == ("entities/p1",)
    assert linking.links[0] is by_path["entities/p1"].path


def test_pages_read_in_parallel_among_unchanged_ones_keep_their_own_terms(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch, _isolated_cache: Path
) -> None:
    # A refresh whose re-read pages come back from the workers as one block, with unchanged
    # pages between them: each page must get its own row, as a full serial read gives it.
    files = {"wiki/index.md": index_md("- [[entities/p0|p0]]")}
    for k in range(40):
        files[f"wiki/entities/p{k:02d}.md"] = f"# Page {k}\n\nAbout topic{k % 7} and [[entities/p00]].\n"
        if k % 10 == 3:  # long pages, of several passages each
            files[f"wiki/entities/p{k:02d}.md"] += _sections(k)
    vault = make_vault(files)
    monkeypatch.setattr(reading_module, "PARALLEL_READ_MIN_FILES", 2)
    _open(vault)
    for k, words in ((5, "comet comet dust"), (22, "nebula"), (39, "quasar comet")):
        page = vault / f"wiki/entities/p{k:02d}.md"
        page.write_text(f"# Page {k}\n\nNow about {words}.\n")
        os.utime(page, ns=(10**18 + k, 10**18 + k))
    refreshed = _open(vault)
    assert refreshed.files_read == 3
    serial = _open(vault, use_cache=False)
    assert refreshed.terms.row(5) == {"page": 1, "5": 1, "comet": 2, "dust": 1}
    for name in TERM_FIELDS:
        got, want = refreshed.field_terms(name), serial.field_terms(name)
        for i in range(len(serial.pages)):
            assert _rows(got, i) == _rows(want, i), (name, i)
    assert len(_rows(refreshed.field_terms("passages"), 13)) >= 3


def _sections(k: int) -> str:
    return "".join(
        f"\n## Part {s}\n\n" + f"Section {s} of page {k} tells of topic{s} at length. " * 12
        for s in range(3)
    )


def _rows(terms: TermIndex, page: int) -> list[dict[str, int]]:
    """A page's rows in one field (its passages, or its one row)."""
    first, end = terms.entry_rows(page)
    return [terms.row(r) for r in range(first, end)]


def test_plain_vault_pages_are_root_relative_and_skip_dot_folders(make_vault: VaultFactory) -> None:
    vault = make_vault(
        {
            "Start here.md": "---\ntitle: Welcome\naliases: [Home]\n---\nSee [[Ideas/Idea one]] and ![[pic.png]].\n",
            "Ideas/Idea one.md": "# Idea one\nBack to [[Start here]].\n",
            ".obsidian/workspace.md": "x",
            ".trash/old.md": "x",
        }
    )
    catalog = _open(vault)
    assert catalog.location.layout == "plain"
    assert [p.path for p in catalog.pages] == ["Ideas/Idea one", "Start here"]
    start = catalog.pages[catalog.by_path["Start here"]]
    assert start.title == "Welcome" and start.aliases == ("Home",)
    assert catalog.dead_links == []  # the image embed is an attachment, not a dead page link
    assert catalog.out_links[catalog.by_path["Start here"]] == (catalog.by_path["Ideas/Idea one"],)


def test_a_changed_tokenizer_rebuilds_the_term_counts(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Term counts made by an older tokenizer must not meet questions tokenized by a new one.
    from wikiq.vault import cache as cache_module

    vault = make_vault(PAGES)
    assert _open(vault).files_read == 5
    assert _open(vault).files_read == 0  # same tokenizer: nothing re-read
    monkeypatch.setattr(cache_module, "TOKENIZER_FINGERPRINT", "another-tokenizer")
    again = _open(vault)
    assert again.files_read == 5
    assert any(t.startswith("gravit") for t in again.terms.row(again.by_path["concepts/orbit"]))


def test_read_ahead_advice_skips_files_that_vanished(tmp_path: Path) -> None:
    # A page deleted between the scan and the read must not stop a first open; the advice
    # is only a hint and never changes a file.
    (tmp_path / "here.md").write_text("# Here\n", encoding="utf-8")
    advise_reading(tmp_path, ["gone.md", "here.md", "sub/also-gone.md"])
    assert (tmp_path / "here.md").read_text(encoding="utf-8") == "# Here\n"


def test_building_leaves_the_cycle_collector_as_it_found_it(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The collector is paused while a catalog is built; a failed build must not leave a
    # long-running server without it.
    vault = make_vault(PAGES)
    assert gc.isenabled()
    _open(vault, use_cache=False)
    assert gc.isenabled()

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(catalog_module, "resolve_links", broken)
    with pytest.raises(OSError):
        _open(vault, use_cache=False)
    assert gc.isenabled()


@pytest.mark.parametrize(
    "edit",
    [
        # A body edit: new links, a dead one; every name as before, so only it is resolved.
        ("wiki/concepts/space-debris.md", "# Space debris\n\nNear [[Luna]] and [[nowhere]].\n", True),
        # A new alias: another page's link to it resolves now, so every link is resolved.
        ("wiki/concepts/space-debris.md", '---\naliases:\n  - "nowhere"\n---\n# Space debris\n', False),
        # A new title for the page a link names by title.
        ("wiki/concepts/orbit.md", "# Kessler orbit\n\nA path around [[moon]].\n", False),
    ],
)
def test_links_after_an_edit_are_the_ones_a_fresh_read_finds(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch, edit: tuple[str, str, bool]
) -> None:
    # A re-read resolves only the edited pages' links when every page's names are as they
    # were; whichever way, the graph and the dead links are those of a catalog read afresh.
    pages = {**PAGES, "wiki/concepts/drift.md": "# Drift\n\nSee [[nowhere]] and [[orbit]].\n"}
    vault = make_vault(pages)
    _open(vault)
    name, text, reused = edit
    page = vault / name
    page.write_text(text)
    os.utime(page, ns=(page.stat().st_atime_ns, page.stat().st_mtime_ns + 5_000_000_000))
    resolved: list[str] = []
    real = catalog_module.LinkResolver.resolve_where

    def spy(self: object, target: str, from_path: str = "") -> tuple[int | None, bool]:
        resolved.append(from_path)
        return real(self, target, from_path)  # type: ignore[arg-type]

    monkeypatch.setattr(catalog_module.LinkResolver, "resolve_where", spy)
    refreshed = _open(vault)
    assert (set(resolved) == {name[5:-3]}) is reused
    fresh = open_catalog(locate_vault(vault), use_cache=False)
    assert [refreshed.out_links[i] for i in range(len(refreshed.pages))] == [
        fresh.out_links[i] for i in range(len(fresh.pages))
    ]
    assert list(refreshed.dead_links) == list(fresh.dead_links)


def _state(catalog):  # type: ignore[no-untyped-def]
    """Everything a catalog knows, as plain values (page objects compared field by field)."""
    pages = [
        (p.path, p.title, p.aliases, p.in_index, p.index_aliases, p.type, p.links, p.stub)
        for p in catalog.pages
    ]
    terms = {
        name: [catalog.field_terms(name).row(i) for i in range(catalog.field_terms(name).matrix.shape[0])]
        for name in TERM_FIELDS
    }
    links = [catalog.out_links[i] for i in range(len(catalog.pages))]
    return pages, terms, links, list(catalog.dead_links), list(catalog.index_missing)


@pytest.mark.parametrize(
    "edit",
    [
        # A body edit: index.md is not read again, each page keeps its index state.
        ("wiki/entities/moon.md", PAGES["wiki/entities/moon.md"] + "\nIt has no air.\n", True, 1),
        # The page's own alias now is one index.md adds: the index is applied afresh.
        ("wiki/entities/moon.md", '---\naliases:\n  - "月球"\n---\n# Moon\n\nGrey.\n', False, 1),
        # index.md itself.
        ("wiki/index.md", index_md("- [[concepts/orbit|orbit]] `aliases: Bahn`"), False, 0),
        # A new page.
        ("wiki/concepts/drift.md", "# Drift\n\nSee [[orbit]].\n", False, 1),
    ],
)
def test_a_refresh_from_the_catalog_in_memory_is_a_fresh_read(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch, edit: tuple[str, str, bool, int]
) -> None:
    # A running server re-reads a vault from the catalog it holds, not from the cache file,
    # and questions still read that catalog meanwhile: it must not change under them.
    vault = make_vault(PAGES)
    held = _open(vault)
    before = _state(held)
    name, text, index_kept, files_read = edit
    page = vault / name
    page.write_text(text)
    os.utime(page, ns=(page.stat().st_atime_ns, page.stat().st_mtime_ns + 5_000_000_000))
    parsed: list[bool] = []
    real = catalog_module._read_index

    def spy(location):  # type: ignore[no-untyped-def]
        parsed.append(True)
        return real(location)

    # A context of its own: `monkeypatch.undo()` would also undo the isolated cache folder.
    with monkeypatch.context() as spied:
        spied.setattr(catalog_module, "_read_index", spy)
        spied.setattr(CatalogCache, "load", lambda self: pytest.fail("read the cache file"))
        refreshed = open_catalog(locate_vault(vault), previous=held)
    assert refreshed.files_read == files_read and (not parsed) is index_kept
    assert _state(refreshed) == _state(open_catalog(locate_vault(vault), use_cache=False))
    assert _state(held) == before


def test_a_refresh_with_nothing_changed_keeps_the_catalog_it_holds(make_vault: VaultFactory) -> None:
    vault = make_vault(PAGES)
    held = _open(vault)
    assert open_catalog(locate_vault(vault), previous=held) is held


@pytest.mark.parametrize("counts_at_a_time", [1 << 24, 1, 2, 4])
def test_page_lengths_are_the_sums_of_their_rows_counts(
    counts_at_a_time: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wikiq import sparse
    from wikiq.sparse import from_rows

    monkeypatch.setattr(sparse, "ENTRY_SLICE", counts_at_a_time)  # summed in slices
    rows = [[0, 2], [], [1], [], [0, 1, 2], [2]]
    counts = [[3.0, 1.0], [], [7.0], [], [1.0, 1.0, 2.0], [5.0]]
    matrix = from_rows(
        [np.array(r, dtype=np.int64) for r in rows],
        [np.array(c, dtype=np.float32) for c in counts],
        3,
    )
    lengths = TermIndex(["a", "b", "c"], matrix).lengths()
    assert lengths.dtype == np.float32 and lengths.tolist() == [4.0, 0.0, 7.0, 0.0, 4.0, 5.0]


def test_a_refreshed_catalog_knows_when_the_vault_is_unchanged_and_when_a_page_is_touched(
    make_vault: VaultFactory,
) -> None:
    # After a refresh the pages are objects, not the cache's columns: the check compares
    # them by column too, and still sees a change that keeps a page's size.
    vault = make_vault(PAGES)
    first = _open(vault, use_cache=False)
    page = vault / "wiki/concepts/orbit.md"
    page.write_text(page.read_text() + "\nMore about orbits.\n")
    refreshed = open_catalog(locate_vault(vault), previous=first, use_cache=False)
    assert isinstance(refreshed.pages, list)
    assert vault_changes(refreshed) is None
    st = page.stat()
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # same size, new time
    changes = vault_changes(refreshed)
    assert changes is not None and "concepts/orbit.md" in changes.names
    (vault / "wiki/concepts/orbit.md").rename(vault / "wiki/concepts/orbits.md")
    assert vault_changes(refreshed) is not None
