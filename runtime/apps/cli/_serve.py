"""``mnemowire serve``: a store (or a router over several) over HTTP."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from mnemowire.apps.cli._app import Exit, cli
from mnemowire.errors import ConfigError, MnemowireError
from mnemowire.protocol import MemoryStore

F = TypeVar("F", bound=Callable[..., Any])


def served_options(default_port: int) -> Callable[[F], F]:
    """What every server command takes: the stores it serves, where it listens, its tokens."""
    decorators = [
        click.option(
            "--store",
            "stores",
            multiple=True,
            help="Store URL (repeat for a router over several). Default: $MNEMOWIRE_STORE or a "
            "sqlite-vec file in your data directory.",
        ),
        click.option(
            "--embedder",
            envvar="MNEMOWIRE_EMBEDDER",
            default=None,
            help="Embedder for stores that embed (minilm, hash:64, ...).",
        ),
        click.option("--host", default="127.0.0.1", show_default=True, help="Address."),
        click.option(
            "--port",
            type=click.IntRange(0, 65535),
            default=default_port,
            show_default=True,
            help="Port (0: any free one; the line announcing the server says which).",
        ),
        click.option(
            "--tokens",
            "tokens_file",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help='Bearer tokens: {"tokens": [{"name", "token", "agents": [...] or ["*"]}]}. '
            "Default: $MNEMOWIRE_SERVER_TOKENS (the same JSON). Without tokens: loopback only.",
        ),
    ]

    def apply(command: F) -> F:
        for decorator in reversed(decorators):
            command = decorator(command)
        return command

    return apply


@cli.command("serve")
@served_options(default_port=8765)
@click.option(
    "--max-body",
    type=click.IntRange(min=1024),
    default=4 * 2**20,
    show_default=True,
    help="Largest request body accepted, in bytes.",
)
@click.option(
    "--body-timeout",
    type=click.FloatRange(min=0.001),
    default=10.0,
    show_default=True,
    help="Seconds a request body may take to arrive.",
)
@click.option(
    "--header-timeout",
    type=click.FloatRange(min=0.001),
    default=10.0,
    show_default=True,
    help="Seconds a request line and headers may take to arrive (a connection that is slower "
    "is closed).",
)
@click.option(
    "--request-timeout",
    type=click.FloatRange(min=0.001),
    default=30.0,
    show_default=True,
    help="Seconds before a caller gets `timeout` (the operation itself still ends whole).",
)
@click.option("--tls-cert", type=click.Path(exists=True, dir_okay=False), help="TLS certificate.")
@click.option("--tls-key", type=click.Path(exists=True, dir_okay=False), help="TLS private key.")
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME[:PORT]",
    help="Also answer requests naming this Host (repeat for more; any port unless one is "
    "given): the names callers or a proxy use. Default: the --host address and localhost at "
    "the server's port; on 0.0.0.0 or ::, any Host (docs/transports.md#http.hosts).",
)
@click.option(
    "--ui",
    is_flag=True,
    help="Serve the reviewer UI at /ui/ too: pending writes with their diffs, approve, reject "
    "or merge, the audit log (docs/governance.md#ui).",
)
def serve_command(
    stores: tuple[str, ...],
    embedder: str | None,
    host: str,
    port: int,
    tokens_file: Path | None,
    max_body: int,
    body_timeout: float,
    header_timeout: float,
    request_timeout: float,
    tls_cert: str | None,
    tls_key: str | None,
    allowed_hosts: tuple[str, ...],
    ui: bool,
) -> None:
    """Serve the memorywire operations over HTTP until Ctrl-C (or SIGTERM), which lets
    requests in flight finish and closes the store."""
    from mnemowire.apps.server import Hosts, Limits, MemoryServer, run
    from mnemowire.apps.transport import Binding, Tokens, check_binding, readable_by_others

    binding = Binding(host=host, port=port, certfile=tls_cert, keyfile=tls_key)
    try:
        tokens = Tokens.load(tokens_file)
        check_binding(binding, tokens is not None)
        hosts = Hosts.of(host, allowed_hosts)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    if tokens_file is not None and readable_by_others(tokens_file):
        click.echo(f"warning: {tokens_file} can be read by other users; chmod 600 it", err=True)
    limits = Limits(
        max_body_bytes=max_body,
        body_timeout_s=body_timeout,
        header_timeout_s=header_timeout,
        request_timeout_s=request_timeout,
    )
    store = open_store(list(stores), embedder)
    try:
        run(MemoryServer(store, tokens=tokens, limits=limits), binding, ui=ui, hosts=hosts)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    sys.exit(Exit.OK)


def one_blas_thread() -> None:
    """Hold numpy's BLAS to one thread in a server process. A store's vector search is one
    small matrix product per recall; OpenBLAS splits it over every core and its idle threads
    spin, taking the cores from the event loop, the embedder and any other process. Measured
    (docs/transports.md#http.cpu): a recall with its vector through one of two servers on two
    cores, 5.0 ms p50 with BLAS's threads, 2.2 ms with one."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def open_store(urls: list[str], embedder_name: str | None) -> MemoryStore:
    """The store (or router) a server serves, its errors as usage errors naming the flag."""
    one_blas_thread()
    from mnemowire.apps.cli._progress import show_progress
    from mnemowire.embedders import load_embedder
    from mnemowire.layers.memory import Memory
    from mnemowire.registry import default_store_url

    show_progress()
    try:
        embedder = load_embedder(embedder_name) if embedder_name else None
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--embedder") from None
    try:
        memory = Memory.open(urls or [default_store_url()], embedder=embedder)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--store") from None
    except MnemowireError as exc:
        raise click.ClickException(str(exc)) from exc
    return memory.store
