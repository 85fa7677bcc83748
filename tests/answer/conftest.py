"""Answer tests: the demo vault opened once, a scripted model server, no real Ollama lookup."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.fake_llm import FakeLLM
from tests.support.fixtures import fake_llm, fast_retry, sleeps  # noqa: F401
from wikiq.config import Config
from wikiq.llm import ChatModel, RetryPolicy, open_model
from wikiq.wiki import Wiki

DEMO_VAULT = Path(__file__).resolve().parents[2] / "examples" / "demo-vault"
MOON = "Who was the first person to walk on the Moon?"
UNCOVERED = "What is a good sourdough starter recipe?"

ModelFactory = Callable[..., ChatModel]


@pytest.fixture(autouse=True)
def _no_local_ollama(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's running Ollama must not turn extractive answers into generated ones.
    monkeypatch.setenv("WIKIQ_DETECT_OLLAMA", "0")


@pytest.fixture(scope="session")
def demo_wiki(tmp_path_factory: pytest.TempPathFactory) -> Wiki:
    """The demo vault, read once for the whole session (its own cache, an empty config)."""
    wiki = Wiki.open(DEMO_VAULT, cache_dir=tmp_path_factory.mktemp("demo-cache"), config=Config())
    wiki.retriever.indexes  # noqa: B018  build once
    return wiki


@pytest.fixture
def wiki(demo_wiki: Wiki) -> Wiki:
    """A fresh `Wiki` over the shared demo catalog (so settings and models never leak)."""
    fresh = Wiki(demo_wiki.location, demo_wiki.catalog, Config())
    fresh._retriever = demo_wiki.retriever
    return fresh


@pytest.fixture
def make_model(fake_llm: FakeLLM, fast_retry: RetryPolicy) -> ModelFactory:  # noqa: F811
    """`make_model(context_window=…)`: the scripted server as an OpenAI-compatible model."""

    def make(**kwargs: object) -> ChatModel:
        return open_model(
            "local:fake-model", base_url=fake_llm.base_url, retry=fast_retry, **kwargs
        )

    return make


@pytest.fixture
def model(make_model: ModelFactory) -> ChatModel:
    return make_model()
