"""Language models behind one small interface (`ChatModel`), opened from a `provider:model` spec."""

from wikiq.llm.base import ChatModel, ChatStream, Completion, Message, Usage
from wikiq.llm.detect import detect_local_ollama
from wikiq.llm.failures import ModelServerError
from wikiq.llm.spec import ModelSpec, open_model, parse_model_spec
from wikiq.llm.thinking import strip_thinking
from wikiq.llm.transport import RetryPolicy

__all__ = [
    "ChatModel",
    "ChatStream",
    "Completion",
    "Message",
    "ModelServerError",
    "ModelSpec",
    "RetryPolicy",
    "Usage",
    "detect_local_ollama",
    "open_model",
    "parse_model_spec",
    "strip_thinking",
]
