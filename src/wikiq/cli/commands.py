"""The `wikiq` commands: thin over `Wiki`; user-fixable errors are one sentence on stderr."""

from __future__ import annotations

import atexit
import copy
import os
import sys
import threading
from typing import NoReturn

import typer

from wikiq.cli.app import app
from wikiq.config import debug_traceback
from wikiq.errors import NoVaultConfigured, WikiqError

try:  # Typer 0.26 and later raise their bundled copy of click's exceptions...
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - ...older Typer raises click's own
    from click import ClickException  # type: ignore[assignment]

# Importing the command modules registers their commands on `app`, in the order `--help`
# lists them: asking first, then finding, then looking at the vault, then serving it.
from wikiq.cli import answer_commands  # noqa: F401  isort: skip
from wikiq.cli import search_commands  # noqa: F401  isort: skip
from wikiq.cli import vault_commands  # noqa: F401  isort: skip
from wikiq.cli import index_commands  # noqa: F401  isort: skip
from wikiq.cli import serve_commands  # noqa: F401  isort: skip

__all__ = ["app", "run"]


def _named(args: list[str]) -> typer.Typer:
    """`app` with only the command `args` starts with, when it starts with one: typer turns
    every registered command into a click command (options, help texts: ~13 ms) to run one.
    Anything else (`--help`, a typo to suggest a command for) gets the whole app."""
    name = args[0] if args else ""
    for info in app.registered_commands:
        callback = info.callback
        if callback is not None and name == (info.name or typer.main.get_command_name(callback.__name__)):
            only = copy.copy(app)
            only.registered_commands = [info]
            return only
    return app


def run(argv: list[str] | None = None) -> None:
    """Run one command line (`wikiq.cli.main` comes here for everything but --version)."""
    command = typer.main.get_command(_named(sys.argv[1:] if argv is None else argv))
    try:
        result = command.main(args=argv, prog_name="wikiq", standalone_mode=False)
    except WikiqError as err:
        print(str(err), file=sys.stderr)
        if isinstance(err, NoVaultConfigured):
            # The skill's exact text above; the CLI's own ways to name a vault below it.
            print("Or name the vault with --vault PATH, or set WIKIQ_VAULT.", file=sys.stderr)
        sys.exit(err.exit_code)
    except typer.Abort:
        print("Aborted.", file=sys.stderr)
        sys.exit(130)
    except ClickException as err:  # a usage error: unknown command, missing or bad argument
        err.show()
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error worth a message.
        sys.stderr.close()
        sys.exit(0)
    except Exception as err:
        if debug_traceback():
            raise
        print(
            f"wikiq hit an unexpected error: {type(err).__name__}: {err} "
            "(set WIKIQ_DEBUG=1 to see the traceback).",
            file=sys.stderr,
        )
        sys.exit(70)
    code = result if isinstance(result, int) else 0
    if argv is None:  # the process is ours (the console script), not a caller's
        _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> NoReturn:
    """End the process once its output is out and its exit handlers have run, without
    Python's teardown: freeing every module, page and array of a search cost it ~30 ms.
    Another thread still running gets the ordinary exit, which waits for it."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # output piped into `head` and closed early
        os._exit(0)
    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()  # what the ordinary exit would run (logging's flush, for one)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
