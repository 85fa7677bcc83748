"""The kernel's file events tell a running watcher whether to scan the vault at all."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from wikiq.vault import file_events
from wikiq.vault.file_events import FileEvents

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def _settle(events: FileEvents) -> bool | None:
    """What the events say once the kernel has queued them (they arrive within a moment)."""
    time.sleep(0.05)
    return events.changed()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    (tmp_path / "wiki" / "concepts").mkdir(parents=True)
    (tmp_path / "wiki" / "concepts" / "orbit.md").write_text("# Orbit\n")
    (tmp_path / ".obsidian").mkdir()
    return tmp_path


def test_a_note_added_edited_moved_or_deleted_is_told_and_nothing_else(vault: Path) -> None:
    events = FileEvents.start(vault)
    assert events is not None
    assert _settle(events) is False  # nothing yet
    concepts = vault / "wiki" / "concepts"
    steps: list[tuple[Callable[[], object], bool]] = [
        (lambda: (concepts / "drift.md").write_text("# Drift\n"), True),  # added
        (lambda: (concepts / "drift.md").write_text("# Drift\n\nSlow.\n"), True),  # edited
        (lambda: (concepts / "drift.md").rename(concepts / "slow-drift.md"), True),  # moved
        (lambda: (concepts / "slow-drift.md").unlink(), True),  # deleted
        (lambda: (concepts / "diagram.png").write_bytes(b"\x89PNG"), False),  # an attachment
        (lambda: (vault / ".obsidian" / "workspace.json").write_text("{}"), False),  # a dot-folder
        (lambda: (concepts / ".orbit.md.swp").write_text("x"), False),  # an editor's temp file
    ]
    for step, told in steps:
        step()
        assert _settle(events) is told
        assert events.changed() is False  # drained
    events.close()


def test_the_events_say_which_notes_were_written_and_whether_anything_else_changed(
    vault: Path,
) -> None:
    events = FileEvents.start(vault)
    assert events is not None
    concepts = vault / "wiki" / "concepts"
    orbit = concepts / "orbit.md"
    with orbit.open("a") as fh:  # an edit: the watcher may take it in place
        fh.write("More.\n")
    assert _settle(events) is True
    assert events.written == {orbit} and events.other is False
    (concepts / "drift.md").write_text("# Drift\n")  # a new note is written too
    assert _settle(events) is True
    assert events.written == {concepts / "drift.md"} and events.other is False
    (concepts / "drift.md").unlink()  # a deleted note is something else
    assert _settle(events) is True and events.other is True
    (concepts / "sub").mkdir()  # and so is a folder
    assert _settle(events) is True and events.other is True
    assert events.changed() is False and events.written == set() and events.other is False
    events.close()


def test_a_folder_made_or_moved_in_is_watched_with_what_it_holds(vault: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    events = FileEvents.start(vault)
    assert events is not None
    (vault / "wiki" / "people").mkdir()
    assert _settle(events) is True
    (vault / "wiki" / "people" / "gagarin.md").write_text("# Gagarin\n")
    assert _settle(events) is True
    outside = tmp_path_factory.mktemp("outside")
    (outside / "deep").mkdir()
    shutil.move(str(outside), vault / "wiki" / "moved")
    assert _settle(events) is True
    (vault / "wiki" / "moved" / "deep" / "note.md").write_text("# Note\n")
    assert _settle(events) is True
    events.close()


def test_an_overflowed_queue_or_a_moved_vault_means_scan(vault: Path) -> None:
    events = FileEvents.start(vault)
    assert events is not None
    overflow = file_events._EVENT.pack(-1, file_events._IN_Q_OVERFLOW, 0, 0)
    events._take(overflow)
    assert events.changed() is None
    events.close()
    moved = FileEvents.start(vault / "wiki")
    assert moved is not None
    (vault / "wiki").rename(vault / "wiki-old")
    assert _settle(moved) is None
    moved.close()


def test_a_running_watcher_scans_only_when_the_events_tell_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conftest import demo_copy
    from wikiq import wiki as wiki_module
    from wikiq.wiki import Wiki

    vault = demo_copy(tmp_path)
    wiki = Wiki.open(vault)
    scans: list[float] = []
    real = wiki_module.vault_changes

    def counting(catalog):  # type: ignore[no-untyped-def]
        scans.append(time.monotonic())
        return real(catalog)

    monkeypatch.setattr(wiki_module, "vault_changes", counting)
    halt = wiki.watch(interval=0.05)
    try:
        time.sleep(1.0)
        assert len(scans) == 1  # the first look, then nothing to scan for
        edited = time.monotonic()
        (vault / "wiki" / "concepts" / "zorblax.md").write_text("# Zorblax\n\nA cold quasar.\n")
        deadline = edited + 2.0
        while time.monotonic() < deadline and not any(
            p.path == "concepts/zorblax" for p in wiki.catalog.pages
        ):
            time.sleep(0.02)
        assert any(p.path == "concepts/zorblax" for p in wiki.catalog.pages)
        assert len(scans) >= 2 and scans[1] - edited < 0.5  # scanned right after the edit
    finally:
        halt()
        wiki.close()


def test_a_vault_on_a_network_file_system_is_scanned_not_watched(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Changes made on another machine send no event here: NFS, SMB, FUSE mounts are scanned.
    import ctypes
    import struct

    class Statfs:
        def __init__(self, f_type: int) -> None:
            self.f_type = f_type

        def statfs(self, path: bytes, buf: ctypes.Array[ctypes.c_char]) -> int:
            struct.pack_into("l", buf, 0, self.f_type)
            return 0

    assert file_events._on_network(Statfs(0x6969), vault)  # type: ignore[arg-type]  # NFS
    assert file_events._on_network(Statfs(0xFE534D42), vault)  # type: ignore[arg-type]  # SMB2
    assert not file_events._on_network(Statfs(0xEF53), vault)  # type: ignore[arg-type]  # ext4
    monkeypatch.setattr(file_events, "_on_network", lambda libc, root: True)
    assert FileEvents.start(vault) is None
