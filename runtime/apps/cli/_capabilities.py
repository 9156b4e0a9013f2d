"""``mnemowire capabilities``: what a store (or the router over several) declares, as the spec's
``capabilities`` message: the version it speaks, what it serves, how it keeps each field, and
the staging policy it applies. Where an ``unsupported`` error sends a person to look."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import click

from mnemowire.apps.cli._app import cli
from mnemowire.apps.cli._operations import STORE_OPTIONS, _open, store_options
from mnemowire.apps.cli._render import render_pretty


@cli.command("capabilities")
@store_options
def capabilities_command(**flags: Any) -> None:
    """Print what the store declares (spec version, capabilities, staging policy)."""
    options = {k: flags.pop(k) for k in STORE_OPTIONS}
    if options["json_source"] is not None:
        raise click.UsageError("capabilities takes no request; drop --json")
    answer = asyncio.run(_declared(options))
    click.echo(render_pretty(answer) if options["pretty"] else json.dumps(answer))


async def _declared(options: dict[str, Any]) -> dict[str, Any]:
    memory = _open(options)
    try:
        declared: dict[str, Any] = memory.capabilities_wire()
        return declared
    finally:
        await memory.aclose()
