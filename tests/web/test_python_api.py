"""The Python API the README documents: `from wikiq import Wiki`, then search and ask."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-vault"


def test_import_wikiq_is_light_and_names_load_on_first_use() -> None:
    code = (
        "import sys, wikiq\n"
        "heavy = [m for m in ('wikiq.wiki', 'numpy', 'scipy', 'mcp', 'fastapi') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "from wikiq import Wiki, Answer, Turn, Retrieval\n"
        "assert Wiki.__module__ == 'wikiq.wiki' and Answer.__module__ == 'wikiq.answer.result'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_search_and_ask_return_the_dataclasses_the_cli_prints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WIKIQ_DETECT_OLLAMA", "0")
    from wikiq import Answer, Retrieval, Turn, Wiki

    wiki = Wiki.open(DEMO)
    found = wiki.search("gravity assist")
    answer = wiki.ask("How does a gravity assist work?")
    follow_up = wiki.ask("Which probes used one?", history=[answer.turn()])

    assert isinstance(found, Retrieval) and found.results[0].path == "concepts/gravity-assist"
    assert isinstance(answer, Answer) and answer.extractive  # no model configured
    assert "concepts/gravity-assist" in [c.path for c in answer.citations]
    assert isinstance(answer.turn(), Turn)
    assert isinstance(follow_up, Answer)
    with pytest.raises(AttributeError):
        import wikiq

        wikiq.NoSuchThing  # noqa: B018
