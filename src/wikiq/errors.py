"""Errors a user can fix. Each carries one clear sentence; the CLI prints it and exits non-zero."""

from __future__ import annotations

# The wiki-query skill's message, word for word (seed 003, Step 1), so agents and people who
# know the skill see the same text from wikiq.
NO_VAULT_MESSAGE = """No LLM Wiki vault is configured. Create a .llm-wiki.json at your project root:

{ "vaultPath": "/path/to/your/vault", "wikiFolder": "wiki" }

(wikiFolder is optional and defaults to wiki.) Then ask again."""

EMPTY_WIKI_MESSAGE = (
    "The wiki has no pages yet: ingest sources with the Obsidian LLM Wiki plugin "
    "before it can be queried."
)


class WikiqError(Exception):
    """A problem the user can fix; `str(err)` is the sentence to show."""

    exit_code = 1


class NoVaultConfigured(WikiqError):
    def __init__(self) -> None:
        super().__init__(NO_VAULT_MESSAGE)

    exit_code = 2


class EmptyQuestion(WikiqError):
    """A question with no text: a usage error, not something to answer."""

    def __init__(self) -> None:
        super().__init__('The question is empty: ask something, e.g. wikiq ask "What is an orbit?".')

    exit_code = 2


class VaultNotFound(WikiqError):
    exit_code = 2


class EmptyWiki(WikiqError):
    def __init__(self, message: str = EMPTY_WIKI_MESSAGE) -> None:
        super().__init__(message)

    exit_code = 3


class PageNotFound(WikiqError):
    exit_code = 4


class ModelError(WikiqError):
    """A language model could not be used (unreachable, bad key, unknown model, context too small)."""

    exit_code = 5


class ConfigError(WikiqError):
    exit_code = 2
