"""Ollama (native), Anthropic and Gemini round trips against the fake server's real endpoints."""

from __future__ import annotations

import pytest

from tests.support.fake_llm import FakeLLM, Reply
from wikiq.errors import ModelError
from wikiq.llm import Message, RetryPolicy
from wikiq.llm.anthropic import AnthropicModel
from wikiq.llm.gemini import GeminiModel
from wikiq.llm.ollama import OllamaModel

CHAT = [
    Message("system", "Answer from the vault only."),
    Message("user", "What is heart failure?"),
    Message("assistant", "A condition."),
    Message("user", "Say more."),
]


def make(
    kind: str, fake: FakeLLM, retry: RetryPolicy
) -> OllamaModel | AnthropicModel | GeminiModel:
    if kind == "ollama":
        return OllamaModel("qwen2.5:7b", base_url=fake.root_url, retry=retry)
    if kind == "anthropic":
        return AnthropicModel("claude-x", api_key="sk-ant-k", base_url=fake.root_url, retry=retry)
    return GeminiModel("gemini-2.5-flash", api_key="g-key", base_url=fake.gemini_url, retry=retry)


PROVIDERS = ["ollama", "anthropic", "gemini"]


@pytest.mark.parametrize("kind", PROVIDERS)
def test_complete_returns_text_and_usage(
    kind: str, fake_llm: FakeLLM, fast_retry: RetryPolicy
) -> None:
    fake_llm.script(Reply.text("It is a chronic condition.", usage=(40, 6)))

    done = make(kind, fake_llm, fast_retry).complete(CHAT, max_tokens=100, temperature=0.1)

    assert done.text == "It is a chronic condition."
    assert (done.usage.prompt_tokens, done.usage.completion_tokens) == (40, 6)


@pytest.mark.parametrize("kind", PROVIDERS)
def test_stream_yields_chunks_in_order_with_usage(
    kind: str, fake_llm: FakeLLM, fast_retry: RetryPolicy
) -> None:
    fake_llm.script(Reply.text(chunks=["It is ", "a chronic ", "condition."], usage=(40, 6)))

    stream = make(kind, fake_llm, fast_retry).stream(CHAT)

    assert list(stream) == ["It is ", "a chronic ", "condition."]
    assert (stream.usage.prompt_tokens, stream.usage.completion_tokens) == (40, 6)


@pytest.mark.parametrize("kind", PROVIDERS)
def test_reasoning_is_hidden_in_every_dialect(
    kind: str, fake_llm: FakeLLM, fast_retry: RetryPolicy
) -> None:
    model = make(kind, fake_llm, fast_retry)
    fake_llm.script(
        Reply.text("Answer.", reasoning="private reasoning"),
        Reply.text(chunks=["Ans", "wer."], reasoning="private reasoning"),
        Reply.thinking(
            "tagged reasoning", "Answer.", chunks=["<think>tagged", " reasoning</think>Answer."]
        ),
    )

    assert model.complete(CHAT).text == "Answer."
    assert "".join(model.stream(CHAT)) == "Answer."
    assert "".join(model.stream(CHAT)) == "Answer."


@pytest.mark.parametrize("kind", PROVIDERS)
def test_stream_cut_off_after_text_is_an_error(
    kind: str, fake_llm: FakeLLM, fast_retry: RetryPolicy
) -> None:
    fake_llm.script(Reply.dropped("It is ", "a chro"))

    with pytest.raises(ModelError, match="cut the answer off mid-stream"):
        list(make(kind, fake_llm, fast_retry).stream(CHAT))


def test_ollama_request_uses_the_native_shape(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> None:
    model = make("ollama", fake_llm, fast_retry)

    model.complete(CHAT, max_tokens=100, temperature=0.1, json_mode=True)

    sent = fake_llm.chat_requests[0].json
    assert sent["messages"][0] == {"role": "system", "content": "Answer from the vault only."}
    assert sent["stream"] is False and sent["format"] == "json"
    assert sent["options"] == {"num_ctx": 32768, "num_predict": 100, "temperature": 0.1}


def test_ollama_missing_model_suggests_pulling_it(
    fake_llm: FakeLLM, fast_retry: RetryPolicy
) -> None:
    fake_llm.script(Reply.error(404, 'model "qwen2.5:7b" not found, try pulling it first'))

    with pytest.raises(ModelError) as caught:
        make("ollama", fake_llm, fast_retry).complete(CHAT)

    assert "The model 'qwen2.5:7b' was not found" in str(caught.value)
    assert "ollama pull qwen2.5:7b" in str(caught.value)


def test_anthropic_sends_system_at_the_top_level_with_its_headers(
    fake_llm: FakeLLM, fast_retry: RetryPolicy
) -> None:
    make("anthropic", fake_llm, fast_retry).complete(CHAT, temperature=0.1)

    request = fake_llm.chat_requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant-k"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.json["system"] == "Answer from the vault only."
    assert [m["role"] for m in request.json["messages"]] == ["user", "assistant", "user"]
    assert request.json["max_tokens"] > 0 and request.json["temperature"] == 0.1


def test_anthropic_overloaded_then_success(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> None:
    fake_llm.script(Reply.error(529, "Overloaded"), Reply.text("ok"))

    assert make("anthropic", fake_llm, fast_retry).complete(CHAT).text == "ok"


def test_anthropic_prompt_too_long_is_a_context_error(
    fake_llm: FakeLLM, fast_retry: RetryPolicy
) -> None:
    fake_llm.script(Reply.error(400, "prompt is too long: 210000 tokens > 200000 maximum"))

    with pytest.raises(ModelError, match="too long for the context window of claude-x"):
        list(make("anthropic", fake_llm, fast_retry).stream(CHAT))


def test_gemini_request_shape_and_key_header(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> None:
    make("gemini", fake_llm, fast_retry).complete(CHAT, max_tokens=64, json_mode=True)

    request = fake_llm.chat_requests[0]
    assert request.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert request.headers["x-goog-api-key"] == "g-key"
    assert request.json["systemInstruction"] == {"parts": [{"text": "Answer from the vault only."}]}
    assert [c["role"] for c in request.json["contents"]] == ["user", "model", "user"]
    assert request.json["generationConfig"] == {
        "maxOutputTokens": 64,
        "responseMimeType": "application/json",
    }


def test_gemini_streams_from_the_sse_endpoint(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> None:
    list(make("gemini", fake_llm, fast_retry).stream(CHAT))

    assert fake_llm.chat_requests[0].path.endswith(":streamGenerateContent")


def test_gemini_invalid_key_answered_with_400_is_a_bad_key(
    fake_llm: FakeLLM, fast_retry: RetryPolicy
) -> None:
    fake_llm.script(
        Reply.error(400, "API key not valid. Please pass a valid API key.", code="INVALID_ARGUMENT")
    )

    with pytest.raises(ModelError) as caught:
        make("gemini", fake_llm, fast_retry).complete(CHAT)

    assert "rejected the API key" in str(caught.value) and "GEMINI_API_KEY" in str(caught.value)
    assert "g-key" not in str(caught.value)
