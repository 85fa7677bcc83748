"""HTTP for model providers: timeouts, retries with backoff and `Retry-After`, clear errors.

Every provider sends through a `Transport`, so they all retry the same things (429, 5xx, dropped
connections) and never the ones a retry cannot fix (400, 401, 403, 404).
"""

from __future__ import annotations

import functools
import logging
import random
import ssl
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from wikiq.llm import failures
from wikiq.llm.failures import Endpoint, ModelServerError

log = logging.getLogger(__name__)

# Failures where the request most likely never reached the model, so sending it again is safe.
_CONNECTION_ERRORS = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
    httpx.WriteError,
)


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """httpx's default TLS settings, loaded once: reading the CA bundle takes about 25 ms."""
    return httpx.create_ssl_context()


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry; `sleep` is injectable so tests need not wait."""

    attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 10.0  # longest single wait, `Retry-After` included
    max_total_wait: float = 30.0
    sleep: Callable[[float], None] = time.sleep
    jitter: Callable[[], float] = random.random

    def backoff(self, retry: int) -> float:
        """Seconds before retry number `retry` (1-based): doubling, plus up to 50 % jitter."""
        delay = self.base_delay * 2 ** (retry - 1) * (1 + 0.5 * self.jitter())
        return min(delay, self.max_delay)


class StreamCutOff(Exception):
    """The connection ended before the server said its answer was complete."""


def retry_after_seconds(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """The wait a server asks for in `Retry-After` (seconds or HTTP date) or `retry-after-ms`."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class Transport:
    """One model server: a pooled httpx client plus the retry and error rules."""

    def __init__(
        self,
        base_url: str,
        endpoint: Endpoint,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.endpoint = endpoint
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        self._client = httpx.Client(
            headers=dict(headers or {}),
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            verify=shared_ssl_context(),
        )

    def __repr__(self) -> str:
        return f"Transport({self.endpoint.where!r})"

    def close(self) -> None:
        self._client.close()

    def post_json(self, path: str, body: Any, *, params: Mapping[str, str] | None = None) -> Any:
        response = self._send("POST", path, body, params, stream=False)
        return self._json(response)

    def get_json(self, path: str, *, params: Mapping[str, str] | None = None) -> Any:
        response = self._send("GET", path, None, params, stream=False)
        return self._json(response)

    def try_json(
        self, method: str, path: str, body: Any = None, *, timeout: float = 2.0
    ) -> Any | None:
        """One quick attempt for optional information: the JSON answer, or None on any failure."""
        try:
            response = self._client.request(
                method, self.base_url + path, json=body, timeout=timeout
            )
            response.raise_for_status()
            return response.json()
        except (httpx.HTTPError, ValueError):
            return None

    def open_stream(
        self, path: str, body: Any, *, params: Mapping[str, str] | None = None
    ) -> httpx.Response:
        """POST and return the open response once the server has accepted the request."""
        return self._send("POST", path, body, params, stream=True)

    def lines(self, response: httpx.Response) -> Iterator[str]:
        """The response's lines as they arrive; a dropped connection raises `StreamCutOff`."""
        try:
            yield from response.iter_lines()
        except httpx.ReadTimeout as err:
            raise failures.timed_out(self.endpoint, self.timeout) from err
        except (httpx.RemoteProtocolError, httpx.ReadError) as err:
            raise StreamCutOff(str(err)) from err
        finally:
            response.close()

    def _send(
        self,
        method: str,
        path: str,
        body: Any,
        params: Mapping[str, str] | None,
        *,
        stream: bool,
    ) -> httpx.Response:
        url = self.base_url + path
        waited = 0.0
        attempt = 0
        while True:
            attempt += 1
            try:
                request = self._client.build_request(method, url, json=body, params=params)
                response = self._client.send(request, stream=stream)
            except httpx.UnsupportedProtocol as err:
                raise ModelServerError(
                    f"The model server address {self.endpoint.where} is not a valid URL: "
                    "it must start with http:// or https://.",
                    kind="unreachable",
                ) from err
            except _CONNECTION_ERRORS as err:
                error: ModelServerError = failures.unreachable(err, self.endpoint)
                delay = self.retry.backoff(attempt)
                cause: Exception | None = err
            except httpx.TimeoutException as err:
                raise failures.timed_out(self.endpoint, self.timeout) from err
            else:
                if response.status_code < 400:
                    return response
                text = _read_text(response)
                error = failures.from_status(
                    response.status_code, text, self.endpoint, path=path, attempts=attempt
                )
                if not failures.is_retryable_status(response.status_code, text):
                    raise error
                asked = retry_after_seconds(response.headers)
                delay = self.retry.backoff(attempt) if asked is None else asked
                delay = min(delay, self.retry.max_delay)
                cause = None
            if attempt >= self.retry.attempts or waited + delay > self.retry.max_total_wait:
                raise error from cause
            log.debug("retrying %s in %.2fs: %s", self.endpoint.where, delay, error)
            self.retry.sleep(delay)
            waited += delay

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError as err:
            raise ModelServerError(
                f"The model server at {self.endpoint.where} answered with something that is "
                "not JSON.",
                kind="server_error",
            ) from err


def _read_text(response: httpx.Response) -> str:
    try:
        return response.read().decode("utf-8", errors="replace")
    except httpx.HTTPError:
        return ""
    finally:
        response.close()
