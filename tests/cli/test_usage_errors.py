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


@pytest.mark.parametrize("command", ["ask", "search"])
def test_an_empty_question_is_a_usage_error_not_an_answer(command: str) -> None:
    res = run_wikiq(command, "   ", "--vault", DEMO)
    assert res.code == 2 and "The question is empty" in res.stderr
    assert "LLM+KB" not in res.stdout and "Traceback" not in res.stderr


def test_no_vault_keeps_the_skills_words_and_names_the_flag_and_the_variable(tmp_path: Path) -> None:
    env = {"WIKIQ_VAULT": "", "HOME": str(tmp_path)}
    res = run_wikiq("search", "orbit", cwd=tmp_path, env=env)
    assert res.code == 2
    assert res.stderr.startswith("No LLM Wiki vault is configured. Create a .llm-wiki.json")
    assert res.stderr.rstrip().endswith("Or name the vault with --vault PATH, or set WIKIQ_VAULT.")


def test_a_port_in_use_is_one_sentence_that_suggests_another() -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        res = run_wikiq("serve", "--vault", DEMO, "--port", str(port), timeout=60)
    assert res.code == 2 and "Traceback" not in res.stderr and "Errno" not in res.stderr
    assert f"Port {port} on 127.0.0.1 is already in use" in res.stderr and "--port" in res.stderr
    assert "Open http" not in res.stderr
