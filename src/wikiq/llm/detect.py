"""Find a local Ollama server and pick one of its chat models, quickly and silently."""

from __future__ import annotations

import math
import os
import re
import socket
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from wikiq.llm.addresses import OLLAMA_URL as DEFAULT_BASE_URL
from wikiq.llm.addresses import ollama_base_url

# Mid-size models answer well and still run on a laptop.
PREFERRED_BILLIONS = 7.0
_EMBEDDING_NAME = re.compile(
    r"embed|bge|minilm|(?:^|[-_/])e5[-_:]|(?:^|[-_/])gte[-_:]|rerank|paraphrase", re.IGNORECASE
)
_EMBEDDING_FAMILIES = {"bert", "nomic-bert", "xlm-roberta", "jina-bert-v2"}
_NOT_FOR_CHAT = re.compile(r"(?:^|[-_:])(?:base|text)(?:[-_:]|$)|vision|llava|coder", re.IGNORECASE)
_SIZE_IN_NAME = re.compile(r"(\d+(?:\.\d+)?)([bm])(?:$|[-_:])", re.IGNORECASE)


def detect_local_ollama(
    timeout: float = 0.3,
    *,
    env: Mapping[str, str] | None = None,
    hosts: Sequence[str] | None = None,
) -> str | None:
    """`ollama:<model>` for a chat model of an Ollama server that answers, else None.

    Asks `OLLAMA_HOST` and the default address (or `hosts`), each for at most `timeout` seconds.
    """
    env = os.environ if env is None else env
    if hosts is None:
        hosts = [ollama_base_url(env.get("OLLAMA_HOST")), DEFAULT_BASE_URL]
    for host in dict.fromkeys(h.rstrip("/") for h in hosts):
        if not _listening(host, timeout):
            continue
        # Only for a port that answers: httpx costs an `ask` with no model ~0.15 s to load.
        import httpx

        from wikiq.llm.transport import shared_ssl_context

        try:
            # Proxy variables are meant for the internet, not for a server on this machine.
            response = httpx.get(
                f"{host}/api/tags", timeout=timeout, trust_env=False, verify=shared_ssl_context()
            )
            response.raise_for_status()
            data = response.json()
        except (httpx.HTTPError, ValueError):
            continue
        models = data.get("models") if isinstance(data, dict) else None
        chosen = choose_chat_model(models if isinstance(models, list) else [])
        if chosen:
            return f"ollama:{chosen}"
    return None


def _listening(url: str, timeout: float) -> bool:
    """Whether anything accepts a connection at the URL's host and port: on a machine with no
    Ollama the port refuses at once, and nothing more is asked."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        with socket.create_connection((parts.hostname or "localhost", port), timeout=timeout):
            return True
    except (OSError, ValueError):  # refused, unreachable, or not an address
        return False


def choose_chat_model(models: Sequence[Any]) -> str | None:
    """The best chat model among `/api/tags` entries: no embedders, mid-size and instruct first."""
    ranked: list[tuple[float, str]] = []
    for entry in models:
        if not isinstance(entry, dict):
            continue
        name = entry.get("name") or entry.get("model")
        if not isinstance(name, str) or not name or _is_embedding(name, entry):
            continue
        ranked.append((_preference(name, entry), name))
    return min(ranked)[1] if ranked else None


def _is_embedding(name: str, entry: dict[str, Any]) -> bool:
    details = entry.get("details") or {}
    families = {details.get("family"), *(details.get("families") or [])}
    return bool(_EMBEDDING_NAME.search(name)) or bool(families & _EMBEDDING_FAMILIES)


def _preference(name: str, entry: dict[str, Any]) -> float:
    """Lower is better: distance from the preferred size, plus penalties."""
    billions = _billions(name, entry)
    score = 1.5 if billions is None else abs(math.log2(max(billions, 0.01) / PREFERRED_BILLIONS))
    if _NOT_FOR_CHAT.search(name):
        score += 3.0
    if re.search(r"instruct|chat", name, re.IGNORECASE):
        score -= 0.25
    return score


def _billions(name: str, entry: dict[str, Any]) -> float | None:
    details = entry.get("details") or {}
    for text in (str(details.get("parameter_size") or ""), name.rpartition(":")[2], name):
        match = _SIZE_IN_NAME.search(text + ":")
        if match:
            value = float(match.group(1))
            return value / 1000 if match.group(2).lower() == "m" else value
    size = entry.get("size")
    if isinstance(size, int | float) and size > 0:
        return size / 0.6e9  # about 0.6 bytes per parameter at the usual 4-bit quantisation
    return None
