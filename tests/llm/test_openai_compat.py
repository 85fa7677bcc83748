"""The OpenAI-compatible provider against a real local HTTP server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.fake_llm import FakeLLM, Reply
from wikiq.llm import ChatModel, Message, RetryPolicy, open_model
from wikiq.llm.openai_compat import OpenAICompatModel

QUESTION = [Message("system", "Answer briefly."), Message("user", "What is the capital of France?")]


@pytest.fixture
def model(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> OpenAICompatModel:
    return OpenAICompatModel(
        "fake-model", base_url=fake_llm.base_url, label="local", retry=fast_retry
    )


def test_model_satisfies_the_chat_model_protocol(model: OpenAICompatModel) -> None:
    assert isinstance(model, ChatModel)
    assert model.name == "local:fake-model"


def test_complete_returns_text_usage_and_sends_the_messages(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text("Paris.", usage=(21, 2)))

    done = model.complete(QUESTION, max_tokens=50, temperature=0.2)

    assert (done.text, done.usage.prompt_tokens, done.usage.completion_tokens) == ("Paris.", 21, 2)
    sent = fake_llm.chat_requests[0].json
    assert sent["messages"] == [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "What is the capital of France?"},
    ]
    assert (sent["model"], sent["max_tokens"], sent["temperature"]) == ("fake-model", 50, 0.2)
    assert "stream" not in sent


def test_stream_yields_chunks_in_order_and_fills_usage(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text(chunks=["The capital ", "is ", "Paris."], usage=(30, 5)))

    stream = model.stream(QUESTION)
    chunks = list(stream)

    assert chunks == ["The capital ", "is ", "Paris."]
    assert (stream.usage.prompt_tokens, stream.usage.completion_tokens) == (30, 5)
    assert fake_llm.chat_requests[0].json["stream_options"] == {"include_usage": True}


def test_slow_stream_yields_its_first_chunk_before_the_server_sends_the_last(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    reply = Reply.text(chunks=["one ", "two ", "three"], delay=0.15)
    fake_llm.script(reply)

    chunks = iter(model.stream(QUESTION))
    first = next(chunks)

    assert first == "one "
    assert len(reply.sent) < 3, "the client waited for the whole answer"
    assert [*chunks] == ["two ", "three"]


def test_server_that_rejects_stream_options_is_asked_again_without_them(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.error(400, "Unrecognized request argument supplied: stream_options"),
        Reply.text(chunks=["ok"]),
        Reply.text(chunks=["again"]),
    )

    assert list(model.stream(QUESTION)) == ["ok"]
    assert list(model.stream(QUESTION)) == ["again"]

    first, retried, later = (r.json for r in fake_llm.chat_requests)
    assert "stream_options" in first
    assert "stream_options" not in retried
    assert "stream_options" not in later, "the model should remember what the server rejects"


def test_json_mode_asks_for_a_json_object(model: OpenAICompatModel, fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.text('{"keywords": ["france"]}'))

    done = model.complete(QUESTION, json_mode=True)

    assert json.loads(done.text) == {"keywords": ["france"]}
    assert fake_llm.chat_requests[0].json["response_format"] == {"type": "json_object"}


def test_json_mode_falls_back_when_the_server_rejects_response_format(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.error(400, "'response_format' of type 'json_object' is not supported"),
        Reply.text('{"keywords": []}'),
    )

    assert model.complete(QUESTION, json_mode=True).text == '{"keywords": []}'
    assert [("response_format" in r.json) for r in fake_llm.chat_requests] == [True, False]


def test_max_tokens_is_renamed_for_servers_that_want_max_completion_tokens(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.error(
            400,
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
        ),
        Reply.text("ok"),
    )

    assert model.complete(QUESTION, max_tokens=10).text == "ok"
    assert fake_llm.chat_requests[1].json["max_completion_tokens"] == 10
    assert "max_tokens" not in fake_llm.chat_requests[1].json


def test_a_400_about_something_else_is_not_retried_forever(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.error(400, "messages: roles must alternate"))

    with pytest.raises(Exception, match=r"rejected the request \(HTTP 400\): messages: roles"):
        model.complete(QUESTION)
    assert len(fake_llm.chat_requests) == 1


def test_think_blocks_are_stripped_from_completions(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.thinking("The user asks about France.", "Paris."))

    assert model.complete(QUESTION).text == "Paris."


def test_think_blocks_split_across_sse_chunks_never_reach_the_stream(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    chunks = ["<thi", "nk>France... capital", " is Paris</th", "ink>\n\nPar", "is."]
    fake_llm.script(Reply.text(chunks=chunks))

    stream = model.stream(QUESTION)

    assert "".join(stream) == "Paris."
    assert stream.text == "Paris."


def test_reasoning_content_fields_are_not_shown(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.text("Paris.", reasoning="Let me think."),
        Reply.text(chunks=["Par", "is."], reasoning="Let me think."),
    )

    assert model.complete(QUESTION).text == "Paris."
    assert "".join(model.stream(QUESTION)) == "Paris."


def test_answer_that_is_only_unfinished_reasoning_comes_back_empty(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text("<think>I ran out of tokens while"))

    assert model.complete(QUESTION).text == ""


def test_responder_answers_from_the_prompt(model: OpenAICompatModel, fake_llm: FakeLLM) -> None:
    def responder(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        return '["heart", "failure"]' if "keywords" in prompt else "Heart failure is…"

    fake_llm.responder = responder

    keywords = model.complete([Message("user", "List keywords for: heart failure")])
    answer = model.complete([Message("user", "Explain heart failure")])

    assert json.loads(keywords.text) == ["heart", "failure"]
    assert answer.text == "Heart failure is…"


def test_open_model_sends_the_api_key_as_a_bearer_token(fake_llm: FakeLLM) -> None:
    model = open_model("openai:gpt-4.1-mini", base_url=fake_llm.base_url, api_key="sk-test-1")

    model.complete(QUESTION)

    assert fake_llm.requests[0].headers["authorization"] == "Bearer sk-test-1"
    assert fake_llm.requests[0].json["model"] == "gpt-4.1-mini"
