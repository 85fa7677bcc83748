"""Turn what went wrong talking to a model server into one sentence a user can act on."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

# The error lives with the others; named here too because every provider raises it from here.
from wikiq.errors import FailureKind, ModelServerError

CONTEXT_TOO_LONG = re.compile(
    r"context[ _-]?length|context[ _-]?size|context[ _-]?window|maximum context|"
    r"prompt is too long|too many tokens|exceeds? the maximum number of tokens|"
    r"input token count|reduce the length|exceed_context",
    re.IGNORECASE,
)
_NOT_FOUND = re.compile(
    r"not found|does not exist|doesn't exist|no such model|unknown model|not a valid model|"
    r"invalid model|model_not_found|not_found_error|try pulling",
    re.IGNORECASE,
)
_BAD_KEY = re.compile(
    r"api[ _-]?key (?:is )?(?:not valid|invalid|incorrect)|invalid[ _-]api[ _-]?key|"
    r"incorrect api key|api_key_invalid",
    re.IGNORECASE,
)
_OUT_OF_QUOTA = re.compile(
    r"insufficient_quota|exceeded your current quota|credit balance|insufficient credits|"
    r"billing",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Endpoint:
    """What error sentences need to know about the server being talked to."""

    where: str  # base URL as shown to users (no credentials)
    model: str
    key_env: str | None = None  # the variable that holds the key, for the hint
    has_key: bool = False
    not_found_hint: str = "check the model name"
    secrets: Sequence[str] = ()

    def __repr__(self) -> str:
        return f"Endpoint(where={self.where!r}, model={self.model!r})"


def display_url(url: str) -> str:
    """A URL as shown to users: no credentials, no query string, no trailing slash."""
    try:
        parsed = httpx.URL(url)
        shown = parsed.copy_with(username=None, password=None, query=None, fragment=None)
        return str(shown).rstrip("/")
    except (httpx.InvalidURL, TypeError, ValueError):
        return url.split("?", 1)[0].rstrip("/")


def server_message(body: str) -> str:
    """The human part of an error body: `error.message`, `error`, `message` or `detail`."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        return body
    # {"error": {"message": …}}, {"error": "…"}, {"message": …}, {"detail": …}, nested or not.
    while isinstance(data, dict):
        inner = next((data[k] for k in ("error", "message", "detail") if k in data), None)
        if inner is None:
            break
        data = inner
    return data if isinstance(data, str) else body


def clean_detail(
    text: str, secrets: Sequence[str] = (), limit: int = 200, *, first_sentence: bool = True
) -> str:
    """Server text on one line, short, without secrets, markup or a closing full stop."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    if text.lstrip().startswith("<"):  # an HTML error page from a proxy
        text = re.sub(r"<[^>]*>", " ", text)
    text = " ".join(text.split())
    if first_sentence:
        text = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text, maxsplit=1)[0]
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text.rstrip(".")


def is_retryable_status(status: int, body: str) -> bool:
    if CONTEXT_TOO_LONG.search(body):
        return False
    if status == 429:
        return not _OUT_OF_QUOTA.search(body)
    return status >= 500


def from_status(
    status: int, body: str, endpoint: Endpoint, *, path: str = "", attempts: int = 1
) -> ModelServerError:
    """The error for an HTTP error response, after `attempts` tries."""
    where, model = endpoint.where, endpoint.model
    detail = clean_detail(server_message(body), endpoint.secrets)
    # Codes such as `context_length_exceeded` live outside the message, so match the whole body.
    after = f" after {attempts} attempts" if attempts > 1 else ""
    kind: FailureKind
    if status in (401, 403) or _BAD_KEY.search(body):
        kind = "bad_key"
        if endpoint.has_key:
            hint = f"check {endpoint.key_env}" if endpoint.key_env else "check the API key"
            sentence = f"The model server at {where} rejected the API key (HTTP {status}): {hint}."
        else:
            hint = (
                f"set {endpoint.key_env}"
                if endpoint.key_env
                else "put the key in a file and pass --api-key-file (or set WIKIQ_API_KEY_FILE "
                "or WIKIQ_API_KEY)"
            )
            sentence = f"The model server at {where} requires an API key (HTTP {status}): {hint}."
    elif CONTEXT_TOO_LONG.search(body) and status != 429:
        kind = "context_too_long"
        sentence = (
            f"The prompt was too long for the context window of {model}: use a smaller "
            "--context or a model with a bigger context window."
        )
    elif _NOT_FOUND.search(body) and (status == 404 or _names_a_model(body, model)):
        kind = "model_not_found"
        sentence = f"The model '{model}' was not found at {where}: {endpoint.not_found_hint}."
    elif status == 404:
        kind = "endpoint_not_found"
        sentence = (
            f"The model server at {where} has no {path or 'such'} endpoint (HTTP 404): "
            "check the base URL."
        )
    elif status == 429 and _OUT_OF_QUOTA.search(body):
        kind = "out_of_quota"
        sentence = (
            f"The model server at {where} refused the request because the account is out of "
            f"credits or quota (HTTP 429): {detail}."
        )
    elif status == 429:
        kind = "rate_limited"
        sentence = (
            f"The model server at {where} is still rate limiting requests (HTTP 429){after}: "
            "wait a little and try again."
        )
    elif status >= 500:
        kind = "server_error"
        tail = f": {detail}" if detail else ""
        sentence = f"The model server at {where} failed with HTTP {status}{after}{tail}."
    else:
        kind = "rejected"
        tail = f": {detail}" if detail else ""
        sentence = f"The model server at {where} rejected the request (HTTP {status}){tail}."
    err = ModelServerError(sentence, kind=kind, status=status)
    err.detail = clean_detail(server_message(body), endpoint.secrets, 1000, first_sentence=False)
    return err


def reported_error(body: str, endpoint: Endpoint) -> ModelServerError:
    """An error the server put inside an otherwise successful answer or stream."""
    if CONTEXT_TOO_LONG.search(body):
        return from_status(400, body, endpoint)
    detail = clean_detail(server_message(body), endpoint.secrets)
    err = ModelServerError(
        f"The model server at {endpoint.where} reported an error: {detail}.", kind="server_error"
    )
    err.detail = clean_detail(server_message(body), endpoint.secrets, 1000, first_sentence=False)
    return err


def unreachable(error: Exception, endpoint: Endpoint) -> ModelServerError:
    reason = _connect_reason(error)
    return ModelServerError(
        f"Could not reach the model server at {endpoint.where}: {reason}.", kind="unreachable"
    )


def timed_out(endpoint: Endpoint, seconds: float) -> ModelServerError:
    return ModelServerError(
        f"The model server at {endpoint.where} did not answer within {seconds:g} seconds.",
        kind="timeout",
    )


def too_long(endpoint: Endpoint, chars: int) -> ModelServerError:
    return ModelServerError(
        f"The model server at {endpoint.where} kept writing past {chars:,} characters; the "
        "answer was stopped there (what it wrote is kept).",
        kind="too_long",
    )


def too_slow(endpoint: Endpoint, seconds: float) -> ModelServerError:
    return ModelServerError(
        f"The model server at {endpoint.where} was still writing after {seconds:g} seconds; "
        "the answer was stopped there (what it wrote is kept).",
        kind="too_slow",
    )


def cut_off(endpoint: Endpoint) -> ModelServerError:
    return ModelServerError(
        f"The model server at {endpoint.where} cut the answer off mid-stream: try again.",
        kind="cut_off",
    )


def _names_a_model(body: str, model: str) -> bool:
    lowered = body.lower()
    return "model" in lowered or (bool(model) and model.lower() in lowered)


def _connect_reason(error: Exception) -> str:
    text = str(error).lower()
    if isinstance(error, httpx.ConnectTimeout):
        return "the connection timed out"
    if "refused" in text:
        return "connection refused"
    if (
        "name or service not known" in text
        or "nodename nor servname" in text
        or ("name resolution" in text)
    ):
        return "the host name could not be resolved"
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError):
        return "the server closed the connection"
    if "ssl" in text or "certificate" in text:
        return "the TLS handshake failed"
    return clean_detail(str(error)) or type(error).__name__
