"""The pgvector store's spec v0.1 steps, inside the caller's transaction: reading records by
id and page by page, changing one record (update: its embedding and words follow its content),
and the key list cursors are authenticated with."""

from __future__ import annotations

from typing import Any

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from mnemowire.adapters.pgvector._filters import DIALECT
from mnemowire.adapters.pgvector._sql import COLUMNS, lexemes_of
from mnemowire.adapters.pgvector._writes import insert_audit
from mnemowire.kit import RecordRows, UpdatePlan
from mnemowire.kit.audit import entry
from mnemowire.kit.sql import get_scope, list_page, update_scope
from mnemowire.models import GetRequest, ListRequest, UpdateRequest

__all__ = ["apply_update", "cursor_key", "get", "list_after", "update_target"]

#: ``COLUMNS`` rows as the records get and list return (psycopg decodes the jsonb columns)
_RECORD_ROWS = RecordRows([name.strip().removeprefix("m.") for name in COLUMNS.split(",")])


async def cursor_key(conn: Any) -> bytes:
    """The key this schema's list cursors are authenticated with."""
    cursor = await conn.execute("SELECT key FROM store_keys WHERE name = 'cursor'")
    row = await cursor.fetchone()
    return bytes(row[0])


async def get(conn: Any, req: GetRequest, now: int) -> list[dict[str, Any]]:
    """The records a get may return ([get.scope]), as ``MemoryRecord`` fields."""
    scope = get_scope(DIALECT, req, now)
    cursor = await conn.execute(f"SELECT {COLUMNS} FROM memories m WHERE {scope.sql}", scope.args)
    return _RECORD_ROWS.records(await cursor.fetchall(), now)


async def list_after(
    conn: Any, req: ListRequest, spec_filter: Any, now: int, after: Any
) -> list[dict[str, Any]]:
    """One page of a list, and one record more when another page follows ([list.order]), as
    ``MemoryRecord`` fields."""
    where, args = list_page(DIALECT, req, spec_filter, now, after)
    cursor = await conn.execute(f"SELECT {COLUMNS} FROM memories m WHERE {where}", args)
    return _RECORD_ROWS.records(await cursor.fetchall(), now)


async def update_target(conn: Any, req: UpdateRequest, *, lock: bool = False) -> Any:
    """The record an update may change, as stored (None: not one the request may see);
    ``lock`` holds it until the transaction ends, so of two racing updates one waits and then
    finds the version moved."""
    scope = update_scope(DIALECT, req.agent_id, req.user_id, req.id)
    async with conn.cursor(row_factory=dict_row) as cursor:
        await cursor.execute(
            f"SELECT {COLUMNS} FROM memories m WHERE {scope.sql}"
            + (" FOR NO KEY UPDATE" if lock else ""),
            scope.args,
        )
        return await cursor.fetchone()


async def apply_update(
    conn: Any, req: UpdateRequest, payload: dict[str, Any], plan: UpdatePlan, now: int
) -> None:
    """Write ``plan`` if the record is still at its version ([update.version])."""
    current = await update_target(conn, req, lock=True)
    plan.check_unchanged(current)
    if not plan.changes:
        return
    merged = {**current, **plan.changes}
    embedded = plan.vector is not None
    await conn.execute(
        "UPDATE memories SET content = %s, metadata = %s, confidence = %s, expires_at = %s, "
        "seal = %s, version = %s, updated_at = %s, embedding = coalesce(%s, embedding), "
        "search = coalesce(%s, search) WHERE seq = %s AND version = %s",
        (
            merged["content"],
            Jsonb(merged["metadata"]),
            merged["confidence"],
            merged["expires_at"],
            None if merged["seal"] is None else Jsonb(merged["seal"]),
            plan.next_version,
            now,
            plan.vector if embedded else None,
            lexemes_of(req.agent_id, plan.new_text or "") if embedded else None,
            current["seq"],
            plan.version,
        ),
    )
    detail = plan.audit_detail(req.reason)
    await insert_audit(conn, entry(now, "update", req.agent_id, [req.id], payload, detail))
