"""``mnemowire demo``: the first thing a newcomer runs."""

from __future__ import annotations

import asyncio

import click

from mnemowire.apps.cli._app import cli


@cli.command("demo")
@click.option(
    "--embedder",
    envvar="MNEMOWIRE_EMBEDDER",
    default=None,
    help="Embedder to use (default: the real all-MiniLM-L6-v2, offline).",
)
@click.option(
    "--store",
    default=None,
    help="Run it against this store URL (an empty one; e.g. the pgvector:// URL that "
    "python -m mnemowire.apps.tools.postgres start prints) instead of a temporary "
    "sqlite-vec file.",
)
def demo_command(embedder: str | None, store: str | None) -> None:
    """Load a small bundled corpus into a temporary store and ask it questions."""
    from mnemowire.apps.demo import run_demo
    from mnemowire.embedders import load_embedder

    chosen = load_embedder(embedder) if embedder else None
    asyncio.run(run_demo(chosen, echo=click.echo, store=store))
