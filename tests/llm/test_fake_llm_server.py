"""The scripted server's own promises, which other test packages rely on."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.fake_llm import DEFAULT_ANSWER, FakeLLM, Reply
from wikiq.llm import Message, open_model


def test_default_responder_answers_when_nothing_is_scripted(fake_llm: FakeLLM) -> None:
    model = open_model("local:fake", base_url=fake_llm.base_url)

    assert model.complete([Message("user", "hi")]).text == DEFAULT_ANSWER
    assert fake_llm.pending == 0


def test_script_is_used_in_order_then_the_responder(fake_llm: FakeLLM) -> None:
    fake_llm.script("first", Reply.text("second"), lambda body: "third")
    model = open_model("local:fake", base_url=fake_llm.base_url)

    texts = [model.complete([Message("user", "q")]).text for _ in range(4)]

    assert texts == ["first", "second", "third", DEFAULT_ANSWER]


def test_responder_sees_the_request_and_requests_are_recorded(fake_llm: FakeLLM) -> None:
    seen: list[dict[str, Any]] = []

    def responder(body: dict[str, Any]) -> Reply:
        seen.append(body)
        return Reply.text(body["messages"][-1]["content"].upper())

    fake_llm.responder = responder
    model = open_model("local:fake", base_url=fake_llm.base_url, api_key="k-1")

    assert model.complete([Message("system", "s"), Message("user", "shout")]).text == "SHOUT"
    assert seen[0]["model"] == "fake"
    request = fake_llm.requests[0]
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == "Bearer k-1"
    assert request.prompt == "s\nshout"


def test_models_endpoint_lists_the_configured_models() -> None:
    with FakeLLM(models=["a", "b"]) as server:
        listed = httpx.get(server.base_url + "/models").json()

    assert [m["id"] for m in listed["data"]] == ["a", "b"]


def test_error_replies_carry_their_headers(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.error(429, "slow down", retry_after=7))

    response = httpx.post(fake_llm.base_url + "/chat/completions", json={"model": "m"})

    assert response.status_code == 429
    assert response.headers["retry-after"] == "7"
    assert response.json()["error"]["message"] == "slow down"
