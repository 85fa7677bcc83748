"""A model stream is bounded whatever the server does: in length, and in total time."""

from __future__ import annotations

import pytest

from tests.support.fake_llm import FakeLLM, Reply
from wikiq.errors import ModelError
from wikiq.llm import Message, RetryPolicy
from wikiq.llm.openai_compat import OpenAICompatModel
from wikiq.llm.streaming import CHARS_PER_TOKEN_CAP

QUESTION = [Message("user", "Tell me everything.")]


@pytest.fixture
def model(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> OpenAICompatModel:
    return OpenAICompatModel("fake-model", base_url=fake_llm.base_url, label="local", retry=fast_retry)


def test_a_stream_that_never_ends_stops_at_a_few_times_the_answer_budget(
    model: OpenAICompatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text(chunks=["word " * 20] * 400))  # 40,000 characters
    stream = model.stream(QUESTION, max_tokens=100)
    shown: list[str] = []
    with pytest.raises(ModelError, match="kept writing past 1,600 characters"):
        for piece in stream:
            shown.append(piece)
    # What was shown is kept, and is exactly the cap.
    assert len("".join(shown)) == 100 * CHARS_PER_TOKEN_CAP == len(stream.text)


def test_a_stream_that_drips_stops_at_its_deadline(
    model: OpenAICompatModel, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every chunk arrives well within the idle timeout; the whole answer takes too long.
    from wikiq.llm import streaming

    monkeypatch.setattr(streaming, "DEFAULT_DEADLINE_S", 0.3)
    fake_llm.script(Reply.text(chunks=["a"] * 40, delay=0.05))
    shown: list[str] = []
    with pytest.raises(ModelError, match=r"still writing after 0\.3 seconds"):
        for piece in model.stream(QUESTION, max_tokens=1000):
            shown.append(piece)
    assert 0 < len(shown) < 40
