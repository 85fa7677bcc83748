"""What a user sees when a model server fails: retries where they help, one sentence otherwise."""

from __future__ import annotations

import socket
from datetime import UTC, datetime

import pytest

from tests.support.fake_llm import FakeLLM, Reply
from tests.support.fixtures import SleepLog
from wikiq.errors import ModelError
from wikiq.llm import Message, RetryPolicy, open_model
from wikiq.llm.openai_compat import OpenAICompatModel
from wikiq.llm.transport import retry_after_seconds

QUESTION = [Message("user", "What is heart failure?")]
KEY = "sk-very-secret-0123456789"


@pytest.fixture
def model(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> OpenAICompatModel:
    return OpenAICompatModel(
        "fake-model",
        base_url=fake_llm.base_url,
        api_key=KEY,
        key_env="OPENAI_API_KEY",
        retry=fast_retry,
    )


def one_sentence(message: str) -> bool:
    body = message.rstrip(".")
    return message.endswith(".") and ". " not in body and "\n" not in message


def test_rate_limit_waits_as_long_as_retry_after_says(
    model: OpenAICompatModel, fake_llm: FakeLLM, sleeps: SleepLog
) -> None:
    fake_llm.script(Reply.error(429, retry_after=1), Reply.text("Recovered."))

    assert model.complete(QUESTION).text == "Recovered."
    assert sleeps == [1.0]


def test_retry_after_longer_than_the_cap_is_shortened(
    model: OpenAICompatModel, fake_llm: FakeLLM, sleeps: SleepLog, fast_retry: RetryPolicy
) -> None:
    fake_llm.script(Reply.error(429, retry_after=3600), Reply.text("ok"))

    model.complete(QUESTION)

    assert sleeps == [fast_retry.max_delay]


def test_retry_after_as_an_http_date() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    headers = {"retry-after": "Wed, 01 Jan 2025 12:00:07 GMT"}

    assert retry_after_seconds(headers, now=now) == 7.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "soon"}) is None


def test_server_error_then_success_retries_with_backoff(
    model: OpenAICompatModel, fake_llm: FakeLLM, sleeps: SleepLog
) -> None:
    fake_llm.script(Reply.error(500), Reply.error(502), Reply.text("Third time lucky."))

    assert model.complete(QUESTION).text == "Third time lucky."
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0] > 0


def test_server_errors_every_time_give_one_sentence_after_three_attempts(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(*[Reply.error(503, "Model is overloaded.")] * 3)

    with pytest.raises(ModelError) as caught:
        model.complete(QUESTION)

    message = str(caught.value)
    assert "HTTP 503 after 3 attempts" in message and "overloaded" in message
    assert one_sentence(message)
    assert len(fake_llm.chat_requests) == 3


def test_still_rate_limited_after_retries(model: OpenAICompatModel, fake_llm: FakeLLM) -> None:
    fake_llm.script(*[Reply.error(429, retry_after=0)] * 3)

    with pytest.raises(ModelError, match=r"still rate limiting requests \(HTTP 429\) after 3"):
        model.complete(QUESTION)


def test_waiting_stops_at_the_total_wait_cap(fake_llm: FakeLLM, sleeps: SleepLog) -> None:
    retry = RetryPolicy(attempts=5, max_total_wait=2.5, sleep=sleeps)
    model = OpenAICompatModel("m", base_url=fake_llm.base_url, retry=retry)
    fake_llm.script(*[Reply.error(429, retry_after=2)] * 5)

    with pytest.raises(ModelError, match="rate limiting"):
        model.complete(QUESTION)
    assert sleeps == [2.0]


def test_out_of_quota_is_not_retried(model: OpenAICompatModel, fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.error(429, "You exceeded your current quota.", code="insufficient_quota"))

    with pytest.raises(ModelError, match="out of credits or quota"):
        model.complete(QUESTION)
    assert len(fake_llm.chat_requests) == 1


@pytest.mark.parametrize("status", [401, 403])
def test_bad_api_key_is_one_sentence_that_names_the_variable_not_the_key(
    model: OpenAICompatModel, fake_llm: FakeLLM, status: int
) -> None:
    fake_llm.script(Reply.error(status, f"Incorrect API key provided: {KEY}."))

    with pytest.raises(ModelError) as caught:
        model.complete(QUESTION)

    message = str(caught.value)
    assert "rejected the API key" in message and "OPENAI_API_KEY" in message
    assert KEY not in message and KEY not in repr(caught.value) and KEY not in repr(model)
    assert one_sentence(message)
    assert len(fake_llm.chat_requests) == 1


def test_server_text_that_echoes_the_key_is_redacted(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.error(400, f"Bad header value {KEY} for this route"))

    with pytest.raises(ModelError) as caught:
        model.complete(QUESTION)

    assert KEY not in str(caught.value) and "***" in str(caught.value)


def test_unknown_model_says_which_model(model: OpenAICompatModel, fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.model_not_found())

    with pytest.raises(ModelError) as caught:
        model.complete(QUESTION)

    assert "The model 'fake-model' was not found at" in str(caught.value)
    assert one_sentence(str(caught.value))
    assert len(fake_llm.chat_requests) == 1


def test_unknown_model_reported_with_a_400_is_still_a_missing_model(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.error(400, "fake-model is not a valid model ID"))

    with pytest.raises(ModelError, match="The model 'fake-model' was not found"):
        model.complete(QUESTION)


def test_wrong_base_url_says_to_check_it(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> None:
    model = OpenAICompatModel("m", base_url=fake_llm.root_url + "/wrong", retry=fast_retry)

    with pytest.raises(ModelError, match=r"has no /chat/completions endpoint.*check the base URL"):
        model.complete(QUESTION)


def test_prompt_too_long_suggests_a_smaller_context_or_bigger_model(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.context_length())

    with pytest.raises(ModelError) as caught:
        model.complete(QUESTION)

    message = str(caught.value)
    assert "too long for the context window" in message and "--context" in message
    assert one_sentence(message)
    assert len(fake_llm.chat_requests) == 1


def test_context_error_sent_as_a_500_is_not_retried(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.error(
            500,
            "Trying to keep the first 9120 tokens when context the overflows. However, the model "
            "is loaded with context length of only 4096 tokens, which is not enough.",
        )
    )

    with pytest.raises(ModelError, match="too long for the context window"):
        model.complete(QUESTION)
    assert len(fake_llm.chat_requests) == 1


def test_llama_cpp_context_error_wording_is_recognised(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.error(
            400,
            "the request exceeds the available context size, try increasing it",
            code="exceed_context_size_error",
        )
    )

    with pytest.raises(ModelError, match="too long for the context window"):
        list(model.stream(QUESTION))


def test_stream_dropped_mid_answer_is_an_error_not_a_short_answer(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.dropped("Heart failure ", "is a condition"))
    received: list[str] = []

    with pytest.raises(ModelError) as caught:
        received.extend(model.stream(QUESTION))

    assert received == ["Heart failure ", "is a condition"]
    assert "cut the answer off mid-stream" in str(caught.value)
    assert len(fake_llm.chat_requests) == 1, "text already shown must not be repeated"


def test_stream_dropped_before_any_text_is_retried(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.dropped(),
        Reply.text(chunks=["<think>hmm"], drop_after=1),  # only hidden reasoning got through
        Reply.text(chunks=["Complete ", "answer."]),
    )

    assert "".join(model.stream(QUESTION)) == "Complete answer."
    assert len(fake_llm.chat_requests) == 3


def test_stream_that_ends_without_its_finish_marker_counts_as_cut_off(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply(chunks=[], finish=False),
        Reply(chunks=["Half an ", "answer"], finish=False),
    )

    with pytest.raises(ModelError, match="cut the answer off mid-stream"):
        list(model.stream(QUESTION))
    assert len(fake_llm.chat_requests) == 2


def test_non_streamed_request_whose_connection_drops_is_retried(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.dropped(), Reply.text("ok"))

    assert model.complete(QUESTION).text == "ok"


def test_server_that_stops_answering_times_out_with_one_sentence(fake_llm: FakeLLM) -> None:
    model = OpenAICompatModel("m", base_url=fake_llm.base_url, timeout=0.2)
    fake_llm.script(Reply.text("late", delay=1.0), Reply.text(chunks=["late"], delay=1.0))

    with pytest.raises(ModelError, match=r"did not answer within 0\.2 seconds\.$"):
        model.complete(QUESTION)
    with pytest.raises(ModelError, match=r"did not answer within 0\.2 seconds\.$"):
        list(model.stream(QUESTION))


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_connection_refused_says_the_server_cannot_be_reached(
    closed_port: int, fast_retry: RetryPolicy, sleeps: SleepLog
) -> None:
    url = f"http://127.0.0.1:{closed_port}/v1"
    model = open_model("local:any", base_url=url, retry=fast_retry)

    with pytest.raises(ModelError) as caught:
        model.complete(QUESTION)

    assert str(caught.value) == f"Could not reach the model server at {url}: connection refused."
    assert len(sleeps) == 2, "connection errors are retried"


def test_connection_refused_while_streaming_is_the_same_sentence(
    closed_port: int, fast_retry: RetryPolicy
) -> None:
    model = open_model("local:any", base_url=f"http://127.0.0.1:{closed_port}/v1", retry=fast_retry)

    with pytest.raises(ModelError, match="connection refused"):
        list(model.stream(QUESTION))


def test_base_url_without_scheme_is_explained(fast_retry: RetryPolicy) -> None:
    model = open_model("local:any", base_url="127.0.0.1:8080/v1", retry=fast_retry)

    with pytest.raises(ModelError, match="must start with http:// or https://"):
        model.complete(QUESTION)
