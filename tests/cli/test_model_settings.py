"""Model settings are the same on ask, chat, serve and mcp, keys never come from the command
line, and every error names the flag or variable that fixes it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import run_wikiq
from tests.support.fake_llm import FakeLLM, Reply
from wikiq.config import KEYS, environment_report

SRC = Path(__file__).resolve().parents[2] / "src" / "wikiq"
DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "demo-vault")
README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("command", ["ask", "chat", "serve", "mcp"])
def test_every_answering_command_takes_the_same_model_options(command: str) -> None:
    res = run_wikiq(command, "--help", env={"COLUMNS": "200"})
    assert res.code == 0
    for flag in ("--model", "--base-url", "--api-key-file"):
        assert flag in res.stdout, (command, flag)
    assert "--api-key " not in res.stdout  # a key on the command line is visible to others


def test_the_key_comes_from_a_key_file_and_is_sent_to_the_server(fake_llm: FakeLLM, tmp_path: Path) -> None:
    key = tmp_path / "key.txt"
    key.write_text("sk-from-a-file\n")
    fake_llm.script(Reply.text("Armstrong [[__WIKI_FOLDER__/entities/neil-armstrong]]."))
    res = run_wikiq(
        "ask", "Who walked on the Moon first?", "--vault", DEMO, "--model", "local:fake",
        "--base-url", fake_llm.base_url, "--api-key-file", str(key),
        env={"WIKIQ_KEYWORD_MODEL": "none", "WIKIQ_DETECT_OLLAMA": "0"},
    )
    assert res.code == 0, res.stderr
    assert fake_llm.chat_requests[-1].headers.get("authorization") == "Bearer sk-from-a-file"
    assert "sk-from-a-file" not in res.stdout + res.stderr


def test_a_server_that_wants_a_key_names_the_way_to_give_one(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.error(401, "missing key"))
    res = run_wikiq(
        "ask", "Who walked on the Moon first?", "--vault", DEMO, "--model", "local:fake",
        "--base-url", fake_llm.base_url,
        env={"WIKIQ_KEYWORD_MODEL": "none", "WIKIQ_DETECT_OLLAMA": "0", "WIKIQ_API_KEY": ""},
    )
    assert res.code == 5 and "Traceback" not in res.stderr
    assert "--api-key-file" in res.stderr and "WIKIQ_API_KEY" in res.stderr


def test_a_missing_key_file_is_one_sentence_naming_the_flag(tmp_path: Path) -> None:
    res = run_wikiq(
        "ask", "Who walked on the Moon first?", "--vault", DEMO, "--model", "openai:gpt-4.1-mini",
        "--api-key-file", str(tmp_path / "nope.txt"),
        env={"WIKIQ_KEYWORD_MODEL": "none", "OPENAI_API_KEY": ""},
    )
    assert res.code == 2 and "Traceback" not in res.stderr
    assert "Cannot read the API key file" in res.stderr and "--api-key-file" in res.stderr


def test_doctor_and_the_readme_name_every_variable_wikiq_reads() -> None:
    names = [row["name"] for row in environment_report({})]
    assert "WIKIQ_API_KEY_FILE" in names and "WIKIQ_VAULT" in names and "WIKIQ_EMBED" in names
    readme = README.read_text(encoding="utf-8")
    assert all(f"`{name}`" in readme for name in names)
    res = run_wikiq("doctor", "--vault", DEMO, "--json", env={"WIKIQ_API_KEY": "sk-secret"})
    env = {row["name"]: row["value"] for row in json.loads(res.stdout)["config"]["environment"]}
    assert set(names) <= set(env) and env["WIKIQ_API_KEY"] == "(set, hidden)"
    assert "sk-secret" not in res.stdout


def test_every_wikiq_variable_in_the_code_is_a_setting() -> None:
    # A variable read anywhere else would be missing from `doctor` and from the composition
    # root: every WIKIQ_* name written in the package must be a key of `config.py`.
    named = {
        found
        for path in SRC.rglob("*.py")
        for found in re.findall(r"WIKIQ_[A-Z_]+", path.read_text(encoding="utf-8"))
    }
    assert named <= {key.env for key in KEYS}, named - {key.env for key in KEYS}


def test_doctor_shows_every_setting_with_where_it_came_from() -> None:
    res = run_wikiq(
        "doctor", "--vault", DEMO, "--sources", "off",
        env={"WIKIQ_EMBED": "off", "WIKIQ_PAGES": "5", "COLUMNS": "200"},
    )
    assert res.code == 0, res.stderr
    rows = {line.split()[0]: line for line in res.stdout.splitlines()[1:] if line.startswith("    ")}
    assert {key.name for key in KEYS} <= set(rows)
    assert "(--vault; WIKIQ_VAULT)" in rows["vault"] and "(--sources;" in rows["sources"]
    assert "(environment WIKIQ_EMBED; WIKIQ_EMBED)" in rows["embed"]
    assert "(default; WIKIQ_PAGE_CHARS)" in rows["page_chars"]
    settings = json.loads(run_wikiq("doctor", "--vault", DEMO, "--json").stdout)["config"]
    assert {row["name"] for row in settings["settings"]} == {key.name for key in KEYS}
