"""`wikiq doctor` lists the cache folders of every vault, and `--prune-caches` removes the
ones left behind by vaults that no longer exist, and nothing else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import demo_copy
from tests.support.cli import run_in_process as run


def _cache_of(cache: Path, vault: Path) -> Path:
    [folder] = [p for p in (cache / "vaults").iterdir() if p.name.startswith(vault.name + "-")]
    return folder


def test_doctor_lists_the_caches_a_deleted_vault_left_and_prunes_only_those(
    tmp_path: Path, _isolated_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = demo_copy(tmp_path / "kept")
    gone = demo_copy(tmp_path / "gone").rename(tmp_path / "gone" / "old-vault")
    for vault in (kept, gone):
        assert run(capsys, "search", "Moon", "--vault", str(vault))[0] == 0
    gone_cache = _cache_of(_isolated_cache, gone)
    shutil.rmtree(gone)  # the vault is deleted; its cache folder stays behind

    code, out, _ = run(capsys, "doctor", "--vault", str(kept))
    assert code == 0
    assert "1 left behind by vaults that no longer exist" in out
    assert str(gone) in out and "wikiq doctor --prune-caches" in out
    assert gone_cache.is_dir()  # listing removes nothing

    code, raw, _ = run(capsys, "doctor", "--vault", str(kept), "--json", "--prune-caches")
    report = json.loads(raw)["caches"]
    assert code == 0
    assert [f["vault"] for f in report["removed"]] == [str(gone)]
    assert [f["vault"] for f in report["folders"]] == [str(kept)]
    assert not gone_cache.exists()
    assert _cache_of(_isolated_cache, kept).is_dir()  # the open vault's cache is kept
    assert (kept / "wiki" / "index.md").is_file()  # and its vault untouched


def test_a_cache_folder_no_catalog_describes_is_never_removed(
    tmp_path: Path, _isolated_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = demo_copy(tmp_path)
    stranger = _isolated_cache / "vaults" / "unknown-0123456789ab"
    stranger.mkdir(parents=True)
    (stranger / "catalog.npz").write_bytes(b"not a cache file")
    code, raw, _ = run(capsys, "doctor", "--vault", str(vault), "--json", "--prune-caches")
    report = json.loads(raw)["caches"]
    assert code == 0 and report["removed"] == []
    assert stranger.is_dir()
    assert {f["vault"] for f in report["folders"]} == {str(vault), None}
