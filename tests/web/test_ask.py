"""Asking from the page: the answer streams as server-sent events, one question per stream."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from typing import Any

import httpx
import pytest

from tests.support.fake_llm import FakeLLM, Reply
from tests.web.conftest import (
    DEMO,
    DOCKED,
    SPACE_RACE_NOTE,
    LiveServer,
    ask,
    last_question,
    note_citing_responder,
    parse_sse,
    serve,
)
from wikiq.web.app import create_app
from wikiq.wiki import Wiki


def test_an_answer_streams_retrieval_then_text_then_the_checked_answer(live: LiveServer) -> None:
    stream = ask(live.url, "How does a gravity assist work?")

    assert stream.status == 200
    kinds = [event for event, _ in stream.events]
    assert kinds[0] == "retrieval" and kinds[-1] == "done"
    assert set(kinds[1:-1]) == {"token"}
    retrieval = stream.of("retrieval")[0]
    assert retrieval["arm"] == "Lex+PPR" and not retrieval["pure_llm"]
    assert retrieval["results"][0]["path"] == "concepts/gravity-assist"
    assert any(n["role"] == "neighbour" for n in retrieval["graph"]["nodes"])

    done = stream.done
    assert stream.text == done["answer"]["answer"]
    assert "[[wiki/concepts/gravity-assist]]" in done["answer"]["answer"]
    assert "__WIKI_FOLDER__" in done["answer"]["raw_answer"]
    assert done["cited"][0] == "concepts/gravity-assist"
    assert done["links"]["wiki/concepts/gravity-assist"] == {
        "path": "concepts/gravity-assist",
        "title": "Gravity assist",
    }
    lit = {n["path"] for n in done["graph"]["nodes"] if n["cited"]}
    assert lit == set(done["cited"])


def test_the_answer_carries_the_excerpts_of_the_notes_it_cites_with_the_passage_marked(
    live: LiveServer, model_env: FakeLLM
) -> None:
    model_env.responder = note_citing_responder()
    done = ask(live.url, DOCKED).done
    (excerpt,) = done["excerpts"]
    assert excerpt["path"] == SPACE_RACE_NOTE
    assert done["cited_notes"] == [SPACE_RACE_NOTE]  # counted apart from the cited pages
    text = (DEMO / f"{SPACE_RACE_NOTE}.md").read_text(encoding="utf-8")
    assert excerpt["text"] in text  # the note's own words
    start, end = excerpt["mark"]
    marked = " ".join(excerpt["text"][start:end].split())  # the note wraps its lines
    assert "spent about 44 hours docked together" in marked
    assert end - start < len(excerpt["text"])  # the passage, not the whole excerpt


def test_an_answer_citing_no_note_carries_no_excerpts(live: LiveServer) -> None:
    assert ask(live.url, "How does a gravity assist work?").done["excerpts"] == []


def test_a_follow_up_sends_the_earlier_turns_to_the_model(
    live: LiveServer, model_env: FakeLLM
) -> None:
    first = ask(live.url, "How does a gravity assist work?")
    raw = first.done["answer"]["raw_answer"]

    second = ask(
        live.url,
        "Which probes used one?",
        history=[{"question": "How does a gravity assist work?", "answer": raw}],
    )

    assert second.status == 200 and second.of("done")
    messages = model_env.chat_requests[-1].json["messages"]
    assert [m["role"] for m in messages[-3:]] == ["user", "assistant", "user"]
    assert messages[-3]["content"] == "How does a gravity assist work?"
    assert messages[-2]["content"] == raw
    assert "Which probes used one?" in messages[-1]["content"]


def test_a_question_the_vault_does_not_cover_is_labelled_and_cites_nothing(
    live: LiveServer,
) -> None:
    stream = ask(live.url, "What is the best sourdough pizza recipe?")

    assert stream.of("retrieval")[0]["pure_llm"]
    assert stream.of("retrieval")[0]["graph"] == {"nodes": [], "edges": []}
    answer = stream.done["answer"]
    assert answer["pure_llm"] and answer["arm"] == "LLM+KB"
    assert answer["citations"] == [] and stream.done["cited"] == []
    assert "Not from your vault" in answer["answer"]


def test_an_unreachable_model_is_one_error_event_and_the_server_carries_on(
    model_env: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as s:  # a port with nobody listening
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    monkeypatch.setenv("WIKIQ_BASE_URL", f"http://127.0.0.1:{dead}/v1")
    monkeypatch.setenv("WIKIQ_TIMEOUT", "3")
    wiki = Wiki.open(DEMO)
    with serve(create_app(wiki)) as url:
        stream = ask(url, "How does a gravity assist work?")
        info = httpx.get(url + "/api/info").json()

    assert stream.status == 200
    (error,) = stream.of("error")
    assert error["message"].endswith(".") and "\n" not in error["message"]
    assert "127.0.0.1" in error["message"] or "reach" in error["message"].lower()
    assert not stream.of("done")
    assert info["pages"] == 49


def test_bad_requests_get_one_sentence_and_no_stream(live: LiveServer) -> None:
    empty = httpx.post(live.url + "/api/ask", json={"question": "   "})
    not_json = httpx.post(
        live.url + "/api/ask",
        content="question=hi",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    bad_history = httpx.post(live.url + "/api/ask", json={"question": "hi", "history": "x"})

    assert empty.status_code == 400 and "empty" in empty.json()["error"]
    assert not_json.status_code == 415
    assert bad_history.status_code == 400 and "history" in bad_history.json()["error"]


def test_fifty_concurrent_questions_each_get_their_own_answer(
    live: LiveServer, model_env: FakeLLM
) -> None:
    def echo(body: dict[str, Any]) -> Reply:
        token = re.findall(r"tok-\d+", last_question(body))[-1]
        pieces = [
            "Answer ",
            "for ",
            token,
            " : a gravity assist ",
            "borrows momentum ",
            "[[__WIKI_FOLDER__/concepts/gravity-assist]]",
            " — ",
            token,
            ".",
        ]
        return Reply.text(chunks=pieces, delay=0.01)

    model_env.responder = echo

    async def one(client: httpx.AsyncClient, n: int) -> tuple[int, str, Any]:
        question = f"How does a gravity assist work? (tok-{n:03d})"
        async with client.stream("POST", "/api/ask", json={"question": question}) as response:
            lines = [line async for line in response.aiter_lines()]
        return n, question, (response.status_code, parse_sse(lines))

    async def all_of_them() -> list[tuple[int, str, Any]]:
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
        async with httpx.AsyncClient(base_url=live.url, timeout=120, limits=limits) as client:
            return await asyncio.gather(*(one(client, n) for n in range(50)))

    results = asyncio.run(all_of_them())

    assert len(results) == 50
    for n, question, (status, events) in results:
        kinds = [e for e, _ in events]
        assert status == 200
        assert "error" not in kinds, events
        done = [d for e, d in events if e == "done"]
        assert len(done) == 1
        text = "".join(d["text"] for e, d in events if e == "token")
        mine = f"tok-{n:03d}"
        assert set(re.findall(r"tok-\d+", text)) == {mine}
        assert text == done[0]["answer"]["answer"]
        assert done[0]["answer"]["question"] == question
        assert done[0]["cited"] == ["concepts/gravity-assist"]
    assert len(model_env.chat_requests) == 50


def test_a_client_that_hangs_up_mid_answer_stops_the_model_and_the_server_carries_on(
    live: LiveServer, model_env: FakeLLM
) -> None:
    slow = Reply.text(chunks=[f"word{i} " for i in range(1000)], delay=0.01)  # ten seconds
    model_env.script(slow)

    with httpx.stream(
        "POST",
        live.url + "/api/ask",
        json={"question": "How does a gravity assist work?"},
        timeout=30,
    ) as response:
        for line in response.iter_lines():
            if line.startswith("event: token"):
                break  # leaving the block closes the connection mid-answer

    # The server stops pulling from the model soon after the browser is gone …
    deadline = time.monotonic() + 5
    stopped = False
    last = len(slow.sent)
    while time.monotonic() < deadline and not stopped:
        time.sleep(0.4)
        stopped = len(slow.sent) == last
        last = len(slow.sent)
    assert stopped, f"the model was still streaming ({last} of 1000 chunks sent)"
    assert last < 1000

    # … and answers the next question in full.
    stream = ask(live.url, "How does a gravity assist work?")
    assert stream.status == 200 and stream.of("done")
    assert not stream.of("error")
