"""Google's Gemini API: `models/{model}:generateContent` and `:streamGenerateContent?alt=sse`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from wikiq.llm import failures
from wikiq.llm.addresses import GEMINI_URL as DEFAULT_BASE_URL
from wikiq.llm.base import Usage
from wikiq.llm.failures import ModelServerError
from wikiq.llm.provider import HttpChatModel, Reply, Request, as_int, split_system
from wikiq.llm.streaming import Event, UsageUpdate, iter_sse, json_object
from wikiq.llm.transport import RetryPolicy, StreamCutOff


class GeminiModel(HttpChatModel):
    """A Gemini model; `base_url` includes the API version (`…/v1beta`)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        base_url: str = DEFAULT_BASE_URL,
        context_window: int | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        key_env: str | None = "GEMINI_API_KEY",
    ) -> None:
        model = model.removeprefix("models/")
        headers = {"x-goog-api-key": api_key} if api_key else {}
        self._connect(
            "gemini", model, base_url, headers, api_key=api_key, key_env=key_env,
            context_window=context_window, timeout=timeout, retry=retry,
        )

    def _post_completion(self, request: Request) -> Any:
        body = self._body(request)
        return self._transport.post_json(f"/models/{self.model}:generateContent", body)

    def _read_reply(self, data: dict[str, Any]) -> Reply:
        self._raise_if_blocked(data)
        prompt, answer = _usage(data)
        return Reply(
            text=_text(data),
            usage=Usage(prompt or 0, answer or 0),
            model=data.get("modelVersion"),
            reasoning=_text(data, thoughts=True).strip(),
        )

    def _open_stream(self, request: Request) -> httpx.Response:
        body = self._body(request)
        path = f"/models/{self.model}:streamGenerateContent"
        return self._transport.open_stream(path, body, params={"alt": "sse"})

    def _body(self, request: Request) -> dict[str, Any]:
        system, turns = split_system(request.messages)
        body: dict[str, Any] = {
            "contents": [
                {
                    "role": "model" if m.role == "assistant" else "user",
                    "parts": [{"text": m.content}],
                }
                for m in turns
            ]
        }
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        config: dict[str, Any] = {}
        if request.max_tokens is not None:
            config["maxOutputTokens"] = request.max_tokens
        if request.temperature is not None:
            config["temperature"] = request.temperature
        if request.json_mode:
            config["responseMimeType"] = "application/json"
        if config:
            body["generationConfig"] = config
        return body

    def _events(self, lines: Iterator[str]) -> Iterator[Event]:
        for _, data in iter_sse(lines):
            chunk = json_object(data)
            if chunk is None:
                continue
            if chunk.get("error"):
                raise failures.reported_error(data, self._transport.endpoint)
            self._raise_if_blocked(chunk)
            text = _text(chunk)
            if text:
                yield text
            prompt, answer = _usage(chunk)
            if prompt is not None or answer is not None:
                yield UsageUpdate(prompt, answer)
            candidates = chunk.get("candidates") or [{}]
            if candidates[0].get("finishReason"):
                return
        raise StreamCutOff("the stream ended before a finishReason")

    def _raise_if_blocked(self, data: dict[str, Any]) -> None:
        reason = (data.get("promptFeedback") or {}).get("blockReason")
        if reason and not data.get("candidates"):
            raise ModelServerError(
                f"{self.model} refused to answer this prompt (blocked: {reason}).",
                kind="rejected",
            )


def _text(data: dict[str, Any], *, thoughts: bool = False) -> str:
    """The answer parts' text; with `thoughts`, the reasoning summary (parts marked `thought`)."""
    candidates = data.get("candidates") or [{}]
    parts = (candidates[0].get("content") or {}).get("parts") or []
    return "".join(
        p.get("text", "")
        for p in parts
        if isinstance(p, dict) and bool(p.get("thought")) == thoughts
    )


def _usage(data: dict[str, Any]) -> tuple[int | None, int | None]:
    meta = data.get("usageMetadata")
    if not isinstance(meta, dict):
        return None, None
    answer = as_int(meta.get("candidatesTokenCount"))
    thoughts = as_int(meta.get("thoughtsTokenCount"))
    if thoughts is not None:
        answer = (answer or 0) + thoughts  # billed as output, like OpenAI's reasoning tokens
    return as_int(meta.get("promptTokenCount")), answer
