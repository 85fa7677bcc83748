"""Ollama's native API: `POST /api/chat` with NDJSON streaming.

Unlike its OpenAI-compatible `/v1`, the native API lets us set `num_ctx`, so the context window
wikiq budgets for is the one Ollama really uses (its own default is much smaller).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from wikiq.llm import failures
from wikiq.llm.addresses import OLLAMA_URL as DEFAULT_BASE_URL
from wikiq.llm.base import Usage
from wikiq.llm.context_windows import UNKNOWN_LOCAL, known_context_window
from wikiq.llm.failures import Endpoint, display_url
from wikiq.llm.provider import HttpChatModel, Reply, Request, as_int
from wikiq.llm.streaming import Event, UsageUpdate, json_object
from wikiq.llm.transport import RetryPolicy, StreamCutOff, Transport

# Without an explicit --context, stay at a window a laptop can hold in memory, even when the
# model was trained for far more (llama3.1 says 131072).
DEFAULT_WINDOW_CAP = 32_768


class OllamaModel(HttpChatModel):
    """A model served by Ollama at `base_url` (no `/v1`)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        context_window: int | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        ask_server_for_context: bool = True,
    ) -> None:
        endpoint = Endpoint(
            where=display_url(base_url),
            model=model,
            not_found_hint=f"run `ollama pull {model}` or pick a model that `ollama list` shows",
        )
        transport = Transport(base_url, endpoint, timeout=timeout, retry=retry)
        super().__init__("ollama", model, transport, context_window or 0)
        self._ask_server = ask_server_for_context

    @property
    def context_window(self) -> int:
        if not self._context_window:
            trained = self._trained_context() if self._ask_server else None
            window = trained or known_context_window(self.model) or UNKNOWN_LOCAL
            self._context_window = min(window, DEFAULT_WINDOW_CAP)
        return self._context_window

    def _post_completion(self, request: Request) -> Any:
        body = self._body(request)
        return self._transport.post_json("/api/chat", body)

    def _read_reply(self, data: dict[str, Any]) -> Reply:
        if data.get("error"):
            raise failures.reported_error(json.dumps(data), self._transport.endpoint)
        message = data.get("message") or {}
        content = message.get("content")
        native = message.get("thinking")
        return Reply(
            text=content if isinstance(content, str) else "",
            usage=Usage(
                as_int(data.get("prompt_eval_count")) or 0, as_int(data.get("eval_count")) or 0
            ),
            model=data.get("model"),
            reasoning=native.strip() if isinstance(native, str) else "",
        )

    def _open_stream(self, request: Request) -> httpx.Response:
        body = self._body(request)
        return self._transport.open_stream("/api/chat", body)

    def _body(self, request: Request) -> dict[str, Any]:
        options: dict[str, Any] = {"num_ctx": self.context_window}
        if request.max_tokens is not None:
            options["num_predict"] = request.max_tokens
        if request.temperature is not None:
            options["temperature"] = request.temperature
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "stream": request.stream,
            "options": options,
        }
        if request.json_mode:
            body["format"] = "json"
        return body

    def _events(self, lines: Iterator[str]) -> Iterator[Event]:
        for line in lines:
            if not line.strip():
                continue
            chunk = json_object(line)
            if chunk is None:
                continue
            if chunk.get("error"):
                raise failures.reported_error(line, self._transport.endpoint)
            # `message.thinking` holds a thinking model's reasoning: not shown.
            content = (chunk.get("message") or {}).get("content")
            if isinstance(content, str) and content:
                yield content
            if chunk.get("done"):
                yield UsageUpdate(
                    as_int(chunk.get("prompt_eval_count")), as_int(chunk.get("eval_count"))
                )
                return
        raise StreamCutOff("the stream ended before Ollama said it was done")

    def _trained_context(self) -> int | None:
        data = self._transport.try_json("POST", "/api/show", {"model": self.model})
        info = data.get("model_info") if isinstance(data, dict) else None
        if not isinstance(info, dict):
            return None
        for key, value in info.items():
            if key.endswith(".context_length") and as_int(value):
                return as_int(value)
        return None
