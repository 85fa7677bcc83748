"""Running the real `wikiq` command in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


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
