"""Every error wikiq raises for a user to fix. Each carries one clear sentence; the CLI prints it
and exits with the class's `exit_code`.

    WikiqError                 a problem the user can fix (exit 1)
    ├── NoVaultConfigured      no vault named anywhere: the skill's message (2)
    ├── VaultNotFound          the named vault is not there (2)
    ├── EmptyQuestion          nothing was asked (2)
    ├── ConfigError            a setting is unreadable or of the wrong type (2)
    ├── EmptyWiki              the vault has no pages yet (3)
    ├── PageNotFound           `show` of a page that is not there (4)
    ├── PathRefused            a page path that leads outside the wiki folder (4)
    └── ModelError             a model cannot be used (5)
        ├── ModelServerError   ... and the server said why (`kind`, HTTP `status`)
        └── ContextTooSmall    ... its window cannot hold one page and an answer

The modules that raise the last three name them too (`vault.access`, `llm.failures`,
`answer.context`), so existing imports keep working. One exception lives elsewhere on purpose:
`llm.transport.StreamCutOff`, a signal between the transport and the stream reader that
never reaches a user (it becomes a `ModelServerError`).
"""

from __future__ import annotations

from typing import Literal

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


class PathRefused(WikiqError):
    """A page path that points outside the wiki folder."""

    exit_code = 4


class ContextTooSmall(ModelError):
    """The model's window cannot hold the instructions, one page and an answer."""


FailureKind = Literal[
    "unreachable",
    "timeout",
    "bad_key",
    "model_not_found",
    "endpoint_not_found",
    "context_too_long",
    "rate_limited",
    "out_of_quota",
    "server_error",
    "rejected",
    "cut_off",
    "too_long",
    "too_slow",
]


class ModelServerError(ModelError):
    """A `ModelError` that also says what kind of failure it was (and the HTTP status, if any)."""

    def __init__(self, sentence: str, *, kind: FailureKind, status: int | None = None) -> None:
        super().__init__(sentence)
        self.kind: FailureKind = kind
        self.status = status
        self.detail = ""  # all of the server's words (redacted), for providers that adapt requests
