"""Settings from file, environment and flags; which model answers, and never one not chosen."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.answer.conftest import MOON
from tests.support.fake_llm import FakeLLM
from wikiq.config import Config, load_config
from wikiq.errors import ConfigError
from wikiq.models import Models, config_report
from wikiq.wiki import Wiki


def write_config(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_flags_beat_environment_beat_the_config_file(tmp_path: Path) -> None:
    write_config(tmp_path, 'model = "ollama:qwen2.5:7b"\ncontext = "32k"\npages = 5\n')
    env = {"WIKIQ_CONFIG_DIR": str(tmp_path), "WIKIQ_MODEL": "openai:gpt-4.1-mini"}

    config = load_config(env=env, flags={"model": "anthropic:claude-x", "pages": None})

    assert config.model == "anthropic:claude-x" and config.source("model") == "--model"
    assert config.context == 32768
    assert config.get("pages") == 5
    assert config.source("pages") == f"config file {tmp_path / 'config.toml'}"
    assert config.get("page_chars") == 8000 and config.source("page_chars") == "default"
    assert load_config(env=env).source("model") == "environment WIKIQ_MODEL"


def test_a_typo_in_the_config_file_names_the_setting_it_meant(tmp_path: Path) -> None:
    write_config(tmp_path, 'modle = "openai:gpt-4.1-mini"\n')

    with pytest.raises(ConfigError, match=r"Unknown setting 'modle'.*did you mean 'model'"):
        load_config(env={"WIKIQ_CONFIG_DIR": str(tmp_path)})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('model = "unclosed\n', "is not valid TOML"),
        ("pages = -3\n", "'pages' in .* must be a positive whole number"),
        ('detect_ollama = "maybe"\n', "must be true or false"),
    ],
)
def test_a_broken_config_file_is_one_sentence(tmp_path: Path, text: str, expected: str) -> None:
    write_config(tmp_path, text)

    with pytest.raises(ConfigError, match=expected) as caught:
        load_config(env={"WIKIQ_CONFIG_DIR": str(tmp_path)})

    assert "\n" not in str(caught.value)


def test_the_report_shows_where_keys_come_from_but_never_the_key() -> None:
    config = load_config(
        env={"WIKIQ_MODEL": "openai:gpt-4.1-mini", "WIKIQ_API_KEY": "sk-secret-123"}
    )

    report = config_report(config, detect=lambda: None)

    text = repr(report)
    assert "sk-secret-123" not in text
    key = next(row for row in report["settings"] if row["name"] == "api_key")
    assert key["value"] == "(set)" and key["source"] == "environment WIKIQ_API_KEY"
    assert report["answer_model"]["spec"] == "openai:gpt-4.1-mini"
    assert report["answer_model"]["source"] == "environment WIKIQ_MODEL"
    assert report["keyword_model"]["source"] == "same as the answer model"


def test_an_api_key_is_never_sent_to_another_providers_server(fake_llm: FakeLLM) -> None:
    config = load_config(
        env={
            "WIKIQ_MODEL": "local:answer",
            "WIKIQ_KEYWORD_MODEL": "ollama:kw",
            "WIKIQ_API_KEY": "sk-for-the-local-server",
            "WIKIQ_BASE_URL": fake_llm.base_url,
            "WIKIQ_KEYWORD_BASE_URL": fake_llm.root_url,
        }
    )
    models = Models(config, detect=lambda: None)
    from wikiq.llm import Message

    models.answer_model().model.complete([Message("user", "hi")])  # type: ignore[union-attr]
    models.keyword_model(None).complete([Message("user", "hi")])  # type: ignore[union-attr]

    auth = [r.headers.get("authorization") for r in fake_llm.chat_requests]
    assert auth == ["Bearer sk-for-the-local-server", None]


def test_with_nothing_configured_and_no_ollama_the_answer_is_extractive(demo_wiki: Wiki) -> None:
    wiki = Wiki(demo_wiki.location, demo_wiki.catalog, load_config(env={}))
    wiki._models = Models(wiki.config, detect=lambda: None)

    answer = wiki.ask(MOON)

    assert answer.extractive and answer.model is None


def test_with_nothing_configured_a_local_ollama_is_used_and_named(
    demo_wiki: Wiki, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", fake_llm.root_url)
    monkeypatch.setenv("WIKIQ_DETECT_OLLAMA", "1")
    wiki = Wiki(demo_wiki.location, demo_wiki.catalog, load_config())
    wiki._retriever = demo_wiki.retriever
    fake_llm.script("Armstrong [[__WIKI_FOLDER__/entities/neil-armstrong]].")

    answer = wiki.ask(MOON)

    assert answer.model == "ollama:fake-model"
    assert fake_llm.chat_requests[-1].path == "/api/chat"
    assert any("Using ollama:fake-model from the local Ollama server" in n for n in answer.notes)


def test_a_configured_model_is_never_swapped_for_a_detected_one(fake_llm: FakeLLM) -> None:
    config = load_config(env={"WIKIQ_MODEL": "local:mine", "WIKIQ_BASE_URL": fake_llm.base_url})
    asked: list[bool] = []

    choice = Models(config, detect=lambda: asked.append(True) or "ollama:other").answer_model()

    assert choice.spec == "local:mine" and choice.source == "environment WIKIQ_MODEL"
    assert asked == []


def test_detection_can_be_turned_off() -> None:
    config = load_config(env={"WIKIQ_DETECT_OLLAMA": "off"})

    choice = Models(config, detect=lambda: "ollama:qwen2.5:7b").answer_model()

    assert choice.model is None


def test_an_empty_config_means_defaults(tmp_path: Path) -> None:
    config = Config()

    assert config.model is None and config.get("pages") == 8 and not config.keywords_off
