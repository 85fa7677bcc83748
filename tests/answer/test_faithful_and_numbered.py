"""`ask --faithful` (verbatim quotes of source notes only) and `--cite numbered` ([1] markers),
on a small vault made here: a wiki folder and two raw notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_wikiq
from tests.support.fake_llm import FakeLLM, Reply
from tests.support.vaults import VaultFactory
from wikiq.answer.citations import MARK_NO_PAGE, MARK_NOT_READ
from wikiq.config import Config, load_config
from wikiq.errors import ConfigError
from wikiq.llm import ChatModel
from wikiq.wiki import Wiki

ORCA = "raw/papers/orca"
KERNEL = "raw/notes/kernel"
TRACE_SENTENCE = "input tokens follow U(32, 512) and max_gen_tokens follows U(1, 128)"
QUESTION = "What distribution do the input tokens of Orca's synthetic trace follow?"
UNCOVERED = "How many bakeries are there in Lisbon?"

FILES: dict[str, str | bytes] = {
    "wiki/index.md": "# Index\n\n- [[entities/orca|Orca]]\n- [[concepts/batching|Batching]]\n",
    "wiki/entities/orca.md": (
        "---\ntype: entity\n---\n# Orca\n\nOrca is an LLM serving system that schedules each "
        "iteration instead of each request; its evaluation uses a synthetic trace.\n\n"
        f"Original file: [[{ORCA}.md]]\n"
    ),
    "wiki/concepts/batching.md": (
        "---\ntype: concept\n---\n# Batching\n\nBatching groups requests so a GPU serves them "
        "together. See [[entities/orca]].\n"
    ),
    f"{ORCA}.md": (
        "# Orca (OSDI 2022) reading notes\n\n## Setup\n\nThe evaluation uses a synthetic "
        f"trace: {TRACE_SENTENCE}; request arrival times follow a Poisson process.\n\n"
        "## Design\n\nIteration-level scheduling returns a finished request right away.\n"
    ),
    f"{KERNEL}.md": "# Kernel notes\n\nThe attention kernel reads blocks of 16 tokens.\n",
}


@pytest.fixture
def vault(make_vault: VaultFactory) -> Path:
    return make_vault(FILES)


def _wiki(vault: Path, **flags: str) -> Wiki:
    return Wiki.open(vault, config=load_config(flags=flags, env={}) if flags else Config())


def _sent(fake_llm: FakeLLM) -> tuple[str, str]:
    messages = fake_llm.chat_requests[-1].json["messages"]
    return messages[0]["content"], messages[-1]["content"]


# --- faithful ---------------------------------------------------------------------------------


def test_faithful_gives_the_model_only_note_excerpts_and_quoting_rules(
    vault: Path, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text(f'The trace says "{TRACE_SENTENCE}" [[{ORCA}]].'))
    answer = _wiki(vault).ask(QUESTION, model=model, faithful=True)
    system, user = _sent(fake_llm)
    assert "verbatim quotation" in system and "exactly one citation" in system
    assert f'<source-note path="{ORCA}"' in user and TRACE_SENTENCE in user
    assert "<wiki-page" not in user  # no page: a page is a summary, not the source
    assert [c.path for c in answer.citations] == [ORCA]
    assert answer.loaded == [] and not answer.pure_llm
    assert not any("not word for word" in n for n in answer.notes)


def test_faithful_names_a_quotation_the_excerpts_do_not_hold(
    vault: Path, model: ChatModel, fake_llm: FakeLLM
) -> None:
    invented = "input lengths follow a Zipf distribution with exponent 1.2"
    fake_llm.script(Reply.text(f'The notes say "{invented}" [[{ORCA}]].'))
    answer = _wiki(vault).ask(QUESTION, model=model, faithful=True)
    assert any("not word for word" in n and invented in n for n in answer.notes)


def test_faithful_marks_a_page_link_as_not_read(
    vault: Path, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text(f'"{TRACE_SENTENCE}" [[{ORCA}]], see [[entities/orca]].'))
    answer = _wiki(vault).ask(QUESTION, model=model, faithful=True)
    assert MARK_NOT_READ in answer.text  # the page was not in the context
    assert [c.path for c in answer.citations] == [ORCA]


def test_faithful_without_a_model_quotes_the_note_word_for_word(vault: Path) -> None:
    answer = _wiki(vault).ask(QUESTION, faithful=True)
    assert answer.extractive
    assert f"> The evaluation uses a synthetic trace: {TRACE_SENTENCE}" in answer.text
    assert f"[[{ORCA}]]" in answer.text and "[[wiki/" not in answer.text  # no page quoted
    assert [c.path for c in answer.citations] == [ORCA]


def test_faithful_says_plainly_when_nothing_in_the_notes_answers(
    vault: Path, model: ChatModel, fake_llm: FakeLLM
) -> None:
    for with_model in (None, model):
        answer = _wiki(vault).ask(UNCOVERED, model=with_model, faithful=True)
        assert "hold no passage that answers this" in answer.text
        assert not answer.citations and "not from your vault" not in answer.text.lower()
    # The model was never asked to answer (a keyword lookup for retrieval is all it saw).
    assert all("Question:" not in r.prompt for r in fake_llm.chat_requests)


def test_ask_faithful_on_the_command_line(vault: Path) -> None:
    res = run_wikiq(
        "ask", QUESTION, "--vault", str(vault), "--faithful", "--json",
        env={"WIKIQ_DETECT_OLLAMA": "0"},
    )
    assert res.code == 0, res.stderr
    data = json.loads(res.stdout)
    assert TRACE_SENTENCE in data["answer"]
    assert [c["path"] for c in data["citations"]] == [ORCA]


# --- numbered citations ---------------------------------------------------------------------


def test_numbered_citations_number_pages_and_notes_in_order_of_first_use(
    vault: Path, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(
        Reply.text(
            "Orca schedules each iteration [[__WIKI_FOLDER__/entities/orca]]. Its trace "
            f"draws input tokens from U(32, 512) [[{ORCA}]], as its page says "
            "[[__WIKI_FOLDER__/entities/orca|the Orca page]].\n\n## References\n"
            f"- [[{ORCA}|Orca notes]] — the evaluation setup\n"
            "- [[__WIKI_FOLDER__/entities/orca|Orca]] — the system\n"
        )
    )
    answer = _wiki(vault, cite="numbered").ask(QUESTION, model=model)
    body, refs = answer.text.split("## References", 1)
    assert "each iteration [1]." in body and "U(32, 512) [2]," in body
    assert "the Orca page [1]." in body  # a label stays, the number follows it
    assert "[[" not in body
    lines = [line for line in refs.splitlines() if line.strip()]
    assert lines[0].startswith("- [1] [[wiki/entities/orca|Orca]]")
    assert lines[1] == f"- [2] [[{ORCA}|Orca (OSDI 2022) reading notes]] — the evaluation setup"
    assert len(lines) == 2


def test_numbered_citations_leave_a_link_that_is_not_a_citation_marked(
    vault: Path, model: ChatModel, fake_llm: FakeLLM
) -> None:
    fake_llm.script(Reply.text(f"Kernels read blocks [[entities/nowhere]]; see [[{ORCA}]]."))
    answer = _wiki(vault, cite="numbered").ask(QUESTION, model=model)
    body = answer.text.split("## References", 1)[0]
    # A made-up page is no citation: it keeps its mark and takes no number.
    assert f"`entities/nowhere` {MARK_NO_PAGE}" in body and "see [1]." in body


def test_numbered_citations_without_a_model(vault: Path) -> None:
    answer = _wiki(vault, cite="numbered").ask(QUESTION, faithful=True)
    assert "From the source note [1]:" in answer.text
    assert f"- [1] [[{ORCA}|" in answer.text.split("## References", 1)[1]


def test_wiki_links_stay_the_default(vault: Path) -> None:
    answer = _wiki(vault).ask(QUESTION, faithful=True)
    assert f"[[{ORCA}]]" in answer.text and "[1]" not in answer.text


def test_an_unknown_citation_style_is_one_clear_sentence(vault: Path) -> None:
    with pytest.raises(ConfigError, match="cite must be wiki or numbered, not 'footnotes'"):
        _wiki(vault, cite="footnotes").ask(QUESTION)
    res = run_wikiq("ask", QUESTION, "--vault", str(vault), "--cite", "footnotes")
    assert res.code == 2 and "cite must be wiki or numbered" in res.stderr
    assert "Traceback" not in res.stderr
