"""How each API the fake model server speaks spells errors, whole answers and stream frames."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.support.fake_llm import Reply


def _sse(data: Any, event: str | None = None) -> str:
    prefix = f"event: {event}\n" if event else ""
    return f"{prefix}data: {json.dumps(data)}\n\n"


class Dialect:
    """How one API spells errors, whole answers and stream frames."""

    content_type = "text/event-stream"

    def error(self, status: int, message: str, code: str | None) -> Any:
        return {"error": {"message": message, "type": "invalid_request_error", "code": code}}

    def whole(self, reply: Reply, model: str, usage: tuple[int, int]) -> Any:
        raise NotImplementedError

    def head(self, reply: Reply, model: str, usage: tuple[int, int]) -> list[str]:
        return []

    def delta(self, reply: Reply, piece: str, model: str, usage: tuple[int, int]) -> str:
        raise NotImplementedError

    def tail(self, reply: Reply, model: str, usage: tuple[int, int], body: Any) -> list[str]:
        return []


class OpenAIDialect(Dialect):
    def _chunk(self, model: str, delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _sse(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [choice],
            }
        )

    def whole(self, reply: Reply, model: str, usage: tuple[int, int]) -> Any:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.reasoning:
            message["reasoning_content"] = reply.reasoning
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
            },
        }

    def head(self, reply: Reply, model: str, usage: tuple[int, int]) -> list[str]:
        frames = [self._chunk(model, {"role": "assistant", "content": ""})]
        if reply.reasoning:
            frames.append(self._chunk(model, {"reasoning_content": reply.reasoning}))
        return frames

    def delta(self, reply: Reply, piece: str, model: str, usage: tuple[int, int]) -> str:
        return self._chunk(model, {"content": piece})

    def tail(self, reply: Reply, model: str, usage: tuple[int, int], body: Any) -> list[str]:
        frames = [self._chunk(model, {}, "stop")]
        if (body.get("stream_options") or {}).get("include_usage"):
            counts = {"prompt_tokens": usage[0], "completion_tokens": usage[1]}
            frames.append(
                _sse(
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion.chunk",
                        "model": model,
                        "choices": [],
                        "usage": counts,
                    }
                )
            )
        return [*frames, "data: [DONE]\n\n"]


class OllamaDialect(Dialect):
    content_type = "application/x-ndjson"

    def error(self, status: int, message: str, code: str | None) -> Any:
        return {"error": message}

    def _line(self, model: str, message: dict[str, Any], **extra: Any) -> str:
        data = {"model": model, "created_at": "2025-01-01T00:00:00Z", "message": message}
        return json.dumps({**data, "done": False, **extra}) + "\n"

    def whole(self, reply: Reply, model: str, usage: tuple[int, int]) -> Any:
        message = {"role": "assistant", "content": reply.content, "thinking": reply.reasoning}
        return json.loads(
            self._line(
                model,
                message,
                done=True,
                done_reason="stop",
                prompt_eval_count=usage[0],
                eval_count=usage[1],
            )
        )

    def head(self, reply: Reply, model: str, usage: tuple[int, int]) -> list[str]:
        thinking = {"role": "assistant", "content": "", "thinking": reply.reasoning}
        return [self._line(model, thinking)] if reply.reasoning else []

    def delta(self, reply: Reply, piece: str, model: str, usage: tuple[int, int]) -> str:
        return self._line(model, {"role": "assistant", "content": piece})

    def tail(self, reply: Reply, model: str, usage: tuple[int, int], body: Any) -> list[str]:
        return [
            self._line(
                model,
                {"role": "assistant", "content": ""},
                done=True,
                done_reason="stop",
                prompt_eval_count=usage[0],
                eval_count=usage[1],
            )
        ]


class AnthropicDialect(Dialect):
    def error(self, status: int, message: str, code: str | None) -> Any:
        kinds = {401: "authentication_error", 404: "not_found_error", 429: "rate_limit_error"}
        kind = code or kinds.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def whole(self, reply: Reply, model: str, usage: tuple[int, int]) -> Any:
        thinking = [{"type": "thinking", "thinking": reply.reasoning}] if reply.reasoning else []
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [*thinking, {"type": "text", "text": reply.content}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
        }

    def head(self, reply: Reply, model: str, usage: tuple[int, int]) -> list[str]:
        message = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "usage": {"input_tokens": usage[0], "output_tokens": 1},
        }
        frames = [_sse({"type": "message_start", "message": message}, "message_start")]
        if reply.reasoning:
            frames += [
                _sse(
                    {
                        "type": "content_block_start",
                        "index": 0,
                        "content_block": {"type": "thinking", "thinking": ""},
                    },
                    "content_block_start",
                ),
                _sse(
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "thinking_delta", "thinking": reply.reasoning},
                    },
                    "content_block_delta",
                ),
                _sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
            ]
        start = {
            "type": "content_block_start",
            "index": int(bool(reply.reasoning)),
            "content_block": {"type": "text", "text": ""},
        }
        return [*frames, _sse(start, "content_block_start"), _sse({"type": "ping"}, "ping")]

    def delta(self, reply: Reply, piece: str, model: str, usage: tuple[int, int]) -> str:
        delta = {
            "type": "content_block_delta",
            "index": int(bool(reply.reasoning)),
            "delta": {"type": "text_delta", "text": piece},
        }
        return _sse(delta, "content_block_delta")

    def tail(self, reply: Reply, model: str, usage: tuple[int, int], body: Any) -> list[str]:
        done = {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": usage[1]},
        }
        return [
            _sse(
                {"type": "content_block_stop", "index": int(bool(reply.reasoning))},
                "content_block_stop",
            ),
            _sse(done, "message_delta"),
            _sse({"type": "message_stop"}, "message_stop"),
        ]


class GeminiDialect(Dialect):
    def error(self, status: int, message: str, code: str | None) -> Any:
        names = {
            400: "INVALID_ARGUMENT",
            403: "PERMISSION_DENIED",
            404: "NOT_FOUND",
            429: "RESOURCE_EXHAUSTED",
        }
        return {
            "error": {
                "code": status,
                "message": message,
                "status": code or names.get(status, "INTERNAL"),
            }
        }

    def _frame(
        self,
        parts: list[dict[str, Any]],
        model: str,
        usage: tuple[int, int],
        finish: str | None = None,
    ) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        meta = {
            "promptTokenCount": usage[0],
            "candidatesTokenCount": usage[1],
            "totalTokenCount": sum(usage),
        }
        return {"candidates": [candidate], "usageMetadata": meta, "modelVersion": model}

    def _parts(self, reply: Reply, text: str) -> list[dict[str, Any]]:
        thought = [{"text": reply.reasoning, "thought": True}] if reply.reasoning else []
        return [*thought, {"text": text}]

    def whole(self, reply: Reply, model: str, usage: tuple[int, int]) -> Any:
        return self._frame(self._parts(reply, reply.content), model, usage, "STOP")

    def head(self, reply: Reply, model: str, usage: tuple[int, int]) -> list[str]:
        thought = [{"text": reply.reasoning, "thought": True}]
        return [_sse(self._frame(thought, model, (usage[0], 0)))] if reply.reasoning else []

    def delta(self, reply: Reply, piece: str, model: str, usage: tuple[int, int]) -> str:
        return _sse(self._frame([{"text": piece}], model, (usage[0], 0)))

    def tail(self, reply: Reply, model: str, usage: tuple[int, int], body: Any) -> list[str]:
        return [_sse(self._frame([{"text": ""}], model, usage, "STOP"))]
