"""``mnemowire mcp``: a store as an MCP server, over stdio (default) or streamable HTTP."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from mnemowire.apps.cli._app import cli
from mnemowire.apps.cli._serve import open_store, served_options
from mnemowire.errors import ConfigError


@cli.command("mcp")
@served_options(default_port=8766)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    help=(
        "stdio: the only agent ids this server may act as, which each tool's agent_id lists "
        "for the model (repeatable; default: any)."
    ),
)
@click.option("--http", "over_http", is_flag=True, help="Serve streamable HTTP at /mcp, not stdio.")
def mcp_command(
    stores: tuple[str, ...],
    embedder: str | None,
    host: str,
    port: int,
    tokens_file: Path | None,
    agents: tuple[str, ...],
    over_http: bool,
) -> None:
    """Serve the store to MCP hosts: one tool per operation (its input schema is the spec's
    request schema), recall also as the resource template
    memory://{agent_id}/recall{?query,k,user_id}. stdio by default (--host, --port and --tokens
    apply with --http)."""
    try:
        from mnemowire.apps.mcp import MemoryTools, run_http, serve_stdio
    except ImportError as exc:
        raise click.UsageError(
            f"the MCP server needs the mcp extra ({exc}): pip install 'mnemowire[mcp]'"
        ) from None
    from mnemowire.apps.transport import Binding, Tokens, check_binding

    binding = Binding(host=host, port=port)
    try:
        tokens = Tokens.load(tokens_file) if over_http else None
        if over_http:
            check_binding(binding, tokens is not None)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    if agents and over_http:
        raise click.UsageError("--agent limits a stdio server; over --http, tokens name agents")
    store = open_store(list(stores), embedder)
    tools = MemoryTools(store, tokens=tokens, agents=frozenset(agents) if agents else None)
    if over_http:
        run_http(tools, binding)
    else:
        asyncio.run(serve_stdio(tools))
