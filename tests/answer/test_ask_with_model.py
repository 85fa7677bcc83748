"""Answers written by a model: streamed, checked, cited — against a real scripted HTTP server."""

from __future__ import annotations

import re

import pytest

from tests.answer.conftest import MOON, UNCOVERED, ModelFactory
from tests.support.fake_llm import FakeLLM, Reply
from tests.support.fixtures import SleepLog
from wikiq import querylog
from wikiq.answer import AnswerDone, AnswerToken, RetrievalDone, Turn
from wikiq.errors import ModelError
from wikiq.llm import ChatModel
from wikiq.wiki import Wiki

GOOD_ANSWER = (
    "Neil Armstrong was the first person to walk on the Moon "
    "[[__WIKI_FOLDER__/entities/neil-armstrong]], on 20 July 1969 during "
    "[[__WIKI_FOLDER__/entities/apollo-11]].\n\n"
    "## References\n"
    "- [[__WIKI_FOLDER__/entities/neil-armstrong|Neil Armstrong]] — the first man on the Moon\n"
    "- [[__WIKI_FOLDER__/entities/apollo-11|Apollo 11]] — the first crewed Moon landing\n"
)


# Stage 2 asks the model for keywords when no title or text matches (an uncovered question).
NO_KEYWORD_MATCH = '{"keywords": ["sourdough", "levain", "bread starter"]}'


def chunked(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def sent_messages(fake_llm: FakeLLM) -> list[dict[str, str]]:
    return fake_llm.chat_requests[-1].json["messages"]


def test_events_come_in_order_and_the_tokens_are_the_answer_text(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text(chunks=chunked(GOOD_ANSWER)))

    events = list(wiki.ask_stream(MOON, model=model))

    assert isinstance(events[0], RetrievalDone) and isinstance(events[-1], AnswerDone)
    tokens = [e.text for e in events if isinstance(e, AnswerToken)]
    answer = events[-1].answer
    assert len(tokens) > 3
    assert "".join(tokens) == answer.text
    assert "[[wiki/entities/neil-armstrong]]" in answer.text
    assert "__WIKI_FOLDER__" not in answer.text
    assert [c.path for c in answer.citations] == ["entities/neil-armstrong", "entities/apollo-11"]
    assert answer.flagged == [] and not answer.pure_llm and not answer.extractive
    assert answer.model == "local:fake-model"


def test_a_slow_stream_reaches_the_caller_before_the_model_has_finished(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    reply = Reply.text(chunks=["Neil Armstrong ", "walked ", "first ", "on the Moon."], delay=0.1)
    fake_llm.script(reply)

    events = wiki.ask_stream(MOON, model=model)
    first = next(e for e in events if isinstance(e, AnswerToken))

    assert first.text.startswith("Neil")
    assert len(reply.sent) < 4, "the answer was buffered until the model finished"
    rest = [e for e in events]
    assert isinstance(rest[-1], AnswerDone)


def test_rate_limit_is_waited_out_as_retry_after_says(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM, sleeps: SleepLog
) -> None:
    fake_llm.script(Reply.error(429, retry_after=1), Reply.text(chunks=chunked(GOOD_ANSWER)))

    answer = wiki.ask(MOON, model=model)

    assert sleeps == [1.0]
    assert "[[wiki/entities/apollo-11]]" in answer.text


def test_a_server_error_then_success_still_answers(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM, sleeps: SleepLog
) -> None:
    fake_llm.script(Reply.error(500), Reply.text(chunks=chunked(GOOD_ANSWER)))

    answer = wiki.ask(MOON, model=model)

    assert len(sleeps) == 1
    assert answer.citations


def test_a_connection_dropped_mid_answer_is_one_clear_sentence(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.dropped("Neil Armstrong was ", "the first"))

    shown: list[str] = []
    with pytest.raises(ModelError) as caught:
        for event in wiki.ask_stream(MOON, model=model):
            if isinstance(event, AnswerToken):
                shown.append(event.text)

    assert "".join(shown).startswith("Neil Armstrong was")
    assert "cut the answer off" in str(caught.value)
    assert str(caught.value).count(". ") == 0 and "\n" not in str(caught.value)


def test_a_connection_dropped_before_any_text_is_retried(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.dropped(), Reply.text(chunks=chunked(GOOD_ANSWER)))

    answer = wiki.ask(MOON, model=model)

    assert answer.citations and len(fake_llm.chat_requests) == 2


def test_invented_citations_are_flagged_never_kept_as_silent_links(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.text(
            "Armstrong walked first [[__WIKI_FOLDER__/entities/neil-armstrong]]. Buzz Aldrin "
            "followed [[__WIKI_FOLDER__/entities/buzz-aldrin]], and Mars is next "
            "[[__WIKI_FOLDER__/entities/mars]]."
        )
    )

    answer = wiki.ask(MOON, model=model)

    assert "[[wiki/entities/buzz-aldrin]]" not in answer.text
    assert "followed `wiki/entities/buzz-aldrin` [⚠ no such page in the vault]" in answer.text
    assert "[[wiki/entities/mars]] [⚠ not read for this answer]" in answer.text
    assert answer.flagged == [
        "__WIKI_FOLDER__/entities/buzz-aldrin".replace("__WIKI_FOLDER__", "wiki"),
        "wiki/entities/mars",
    ]
    assert [c.path for c in answer.citations] == ["entities/neil-armstrong"]
    assert "entities/mars" not in {r.path for r in answer.references}


def test_a_missing_references_section_is_rebuilt_from_the_cited_pages(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.text("It was Neil Armstrong [[entities/neil-armstrong]] on [[Apollo 11]].")
    )

    answer = wiki.ask(MOON, model=model)

    section = answer.text.split("## References", 1)[1].strip().splitlines()
    assert section[0].startswith("- [[wiki/entities/neil-armstrong|Neil Armstrong]] — Neil")
    assert section[1].startswith("- [[wiki/entities/apollo-11|Apollo 11]] — Apollo 11 was")
    assert "[[wiki/entities/apollo-11]]" in answer.text  # the bare title was normalised
    assert [r.path for r in answer.references] == ["entities/neil-armstrong", "entities/apollo-11"]


def test_think_blocks_reach_neither_the_answer_nor_the_history(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    thought = "<think>The user wants the first moonwalker. Secret chain of thought.</think>\n\n"
    fake_llm.script(Reply.text(chunks=chunked(thought + GOOD_ANSWER, 5)))

    answer = wiki.ask(MOON, model=model)

    assert "Secret" not in answer.text and "Secret" not in answer.raw_text
    assert "think>" not in answer.text
    assert answer.text.startswith("Neil Armstrong was the first person")


def test_follow_up_turns_send_history_in_placeholder_form(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        GOOD_ANSWER, "He died on 25 August 2012 [[__WIKI_FOLDER__/entities/neil-armstrong]]."
    )
    first = wiki.ask(MOON, model=model)

    second = wiki.ask("When did Neil Armstrong die?", model=model, history=[first.turn()])

    messages = sent_messages(fake_llm)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == MOON
    assert "[[__WIKI_FOLDER__/entities/neil-armstrong]]" in messages[2]["content"]
    assert "[[wiki/" not in messages[2]["content"]
    # Each turn retrieves for its own topic: the new question's page is loaded again.
    assert 'path="__WIKI_FOLDER__/entities/neil-armstrong"' in messages[3]["content"]
    assert "When did Neil Armstrong die?" in messages[3]["content"]
    assert second.citations[0].path == "entities/neil-armstrong"


def test_history_is_cut_to_the_budget_oldest_turns_first(
    wiki: Wiki, make_model: ModelFactory, fake_llm: FakeLLM
) -> None:
    model = make_model(context_window=8192)
    long_answer = "Armstrong " * 100  # ~300 tokens each: a few fit, not all six
    history = [Turn(f"Old question {n}?", f"{long_answer} (turn {n})") for n in range(6)]
    fake_llm.script(GOOD_ANSWER)

    answer = wiki.ask(MOON, model=model, history=history)

    sent = sent_messages(fake_llm)
    kept = [m["content"] for m in sent if m["role"] == "user"][:-1]
    assert 0 < len(kept) < 6
    assert kept[-1] == "Old question 5?"  # the most recent turns survive
    assert any("earlier turn(s) left out" in note for note in answer.notes)


def test_pure_llm_answer_has_the_banner_no_citations_and_tells_the_model(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        NO_KEYWORD_MATCH,
        Reply.text(
            "This does not come from your wiki. Mix flour and water [[__WIKI_FOLDER__/concepts/"
            "sourdough]] and wait.\n\n## References\n- [[__WIKI_FOLDER__/concepts/sourdough|"
            "Sourdough]] — bread\n"
        ),
    )

    events = list(wiki.ask_stream(UNCOVERED, model=model))

    answer = events[-1].answer
    first_token = next(e for e in events if isinstance(e, AnswerToken))
    assert answer.pure_llm and answer.arm == "LLM+KB"
    assert "Not from your vault — verify" in first_token.text
    assert "[[" not in answer.text and "## References" not in answer.text
    assert "Mix flour and water sourdough and wait." in answer.text  # link text kept as prose
    assert answer.citations == [] and answer.references == []
    assert answer.flagged == ["wiki/concepts/sourdough"]
    assert "keyword" in fake_llm.chat_requests[0].json["messages"][0]["content"]
    system = sent_messages(fake_llm)[0]["content"]
    assert "The wiki has no page matching this question" in system
    assert "<wiki-page " not in sent_messages(fake_llm)[-1]["content"]


def test_pure_llm_answers_are_counted_in_the_query_log(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(NO_KEYWORD_MATCH, "Not from your wiki: use flour.", GOOD_ANSWER)

    wiki.ask(UNCOVERED, model=model)
    wiki.ask(MOON, model=model)

    summary = querylog.summarize(querylog.read())
    assert summary["questions"] == 2
    assert summary["pure_llm"] == 1 and summary["pure_llm_rate"] == 0.5
    assert summary["arms"]["LLM+KB"] == 1
    assert summary["recent_uncovered"] == [UNCOVERED]
    assert fake_llm.pending == 0
    assert summary["median_ms"]["first_token"] is not None


def test_an_empty_answer_is_an_error_not_a_blank(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text("<think>thinking until the budget ran out"))

    with pytest.raises(ModelError, match="returned an empty answer"):
        wiki.ask(MOON, model=model)


def test_answers_are_in_the_question_language(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script("杨利伟 [[__WIKI_FOLDER__/entities/杨利伟]]。")

    answer = wiki.ask("谁是中国第一位进入太空的航天员？", model=model)

    system = sent_messages(fake_llm)[0]["content"]
    assert "Write your whole answer in 中文" in system
    assert "[[wiki/entities/杨利伟]]" in answer.text
    assert "## References" in answer.text


def test_answer_json_has_every_field_a_client_needs(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text(GOOD_ANSWER, usage=(1234, 56)))

    data = wiki.ask(MOON, model=model).to_dict()

    assert data["usage"] == {
        "prompt_tokens": 1234,
        "completion_tokens": 56,
        "total_tokens": 1290,
        "estimated": False,
        "keywords": {"prompt_tokens": 0, "completion_tokens": 0},  # the question named a page
    }
    assert set(data["timings_ms"]) >= {"retrieve", "assemble", "to_model", "first_token", "total"}
    assert data["retrieval"]["arm"] == data["arm"]
    assert data["citations"][0] == {
        "path": "entities/neil-armstrong",
        "title": "Neil Armstrong",
        "type": "entity",
        "link": "[[wiki/entities/neil-armstrong]]",
    }
    assert re.match(
        r"\[\[wiki/entities/neil-armstrong\|Neil Armstrong\]\]", data["references"][0]["link"]
    )
    assert (
        data["raw_answer"].startswith("Neil Armstrong") and "__WIKI_FOLDER__" in data["raw_answer"]
    )


def test_a_server_that_reports_no_usage_gets_an_estimate_marked_as_such(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text(GOOD_ANSWER, usage=(0, 0)))

    data = wiki.ask(MOON, model=model).to_dict()

    assert data["usage"]["estimated"] is True
    assert data["usage"]["prompt_tokens"] > 500 and data["usage"]["completion_tokens"] > 20


def test_a_follow_up_that_names_nothing_is_retrieved_with_the_question_before_it(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    # Keywords for the follow-up alone, then the model's standalone question, then the answer.
    fake_llm.script(
        '{"keywords": []}',
        "Tell me more about Neil Armstrong.",
        "He died in 2012 [[__WIKI_FOLDER__/entities/neil-armstrong]].",
    )
    earlier = Turn(
        "Tell me about Neil Armstrong", "An astronaut [[__WIKI_FOLDER__/entities/neil-armstrong]]."
    )

    answer = wiki.ask("Tell me more about that.", model=model, history=[earlier])

    assert not answer.pure_llm and answer.retrieval.query == "Tell me more about that."
    assert "entities/neil-armstrong" in answer.loaded
    assert "Searched as “Tell me more about Neil Armstrong.” (the follow-up made a question that stands alone)." in answer.notes
    rewrite = fake_llm.chat_requests[1].json["messages"]
    assert "Tell me about Neil Armstrong" in rewrite[1]["content"] and "An astronaut" not in rewrite[1]["content"]


def test_a_follow_up_whose_rewrite_fails_is_searched_with_the_question_before_it(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    # The model answers the rewrite with an answer, not a question: wikiq joins the questions.
    fake_llm.script(
        '{"keywords": []}',
        "Armstrong was an astronaut [[__WIKI_FOLDER__/entities/neil-armstrong]].",
        "He died in 2012 [[__WIKI_FOLDER__/entities/neil-armstrong]].",
    )
    earlier = Turn("Tell me about Neil Armstrong", "An astronaut.")
    answer = wiki.ask("Tell me more about that.", model=model, history=[earlier])
    assert "entities/neil-armstrong" in answer.loaded
    assert "Searched together with the earlier question(s): “Tell me about Neil Armstrong Tell me more about that.”." in answer.notes


def test_a_follow_up_on_a_new_uncovered_topic_stays_pure_llm(
    wiki: Wiki, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(NO_KEYWORD_MATCH, NO_KEYWORD_MATCH, "Not from your wiki: bake it.")
    earlier = Turn(UNCOVERED, "Not from your wiki.")

    answer = wiki.ask("Should I add salt to the dough?", model=model, history=[earlier])

    assert answer.pure_llm and "Not from your vault — verify" in answer.text
