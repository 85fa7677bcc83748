"""The vault's change scan: every page file in name order with its (size, mtime), whether the
files are stat'ed here or by forked children, and whatever those children do."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.vaults import VaultFactory
from wikiq.vault import stat_files
from wikiq.vault.catalog import open_catalog
from wikiq.vault.locate import locate_vault
from wikiq.vault.scan import scan_vault

# Names whose order a folder-by-folder listing could get wrong: "-" and "." sort before "/",
# so "a-b/…" and "a.md" come before "a/…"; capitals before small letters; non-ASCII last.
TRICKY = [
    "a.md",
    "a-b/x.md",
    "a/b.md",
    "a/c/d.md",
    "a/c.md",
    "a/e.md",
    "a!/z.md",
    "B.md",
    "b/deep/er/page.md",
    "b/é.md",
    "z 1.md",
    "z.md",
    "日本.md",
]


def _vault(make_vault: VaultFactory) -> Path:
    files: dict[str, str | bytes] = {
        name: f"# {name}\n\n{'x' * i}\n" for i, name in enumerate(TRICKY)
    }
    files["notes.txt"] = "not a page"
    files[".obsidian/app.md"] = "not a page"
    return make_vault(files)


def _scan(root: Path) -> tuple[list[str], list[int], list[int]]:
    scan = scan_vault(locate_vault(root))
    return scan.names, scan.sizes.tolist(), scan.mtimes_ns.tolist()


def test_files_come_in_name_order_with_their_sizes_and_times(make_vault: VaultFactory) -> None:
    root = _vault(make_vault)
    names, sizes, mtimes = _scan(root)
    assert names == sorted(TRICKY)
    for name, size, mtime in zip(names, sizes, mtimes, strict=True):
        st = (root / name).stat()
        assert (size, mtime) == (st.st_size, st.st_mtime_ns)


def test_children_that_stat_a_folder_each_give_the_same_scan(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _vault(make_vault)
    here = _scan(root)
    forks: list[int] = []
    real_fork = os.fork

    def counted_fork() -> int:
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(stat_files, "BATCH_FILES", 1)  # every folder's files go to a child
    monkeypatch.setattr(stat_files.os, "fork", counted_fork)
    assert _scan(root) == here
    assert len(forks) >= 2  # the work really was done by children


_FORK, _WAITPID = os.fork, os.waitpid


def _child_that_dies() -> int:
    pid = _FORK()
    if pid == 0:
        os._exit(3)  # before writing anything
    return pid


def _no_child() -> int:
    raise OSError(11, "Resource temporarily unavailable")


def _reaped_elsewhere(pid: int, options: int) -> tuple[int, int]:
    # A host application's SIGCHLD handler may wait for every child before the scan does.
    _WAITPID(pid, 0)
    raise ChildProcessError(10, "No child processes")


@pytest.mark.parametrize(
    ("call", "stand_in"),
    [("fork", _child_that_dies), ("fork", _no_child), ("waitpid", _reaped_elsewhere)],
    ids=["child dies", "no child", "reaped elsewhere"],
)
def test_a_child_that_fails_leaves_its_files_to_this_process(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch, call: str, stand_in: object
) -> None:
    root = _vault(make_vault)
    here = _scan(root)
    monkeypatch.setattr(stat_files, "BATCH_FILES", 1)
    monkeypatch.setattr(stat_files.os, call, stand_in)
    assert _scan(root) == here


def test_a_file_deleted_between_listing_and_stat_is_left_out(
    make_vault: VaultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _vault(make_vault)
    real = stat_files._stat_folder

    def deleting_first(folder: stat_files.Folder, *args: object) -> None:
        if folder.prefix == "a/c/":
            (root / "a/c/d.md").unlink(missing_ok=True)
        real(folder, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(stat_files, "_stat_folder", deleting_first)
    names, sizes, _ = _scan(root)
    assert names == sorted(set(TRICKY) - {"a/c/d.md"})
    assert min(sizes) > 0


def test_an_unchanged_vault_opens_from_its_cache_and_an_edit_is_seen(
    make_vault: VaultFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _vault(make_vault)
    location = locate_vault(root)
    cache = tmp_path / "cache"
    assert open_catalog(location, cache_dir=cache).files_read == len(TRICKY)
    monkeypatch.setattr(stat_files, "BATCH_FILES", 1)
    assert open_catalog(location, cache_dir=cache).files_read == 0
    page = root / "a/c.md"
    page.write_text("# a/c\n\nedited, and longer than before\n", encoding="utf-8")
    reopened = open_catalog(location, cache_dir=cache)
    assert reopened.files_read == 1
    assert any(p.file == "a/c.md" and p.size == page.stat().st_size for p in reopened.pages)
