"""The pgvector store's review queue, inside the caller's transaction (spec v0.2,
docs/spec/v0.2.md#review.list): staging a write, a page of pending reviews with their diffs,
and ending a review exactly once (a conditional UPDATE: under READ COMMITTED a racing
decision waits for the first, then finds the review ended)."""

from __future__ import annotations

from typing import Any

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from mnemowire.adapters.pgvector._filters import DIALECT
from mnemowire.adapters.pgvector._sql import COLUMNS, Scope
from mnemowire.errors import ConflictError
from mnemowire.kit import RecordRows, forget_states
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

_RECORD_ROWS = RecordRows([name.strip().removeprefix("m.") for name in COLUMNS.split(",")])


async def stage(
    conn: Any,
    *,
    review_id: str,
    operation: str,
    agent_id: str,
    user_id: str | None,
    request: dict[str, Any],
    staged_by: str,
    now: int,
) -> None:
    """Queue a staged write ([review.staging]); an id already taken is a conflict."""
    cursor = await conn.execute(
        "INSERT INTO reviews (review_id, agent_id, user_id, operation, request, staged_by, "
        "requested_at, state) VALUES (%s, %s, %s, %s, %s, %s, %s, 'pending') "
        "ON CONFLICT (review_id) DO NOTHING RETURNING 1",
        (review_id, agent_id, user_id, operation, Jsonb(request), staged_by, now),
    )
    if await cursor.fetchone() is None:
        raise ConflictError(f"review id {review_id!r} is taken; stage the write under another")


async def forget_targets(conn: Any, req: ForgetRequest, payload: dict[str, Any]) -> list[str]:
    """The ids of every record ``req`` reaches now ([forget.scope]), in write order."""
    states = forget_states(req.hard_delete, named=req.ids is not None)
    scope = forget_scope(DIALECT, req, payload.get("filter"), states)
    cursor = await conn.execute(
        f"SELECT m.id FROM memories m WHERE {scope.sql} ORDER BY m.seq", scope.args
    )
    return [row[0] for row in await cursor.fetchall()]


async def withdraw(conn: Any, ids: list[str], now: int) -> None:
    """Staged remembers whose records a forget removed can no longer be decided (a pending
    remember review means its record is still pending)."""
    if ids:
        await conn.execute(
            "UPDATE reviews SET state = 'withdrawn', decision = jsonb_build_object('at', %s) "
            "WHERE operation = 'remember' AND state = 'pending' AND review_id = ANY(%s)",
            (now, ids),
        )


async def erase_requests(conn: Any, ids: list[str]) -> None:
    """What an erasure leaves of the reviews of remembers staged as ``ids``: no content,
    whatever state the review is in (an approved, merged or rejected review keeps the words
    it was staged with as long as a pending one: [forget.soft])."""
    if ids:
        await conn.execute(
            "UPDATE reviews SET request = '{}'::jsonb WHERE operation = 'remember' "
            "AND review_id = ANY(%s) AND request <> '{}'::jsonb",
            (ids,),
        )


async def page(conn: Any, req: ReviewsRequest, now: int) -> list[ReviewRequest]:
    """Up to ``limit + 1`` of the agent's pending reviews after the cursor, in review id
    order, each with its diff against the state now ([review.diff])."""
    rows = await (await conn.execute(*review_page(DIALECT, req))).fetchall()
    staged = await _records(conn, [r[0] for r in rows if r[1] == "remember"], now)
    out = []
    for row in rows:
        review_id, operation, agent_id, user_id, sent = row[:5]
        seal = None
        if operation == "remember":
            added = staged.get(review_id)
            if added is None:  # cannot happen: a removed record withdraws its review
                continue
            seal = added.pop("seal", None)
            diff: dict[str, Any] = {"added": [added]}
            if req.related:
                diff["related"] = await _related(
                    conn, review_id, agent_id, user_id, req.related, now
                )
        elif operation == "forget":
            forget = ForgetRequest.model_validate(sent)
            ids = await forget_targets(conn, forget, sent)
            records = await _records(conn, ids, now)
            diff = {"removed": [records[i] for i in ids if i in records]}
        else:
            diff = await _merge_diff(conn, MergeRequest.model_validate(sent), now)
        out.append(review_of_row(row, sent, diff, seal))
    return out


async def pending(conn: Any, req: DecideRequest) -> tuple[str, dict[str, Any]] | None:
    """The review a decision names, as (operation, request sent) if it is the agent's and
    pending; None if it is not the agent's; a conflict if it already ended."""
    cursor = await conn.execute(
        "SELECT operation, request, state, decision FROM reviews "
        "WHERE review_id = %s AND agent_id = %s",
        (req.review_id, req.agent_id),
    )
    row = await cursor.fetchone()
    if row is None:
        return None
    operation, sent, state, decision = row
    if state != "pending":
        raise ended_conflict(req.review_id, state, decision)
    return operation, sent


async def end(conn: Any, req: DecideRequest, outcome: str, decision: dict[str, Any]) -> None:
    """End the review, first thing in the decision's transaction ([review.once])."""
    cursor = await conn.execute(
        "UPDATE reviews SET state = %s, decision = %s "
        "WHERE review_id = %s AND agent_id = %s AND state = 'pending' RETURNING 1",
        (outcome, Jsonb(decision), req.review_id, req.agent_id),
    )
    if await cursor.fetchone() is None:
        cursor = await conn.execute(
            "SELECT state, decision FROM reviews WHERE review_id = %s", (req.review_id,)
        )
        row = await cursor.fetchone()
        if row is None:
            raise ended_conflict(req.review_id, "withdrawn")
        raise ended_conflict(req.review_id, row[0], row[1])


async def staged_version(conn: Any, req: DecideRequest, operation: str) -> int:
    """The version of the staged write a decision names, as it is now: a staged remember's
    record's, locked to the decision's end (an update racing it waits, then finds the record
    decided), 1 for a forget or merge."""
    if operation != "remember":
        return 1
    cursor = await conn.execute(
        "SELECT version FROM memories WHERE id = %s AND agent_id = %s FOR NO KEY UPDATE",
        (req.review_id, req.agent_id),
    )
    row = await cursor.fetchone()
    return 1 if row is None else int(row[0])


async def staged_records(conn: Any, agent_id: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The agent's pending records among ``ids``, as stored (a merge plan reads them)."""
    async with conn.cursor(row_factory=dict_row) as cursor:
        await cursor.execute(
            f"SELECT {COLUMNS} FROM memories m WHERE m.agent_id = %s AND m.state = 'pending' "
            "AND m.id = ANY(%s)",
            (agent_id, ids),
        )
        return {row["id"]: row for row in await cursor.fetchall()}


# -- diffs -----------------------------------------------------------------------------------


async def _records(conn: Any, ids: list[str], now: int) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    cursor = await conn.execute(f"SELECT {COLUMNS} FROM memories m WHERE m.id = ANY(%s)", (ids,))
    return {r["id"]: r for r in _RECORD_ROWS.records(await cursor.fetchall(), now)}


async def _related(  # noqa: PLR0917 (a staged record's scope)
    conn: Any, review_id: str, agent_id: str, user_id: str | None, k: int, now: int
) -> list[dict[str, Any]]:
    """The agent's active records closest to the staged one, in its user scope, closest
    first, with cosine similarity (negative reported as 0)."""
    scope = Scope.of(RecallRequest(agent_id=agent_id, user_id=user_id, query="-", k=k), {}, now)
    cursor = await conn.execute(
        f"SELECT m.id, 1 - (m.embedding <=> s.embedding) FROM memories s "
        f"CROSS JOIN LATERAL (SELECT m.id, m.embedding FROM memories m WHERE {scope.sql} "
        "ORDER BY m.embedding <=> s.embedding LIMIT %s) m WHERE s.id = %s "
        "ORDER BY m.embedding <=> s.embedding, m.id",
        [*scope.args, k, review_id],
    )
    found = await cursor.fetchall()
    records = await _records(conn, [record_id for record_id, _ in found], now)
    return [
        {"record": records[record_id], "relevance": max(0.0, min(1.0, float(similarity)))}
        for record_id, similarity in found
        if record_id in records
    ]


async def _merge_diff(conn: Any, req: MergeRequest, now: int) -> dict[str, Any]:
    ids = [req.canonical, *req.duplicates]
    scope = merge_scope(DIALECT, req.agent_id, ids, now)
    async with conn.cursor(row_factory=dict_row) as cursor:
        await cursor.execute(f"SELECT {COLUMNS} FROM memories m WHERE {scope.sql}", scope.args)
        stored = {row["id"]: row for row in await cursor.fetchall()}
    return merge_diff(req, stored, await _records(conn, list(stored), now))
