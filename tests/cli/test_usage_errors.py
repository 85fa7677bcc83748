"""Mistyped commands end in the usage line and one "Error:" sentence, exit 2: never an
"unexpected error" and never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_wikiq

DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "demo-vault")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["frobnicate"], "No such command 'frobnicate'"),
        (["search"], "Missing argument 'question'"),
        (["search", "orbit", "-k", "0", "--vault", DEMO], "Invalid value for '-k'"),
        (["search", "orbit", "--bogus"], "No such option: --bogus"),
    ],
)
def test_usage_errors_are_one_sentence_with_exit_code_2(args: list[str], message: str) -> None:
    res = run_wikiq(*args)
    assert res.code == 2
    assert f"Error: {message}" in res.stderr
    assert "unexpected error" not in res.stderr and "Traceback" not in res.stderr
