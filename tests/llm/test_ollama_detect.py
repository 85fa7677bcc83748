"""Finding a local Ollama server and choosing one of its chat models."""

from __future__ import annotations

import socket
import time

from tests.support.fake_llm import FakeLLM
from wikiq.llm.detect import choose_chat_model, detect_local_ollama


def tag(name: str, size: str | None = None, family: str = "qwen2") -> dict[str, object]:
    details: dict[str, object] = {"family": family, "families": [family]}
    if size:
        details["parameter_size"] = size
    return {"name": name, "model": name, "details": details}


def test_nothing_listening_gives_none_quickly() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"

    started = time.perf_counter()
    found = detect_local_ollama(hosts=[closed])

    assert found is None
    assert time.perf_counter() - started < 0.5


def test_a_server_that_is_not_ollama_gives_none(fake_llm: FakeLLM) -> None:
    assert detect_local_ollama(hosts=[fake_llm.root_url + "/nothing-here"]) is None


def test_finds_the_chat_model_of_the_server_at_ollama_host(fake_llm: FakeLLM) -> None:
    fake_llm.tags = [
        tag("nomic-embed-text:latest", "137M", "nomic-bert"),
        tag("qwen2.5:7b", "7.6B"),
    ]

    found = detect_local_ollama(env={"OLLAMA_HOST": fake_llm.root_url}, hosts=None)

    assert found == "ollama:qwen2.5:7b"


def test_server_with_only_embedding_models_gives_none(fake_llm: FakeLLM) -> None:
    fake_llm.tags = [tag("bge-m3:latest", "567M", "bert"), tag("mxbai-embed-large", "335M", "bert")]

    assert detect_local_ollama(hosts=[fake_llm.root_url]) is None


def test_prefers_a_mid_size_instruct_model() -> None:
    models = [
        tag("llama3.2:1b", "1.2B", "llama"),
        tag("qwen2.5:72b", "72.7B"),
        tag("llama3.1:8b-text-q4_0", "8.0B", "llama"),
        tag("qwen2.5:7b-instruct", "7.6B"),
        tag("all-minilm:latest", "23M", "bert"),
    ]

    assert choose_chat_model(models) == "qwen2.5:7b-instruct"


def test_size_is_read_from_the_tag_when_details_are_missing() -> None:
    models = [{"name": "tinyllama:1.1b"}, {"name": "mistral:7b"}, {"name": "mixtral:8x22b"}]

    assert choose_chat_model(models) == "mistral:7b"
