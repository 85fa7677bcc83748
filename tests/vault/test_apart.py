"""Work done in a child process: its result and progress come back; a failure or a caller
that gives up leaves no child behind."""

from __future__ import annotations

import os
import time

import pytest

from wikiq.vault.apart import Progress, run_apart


def _counting(report: Progress | None) -> tuple[int, int]:
    for k in range(1, 4):
        if report is not None:
            report(k, 3)
    return os.getpid(), 42


def test_the_child_s_result_and_progress_come_back() -> None:
    seen: list[tuple[int, int]] = []
    result = run_apart(_counting, lambda done, total: seen.append((done, total)))
    assert result is not None
    pid, answer = result
    assert pid != os.getpid() and answer == 42
    assert seen == [(1, 3), (2, 3), (3, 3)]


def _failing(report: Progress | None) -> int:
    raise MemoryError("out of memory")


def test_a_failing_child_gives_none_so_the_caller_does_the_work_itself() -> None:
    assert run_apart(_failing, None) is None


def _slow(report: Progress | None) -> int:
    if report is not None:
        report(os.getpid(), 100)  # "done" is the child's process number, for the test
    time.sleep(60)
    return 1


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads Linux's /proc")
def test_a_caller_that_gives_up_stops_the_child() -> None:
    child: list[int] = []

    def give_up(pid: int, total: int) -> None:
        child.append(pid)
        assert _alive(pid)
        raise KeyboardInterrupt

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_apart(_slow, give_up)
    assert time.monotonic() - start < 30  # not the child's minute
    assert child and child[0] != os.getpid() and not _alive(child[0])


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


def test_a_process_that_exits_while_a_thread_waits_for_a_child_stops_the_child() -> None:
    """A server stopped while its watcher's refresh works in a child exits at once, instead of
    multiprocessing waiting at exit for work no one will use (a minute at a million pages)."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import signal, threading, time
        from wikiq.vault.apart import run_apart

        # As a web server's: SIGTERM only noted (a forked child keeps the handler).
        signal.signal(signal.SIGTERM, lambda *_: None)

        def slow(report):
            time.sleep(60)
            return 1

        threading.Thread(target=run_apart, args=(slow, None), daemon=True).start()
        time.sleep(0.5)  # the child is working; the main thread ends here
        """
    )
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", script], check=True, timeout=50)
    assert time.monotonic() - started < 15


def test_a_child_ends_when_its_parent_is_killed(tmp_path) -> None:
    """A server killed outright (SIGKILL: no exit hook runs) during a refresh its watcher gave
    to a child must not leave the child working on, holding the server's port (Linux)."""
    import signal
    import subprocess
    import sys
    import textwrap

    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    child_pid = tmp_path / "child.pid"
    script = textwrap.dedent(
        f"""
        import os, time
        from wikiq.vault.apart import run_apart

        def slow(report):
            open({str(child_pid)!r}, "w").write(str(os.getpid()))
            time.sleep(60)
            return 1

        run_apart(slow, None)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 30
        while not (child_pid.exists() and child_pid.read_text()):
            assert time.monotonic() < deadline, "the child never started"
            time.sleep(0.05)
        pid = int(child_pid.read_text())
        assert _alive(pid)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), "the child outlived its killed parent"
    finally:
        parent.kill()
