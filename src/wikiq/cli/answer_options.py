"""The options every answering command takes (`ask`, `chat`), declared once.

typer reads a command's options from its signature, so two commands with the same options
would each list them all. `answering_command` adds these to a command's own signature, and
the command receives them as one `AnswerFlags`, which opens the vault with them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from wikiq.cli.app import SourcesOpt, VaultOpt, WikiFolderOpt, open_wiki
from wikiq.cli.model_options import (
    AnswerTokensOpt,
    ApiKeyFileOpt,
    BaseUrlOpt,
    CiteOpt,
    ContextOpt,
    KeywordModelOpt,
    ModelOpt,
    PagesOpt,
    model_config,
)
from wikiq.wiki import Wiki


@dataclass(frozen=True)
class AnswerFlags:
    """Where the vault is and how to answer, as given on the command line."""

    vault: Path | None = None
    wiki_folder: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_file: Path | None = None
    keyword_model: str | None = None
    context: str | None = None
    k: int | None = None
    answer_tokens: int | None = None
    sources: str | None = None
    cite: str | None = None

    def open(self) -> Wiki:
        """The vault, with these flags above the config file and the environment."""
        config = model_config(
            model=self.model,
            base_url=self.base_url,
            api_key_file=self.api_key_file,
            keyword_model=self.keyword_model,
            context=self.context,
            pages=self.k,
            answer_tokens=self.answer_tokens,
            sources=self.sources,
            cite=self.cite,
        )
        return open_wiki(self.vault, self.wiki_folder, config, for_questions=True)


# The options' types, in the order `--help` lists them.
_OPTION_TYPES: dict[str, Any] = {
    "vault": VaultOpt,
    "wiki_folder": WikiFolderOpt,
    "model": ModelOpt,
    "base_url": BaseUrlOpt,
    "api_key_file": ApiKeyFileOpt,
    "keyword_model": KeywordModelOpt,
    "context": ContextOpt,
    "k": PagesOpt,
    "answer_tokens": AnswerTokensOpt,
    "sources": SourcesOpt,
    "cite": CiteOpt,
}
assert list(_OPTION_TYPES) == [f.name for f in fields(AnswerFlags)]


def answering_command(command: Callable[..., Any]) -> Callable[..., Any]:
    """`command(..., flags: AnswerFlags)` as a typer command with the shared options."""
    own = inspect.signature(command, eval_str=True)
    params = [p for p in own.parameters.values() if p.name != "flags"]
    # `--help` lists the command's arguments, then the shared options, then its own options.
    arguments = [p for p in params if p.default is inspect.Parameter.empty]
    options = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
        for p in params
        if p.default is not inspect.Parameter.empty
    ]
    shared = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=kind)
        for name, kind in _OPTION_TYPES.items()
    ]

    def run(**given: Any) -> Any:
        flags = AnswerFlags(**{name: given.pop(name) for name in _OPTION_TYPES})
        return command(flags=flags, **given)

    run.__name__ = command.__name__
    run.__qualname__ = command.__qualname__
    run.__doc__ = command.__doc__
    run.__module__ = command.__module__
    run.__signature__ = own.replace(  # type: ignore[attr-defined]
        parameters=[*arguments, *shared, *options]
    )
    return run
