"""``mnemowire audit verify|export``: the audit log's hash chain (``mnemowire.kit.audit``).

``verify`` reads a store's log (``--store``: the store's own URL, never a server's, since a log
is read where it is kept) or an export of it (``--file``) and prints what it found as JSON:
``ok``, the entries read, the head digest, and for a broken chain the first entry that breaks
it and why (exit 1), whatever the log holds. ``--head`` is a digest kept from an earlier
export: the chain must still pass through it. ``export`` writes the log as JSON Lines, the
head digest last, to keep somewhere the store's owner cannot rewrite.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import click

from mnemowire.apps.cli._app import Exit, cli
from mnemowire.errors import ConfigError, MnemowireError
from mnemowire.kit.audit import Verdict, export_lines, verify
from mnemowire.protocol import AuditedStore


@cli.group("audit")
def audit_group() -> None:
    """The audit log: check its hash chain, export it."""


#: URL schemes of a mnemowire server (the http store), whose log is its own store's
_SERVERS = ("http", "https")


def _entries(url: str) -> list[dict[str, Any]]:
    from mnemowire.registry import open_store

    if url.partition("://")[0] in _SERVERS:
        raise click.BadParameter(
            f"{url} is a mnemowire server, not a store: an audit log is read where it is kept. "
            "Give the store URL the server was started with (its serve --store, e.g. "
            "sqlite-vec://memory.db or pgvector://...), on the machine that has that store",
            param_hint="--store",
        )
    try:
        store = open_store(url)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--store") from None
    except MnemowireError as exc:
        raise click.ClickException(str(exc)) from exc

    async def read() -> list[dict[str, Any]]:
        try:
            if not isinstance(store, AuditedStore):
                raise click.BadParameter(
                    f"{url} ({store.name}) keeps no audit log mnemowire can read (sqlite-vec, "
                    "pgvector, mem0, cognee and letta stores do)",
                    param_hint="--store",
                )
            return await store.audit_entries()
        finally:
            await store.aclose()

    try:
        return asyncio.run(read())
    except MnemowireError as exc:
        raise click.ClickException(str(exc)) from exc


def _exported(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """An export's entries and its closing head line (None when it has none: cut short)."""
    try:
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError) as exc:
        raise click.BadParameter(f"cannot read {path}: {exc}", param_hint="--file") from None
    if lines and isinstance(lines[-1], dict) and set(lines[-1]) == {"head", "entries"}:
        return lines[:-1], lines[-1]
    return lines, None


@audit_group.command("verify")
@click.option(
    "--store", "url", help="The store's own URL (a server's serve --store), whose log to check."
)
@click.option("--file", "path", type=click.Path(path_type=Path), help="An export to check instead.")
@click.option("--head", default=None, help="A head digest kept from earlier: must be on the chain.")
def verify_command(url: str | None, path: Path | None, head: str | None) -> None:
    """Check an audit log's hash chain; exit 1 when it is broken."""
    if (url is None) == (path is None):
        raise click.UsageError("give one of --store URL or --file EXPORT")
    if path is not None:
        entries, closing = _exported(path)
        verdict = verify(entries, head=head)
        if verdict.ok and (closing is None or closing["head"] != verdict.head):
            verdict = Verdict(
                False, verdict.entries, verdict.head, None,
                "the export's last line is not the head of its entries: it was cut short or "
                "edited" if closing is None else
                f"the export says its head is {closing['head']}, its entries end in "
                f"{verdict.head}",
            )  # fmt: skip
    else:
        assert url is not None
        verdict = verify(_entries(url), head=head)
    click.echo(json.dumps(verdict.report()))
    sys.exit(Exit.OK if verdict.ok else Exit.REJECTED)


@audit_group.command("export")
@click.option(
    "--store", "url", required=True, help="The store's own URL (a server's serve --store)."
)
@click.option(
    "--out", type=click.Path(path_type=Path), default=None, help="File to write (default: stdout)."
)
def export_command(url: str, out: Path | None) -> None:
    """Write the audit log as JSON Lines, its head digest last."""
    lines = export_lines(_entries(url))
    if out is None:
        for line in lines:
            click.echo(line)
        return
    with out.open("w", encoding="utf-8") as sink:
        for line in lines:
            sink.write(line + "\n")
