"""Stage 2: keywords from a model, parsed from whatever it writes, cached per question."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.fake_llm import FakeLLM, Reply
from wikiq.llm import open_model
from wikiq.llm.transport import RetryPolicy
from wikiq.retrieve.keywords import KeywordExtractor, parse_keywords


@pytest.mark.parametrize(
    "reply",
    [
        '{"keywords": ["量子纠缠", "quantum entanglement", "entanglement"]}',
        'Sure! Here you go:\n```json\n{"keywords": ["量子纠缠", "quantum entanglement", "entanglement"]}\n```\nHope it helps.',
        '["量子纠缠", "quantum entanglement", "entanglement"]',
        "Keywords:\n- 量子纠缠\n- quantum entanglement\n- entanglement\n",
        "量子纠缠, quantum entanglement, entanglement",
        '<think>The user asks about entanglement. {"keywords": ["wrong"]}</think>{"keywords": ["量子纠缠", "quantum entanglement", "entanglement"]}',
        'I think the answer is {"keywords": ["量子纠缠", "Quantum Entanglement", "quantum entanglement", "entanglement"]} and that is all.',
    ],
)
def test_keywords_are_parsed_from_every_shape_models_write(reply: str) -> None:
    assert [k.lower() for k in parse_keywords(reply)] == ["量子纠缠", "quantum entanglement", "entanglement"]


def test_nonsense_and_overlong_keywords_are_dropped() -> None:
    assert parse_keywords("") == []
    assert parse_keywords("I cannot help with that request because it is unclear to me.") == []
    long_phrase = "this is far too long to be a keyword at all"
    assert parse_keywords(f'{{"keywords": ["{long_phrase}", "orbit"]}}') == ["orbit"]
    many = ", ".join(f"k{n}" for n in range(30))
    assert len(parse_keywords(many)) == 10


@given(st.text())
def test_parser_never_raises(text: str) -> None:
    assert isinstance(parse_keywords(text), list)


def _model(fake: FakeLLM, fast_retry: RetryPolicy):  # type: ignore[no-untyped-def]
    return open_model("local:fake", base_url=fake.base_url, retry=fast_retry)


def test_extractor_asks_once_then_uses_its_cache(fake_llm: FakeLLM, fast_retry: RetryPolicy, tmp_path: Path) -> None:
    fake_llm.script('Here: {"keywords": ["gravity assist", "引力弹弓"]}')
    extract = KeywordExtractor(_model(fake_llm, fast_retry), tmp_path)
    assert extract("什么是引力弹弓？") == ["gravity assist", "引力弹弓"]
    assert extract("什么是引力弹弓？") == ["gravity assist", "引力弹弓"]
    assert len(fake_llm.chat_requests) == 1
    # The question reaches the model as quoted data in the user message, rules in the system one.
    sent = fake_llm.chat_requests[0].json["messages"]
    assert sent[0]["role"] == "system" and "keyword" in sent[0]["content"]
    assert '"什么是引力弹弓？"' in sent[1]["content"]


def test_a_failing_model_gives_no_keywords_and_no_error(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> None:
    fake_llm.script(Reply.error(500), Reply.error(500), Reply.error(500), Reply.error(500))
    extract = KeywordExtractor(_model(fake_llm, fast_retry), None)
    assert extract("anything") == []
    assert extract.last_error is not None


def test_a_model_that_only_thinks_still_yields_keywords(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> None:
    fake_llm.script(Reply.thinking('Keywords: {"keywords": ["orbit", "轨道"]}', ""))
    extract = KeywordExtractor(_model(fake_llm, fast_retry), None)
    assert extract("what keeps the moon up") == ["orbit", "轨道"]
