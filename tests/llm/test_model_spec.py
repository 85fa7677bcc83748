"""Model specs, presets, keys and addresses from the environment, context windows."""

from __future__ import annotations

import pytest

from tests.support.fake_llm import FakeLLM, Reply
from wikiq.errors import ModelError
from wikiq.llm import Message, ModelSpec, open_model, parse_model_spec
from wikiq.llm.addresses import ollama_base_url
from wikiq.llm.anthropic import AnthropicModel
from wikiq.llm.gemini import GeminiModel
from wikiq.llm.ollama import OllamaModel
from wikiq.llm.openai_compat import OpenAICompatModel
from wikiq.llm.provider import HttpChatModel

HELLO = [Message("user", "hello")]
PROVIDER_KEYS = (
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY",
    "OLLAMA_HOST",
    "ANTHROPIC_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*PROVIDER_KEYS, "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("spec", "provider", "model"),
    [
        ("openai:gpt-4.1-mini", "openai", "gpt-4.1-mini"),
        ("ollama:qwen2.5:7b", "ollama", "qwen2.5:7b"),
        ("anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"),
        ("gemini:gemini-2.5-flash", "gemini", "gemini-2.5-flash"),
        (
            "openrouter:meta-llama/llama-3.1-8b-instruct",
            "openrouter",
            "meta-llama/llama-3.1-8b-instruct",
        ),
        ("deepseek:deepseek-chat", "deepseek", "deepseek-chat"),
        ("lmstudio:qwen2.5-7b-instruct", "lmstudio", "qwen2.5-7b-instruct"),
        ("llamacpp:", "llamacpp", ""),
        ("local:smollm2", "local", "smollm2"),
        ("Google:gemini-2.5-pro", "gemini", "gemini-2.5-pro"),
        ("gpt-4o", "openai", "gpt-4o"),
        ("claude-3-5-haiku-latest", "anthropic", "claude-3-5-haiku-latest"),
    ],
)
def test_parse_model_spec(spec: str, provider: str, model: str) -> None:
    assert parse_model_spec(spec) == ModelSpec(provider, model)


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("qwen2.5:7b", "Unknown model provider 'qwen2.5'.*ollama:qwen2.5:7b"),
        ("opnai:gpt-4o", "Unknown model provider 'opnai'.*did you mean openai:gpt-4o"),
        ("mystery-model", "names no provider.*provider:model"),
        ("openai:", "names no model"),
    ],
)
def test_bad_specs_explain_the_format(spec: str, says: str) -> None:
    with pytest.raises(ModelError, match=says):
        parse_model_spec(spec)


def test_openai_honours_openai_base_url_and_api_key(
    fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj_1")

    model = open_model("openai:gpt-4.1-mini")

    assert model.complete(HELLO).text == "This is the fake model's answer."
    headers = fake_llm.requests[0].headers
    assert headers["authorization"] == "Bearer sk-from-env"
    assert headers["openai-project"] == "proj_1"


def test_arguments_win_over_the_environment(
    fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")

    model = open_model("openai:gpt-4.1-mini", base_url=fake_llm.base_url, api_key="sk-arg")
    model.complete(HELLO)

    assert fake_llm.requests[0].headers["authorization"] == "Bearer sk-arg"


def test_hosted_provider_without_a_key_says_which_variable_to_set() -> None:
    with pytest.raises(ModelError, match=r"^No API key for openai: set OPENAI_API_KEY\.$"):
        open_model("openai:gpt-4.1-mini")
    with pytest.raises(ModelError, match="GOOGLE_API_KEY or GEMINI_API_KEY"):
        open_model("gemini:gemini-2.5-flash")


def test_openai_compatible_server_elsewhere_needs_no_key(fake_llm: FakeLLM) -> None:
    model = open_model("openai:whatever", base_url=fake_llm.base_url)
    model.complete(HELLO)

    assert "authorization" not in fake_llm.requests[0].headers


@pytest.mark.parametrize(
    ("spec", "env", "kind", "base_url"),
    [
        (
            "openrouter:x/y",
            {"OPENROUTER_API_KEY": "k1"},
            OpenAICompatModel,
            "https://openrouter.ai/api/v1",
        ),
        (
            "deepseek:deepseek-chat",
            {"DEEPSEEK_API_KEY": "k2"},
            OpenAICompatModel,
            "https://api.deepseek.com",
        ),
        ("lmstudio:m", {}, OpenAICompatModel, "http://127.0.0.1:1234/v1"),
        ("local:", {}, OpenAICompatModel, "http://127.0.0.1:8080/v1"),
        ("ollama:qwen2.5:7b", {}, OllamaModel, "http://127.0.0.1:11434"),
        (
            "ollama:qwen2.5:7b",
            {"OLLAMA_HOST": "0.0.0.0:9999"},
            OllamaModel,
            "http://127.0.0.1:9999",
        ),
        (
            "anthropic:claude-x",
            {"ANTHROPIC_API_KEY": "k3"},
            AnthropicModel,
            "https://api.anthropic.com",
        ),
        (
            "gemini:gemini-2.5-flash",
            {"GEMINI_API_KEY": "k4"},
            GeminiModel,
            "https://generativelanguage.googleapis.com/v1beta",
        ),
    ],
)
def test_presets_open_the_right_provider_at_the_right_address(
    spec: str, env: dict[str, str], kind: type, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    model = open_model(spec)

    assert isinstance(model, kind) and isinstance(model, HttpChatModel)
    assert model.base_url == base_url
    assert model.name == spec.rstrip(":") + (":local" if spec == "local:" else "")


def test_gemini_prefers_google_api_key_like_the_google_sdk(
    fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-key")
    monkeypatch.setenv("GOOGLE_API_KEY", "google-key")

    open_model("gemini:gemini-2.5-flash", base_url=fake_llm.gemini_url).complete(HELLO)

    assert fake_llm.requests[0].headers["x-goog-api-key"] == "google-key"


def test_keys_never_appear_in_reprs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value")

    model = open_model("anthropic:claude-sonnet-4-5")

    assert "sk-ant-secret-value" not in repr(model)
    assert "sk-ant-secret-value" not in repr(vars(model))


@pytest.mark.parametrize(
    ("spec", "window"),
    [
        ("openai:gpt-4.1-mini", 1_047_576),
        ("openai:gpt-4o-mini", 128_000),
        ("anthropic:claude-3-5-haiku-latest", 200_000),
        ("gemini:gemini-2.5-flash", 1_048_576),
        ("lmstudio:qwen2.5-7b-instruct", 32_768),
        ("lmstudio:meta-llama-3-8b-instruct", 8_192),
        ("lmstudio:llama-3.1-8b-instruct", 131_072),
        ("local:some-unknown-gguf", 8_192),
        ("openrouter:anthropic/claude-3.5-sonnet", 200_000),
    ],
)
def test_default_context_windows(spec: str, window: int, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.setenv(name, "k")

    assert open_model(spec).context_window == window
    assert open_model(spec, context_window=4096).context_window == 4096


def test_openai_spec_pointed_at_another_server_assumes_a_local_window(fake_llm: FakeLLM) -> None:
    assert open_model("openai:my-finetune", base_url=fake_llm.base_url).context_window == 8_192
    assert open_model("openai:gpt-4o", base_url=fake_llm.base_url).context_window == 128_000


def test_ollama_asks_the_server_for_the_context_window_and_uses_it(fake_llm: FakeLLM) -> None:
    fake_llm.context_length = 16_384
    model = open_model("ollama:qwen2.5:7b", base_url=fake_llm.root_url)

    model.complete(HELLO)

    assert model.context_window == 16_384
    chat = fake_llm.chat_requests[0].json
    assert chat["options"]["num_ctx"] == 16_384


def test_ollama_window_is_capped_unless_asked_for(fake_llm: FakeLLM) -> None:
    fake_llm.context_length = 131_072

    assert open_model("ollama:llama3.1:8b", base_url=fake_llm.root_url).context_window == 32_768
    explicit = open_model("ollama:llama3.1:8b", base_url=fake_llm.root_url, context_window=65_536)
    assert explicit.context_window == 65_536


def test_ollama_falls_back_to_the_family_table_when_the_server_says_nothing() -> None:
    model = OllamaModel("llama3:8b", base_url="http://127.0.0.1:9", ask_server_for_context=False)

    assert model.context_window == 8_192


def test_ollama_base_url_accepts_pasted_v1_address(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.text("native"))

    model = open_model("ollama:qwen2.5:7b", base_url=fake_llm.base_url)

    assert model.complete(HELLO).text == "native"
    assert fake_llm.chat_requests[0].path == "/api/chat"


@pytest.mark.parametrize(
    ("host", "url"),
    [
        (None, "http://127.0.0.1:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("0.0.0.0:9000", "http://127.0.0.1:9000"),
        ("gpu-box:11434", "http://gpu-box:11434"),
        ("https://ollama.example.com", "https://ollama.example.com:443"),
        ("http://[::1]:5000/", "http://[::1]:5000"),
        ("http://proxy:80/ollama", "http://proxy:80/ollama"),
    ],
)
def test_ollama_host_values(host: str | None, url: str) -> None:
    assert ollama_base_url(host) == url
