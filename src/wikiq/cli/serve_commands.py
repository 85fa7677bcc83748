"""`wikiq serve` (the web page) and `wikiq mcp` (the MCP server): the vault for people and agents."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from wikiq.cli.app import VaultOpt, WikiFolderOpt, app
from wikiq.cli.model_options import ApiKeyFileOpt, BaseUrlOpt, ModelOpt, model_config
from wikiq.errors import ConfigError
from wikiq.wiki import Wiki

HostOpt = Annotated[
    str,
    typer.Option(
        "--host",
        help="Address to listen on. Anything but loopback (127.0.0.1, ::1) needs a token.",
    ),
]
AutoIndexOpt = Annotated[
    bool | None,
    typer.Option(
        "--auto-index/--no-auto-index",
        help="Build the embedding index in the background at low priority when the vault has "
        "none (needs the embed extra; default on, or the auto_index setting / WIKIQ_AUTO_INDEX).",
        show_default=False,
    ),
]
TokenOpt = Annotated[
    str | None,
    typer.Option(
        "--token",
        help="Access token every request must carry (generated and printed when --host is not "
        "loopback and none is given).",
        show_default=False,
    ),
]


def _check_port(port: int, host: str = "127.0.0.1") -> None:
    """The port is valid and free: said in one sentence before any "Open http://…" line,
    instead of the server's `[Errno 98] address already in use` after it."""
    if not 0 < port < 65536:
        raise ConfigError(f"--port must be between 1 and 65535, not {port}.")
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise ConfigError(
                    f"Port {port} on {host} is already in use (another wikiq serve?): "
                    f"choose another with --port {port + 1 if port < 65535 else port - 1}."
                ) from None
            raise ConfigError(f"Cannot listen on {host}:{port}: {err.strerror or err}.") from None


@app.command()
def serve(
    vault: VaultOpt = None,
    wiki_folder: WikiFolderOpt = None,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="Port to listen on.")] = 8765,
    token: TokenOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_file: ApiKeyFileOpt = None,
    auto_index: AutoIndexOpt = None,
) -> None:
    """Open a local web page to ask the vault: streamed answers, page previews, a graph view.

    Examples:\n
      wikiq serve --vault ~/Obsidian/MyVault\n
      wikiq serve --host 0.0.0.0 --token my-long-secret   # reachable from your phone
    """
    import uvicorn

    from wikiq.cli.app import open_wiki
    from wikiq.http_gate import is_loopback, server_token
    from wikiq.web.app import create_app

    _check_port(port, host)
    required, generated = server_token(host, token)
    config = model_config(model=model, base_url=base_url, api_key_file=api_key_file)
    wiki = open_wiki(vault, wiki_folder, config)
    choice = wiki.choose_model(model)  # a bad model spec stops here, with one sentence
    web = create_app(wiki, model=model, token=required, loopback=is_loopback(host))
    url = f"http://{_url_host(host)}:{port}/"
    print(f"wikiq: serving {wiki.location.vault} ({len(wiki.catalog)} pages)", file=sys.stderr)
    print(
        f"Answers by {choice.spec} ({choice.source})"
        if choice.spec
        else "No model configured: answers quote your pages (set one with --model).",
        file=sys.stderr,
    )
    if required:
        print(f"Open {url}?token={required}", file=sys.stderr)
        if generated:
            print("(a new access token was generated for this run)", file=sys.stderr)
    else:
        print(f"Open {url}", file=sys.stderr)
    _index_in_background(wiki, auto_index)
    try:
        uvicorn.run(web, host=host, port=port, log_level="warning")
    finally:
        wiki.stop_background_index()


@app.command(name="mcp")
def mcp_command(
    vault: VaultOpt = None,
    wiki_folder: WikiFolderOpt = None,
    http: Annotated[
        bool,
        typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio."),
    ] = False,
    host: HostOpt = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="Port for --http.")] = 8766,
    token: TokenOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_file: ApiKeyFileOpt = None,
    auto_index: AutoIndexOpt = None,
) -> None:
    """Serve the vault to AI agents over MCP: tools ask, search, read_page, list_pages.

    Over stdio by default (what MCP clients launch); nothing but the protocol goes to stdout.

    Examples:\n
      claude mcp add wikiq -- wikiq mcp --vault ~/Obsidian/MyVault\n
      wikiq mcp --http --port 8766
    """
    from wikiq.mcp_server import build_server

    if not http and (token is not None or host != "127.0.0.1"):
        raise ConfigError("--host and --token apply to --http only; stdio needs neither.")
    # No progress bar: stdout belongs to the protocol, and stderr may be shown to the user.
    config = model_config(model=model, base_url=base_url, api_key_file=api_key_file)
    wiki = Wiki.open(vault, wiki_folder=wiki_folder, config=config)
    if model is not None:
        wiki.choose_model(model)  # a bad model spec stops here, with one sentence
    if http:
        _check_port(port, host)
    _index_in_background(wiki, auto_index, quiet=not http)
    server = build_server(wiki, model=model, warm=True)
    wiki.watch()  # pages edited while the agent works are seen (a daemon thread)
    try:
        _run_mcp(server, wiki, http, host, port, token)
    finally:
        wiki.stop_background_index()


def _run_mcp(server: Any, wiki: Wiki, http: bool, host: str, port: int, token: str | None) -> None:
    from wikiq.http_gate import server_token
    from wikiq.mcp_server import run_http, run_stdio

    if not http:
        run_stdio(server)
        return
    required, generated = server_token(host, token)
    print(
        f"wikiq: MCP over streamable HTTP at http://{_url_host(host)}:{port}/mcp "
        f"for {wiki.location.vault} ({len(wiki.catalog)} pages)",
        file=sys.stderr,
    )
    if required:
        print(f"Clients must send the header: Authorization: Bearer {required}", file=sys.stderr)
        if generated:
            print("(a new access token was generated for this run)", file=sys.stderr)
    run_http(server, host=host, port=port, token=required)


def _index_in_background(wiki: Wiki, flag: bool | None, *, quiet: bool = False) -> bool:
    """Start the background index build when the flag (else the setting) allows it; True when
    one started. Over stdio the note goes to stderr only when asked for (--auto-index)."""
    enabled = wiki.config.get("auto_index") if flag is None else flag
    note = wiki.index_in_background() if enabled else None
    if note and not (quiet and flag is None):
        print(f"wikiq: {note}.", file=sys.stderr)
    return note is not None


def _url_host(host: str) -> str:
    """The host as a URL writes it: an IPv6 address goes in brackets."""
    return f"[{host}]" if ":" in host else host
