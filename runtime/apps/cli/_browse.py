"""``mnemowire get|list|restore|update|history``: spec v0.1's record operations and v0.4's
history from the shell.

``get``, ``restore``, ``update`` and ``history`` print the spec's response like the five
operations (or, with ``--pretty``, a table; for a history, each version as its change from the
one before). ``list`` pages through an agent's records itself, following each
page's cursor, and prints one record per line (JSON Lines), or a table with ``--pretty``; a
listing of many pages says on stderr how far it got, and one stopped by ``--max``
prints the cursor that continues it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import click

from mnemowire.apps.cli._app import Exit, cli
from mnemowire.apps.cli._operations import (
    STORE_OPTIONS,
    _choice,
    _json_object,
    _open,
    _operation,
    flag_envelope,
    store_options,
)
from mnemowire.apps.cli._render import printable, record_lines, render_pretty
from mnemowire.errors import MnemowireError, RequestError
from mnemowire.kit import to_wire
from mnemowire.models import LIST_REQUEST_DEFAULTS, MemoryType, RecordState

_SCOPE = {"agent_id": "--agent", "user_id": "--user", "": "the request"}
#: a listing of many pages says how far it got every this many pages, and when it ends
PROGRESS_EVERY = 10


@click.option("--agent", "agent_id", help="Agent whose records to read (agent_id).")
@click.option("--user", "user_id", help="Only records of this end user (user_id).")
@click.option(
    "--state",
    "states",
    multiple=True,
    type=_choice(RecordState),
    help="Show records in this state (repeat; default active).",
)
@click.argument("ids", nargs=-1)
@_operation(
    "get",
    "Read records by id (IDS); ids not found are listed as missing.",
    {**_SCOPE, "ids": "IDS", "states": "--state"},
)
def get_command(
    agent_id: str | None, user_id: str | None, states: tuple[str, ...], ids: tuple[str, ...]
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "ids": list(ids),
        "states": list(states) or None,
    }


@click.option("--agent", "agent_id", help="Agent whose records to restore (agent_id).")
@click.option("--user", "user_id", help="Only records of this end user (user_id).")
@click.argument("ids", nargs=-1)
@_operation(
    "restore",
    "Bring archived records (IDS) back into recall.",
    {**_SCOPE, "ids": "IDS"},
)
def restore_command(
    agent_id: str | None, user_id: str | None, ids: tuple[str, ...]
) -> dict[str, Any]:
    return {"agent_id": agent_id, "user_id": user_id, "ids": list(ids)}


@click.option("--agent", "agent_id", help="Agent whose record to change (agent_id).")
@click.option("--user", "user_id", help="The record's end user (user_id), when it has one.")
@click.option(
    "--expected-version",
    type=int,
    help="The version you read (get): a record at another version is not changed (conflict).",
)
@click.option("--content", help="New text (the record is embedded again).")
@click.option("--metadata", help="New metadata as a JSON object (replaces the old).")
@click.option("--confidence", type=float, help="New confidence, 0..1.")
@click.option("--expires-at", type=int, help="New expiry, epoch milliseconds.")
@click.option("--reason", help="Why, kept in the audit log.")
@click.argument("record_id", required=False, metavar="ID")
@_operation(
    "update",
    "Change one record (ID) if it is still at --expected-version.",
    {
        **_SCOPE,
        "id": "ID",
        "expected_version": "--expected-version",
        "content": "--content",
        "metadata": "--metadata",
        "confidence": "--confidence",
        "expires_at": "--expires-at",
        "reason": "--reason",
        "": "--content, --metadata, --confidence or --expires-at",
    },
)
def update_command(
    agent_id: str | None,
    user_id: str | None,
    expected_version: int | None,
    content: str | None,
    metadata: str | None,
    confidence: float | None,
    expires_at: int | None,
    reason: str | None,
    record_id: str | None,
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "id": record_id,
        "expected_version": expected_version,
        "content": content,
        "metadata": _json_object(metadata, "--metadata"),
        "confidence": confidence,
        "expires_at": expires_at,
        "reason": reason,
    }


@click.option("--agent", "agent_id", help="Agent whose record it is (agent_id).")
@click.option("--user", "user_id", help="The record's end user (user_id), when it has one.")
@click.option("--limit", type=int, help="Versions per page (default 100, at most 1000).")
@click.option("--cursor", help="next_cursor of the previous page.")
@click.argument("record_id", required=False, metavar="ID")
@_operation(
    "history",
    "Every version of one record (ID), oldest first: when, by which operation and caller; "
    "--pretty shows each as its change from the one before.",
    {**_SCOPE, "id": "ID", "limit": "--limit", "cursor": "--cursor"},
)
def history_command(
    agent_id: str | None,
    user_id: str | None,
    limit: int | None,
    cursor: str | None,
    record_id: str | None,
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "id": record_id,
        "limit": limit,
        "cursor": cursor,
    }


_LIST_FLAGS = {
    **_SCOPE,
    "types": "--type",
    "filter": "--filter",
    "states": "--state",
    "order": "--order",
    "limit": "--page-size",
    "cursor": "--cursor",
}


@cli.command(
    "list",
    help="Page through an agent's records, newest first (or --order id): one JSON record "
    "per line, or a table with --pretty.",
)
@click.option("--agent", "agent_id", help="Agent whose records to list (agent_id).")
@click.option("--user", "user_id", help="Only records of this end user (user_id).")
@click.option("--type", "types", multiple=True, type=_choice(MemoryType), help="Only this type.")
@click.option("--filter", "filter_", help="Metadata filter as a JSON object.")
@click.option(
    "--state",
    "states",
    multiple=True,
    type=_choice(RecordState),
    help="Records in this state (repeat; default active).",
)
@click.option("--order", type=click.Choice(["newest", "id"]), help="newest (default) or id.")
@click.option(
    "--page-size",
    type=int,
    help=f"Records per request (default {LIST_REQUEST_DEFAULTS['limit']}, at most 1000).",
)
@click.option("--max", "most", type=click.IntRange(min=1), help="Stop after this many records.")
@click.option("--cursor", help="Continue a listing where an earlier one stopped.")
@store_options
def list_command(**flags: Any) -> None:
    options = {k: flags.pop(k) for k in STORE_OPTIONS}
    if options["json_source"] is not None:
        raise click.UsageError("list builds its requests from flags; --json is not for list")
    most = flags.pop("most")
    request = {
        "agent_id": flags["agent_id"],
        "user_id": flags["user_id"],
        "types": list(flags["types"]) or None,
        "filter": _json_object(flags["filter_"], "--filter"),
        "states": list(flags["states"]) or None,
        "order": flags["order"],
        "limit": flags["page_size"],
        "cursor": flags["cursor"],
    }
    request = {k: v for k, v in request.items() if v is not None}
    sys.exit(asyncio.run(_list(request, most, options)))


async def _list(request: dict[str, Any], most: int | None, options: dict[str, Any]) -> int:
    memory = _open({**options, "json_source": None})
    shown, pages = 0, 0
    page_size = request.get("limit", LIST_REQUEST_DEFAULTS["limit"])
    try:
        while True:
            if most is not None:  # never more than --max asks for: the cursor then continues
                request = {**request, "limit": min(page_size, most - shown)}  # right after it
            try:
                page = to_wire(await memory.list(request))
            except RequestError as exc:
                envelope = flag_envelope(exc.envelope, _LIST_FLAGS)
                click.echo(_error(envelope, options), err=True)
                if pages == 0:
                    raise click.UsageError(envelope["message"]) from None
                return Exit.REJECTED
            except MnemowireError as exc:
                click.echo(_error(exc.envelope, options), err=True)
                return Exit.REJECTED
            records = page["records"]
            _print(records, options, first=pages == 0)
            shown, pages = shown + len(records), pages + 1
            cursor = page.get("next_cursor")
            if pages > 1 and (cursor is None or pages % PROGRESS_EVERY == 0):
                click.echo(f"mnemowire: listed {shown:,} records ({pages} pages)", err=True)
            if cursor is None:
                return Exit.OK
            if most is not None and shown >= most:
                click.echo(f"mnemowire: more: --cursor {cursor}", err=True)
                return Exit.OK
            request = {**request, "cursor": cursor}
    finally:
        await memory.aclose()


def _print(records: list[dict[str, Any]], options: dict[str, Any], *, first: bool) -> None:
    if options["pretty"]:
        lines = record_lines(records, header=first)
        if first and not records:
            lines.append("(no records)")
        for line in lines:
            click.echo(line)
        return
    for record in records:
        click.echo(json.dumps(record, ensure_ascii=False))


def _error(envelope: dict[str, Any], options: dict[str, Any]) -> str:
    if options["pretty"]:
        return render_pretty(envelope, error=True)
    return printable(json.dumps(envelope, ensure_ascii=False))


@click.option("--agent", "agent_ids", multiple=True, help="Only this agent (repeat).")
@click.option("--max-users", type=int, help="List at most this many users per agent (default 100).")
@click.option("--limit", type=int, help="Agents per page (default 100).")
@click.option("--cursor", help="next_cursor of the previous page.")
@_operation(
    "scopes",
    "List the agents a store holds memory of, with their users and counts by type and state.",
    {
        "agent_ids": "--agent",
        "max_users": "--max-users",
        "limit": "--limit",
        "cursor": "--cursor",
        "": "the request",
    },
)
def scopes_command(
    agent_ids: tuple[str, ...], max_users: int | None, limit: int | None, cursor: str | None
) -> dict[str, Any]:
    return {
        "agent_ids": list(agent_ids) or None,
        "max_users": max_users,
        "limit": limit,
        "cursor": cursor,
    }
