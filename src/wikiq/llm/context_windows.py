"""Default context windows by model family, used when neither the user nor the server says.

Values are on the safe side: overestimating a window makes prompts fail, underestimating only
leaves a little of it unused.
"""

from __future__ import annotations

import re

UNKNOWN_LOCAL = 8192

# First match wins, so more specific names come before their families.
_FAMILIES: list[tuple[str, int]] = [
    (r"gpt-?4\.1", 1_047_576),
    (r"gpt-?5", 400_000),
    (r"gpt-?4o|gpt-?4-turbo|chatgpt-4o", 128_000),
    (r"gpt-?oss", 131_072),
    (r"gpt-?4", 8_192),
    (r"gpt-?3\.5", 16_385),
    (r"^o[134](?:\b|-|$)", 200_000),
    (r"claude", 200_000),
    (r"gemini-?1\.0|gemini-pro$", 32_760),
    (r"gemini", 1_048_576),
    (r"deepseek", 65_536),
    (r"qwen-?3", 32_768),
    (r"qwen-?2\.5|qwq|qwen", 32_768),
    (r"llama-?3\.[123]", 131_072),
    (r"llama-?3", 8_192),
    (r"llama-?2", 4_096),
    (r"mistral-?nemo|mistral-?small|mistral-?large|ministral", 131_072),
    (r"mistral|mixtral", 32_768),
    (r"gemma-?3", 131_072),
    (r"gemma", 8_192),
    (r"phi-?4", 16_384),
    (r"phi-?3", 4_096),
    (r"smollm", 8_192),
]

_PROVIDER_DEFAULTS = {
    "openai": 128_000,
    "anthropic": 200_000,
    "gemini": 1_048_576,
    "deepseek": 65_536,
    "openrouter": 32_768,
}


def known_context_window(model: str) -> int | None:
    """The window of a known model family, or None."""
    name = model.lower().rsplit("/", 1)[-1]
    for pattern, window in _FAMILIES:
        if re.search(pattern, name):
            return window
    return None


def default_context_window(provider: str, model: str) -> int:
    """The window to assume for `provider:model` when nothing better is known."""
    return known_context_window(model) or _PROVIDER_DEFAULTS.get(provider, UNKNOWN_LOCAL)
