"""Where the providers usually live, and how an `OLLAMA_HOST` value becomes an address.

Kept apart from the providers' modules so the registry (`spec.py`), the Ollama detector and
the embedding models know the addresses without importing the HTTP client (httpx: ~0.2 s of
a process that only embeds a question with the bundled model).
"""

from __future__ import annotations

OLLAMA_URL = "http://127.0.0.1:11434"
ANTHROPIC_URL = "https://api.anthropic.com"
GEMINI_URL = "https://generativelanguage.googleapis.com/v1beta"


def ollama_base_url(host: str | None) -> str:
    """The server URL for an `OLLAMA_HOST` value such as `0.0.0.0:11434` or `http://box:8000`."""
    host = (host or "").strip().rstrip("/")
    if not host:
        return OLLAMA_URL
    scheme, _, rest = host.rpartition("://")
    scheme = scheme or "http"
    rest, slash, path = rest.partition("/")
    if rest.startswith("["):  # [ipv6]:port
        hostname, _, port = rest.partition("]")
        hostname, port = hostname + "]", port.removeprefix(":")
    elif rest.count(":") == 1:
        hostname, port = rest.split(":")
    else:
        hostname, port = rest, ""
    # A server told to listen everywhere is reached on this machine's loopback.
    hostname = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "[::]": "[::1]"}.get(hostname, hostname)
    port = port or ("443" if scheme == "https" else "11434")
    return f"{scheme}://{hostname}:{port}{slash}{path}"
