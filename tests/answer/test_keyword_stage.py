"""Stage 2 wired into answers: a model names the concepts when no title or text matches."""

from __future__ import annotations

import pytest

from tests.answer.conftest import ModelFactory
from tests.support.fake_llm import FakeLLM, Reply
from tests.support.vaults import VaultFactory, index_md
from wikiq.config import Config, load_config
from wikiq.llm import open_model
from wikiq.wiki import Wiki

QUESTION = "How do green leaves turn sunshine into sugar?"
# A vault whose one page the question never names: only Stage 2 can find it.
ONE_PAGE = {
    "wiki/index.md": index_md("- [[concepts/photosynthesis|photosynthesis]]", heading="## Concepts"),
    "wiki/concepts/photosynthesis.md": "# Photosynthesis\n\nPlants store light as glucose.\n",
}


@pytest.fixture
def plant_wiki(make_vault: VaultFactory) -> Wiki:
    files = {
        "wiki/index.md": index_md(
            "- [[concepts/photosynthesis|photosynthesis]] `aliases: chlorophyll`",
            heading="## Concepts",
        ),
        "wiki/concepts/photosynthesis.md": (
            "---\ntype: concept\naliases:\n  - chlorophyll\n---\n\n# Photosynthesis\n\n"
            "Photosynthesis is how plants store energy from light as glucose.\n"
        ),
        "wiki/concepts/mitochondria.md": (
            "---\ntype: concept\n---\n\n# Mitochondria\n\nThe powerhouse of the cell.\n"
        ),
    }
    return Wiki.open(make_vault(files), config=Config())


def test_keywords_wrapped_in_prose_still_find_the_page(
    plant_wiki: Wiki, make_model: ModelFactory, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        'Sure! Here are the keywords you asked for:\n```json\n{"keywords": ["photosynthesis", '
        '"light energy"]}\n```\nHope this helps.',
        "Leaves use light [[__WIKI_FOLDER__/concepts/photosynthesis]].",
    )

    answer = plant_wiki.ask(QUESTION, model=make_model())

    assert answer.arm == "LLM+PPR" and not answer.pure_llm
    assert answer.retrieval.keywords[:1] == ["photosynthesis"]
    assert [c.path for c in answer.citations] == ["concepts/photosynthesis"]
    keyword_request = fake_llm.chat_requests[0].json["messages"]
    assert QUESTION in keyword_request[-1]["content"]


def test_a_reasoning_model_that_spent_its_budget_thinking_still_yields_keywords(
    plant_wiki: Wiki, make_model: ModelFactory, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.text(
            "", reasoning='The key concept is photosynthesis. {"keywords": ["photosynthesis"]}'
        ),
        "Light becomes sugar [[__WIKI_FOLDER__/concepts/photosynthesis]].",
    )

    answer = plant_wiki.ask(QUESTION, model=make_model())

    assert answer.arm == "LLM+PPR"
    assert answer.loaded[0] == "concepts/photosynthesis"


def test_a_separate_keyword_model_is_used_for_stage_2_only(
    make_vault: VaultFactory, fake_llm: FakeLLM
) -> None:
    config = load_config(
        env={
            "WIKIQ_MODEL": "local:answer-model",
            "WIKIQ_KEYWORD_MODEL": "local:keyword-model",
            "WIKIQ_BASE_URL": fake_llm.base_url,
            "WIKIQ_DETECT_OLLAMA": "0",
        }
    )
    wiki = Wiki.open(make_vault(ONE_PAGE), config=config)
    fake_llm.script('["photosynthesis"]', "Glucose [[__WIKI_FOLDER__/concepts/photosynthesis]].")

    answer = wiki.ask(QUESTION)

    assert [r.json["model"] for r in fake_llm.chat_requests] == ["keyword-model", "answer-model"]
    assert answer.model == "local:answer-model" and answer.arm == "LLM+PPR"


def test_search_uses_the_configured_keyword_model_and_caches_its_answer(
    make_vault: VaultFactory, fake_llm: FakeLLM
) -> None:
    config = load_config(
        env={"WIKIQ_KEYWORD_MODEL": "local:kw", "WIKIQ_KEYWORD_BASE_URL": fake_llm.base_url}
    )
    root = make_vault(ONE_PAGE)
    fake_llm.script('{"keywords": ["photosynthesis"]}')

    first = Wiki.open(root, config=config).search(QUESTION)
    again = Wiki.open(root, config=config).search(QUESTION)

    assert first.arm == again.arm == "LLM+PPR"
    assert len(fake_llm.chat_requests) == 1  # the second search read the keyword cache


def test_keyword_model_none_turns_stage_2_off(
    plant_wiki: Wiki, make_model: ModelFactory, fake_llm: FakeLLM
) -> None:
    wiki = Wiki(
        plant_wiki.location, plant_wiki.catalog, load_config(env={"WIKIQ_KEYWORD_MODEL": "none"})
    )
    fake_llm.script("Not from your wiki: leaves use light.")

    answer = wiki.ask(QUESTION, model=make_model())

    assert answer.pure_llm and len(fake_llm.chat_requests) == 1


def test_reasoning_is_kept_apart_by_every_provider(fake_llm: FakeLLM) -> None:
    from wikiq.llm import Message

    question = [Message("user", "keywords?")]
    models = {
        "openai": open_model("local:m", base_url=fake_llm.base_url),
        "ollama": open_model("ollama:m", base_url=fake_llm.root_url, context_window=4096),
        "anthropic": open_model("anthropic:m", base_url=fake_llm.root_url, api_key="k"),
        "gemini": open_model("gemini:m", base_url=fake_llm.gemini_url, api_key="k"),
    }
    for name, model in models.items():
        fake_llm.script(Reply.text("visible", reasoning=f"native thoughts of {name}"))
        done = model.complete(question)
        assert (done.text, done.reasoning) == ("visible", f"native thoughts of {name}"), name

    fake_llm.script(Reply.thinking("inline thoughts", "the answer"))
    done = models["openai"].complete(question)
    assert (done.text, done.reasoning) == ("the answer", "inline thoughts")


def test_the_keyword_calls_tokens_are_counted_in_the_answers_usage(
    plant_wiki: Wiki, make_model: ModelFactory, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.text('{"keywords": ["photosynthesis"]}', usage=(40, 6)),
        Reply.text("Leaves use light [[__WIKI_FOLDER__/concepts/photosynthesis]].", usage=(300, 12)),
    )

    answer = plant_wiki.ask(QUESTION, model=make_model())

    usage = answer.to_dict()["usage"]
    assert usage["keywords"] == {"prompt_tokens": 40, "completion_tokens": 6}
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]) == (340, 18, 358)

    # Asked again, the keywords come from the cache: no model call, no keyword tokens.
    fake_llm.script(Reply.text("Leaves use light [[__WIKI_FOLDER__/concepts/photosynthesis]].", usage=(300, 12)))
    again = plant_wiki.ask(QUESTION, model=make_model()).to_dict()["usage"]
    assert again["keywords"] == {"prompt_tokens": 0, "completion_tokens": 0} and again["total_tokens"] == 312


def test_one_keyword_rule_search_never_uses_a_detected_model_and_ask_does(
    make_vault: VaultFactory, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing configured, a local Ollama answering: ask writes with it and takes its keywords;
    # search writes nothing, so it asks no model at all (not even whether one runs).
    from wikiq.models import Models

    config = load_config(env={"WIKIQ_DETECT_OLLAMA": "1"})
    wiki = Wiki.open(make_vault(ONE_PAGE), config=config)
    detected: list[bool] = []

    def detect() -> str:
        detected.append(True)
        return "ollama:fake-model"

    monkeypatch.setenv("OLLAMA_HOST", fake_llm.root_url)
    wiki._models = Models(config, detect=detect)

    found = wiki.search(QUESTION)

    assert fake_llm.chat_requests == [] and detected == [] and found.arm != "LLM+PPR"
    fake_llm.script('["photosynthesis"]', "Glucose [[__WIKI_FOLDER__/concepts/photosynthesis]].")

    answer = wiki.ask(QUESTION)

    assert len(fake_llm.chat_requests) == 2 and answer.arm == "LLM+PPR"
    assert answer.model == "ollama:fake-model"
