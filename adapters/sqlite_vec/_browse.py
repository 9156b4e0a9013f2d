"""The sqlite-vec store's spec v0.1 steps, inside the caller's transaction: reading records by
id and page by page, and changing one record (update, with its index rows and audit row)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mnemowire.adapters.sqlite_vec._filters import DIALECT
from mnemowire.adapters.sqlite_vec._records import COLUMNS, RECORD_ROWS, record
from mnemowire.adapters.sqlite_vec._vectors import blob
from mnemowire.adapters.sqlite_vec._writes import IndexWriter
from mnemowire.kit import UpdatePlan, json_text
from mnemowire.kit.audit import append_sqlite
from mnemowire.kit.sql import get_scope, list_page, update_scope
from mnemowire.models import GetRequest, ListRequest, UpdateRequest

__all__ = ["apply_update", "get", "list_after", "update_target"]


def get(tx: Any, req: GetRequest, now: int) -> list[dict[str, Any]]:
    """The records a get may return ([get.scope]), as ``MemoryRecord`` fields."""
    scope = get_scope(DIALECT, req, now)
    rows = tx.execute(f"SELECT {COLUMNS} FROM memories m WHERE {scope.sql}", scope.args)
    return RECORD_ROWS.records(rows.fetchall(), now)


def list_after(
    tx: Any, req: ListRequest, spec_filter: Any, now: int, after: Any
) -> list[dict[str, Any]]:
    """One page of a list, and one record more when another page follows ([list.order]), as
    ``MemoryRecord`` fields."""
    where, args = list_page(DIALECT, req, spec_filter, now, after)
    rows = tx.execute(f"SELECT {COLUMNS} FROM memories m WHERE {where}", args)
    return RECORD_ROWS.records(rows.fetchall(), now)


def update_target(tx: Any, req: UpdateRequest) -> dict[str, Any] | None:
    """The record an update may change, as stored (None: not one the request may see)."""
    scope = update_scope(DIALECT, req.agent_id, req.user_id, req.id)
    row = tx.execute(f"SELECT {COLUMNS} FROM memories m WHERE {scope.sql}", scope.args).fetchone()
    return None if row is None else record(row)


def apply_update(  # noqa: PLR0917 (an update's parts, as the store has them)
    tx: Any,
    req: UpdateRequest,
    payload: dict[str, Any],
    plan: UpdatePlan,
    now: int,
    index: IndexWriter,
) -> None:
    """Write ``plan`` if the record is still at its version ([update.version]); an active
    record's index rows follow its new content and expiry."""
    current = update_target(tx, req)
    plan.check_unchanged(current)
    assert current is not None  # check_unchanged refuses None
    if not plan.changes:
        return
    changes = plan.changes
    merged = {**current, **changes}
    tx.execute(
        "UPDATE memories SET content = ?, metadata = ?, confidence = ?, expires_at = ?, "
        "seal = ?, version = ?, updated_at = ?, embedding = coalesce(?, embedding) "
        "WHERE rowid = ? AND version = ?",
        (
            merged["content"],
            json_text(merged["metadata"]),
            merged["confidence"],
            merged["expires_at"],
            None if merged["seal"] is None else json_text(merged["seal"]),
            plan.next_version,
            now,
            None if plan.vector is None else blob(plan.vector),
            plan.record["rowid"],
            plan.version,
        ),
    )
    reindex = "content" in changes or "expires_at" in changes
    if current["state"] == "active" and reindex:
        vector = plan.vector
        if vector is None:
            (stored,) = tx.execute(
                "SELECT embedding FROM memories WHERE rowid = ?", (plan.record["rowid"],)
            ).fetchone()
            vector = np.frombuffer(stored, np.float32)
        index.remove(tx, plan.record["rowid"], req.agent_id)
        index.add(tx, plan.record["rowid"], merged, vector)
    detail = plan.audit_detail(req.reason)
    append_sqlite(tx, now, "update", req.agent_id, [req.id], payload, detail)
