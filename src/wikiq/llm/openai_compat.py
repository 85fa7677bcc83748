"""Any server that speaks OpenAI's `POST /chat/completions`.

OpenAI, Ollama's `/v1`, LM Studio, vLLM, the llama.cpp server, OpenRouter, DeepSeek… differ in
which optional fields they accept, so the model learns from a server's 400 answers what to stop
sending (`stream_options`, `response_format`, `temperature`, `max_tokens`) and remembers it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

import httpx

from wikiq.llm import failures
from wikiq.llm.base import Usage
from wikiq.llm.failures import ModelServerError
from wikiq.llm.provider import HttpChatModel, Reply, Request, as_int
from wikiq.llm.streaming import Event, UsageUpdate, iter_sse, json_object
from wikiq.llm.transport import RetryPolicy, StreamCutOff

T = TypeVar("T")

PATH = "/chat/completions"


class OpenAICompatModel(HttpChatModel):
    """A chat model behind an OpenAI-compatible API at `base_url` (which usually ends in `/v1`)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None = None,
        label: str = "openai",
        context_window: int | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        key_env: str | None = None,
    ) -> None:
        all_headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        all_headers.update(headers or {})
        self._connect(
            label, model, base_url, all_headers, api_key=api_key, key_env=key_env,
            context_window=context_window, timeout=timeout, retry=retry,
        )
        self._send_stream_usage = True
        self._send_json_format = True
        self._send_temperature = True
        self._max_tokens_field = "max_tokens"

    def _post_completion(self, request: Request) -> Any:
        body = self._body(request)
        return self._adapting(lambda b: self._transport.post_json(PATH, b), body)

    def _read_reply(self, data: dict[str, Any]) -> Reply:
        if data.get("error") and not data.get("choices"):
            raise failures.reported_error(json.dumps(data), self._transport.endpoint)
        usage = data["usage"] if isinstance(data.get("usage"), dict) else {}
        return Reply(
            text=_message_text(data),
            usage=Usage(
                as_int(usage.get("prompt_tokens")) or 0,
                as_int(usage.get("completion_tokens")) or 0,
            ),
            model=data.get("model"),
            reasoning=_message_reasoning(data),
        )

    def _open_stream(self, request: Request) -> httpx.Response:
        body = self._body(request)
        return self._adapting(lambda b: self._transport.open_stream(PATH, b), body)

    def _body(self, request: Request) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if request.max_tokens is not None:
            body[self._max_tokens_field] = request.max_tokens
        if request.temperature is not None and self._send_temperature:
            body["temperature"] = request.temperature
        if request.stream:
            body["stream"] = True
            if self._send_stream_usage:
                body["stream_options"] = {"include_usage": True}
        if request.json_mode and self._send_json_format:
            body["response_format"] = {"type": "json_object"}
        return body

    def _adapting(self, send: Callable[[dict[str, Any]], T], body: dict[str, Any]) -> T:
        """Send; while the server rejects an optional field, drop it and send again."""
        while True:
            try:
                return send(body)
            except ModelServerError as err:
                if err.kind != "rejected" or not self._relax(body, err.detail.lower()):
                    raise

    def _relax(self, body: dict[str, Any], said: str) -> bool:
        """Drop or rename the field the server complained about; False if there is none."""
        if "max_completion_tokens" in said and "max_tokens" in body:
            body["max_completion_tokens"] = body.pop("max_tokens")
            self._max_tokens_field = "max_completion_tokens"
            return True
        if "temperature" in said and "temperature" in body:
            del body["temperature"]
            self._send_temperature = False
            return True
        named = [f for f in ("stream_options", "response_format") if f in body and f in said]
        # A server that does not name the field still most likely objects to the optional ones.
        optional = named or [f for f in ("response_format", "stream_options") if f in body]
        if not optional:
            return False
        field = optional[0]
        del body[field]
        if field == "stream_options":
            self._send_stream_usage = False
        else:
            self._send_json_format = False
        return True

    def _events(self, lines: Iterator[str]) -> Iterator[Event]:
        finished = False
        try:
            for _, data in iter_sse(lines):
                if data.strip() == "[DONE]":
                    return
                chunk = json_object(data)
                if chunk is None:
                    continue
                if chunk.get("error"):
                    raise failures.reported_error(data, self._transport.endpoint)
                usage = chunk.get("usage")
                if isinstance(usage, dict):
                    yield UsageUpdate(
                        as_int(usage.get("prompt_tokens")), as_int(usage.get("completion_tokens"))
                    )
                for choice in chunk.get("choices") or ():
                    # `reasoning_content` / `reasoning` deltas are the model thinking: not shown.
                    delta = choice.get("delta") or {}
                    content = delta.get("content")
                    if isinstance(content, str) and content:
                        yield content
                    if choice.get("finish_reason"):
                        finished = True
        except StreamCutOff:
            if not finished:
                raise
            return
        if not finished:
            raise StreamCutOff("the stream ended before the answer was complete")


def _message_reasoning(data: dict[str, Any]) -> str:
    """`reasoning_content` (DeepSeek, vLLM, llama.cpp) or `reasoning` (OpenRouter, Ollama /v1)."""
    choices = data.get("choices") or [{}]
    message = choices[0].get("message") or {}
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _message_text(data: dict[str, Any]) -> str:
    choices = data.get("choices") or [{}]
    message = choices[0].get("message") or {}
    content = message.get("content")
    if isinstance(content, list):  # a few servers answer with content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""
