"""A cached catalog's pages are built from their columns as they are read: one page at a time
gives what building them all gives, and a damaged column is refused (the catalog is rebuilt)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.support.vaults import VaultFactory, index_md
from wikiq.vault import store
from wikiq.vault.cache import _page_columns, _pages
from wikiq.vault.catalog import open_catalog
from wikiq.vault.locate import locate_vault
from wikiq.vault.rows import PageRows, page_value


def _vault(make_vault: VaultFactory) -> Path:
    pages = {"wiki/index.md": index_md(*(f"- [[concepts/p{n}|p{n}]]" for n in range(12)))}
    for n in range(12):
        aliases = f"aliases: [别名{n}, 'a, b {n}']\n" if n % 2 else ""
        pages[f"wiki/concepts/p{n}.md"] = (
            f"---\ntype: concept\n{aliases}---\n# 第{n}页\n\nSee [[p{(n + 1) % 12}]] and [[nowhere{n}]].\n"
        )
    return make_vault(pages)


def test_pages_read_one_by_one_equal_the_pages_built(make_vault: VaultFactory) -> None:
    vault = _vault(make_vault)
    built = open_catalog(locate_vault(vault))
    cached = open_catalog(locate_vault(vault))
    assert cached.files_read == 0 and isinstance(cached.pages, PageRows)
    for i in (5, 0, -1, 11):  # single rows first, before anything builds them all
        assert cached.pages[i] == built.pages[i]
    assert cached.pages.column("path") == [p.path for p in built.pages]
    assert cached.dead_links[3] == built.dead_links[3]
    assert list(cached.dead_links) == list(built.dead_links)
    assert list(cached.pages) == list(built.pages)


def test_one_field_of_a_page_is_read_without_building_the_page(make_vault: VaultFactory) -> None:
    vault = _vault(make_vault)
    built = open_catalog(locate_vault(vault))
    cached = open_catalog(locate_vault(vault))
    for name in ("title", "aliases", "links", "summary", "size"):
        for i in (3, 0, 11):
            assert page_value(cached.pages, name, i) == page_value(built.pages, name, i)
            assert page_value(built.pages, name, i) == getattr(built.pages[i], name)
    assert not cached.pages.built_all
    cached.pages[3].in_index = not built.pages[3].in_index  # a page built, then changed
    assert page_value(cached.pages, "in_index", 3) == cached.pages[3].in_index


def test_a_page_changed_after_it_was_read_stays_changed(make_vault: VaultFactory) -> None:
    vault = _vault(make_vault)
    open_catalog(locate_vault(vault))
    pages = open_catalog(locate_vault(vault)).pages
    pages[2].in_index = not pages[2].in_index
    flipped = pages[2].in_index
    assert list(pages)[2].in_index == flipped  # building the rest keeps the object handed out


def test_columns_that_do_not_add_up_are_refused(make_vault: VaultFactory, tmp_path: Path) -> None:
    vault = _vault(make_vault)
    columns = _page_columns(list(open_catalog(locate_vault(vault)).pages))
    path = tmp_path / "c.npz"
    assert store.save(path, columns)
    good = store.load(path, lazy_strings=True)
    assert list(_pages(good)) == list(_pages(store.load(path)))
    short = dict(good, size=np.asarray(good["size"])[:-1])
    with pytest.raises(ValueError):
        _pages(short)
    counts = np.asarray(good["aliases"]["counts"]).copy()
    counts[0] += 1
    with pytest.raises(ValueError):
        _pages(dict(good, aliases={"flat": good["aliases"]["flat"], "counts": counts}))


def test_lazy_strings_decode_one_at_a_time_as_the_whole_list(tmp_path: Path) -> None:
    path = tmp_path / "s.npz"
    words = ["", "orbit", "轨道", "naïve", "a b", "\n", "x" * 1000, "Moon", "月"]
    assert store.save(path, {"w": words})
    lazy = store.load(path, lazy_strings=True)["w"]
    assert isinstance(lazy, store.Strings) and len(lazy) == len(words)
    assert [lazy[i] for i in range(len(words))] == words
    assert lazy[-1] == "月" and lazy[1:3] == words[1:3] and lazy == words
    with pytest.raises(IndexError):
        lazy[len(words)]


def test_a_lazy_vocabulary_answers_as_its_dict(tmp_path: Path) -> None:
    path = tmp_path / "v.npz"
    vocab = {w: i * 3 for i, w in enumerate(["orbit", "轨道", "naïve", "a b", "moon", "月", "x", "xy", "y"])}
    assert store.save(path, {"v": vocab})
    lazy = store.load(path, lazy_strings=True)["v"]
    assert isinstance(lazy, store.StrIds)
    assert lazy["轨道"] == 3 and lazy.get("月") == 15 and lazy.get("nope", -1) == -1
    assert "x" in lazy and "xy" in lazy and "x\x00y" not in lazy and "a" not in lazy and "" not in lazy
    with pytest.raises(KeyError):
        lazy["orb"]
    assert dict(lazy) == vocab and lazy == vocab and len(lazy) == len(vocab)
    assert lazy["moon"] == 12  # looked up again once the dict is built


def test_a_vocabulary_loaded_for_a_server_answers_without_searching_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "v.npz"
    vocab = {w: i for i, w in enumerate(["orbit", "轨道", "moon", "月", "x", "xy", "y", "z", "w"])}
    assert store.save(path, {"v": vocab})
    lazy = store.load(path, lazy_strings=True)["v"]
    assert isinstance(lazy, store.StrIds)
    lazy.load()  # what Retriever.warm does for a server or `wikiq eval`
    monkeypatch.setattr(store.Strings, "find", lambda self, word: pytest.fail("searched"))
    assert lazy["轨道"] == 1 and lazy.get("moon") == 2 and "orb" not in lazy


def test_lazily_loaded_strings_and_vocabularies_are_saved_again_as_they_were(tmp_path: Path) -> None:
    path = tmp_path / "v.npz"
    data = {"words": [f"w{i}" for i in range(10)], "ids": {f"t{i}": i for i in range(10)}}
    assert store.save(path, data)
    lazy = store.load(path, lazy_strings=True)
    assert isinstance(lazy["words"], store.Strings) and isinstance(lazy["ids"], store.StrIds)
    assert store.save(path, lazy)
    assert store.load(path) == data


def test_files_and_names_worked_out_from_paths_are_the_pages_own() -> None:
    from wikiq.vault.rows import FromPaths

    paths = ["concepts/heart-failure", "index-less", "a/b/ünïcode page"]
    files = FromPaths(paths, "file")
    assert list(files) == [p + ".md" for p in paths]
    assert files.utf8() == "\0".join(p + ".md" for p in paths).encode("utf-8")
    assert list(FromPaths(paths, "name")) == ["heart-failure", "index-less", "ünïcode page"]
    assert FromPaths([], "file").utf8() == b""


def test_a_file_its_path_does_not_give_keeps_its_column(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from wikiq.vault.cache import _page_columns, _pages
    from wikiq.vault.page import Page

    pages = [Page(path="a/x", file="a/x.md", name="x", title="X"), Page(path="y.MD", file="y.MD", name="y.MD", title="Y")]
    from wikiq.vault import store

    columns = _page_columns(pages)
    assert isinstance(columns["file"], list) and columns["name"] == {"from_paths": "name"}
    assert store.save(tmp_path / "c.npz", columns)
    loaded = _pages(store.load(tmp_path / "c.npz", lazy_strings=True))
    assert [(p.file, p.name) for p in loaded] == [("a/x.md", "x"), ("y.MD", "y.MD")]
