"""The sqlite-vec store's review queue, inside the caller's transaction (spec v0.2,
docs/spec/v0.2.md#review.list): staging a write, a page of pending reviews with their diffs,
and ending a review exactly once."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from mnemowire.adapters.sqlite_vec._filters import DIALECT
from mnemowire.adapters.sqlite_vec._records import COLUMNS, RECORD_ROWS, Scope, record
from mnemowire.adapters.sqlite_vec._search import nearest
from mnemowire.errors import ConflictError
from mnemowire.kit import forget_states
from mnemowire.kit.reviews import ended_conflict, merge_diff, review_of_row
from mnemowire.kit.sql import forget_scope, merge_scope, review_page
from mnemowire.models import (
    DecideRequest,
    ForgetRequest,
    MergeRequest,
    RecallRequest,
    ReviewRequest,
    ReviewsRequest,
)

__all__ = [
    "end",
    "erase_requests",
    "forget_targets",
    "page",
    "pending",
    "stage",
    "staged_records",
    "staged_version",
    "withdraw",
]


def stage(
    tx: Any,
    *,
    review_id: str,
    operation: str,
    agent_id: str,
    user_id: str | None,
    request: dict[str, Any],
    staged_by: str,
    now: int,
) -> None:
    """Queue a staged write for review ([review.staging]); a review id already taken (by any
    agent) is a conflict, so one id never names two writes."""
    taken = tx.execute("SELECT 1 FROM reviews WHERE review_id = ?", (review_id,)).fetchone()
    if taken is not None:
        raise ConflictError(f"review id {review_id!r} is taken; stage the write under another")
    tx.execute(
        "INSERT INTO reviews(review_id, agent_id, user_id, operation, request, staged_by, "
        "requested_at, state) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending')",
        (review_id, agent_id, user_id, operation, json.dumps(request), staged_by, now),
    )


def forget_targets(tx: Any, req: ForgetRequest, payload: dict[str, Any]) -> list[tuple[Any, ...]]:
    """(rowid, id, state) of every record ``req`` reaches now ([forget.scope]), in rowid
    order: what a forget does, and what a staged one would."""
    states = forget_states(req.hard_delete, named=req.ids is not None)
    scope = forget_scope(DIALECT, req, payload.get("filter"), states)
    return list(
        tx.execute(
            f"SELECT m.rowid, m.id, m.state FROM memories m WHERE {scope.sql} ORDER BY m.rowid",
            scope.args,
        )
    )


def withdraw(tx: Any, ids: list[str], now: int) -> None:
    """Staged remembers whose records a forget removed can no longer be decided."""
    if ids:
        marks = ",".join("?" * len(ids))
        tx.execute(
            f"UPDATE reviews SET state = 'withdrawn', decision = json_object('at', ?) "
            f"WHERE state = 'pending' AND review_id IN ({marks})",
            [now, *ids],
        )


def erase_requests(tx: Any, ids: list[str]) -> None:
    """What an erasure leaves of the reviews of remembers staged as ``ids``: the id, the
    decision, no content (the request becomes ``{}``), whatever state the review is in: an
    approved, merged or rejected review keeps the words it was staged with as long as a
    pending one ([forget.soft], docs/threat-model.md#8)."""
    for chunk in range(0, len(ids), 500):  # SQLite's limit on one statement's parameters
        part = ids[chunk : chunk + 500]
        tx.execute(
            f"UPDATE reviews SET request = '{{}}' WHERE operation = 'remember' "
            f"AND review_id IN ({','.join('?' * len(part))}) AND request != '{{}}'",
            part,
        )


def page(
    tx: Any, req: ReviewsRequest, now: int, indexes: Any, accelerate_above: int
) -> list[ReviewRequest]:
    """Up to ``limit + 1`` of the agent's pending reviews after the cursor, in review id
    order, each with its diff against the state now ([review.diff])."""
    rows = tx.execute(*review_page(DIALECT, req)).fetchall()
    staged = _records(tx, [r[0] for r in rows if r[1] == "remember"], now)
    out = []
    for row in rows:
        review_id, operation, agent_id, user_id, request = row[:5]
        sent = json.loads(request)
        seal = None
        if operation == "remember":
            added = staged.get(review_id)
            if added is None:  # cannot happen: a removed record withdraws its review
                continue
            seal = added.pop("seal", None)
            diff: dict[str, Any] = {"added": [added]}
            if req.related:
                diff["related"] = _related(
                    tx, review_id, agent_id, user_id, req.related, now, indexes, accelerate_above
                )
        elif operation == "forget":
            diff = {"removed": _forget_diff(tx, ForgetRequest.model_validate(sent), sent, now)}
        else:
            diff = _merge_diff(tx, MergeRequest.model_validate(sent), now)
        out.append(review_of_row(row, sent, diff, seal))
    return out


def pending(tx: Any, req: DecideRequest) -> tuple[str, dict[str, Any]] | None:
    """The review a decision names, as (operation, request sent) if it is the agent's and
    pending; None if it is not the agent's; a conflict if it already ended."""
    row = tx.execute(
        "SELECT operation, request, state, decision FROM reviews "
        "WHERE review_id = ? AND agent_id = ?",
        (req.review_id, req.agent_id),
    ).fetchone()
    if row is None:
        return None
    operation, request, state, decision = row
    if state != "pending":
        raise ended_conflict(req.review_id, state, decision and json.loads(decision))
    return operation, json.loads(request)


def staged_version(tx: Any, req: DecideRequest, operation: str) -> int:
    """The version of the staged write a decision names, as it is now: a staged remember's
    record's (updates may change it while it waits), 1 for a forget or merge."""
    if operation != "remember":
        return 1
    row = tx.execute(
        "SELECT version FROM memories WHERE id = ? AND agent_id = ?",
        (req.review_id, req.agent_id),
    ).fetchone()
    return 1 if row is None else int(row[0])


def staged_records(tx: Any, agent_id: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The agent's pending records among ``ids``, as stored (a merge plan reads them)."""
    rows = tx.execute(
        f"SELECT {COLUMNS} FROM memories WHERE agent_id = ? AND state = 'pending' "
        f"AND id IN ({','.join('?' * len(ids))})",
        [agent_id, *ids],
    )
    return {found["id"]: found for found in map(record, rows.fetchall())}


def end(tx: Any, req: DecideRequest, outcome: str, decision: dict[str, Any]) -> None:
    """End the review, first thing in the decision's transaction: of two decisions racing,
    the second finds it ended and fails with conflict before changing anything
    ([review.once])."""
    changed = tx.execute(
        "UPDATE reviews SET state = ?, decision = ? "
        "WHERE review_id = ? AND agent_id = ? AND state = 'pending'",
        (outcome, json.dumps(decision), req.review_id, req.agent_id),
    ).rowcount
    if changed != 1:
        row = tx.execute(
            "SELECT state, decision FROM reviews WHERE review_id = ?", (req.review_id,)
        ).fetchone()
        if row is None:
            raise ended_conflict(req.review_id, "withdrawn")
        raise ended_conflict(req.review_id, row[0], row[1] and json.loads(row[1]))


# -- diffs -----------------------------------------------------------------------------------


def _records(tx: Any, ids: list[str], now: int) -> dict[str, dict[str, Any]]:
    """Records by id, as MemoryRecord wire fields."""
    if not ids:
        return {}
    rows = tx.execute(
        f"SELECT {COLUMNS} FROM memories WHERE id IN ({','.join('?' * len(ids))})", ids
    ).fetchall()
    return {found["id"]: found for found in RECORD_ROWS.records(rows, now)}


def _related(  # noqa: PLR0917 (a staged record's scope)
    tx: Any,
    review_id: str,
    agent_id: str,
    user_id: str | None,
    k: int,
    now: int,
    indexes: Any,
    accelerate_above: int,
) -> list[dict[str, Any]]:
    """The agent's active records closest to the staged one, in its user scope, closest
    first, with cosine similarity (negative reported as 0)."""
    (embedding,) = tx.execute(
        "SELECT embedding FROM memories WHERE id = ?", (review_id,)
    ).fetchone()
    scope = Scope.of(RecallRequest(agent_id=agent_id, user_id=user_id, query="-", k=k), now)
    found = nearest(tx, scope, np.frombuffer(embedding, np.float32), k, indexes, accelerate_above)
    records = _records(tx, [r["id"] for r, _ in found], now)
    return [
        {"record": records[r["id"]], "relevance": max(0.0, relevance)}
        for r, relevance in found
        if r["id"] in records
    ]


def _forget_diff(
    tx: Any, req: ForgetRequest, payload: dict[str, Any], now: int
) -> list[dict[str, Any]]:
    ids = [record_id for _, record_id, _ in forget_targets(tx, req, payload)]
    records = _records(tx, ids, now)
    return [records[i] for i in ids if i in records]


def _merge_diff(tx: Any, req: MergeRequest, now: int) -> dict[str, Any]:
    ids = [req.canonical, *req.duplicates]
    scope = merge_scope(DIALECT, req.agent_id, ids, now)
    rows = tx.execute(f"SELECT {COLUMNS} FROM memories m WHERE {scope.sql}", scope.args)
    stored = {found["id"]: found for found in map(record, rows.fetchall())}
    return merge_diff(req, stored, _records(tx, list(stored), now))
