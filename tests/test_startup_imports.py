"""`wikiq search` starts quickly: the answering layer and its HTTP client load only when a
question is asked, not when the CLI or the Python API is imported."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_cli_and_the_api_leaves_the_http_client_and_models_unloaded() -> None:
    code = (
        "import sys, wikiq.cli, wikiq.wiki; "
        "print(' '.join(sorted(m for m in ('httpx', 'wikiq.llm', 'wikiq.answer.answerer') if m in sys.modules)))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []
