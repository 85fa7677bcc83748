"""Language and embedding models behind two small interfaces (`ChatModel`, `Embedder`), opened
from a `provider:model` spec through one registry (`spec.py`). Code outside this package
imports from here, never from a provider's module.

Names load on first use, so importing `Embedder` does not load the chat providers (and httpx).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wikiq.lazy_names import lazy_names

if TYPE_CHECKING:
    from wikiq.errors import ModelServerError
    from wikiq.llm.base import ChatModel, ChatStream, Completion, Message, Usage
    from wikiq.llm.detect import detect_local_ollama
    from wikiq.llm.embedders import (
        DEFAULT_EMBED_MODEL,
        INSTALL_HINT,
        Embedder,
        LocalE5,
        embed_spec,
        open_embedder,
    )
    from wikiq.llm.failures import display_url
    from wikiq.llm.spec import ModelSpec, get_key, open_model, parse_model_spec
    from wikiq.llm.thinking import strip_thinking
    from wikiq.llm.transport import RetryPolicy

_LAZY = {
    "ChatModel": "wikiq.llm.base",
    "ChatStream": "wikiq.llm.base",
    "Completion": "wikiq.llm.base",
    "Message": "wikiq.llm.base",
    "Usage": "wikiq.llm.base",
    "detect_local_ollama": "wikiq.llm.detect",
    "DEFAULT_EMBED_MODEL": "wikiq.llm.embedders",
    "INSTALL_HINT": "wikiq.llm.embedders",
    "Embedder": "wikiq.llm.embedders",
    "LocalE5": "wikiq.llm.embedders",
    "embed_spec": "wikiq.llm.embedders",
    "open_embedder": "wikiq.llm.embedders",
    "display_url": "wikiq.llm.failures",
    "ModelServerError": "wikiq.errors",
    "ModelSpec": "wikiq.llm.spec",
    "get_key": "wikiq.llm.spec",
    "open_model": "wikiq.llm.spec",
    "parse_model_spec": "wikiq.llm.spec",
    "strip_thinking": "wikiq.llm.thinking",
    "RetryPolicy": "wikiq.llm.transport",
}

__all__ = [
    "DEFAULT_EMBED_MODEL",
    "INSTALL_HINT",
    "ChatModel",
    "ChatStream",
    "Completion",
    "Embedder",
    "LocalE5",
    "Message",
    "ModelServerError",
    "ModelSpec",
    "RetryPolicy",
    "Usage",
    "detect_local_ollama",
    "display_url",
    "embed_spec",
    "get_key",
    "open_embedder",
    "open_model",
    "parse_model_spec",
    "strip_thinking",
]


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
