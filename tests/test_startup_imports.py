"""`wikiq search` starts quickly: the answering layer and its HTTP client load only when a
question is asked, not when the CLI or the Python API is imported."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_cli_and_the_api_leaves_the_http_client_and_models_unloaded() -> None:
    code = (
        "import sys, wikiq.cli, wikiq.wiki; "
        # `wikiq.llm` itself is a lazy face (embed/ takes `Embedder` from it): what must stay
        # unloaded is the registry with its providers and their HTTP client.
        "print(' '.join(sorted(m for m in ('httpx', 'wikiq.llm.spec', 'wikiq.llm.provider', "
        "'wikiq.answer.answerer') if m in sys.modules)))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []
