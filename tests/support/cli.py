"""Running the real `wikiq` command: in a subprocess, as a user would, or in this process (so
tests can monkeypatch what it opens)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from wikiq.cli import main


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def run_wikiq(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 120) -> CliResult:
    """`wikiq ARGS...` with this interpreter; the test's environment (isolated cache) is kept."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-c", "from wikiq.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def run_in_process(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`wikiq ARGS...` called in this process: (exit code, stdout, stderr)."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
