"""Who may talk to a wikiq HTTP server (the web page and the MCP server alike): loopback by
default, a token for anything wider.

A server bound to 127.0.0.1 still answers any page a browser visits, so on loopback without a
token the Host header must name the loopback address (a DNS-rebinding site sends its own).
With a token, every request must carry it: `Authorization: Bearer <token>`, the `wikiq_token`
cookie (set when the page is opened with `?token=`), or `?token=` itself.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from wikiq.errors import ConfigError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "wikiq_token"
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9._~-]{8,}")


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and `localhost`."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def server_token(host: str, token: str | None) -> tuple[str | None, bool]:
    """The token to require (or None) and whether it was generated here (so it must be printed).

    Loopback needs none unless one is given; any other address needs one, generated if missing.
    """
    if token is not None and not token.strip():
        raise ConfigError("--token is empty: give a token, or leave the option out.")
    if token:
        if not _TOKEN_CHARS.fullmatch(token):
            raise ConfigError(
                "--token may only hold letters, digits and '-', '_', '.', '~', at least 8 of them "
                "(it travels in a URL and a cookie)."
            )
        return token, False
    if is_loopback(host):
        return None, False
    return secrets.token_urlsafe(24), True


class AccessGate:
    """ASGI middleware: checks the token (when one is set) or the loopback Host header."""

    def __init__(self, app: ASGIApp, *, token: str | None, loopback: bool) -> None:
        self.app = app
        self.token = token
        self.loopback = loopback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # wikiq serves none; never let one past the gate
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.token is not None:
            given = _token_from(scope, headers)
            if given is None or not secrets.compare_digest(given.encode(), self.token.encode()):
                await _refuse(send, 401, "This wikiq server needs its access token.")
                return
            from_query = _query_token(scope)
            if from_query is not None:
                # Opened from the printed link: keep the token in a cookie for the page's calls.
                await self.app(scope, receive, _with_cookie(send, self.token))
                return
        elif self.loopback and not _host_is_loopback(headers.get("host", "")):
            await _refuse(send, 403, "This wikiq server only answers requests to localhost.")
            return
        await self.app(scope, receive, send)


def _token_from(scope: Scope, headers: dict[str, str]) -> str | None:
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header is no token
        cookie = SimpleCookie()
    if COOKIE in cookie:
        return cookie[COOKIE].value
    return _query_token(scope)


def _query_token(scope: Scope) -> str | None:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    values = query.get("token")
    return values[0] if values else None


def _host_is_loopback(host_header: str) -> bool:
    host = host_header.strip()
    if host.startswith("["):
        name = host[1 : host.find("]")] if "]" in host else host
    else:
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return is_loopback(name)


def _with_cookie(send: Send, token: str) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            value = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
            headers.append((b"set-cookie", value.encode("latin-1")))
            message["headers"] = headers
        await send(message)

    return wrapped


async def _refuse(send: Send, status: int, sentence: str) -> None:
    body = ('{"error": "' + sentence + '"}').encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
