"""The model flags (`--model`, `--base-url`, ...) of the commands that talk to a model, and
how they join the settings: the same on ask, chat, serve and mcp."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikiq.config import Config, load_config

ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        help=(
            "Model that writes the answer, as provider:name — openai:gpt-4.1-mini, "
            "ollama:qwen2.5:7b, anthropic:claude-sonnet-4-5, gemini:gemini-2.5-flash, "
            "local:NAME (any OpenAI-compatible server, with --base-url). Default: `model` in "
            "the config file or WIKIQ_MODEL; else a local Ollama; else quoted passages."
        ),
        show_default=False,
    ),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        help="Server address of the model, e.g. http://127.0.0.1:8080/v1.",
        show_default=False,
    ),
]
ApiKeyFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--api-key-file",
        help="File holding the model's API key (or set WIKIQ_API_KEY_FILE, WIKIQ_API_KEY or the "
        "provider's variable, e.g. OPENAI_API_KEY). There is no --api-key: a key on the command "
        "line is visible to other users of the machine.",
        show_default=False,
    ),
]
KeywordModelOpt = Annotated[
    str | None,
    typer.Option(
        "--keyword-model",
        help="Model for finding keywords when titles do not match (default: the answer model; "
        "'none' turns it off).",
        show_default=False,
    ),
]
ContextOpt = Annotated[
    str | None,
    typer.Option(
        "--context",
        help="Context window in tokens (e.g. 8192 or 32k), when the model's is not known.",
        show_default=False,
    ),
]
PagesOpt = Annotated[
    int | None,
    typer.Option(
        "-k",
        "--pages",
        min=1,
        max=50,
        help="Most pages to load \\[default: 8].",
        show_default=False,
    ),
]
AnswerTokensOpt = Annotated[
    int | None,
    typer.Option(
        "--answer-tokens",
        min=16,
        help="Tokens the answer may use \\[default: a quarter of the window, at most 4000].",
        show_default=False,
    ),
]
CiteOpt = Annotated[
    str | None,
    typer.Option(
        "--cite",
        help="How the answer cites: wiki (\\[\\[wiki-links]], the default) or numbered "
        "(\\[1] markers and a numbered ## References). Or set `cite` / WIKIQ_CITE.",
        show_default=False,
    ),
]

def model_config(
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key_file: Path | None = None,
    keyword_model: str | None = None,
    context: str | None = None,
    pages: int | None = None,
    answer_tokens: int | None = None,
    sources: str | None = None,
    cite: str | None = None,
) -> Config:
    """The settings with this command's model flags on top: the same on ask, chat, serve, mcp."""
    return load_config(
        flags={
            "model": model,
            "base_url": base_url,
            "api_key_file": str(api_key_file) if api_key_file else None,
            "keyword_model": keyword_model,
            "context": context,
            "pages": pages,
            "answer_tokens": answer_tokens,
            "sources": sources,
            "cite": cite,
        }
    )
