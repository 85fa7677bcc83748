"""Anthropic's Messages API: `POST /v1/messages`, streamed as typed server-sent events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from wikiq.llm import failures
from wikiq.llm.addresses import ANTHROPIC_URL as DEFAULT_BASE_URL
from wikiq.llm.base import Usage
from wikiq.llm.provider import HttpChatModel, Reply, Request, as_int, split_system
from wikiq.llm.streaming import Event, UsageUpdate, iter_sse, json_object
from wikiq.llm.transport import RetryPolicy, StreamCutOff

API_VERSION = "2023-06-01"
# The API requires max_tokens; this fits every current Claude model.
DEFAULT_MAX_TOKENS = 4096
PATH = "/v1/messages"


class AnthropicModel(HttpChatModel):
    """A Claude model; `base_url` is the host (a trailing `/v1` is tolerated)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        base_url: str = DEFAULT_BASE_URL,
        context_window: int | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        key_env: str | None = "ANTHROPIC_API_KEY",
    ) -> None:
        base_url = base_url.rstrip("/").removesuffix("/v1")
        headers = {"anthropic-version": API_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        self._connect(
            "anthropic", model, base_url, headers, api_key=api_key, key_env=key_env,
            context_window=context_window, timeout=timeout, retry=retry,
        )

    def _post_completion(self, request: Request) -> Any:
        # The Messages API has no JSON mode; callers ask for JSON in the prompt.
        return self._transport.post_json(PATH, self._body(request))

    def _read_reply(self, data: dict[str, Any]) -> Reply:
        if data.get("type") == "error":
            raise failures.reported_error(json.dumps(data), self._transport.endpoint)
        blocks = data.get("content") or []
        text = "".join(
            b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
        )
        usage = data["usage"] if isinstance(data.get("usage"), dict) else {}
        extended = "\n".join(
            str(b.get("thinking") or "").strip()
            for b in blocks
            if isinstance(b, dict) and b.get("type") == "thinking" and b.get("thinking")
        )
        return Reply(
            text=text,
            usage=Usage(_prompt_tokens(usage) or 0, as_int(usage.get("output_tokens")) or 0),
            model=data.get("model"),
            reasoning=extended,
        )

    def _open_stream(self, request: Request) -> httpx.Response:
        body = self._body(request)
        return self._transport.open_stream(PATH, body)

    def _body(self, request: Request) -> dict[str, Any]:
        system, turns = split_system(request.messages)
        merged: list[dict[str, str]] = []
        for m in turns:
            if merged and merged[-1]["role"] == m.role:
                merged[-1]["content"] += "\n\n" + m.content
            else:
                merged.append({"role": m.role, "content": m.content})
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": merged,
        }
        if system:
            body["system"] = system
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.stream:
            body["stream"] = True
        return body

    def _events(self, lines: Iterator[str]) -> Iterator[Event]:
        for event, data in iter_sse(lines):
            payload = json_object(data)
            if payload is None:
                continue
            kind = payload.get("type") or event
            if kind == "message_start":
                usage = (payload.get("message") or {}).get("usage") or {}
                yield UsageUpdate(_prompt_tokens(usage), as_int(usage.get("output_tokens")))
            elif kind == "content_block_delta":
                # `thinking_delta`s carry extended thinking: not shown.
                delta = payload.get("delta") or {}
                if delta.get("type") == "text_delta" and delta.get("text"):
                    yield str(delta["text"])
            elif kind == "message_delta":
                usage = payload.get("usage") or {}
                yield UsageUpdate(_prompt_tokens(usage), as_int(usage.get("output_tokens")))
            elif kind == "message_stop":
                return
            elif kind == "error":
                error = payload.get("error") or {}
                if error.get("type") in ("overloaded_error", "api_error"):
                    raise StreamCutOff(str(error.get("message", "")))
                raise failures.reported_error(data, self._transport.endpoint)
        raise StreamCutOff("the stream ended before message_stop")


def _prompt_tokens(usage: dict[str, Any]) -> int | None:
    parts = [
        as_int(usage.get(k))
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    ]
    counted = [p for p in parts if p is not None]
    return sum(counted) if counted else None
