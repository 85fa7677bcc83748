"""`wikiq ask`, `chat`, `stats` and doctor's config section, as a user runs them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.cli import run_in_process as run
from tests.support.fake_llm import FakeLLM, Reply

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "demo-vault")
MOON = "Who was the first person to walk on the Moon?"
ANSWER = (
    "Neil Armstrong was first [[__WIKI_FOLDER__/entities/neil-armstrong]], commanding "
    "[[entities/apollo-11]].\n"
)


@pytest.fixture(autouse=True)
def _quiet_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIKIQ_DETECT_OLLAMA", "0")
    monkeypatch.setenv("WIKIQ_KEYWORD_MODEL", "none")  # scripts then hold only answers


def model_args(llm: FakeLLM) -> list[str]:
    return ["--model", "local:fake-model", "--base-url", llm.base_url]


def test_ask_without_a_model_prints_a_cited_extractive_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "ask", "--vault", DEMO, MOON)

    assert code == 0
    first_line = out.splitlines()[0]
    assert "Body+PPR" in first_line and "no model" in first_line
    assert "Extracted from your vault, not generated" in out
    assert "From [[wiki/entities/neil-armstrong]]:" in out
    assert "## References" in out
    assert "Traceback" not in err


def test_ask_with_a_model_streams_a_cited_answer(
    capsys: pytest.CaptureFixture[str], fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text(chunks=[ANSWER[i : i + 9] for i in range(0, len(ANSWER), 9)]))

    code, out, _ = run(capsys, "ask", "--vault", DEMO, *model_args(fake_llm), MOON)

    assert code == 0
    assert "answered by local:fake-model" in out.splitlines()[0]
    assert "[[wiki/entities/neil-armstrong]]" in out and "[[wiki/entities/apollo-11]]" in out
    assert "## References\n\n- [[wiki/entities/neil-armstrong|Neil Armstrong]] — " in out


def test_ask_json_has_answer_citations_references_arm_timings_and_usage(
    capsys: pytest.CaptureFixture[str], fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text(ANSWER, usage=(900, 30)))

    code, out, _ = run(capsys, "ask", "--vault", DEMO, *model_args(fake_llm), "--json", MOON)

    data = json.loads(out)
    assert code == 0
    assert {"answer", "citations", "references", "arm", "pure_llm", "timings_ms", "usage"} <= set(
        data
    )
    assert data["arm"] == "Body+PPR" and data["pure_llm"] is False
    assert [c["path"] for c in data["citations"]] == [
        "entities/neil-armstrong",
        "entities/apollo-11",
    ]
    assert data["references"][0]["link"] == "[[wiki/entities/neil-armstrong|Neil Armstrong]]"
    assert data["usage"]["total_tokens"] == 930
    assert {"retrieve", "assemble", "first_token", "generate", "total"} <= set(data["timings_ms"])


def test_ask_an_uncovered_question_gives_the_banner_and_no_citations(
    capsys: pytest.CaptureFixture[str], fake_llm: FakeLLM
) -> None:
    fake_llm.script("This is not from your wiki. Use [[entities/sourdough]] flour and water.")

    code, out, _ = run(
        capsys, "ask", "--vault", DEMO, *model_args(fake_llm), "How do I fix a flat bicycle tyre?"
    )

    assert code == 0
    assert out.splitlines()[0].startswith("LLM+KB")
    assert "Not from your vault — verify" in out
    assert "[[" not in out


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply.error(401, "Incorrect API key provided."), "requires an API key (HTTP 401)"),
        (Reply.model_not_found(), "was not found"),
        (Reply.context_length(), "too long for the context window"),
    ],
)
def test_model_failures_are_one_sentence_and_a_nonzero_exit(
    capsys: pytest.CaptureFixture[str], fake_llm: FakeLLM, reply: Reply, expected: str
) -> None:
    fake_llm.script(reply)

    code, _, err = run(
        capsys, "ask", "--vault", DEMO, *model_args(fake_llm), "--answer-tokens", "64", MOON
    )

    assert code == 5
    assert expected in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_an_unreachable_model_server_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys,
        "ask",
        "--vault",
        DEMO,
        "--model",
        "local:x",
        "--base-url",
        "http://127.0.0.1:9/v1",
        MOON,
    )

    assert code == 5
    assert "Could not reach the model server at http://127.0.0.1:9/v1" in err
    assert "Traceback" not in err


def test_a_context_too_small_is_one_sentence(
    capsys: pytest.CaptureFixture[str], fake_llm: FakeLLM
) -> None:
    code, _, err = run(
        capsys, "ask", "--vault", DEMO, *model_args(fake_llm), "--context", "512", MOON
    )

    assert code == 5 and "is too small" in err
    assert fake_llm.chat_requests == []


def test_a_stream_cut_mid_answer_keeps_what_was_shown_and_says_why(
    capsys: pytest.CaptureFixture[str], fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.dropped("Neil Armstrong ", "was the first"))

    code, out, err = run(capsys, "ask", "--vault", DEMO, *model_args(fake_llm), MOON)

    assert code == 5
    assert "Neil Armstrong was the first\n" in out
    assert "cut the answer off mid-stream" in err


def test_chat_answers_follow_ups_with_history_and_fresh_retrieval(
    capsys: pytest.CaptureFixture[str], fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_llm.script(ANSWER, "Yuri Gagarin flew first [[__WIKI_FOLDER__/entities/yuri-gagarin]].")
    lines = iter([MOON, "", "And who was the first human in space?", "/exit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))

    code, out, _ = run(capsys, "chat", "--vault", DEMO, *model_args(fake_llm))

    assert code == 0
    assert "[[wiki/entities/neil-armstrong]]" in out and "[[wiki/entities/yuri-gagarin]]" in out
    second = fake_llm.chat_requests[1].json["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert "[[__WIKI_FOLDER__/entities/neil-armstrong]]" in second[2]["content"]
    assert 'path="__WIKI_FOLDER__/entities/yuri-gagarin"' in second[3]["content"]


def test_chat_survives_a_failed_answer_and_ends_on_eof(
    capsys: pytest.CaptureFixture[str], fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_llm.script(Reply.model_not_found(), ANSWER)
    lines = iter([MOON, MOON])

    def read(prompt: str = "") -> str:
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", read)

    code, out, err = run(capsys, "chat", "--vault", DEMO, *model_args(fake_llm))

    assert code == 0
    assert "The model 'fake-model' was not found" in err
    assert "[[wiki/entities/neil-armstrong]]" in out


def test_stats_counts_questions_arms_and_the_pure_llm_rate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for question in (MOON, "How do I fix a flat bicycle tyre?", "What is delta-v?"):
        assert run(capsys, "ask", "--vault", DEMO, question)[0] == 0

    code, out, _ = run(capsys, "stats", "--json")
    data = json.loads(out)

    assert code == 0
    assert data["questions"] == 3 and data["pure_llm"] == 1
    assert data["pure_llm_rate"] == pytest.approx(1 / 3, abs=1e-3)
    assert sum(data["arms"].values()) == 3 and data["arms"]["LLM+KB"] == 1
    assert data["median_ms"]["retrieve"] > 0
    assert data["recent_uncovered"] == ["How do I fix a flat bicycle tyre?"]
    _, text, _ = run(capsys, "stats")
    assert "Recent questions your vault did not cover" in text and "33%" in text


def test_doctor_shows_the_effective_configuration_without_keys(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIKIQ_MODEL", "openai:gpt-4.1-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-do-not-print")
    monkeypatch.setenv("WIKIQ_API_KEY", "sk-other-do-not-print")

    code, out, _ = run(capsys, "doctor", "--vault", DEMO)
    _, raw, _ = run(capsys, "doctor", "--vault", DEMO, "--json")

    assert code == 0
    assert "openai:gpt-4.1-mini (environment WIKIQ_MODEL" in out
    assert "do-not-print" not in out and "do-not-print" not in raw
    config = json.loads(raw)["config"]
    assert config["answer_model"]["source"] == "environment WIKIQ_MODEL"
    assert config["keyword_model"]["spec"] is None  # WIKIQ_KEYWORD_MODEL=none


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("ask", "chat", "stats"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0 and "Examples:" in out, command


def test_ctrl_c_stops_a_streaming_answer_cleanly(fake_llm: FakeLLM, tmp_path: Path) -> None:
    pieces = ["Neil ", "Armstrong ", "was ", "the ", "first ", "person ", "to ", "walk."]
    reply = Reply.text(chunks=pieces, delay=0.4)
    fake_llm.responder = lambda body: reply  # every chat request gets the slow answer
    env = {
        **os.environ,
        "WIKIQ_CACHE_DIR": str(tmp_path / "cache"),
        "WIKIQ_CONFIG_DIR": str(tmp_path / "config"),
        "WIKIQ_DETECT_OLLAMA": "0",
        "WIKIQ_KEYWORD_MODEL": "none",
        "PYTHONUNBUFFERED": "1",
    }
    # A shell that starts a job in the background (`make test &`, a CI runner) has it ignore
    # SIGINT; a child inherits an ignored signal, and Python then installs no Ctrl-C handler,
    # so the answer would run to its end. A handler (not "ignore") is reset to the default in
    # the child, as for a process started from a terminal.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "wikiq", "ask", "--vault", DEMO, *model_args(fake_llm), MOON],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
    finally:
        signal.signal(signal.SIGINT, inherited)
    # Interrupt once the answer is visibly streaming (what the user sees, not what the server
    # sent: on a loaded machine the client can lag a chunk or two behind).
    shown: list[str] = []
    reader = threading.Thread(target=lambda: shown.extend(iter(lambda: proc.stdout.read(1), "")))
    reader.start()
    deadline = time.monotonic() + 30
    while "Neil" not in "".join(shown) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    err = proc.stderr.read()
    proc.wait(timeout=30)
    reader.join(timeout=30)
    out = "".join(shown)

    requests = [f"{r.method} {r.path}" for r in fake_llm.requests]
    assert proc.returncode == 130, f"exit {proc.returncode}; shown {out!r}; stderr {err!r}; {requests}"
    assert "Neil" in out and "walk." not in out
    assert "Stopped." in err and "Traceback" not in err


def test_with_nothing_configured_a_local_ollama_answers_and_is_named(
    capsys: pytest.CaptureFixture[str], fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIKIQ_DETECT_OLLAMA", "1")
    monkeypatch.setenv("OLLAMA_HOST", fake_llm.root_url)
    fake_llm.script(ANSWER)

    code, out, err = run(capsys, "ask", "--vault", DEMO, MOON)

    assert code == 0
    assert "answered by ollama:fake-model" in out.splitlines()[0]
    assert "Using ollama:fake-model from the local Ollama server" in err
    assert fake_llm.chat_requests[-1].path == "/api/chat"
