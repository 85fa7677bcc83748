"""Model specs (`provider:model`) and `open_model`, which turns one into a ready `ChatModel`."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from wikiq.errors import ModelError
from wikiq.llm import anthropic, gemini, ollama
from wikiq.llm.anthropic import AnthropicModel
from wikiq.llm.base import ChatModel
from wikiq.llm.context_windows import default_context_window
from wikiq.llm.gemini import GeminiModel
from wikiq.llm.ollama import OllamaModel, ollama_base_url
from wikiq.llm.openai_compat import OpenAICompatModel
from wikiq.llm.transport import RetryPolicy

Api = Literal["openai", "ollama", "anthropic", "gemini"]


@dataclass(frozen=True)
class Preset:
    """Where a provider lives and where its key comes from."""

    api: Api
    base_url: str
    key_envs: tuple[str, ...] = ()
    base_url_env: str | None = None
    needs_key: bool = False  # at its default address
    model_optional: bool = False


PRESETS: dict[str, Preset] = {
    "openai": Preset(
        "openai", "https://api.openai.com/v1", ("OPENAI_API_KEY",), "OPENAI_BASE_URL", True
    ),
    "openrouter": Preset(
        "openai", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",), None, True
    ),
    "deepseek": Preset("openai", "https://api.deepseek.com", ("DEEPSEEK_API_KEY",), None, True),
    "lmstudio": Preset("openai", "http://127.0.0.1:1234/v1"),
    "llamacpp": Preset("openai", "http://127.0.0.1:8080/v1", model_optional=True),
    "local": Preset("openai", "http://127.0.0.1:8080/v1", model_optional=True),
    "ollama": Preset("ollama", ollama.DEFAULT_BASE_URL, (), "OLLAMA_HOST"),
    "anthropic": Preset(
        "anthropic", anthropic.DEFAULT_BASE_URL, ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL", True
    ),
    # google-genai's order: GOOGLE_API_KEY wins when both are set.
    "gemini": Preset(
        "gemini", gemini.DEFAULT_BASE_URL, ("GOOGLE_API_KEY", "GEMINI_API_KEY"), None, True
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


def parse_model_spec(spec: str) -> ModelSpec:
    """Split `ollama:qwen2.5:7b` into provider `ollama` and model `qwen2.5:7b`."""
    text = spec.strip()
    provider, colon, model = text.partition(":")
    provider = _ALIASES.get(provider.lower(), provider.lower())
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
    parsed = parse_model_spec(spec)
    preset = PRESETS[parsed.provider]
    env = os.environ if env is None else env
    from_env = env.get(preset.base_url_env, "") if preset.base_url_env else ""
    url = base_url or from_env or preset.base_url
    if parsed.provider == "ollama":
        # The native API lives at the root; people often paste the OpenAI-compatible `/v1` URL.
        url = ollama_base_url(url).removesuffix("/v1")
    key_env = next((name for name in preset.key_envs if env.get(name)), None)
    key = api_key or (env[key_env] if key_env else None)
    named_env = key_env or (preset.key_envs[0] if preset.key_envs else None)
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
    if preset.api == "anthropic":
        return AnthropicModel(
            parsed.model,
            api_key=key,
            base_url=url,
            key_env=named_env,
            context_window=context_window,
            timeout=timeout,
            retry=retry,
        )
    if preset.api == "gemini":
        return GeminiModel(
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
