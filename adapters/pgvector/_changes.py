"""The pgvector store's changes to records that exist, each one statement (or a few) inside
the caller's transaction, with its audit row: forget (soft or erasing), merge, expire, and
making staged or archived records visible again."""

from __future__ import annotations

from typing import Any

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from mnemowire.adapters.pgvector._filters import DIALECT
from mnemowire.adapters.pgvector._reviews import QUEUE
from mnemowire.adapters.pgvector._sql import COLUMNS, lexemes_of
from mnemowire.adapters.pgvector._writes import insert_audit
from mnemowire.kit import MergePlan, forget_states, require_versions, require_visible
from mnemowire.kit.audit import entry
from mnemowire.kit.sql import expire_scope, forget_scope, merge_scope
from mnemowire.kit.sql_steps import arun
from mnemowire.models import DecideRequest, ExpireRequest, ForgetRequest, MergeRequest

__all__ = ["expire", "forget", "merge", "merge_targets", "reject", "set_visible"]


async def forget_reach(conn: Any, req: ForgetRequest, payload: dict[str, Any]) -> list[str]:
    """The ids a forget would reach now, changing nothing ([forget.dry-run])."""
    return [record_id for _, record_id, _ in await arun(conn, QUEUE.forget_targets(req, payload))]


async def forget(conn: Any, req: ForgetRequest, payload: dict[str, Any], now: int) -> list[str]:
    """Hide or erase what the request reaches ([forget.scope]); the ids it named or matched.
    An erasure also erases every record merged into one of them, directly or through earlier
    merges (their content lives on in the canonical's history), and spends their ids."""
    hard = req.hard_delete
    scope = forget_scope(
        DIALECT, req, payload.get("filter"), forget_states(hard, named=req.ids is not None)
    )
    where, args = scope.sql, scope.args
    if hard:
        statement = (
            f"WITH RECURSIVE target AS (SELECT m.seq, m.id FROM memories m WHERE {where} "
            "FOR UPDATE), absorbed AS ("
            "SELECT m.seq, m.id FROM memories m JOIN target t ON m.merged_into = t.id "
            "WHERE m.agent_id = %s AND m.state = 'merged' "
            "UNION SELECT m.seq, m.id FROM memories m JOIN absorbed a ON m.merged_into = a.id "
            "WHERE m.agent_id = %s AND m.state = 'merged'), "
            "gone AS (DELETE FROM memories m WHERE m.seq IN "
            "(SELECT seq FROM target UNION SELECT seq FROM absorbed) "
            "RETURNING m.seq, m.id, m.agent_id), "
            "untracked AS (DELETE FROM recalls r USING gone WHERE r.memory = gone.seq), "
            "spent AS (INSERT INTO erased (id, agent_id) SELECT id, agent_id FROM gone "
            "ON CONFLICT DO NOTHING) "
            "SELECT g.seq, g.id, g.id IN (SELECT id FROM target) FROM gone g"
        )
        args += [req.agent_id, req.agent_id]
    else:
        statement = (
            f"WITH target AS (SELECT m.seq FROM memories m WHERE {where} "
            "FOR NO KEY UPDATE) "
            "UPDATE memories m SET state = 'deleted', updated_at = %s FROM target "
            "WHERE m.seq = target.seq RETURNING m.seq, m.id, true"
        )
        args.append(now)
    cursor = await conn.execute(statement, args)
    rows = sorted(await cursor.fetchall())
    ids = [record_id for _, record_id, named in rows if named]
    await arun(conn, QUEUE.withdraw(ids, now))
    if hard:  # whatever state their reviews ended in
        await arun(conn, QUEUE.erase_requests([record_id for _, record_id, _ in rows]))
    detail: dict[str, Any] = {"hard_delete": hard}
    absorbed = [record_id for _, record_id, named in rows if not named]
    if absorbed:
        detail["erased_with"] = absorbed
    if req.reason is not None:
        detail["reason"] = req.reason
    await insert_audit(conn, entry(now, "forget", req.agent_id, ids, payload, detail))
    return ids


async def merge_targets(
    conn: Any, req: MergeRequest, now: int, *, lock: bool = False
) -> dict[str, dict[str, Any]]:
    """The canonical and duplicates, each a visible record of the agent ([merge.ownership]);
    ``lock`` holds them until the transaction ends."""
    ids = [req.canonical, *req.duplicates]
    scope = merge_scope(DIALECT, req.agent_id, ids, now)
    async with conn.cursor(row_factory=dict_row) as cursor:
        await cursor.execute(
            f"SELECT {COLUMNS} FROM memories m WHERE {scope.sql} ORDER BY m.seq"
            + (" FOR NO KEY UPDATE" if lock else ""),
            scope.args,
        )
        found = {row["id"]: row for row in await cursor.fetchall()}
    require_visible(req.agent_id, found, ids)
    return found


async def merge(
    conn: Any, req: MergeRequest, payload: dict[str, Any], plan: MergePlan, now: int
) -> None:
    """Apply ``plan``, unless a record changed since it was made ([merge.strategies])."""
    current = await merge_targets(conn, req, now, lock=True)
    plan.check_unchanged(current)
    require_versions(req, current)  # read again under the write's lock
    canonical = current[req.canonical]
    later = plan.written_at(canonical, now)
    if plan.update:
        changed = plan.vector is not None
        await conn.execute(
            "UPDATE memories SET content = %s, confidence = %s, metadata = %s, "
            "updated_at = %s, embedding = coalesce(%s, embedding), "
            "search = coalesce(%s, search) WHERE seq = %s",
            (
                plan.update["content"],
                plan.update["confidence"],
                Jsonb(plan.update["metadata"]),
                later,
                plan.vector if changed else None,
                lexemes_of(req.agent_id, plan.new_text or "") if changed else None,
                canonical["seq"],
            ),
        )
    else:
        await conn.execute(
            "UPDATE memories SET updated_at = %s WHERE seq = %s", (later, canonical["seq"])
        )
    await conn.execute(
        "UPDATE memories SET state = 'merged', merged_into = %s, updated_at = %s "
        "WHERE seq = ANY(%s)",
        (req.canonical, now, [current[d]["seq"] for d in req.duplicates]),
    )
    ids = [req.canonical, *req.duplicates]
    detail = {"strategy": plan.strategy}
    await insert_audit(conn, entry(now, "merge", req.agent_id, ids, payload, detail))


async def expire(conn: Any, req: ExpireRequest, payload: dict[str, Any], now: int) -> list[str]:
    """Apply the policy's action to what it matches ([expire.policy]); their ids. Demote sets
    the factor (it never compounds)."""
    scope = expire_scope(DIALECT, req, now, last_recalled="r.at")
    if req.dry_run:  # [expire.dry-run]: matched, reported, nothing changed
        cursor = await conn.execute(
            "SELECT m.seq, m.id FROM memories m LEFT JOIN recalls r ON r.memory = m.seq "
            f"WHERE {scope.sql}",
            scope.args,
        )
        return [record_id for _, record_id in sorted(await cursor.fetchall())]
    change_args: list[Any]
    if req.action == "demote":
        change, change_args = "demote = %s", [req.demote_factor]
    else:
        state = "deleted" if req.action == "forget" else "archived"
        change, change_args = "state = %s, updated_at = %s", [state, now]
    statement = (
        "WITH target AS (SELECT m.seq FROM memories m LEFT JOIN recalls r ON r.memory = m.seq "
        f"WHERE {scope.sql} FOR NO KEY UPDATE OF m) "
        f"UPDATE memories m SET {change} FROM target WHERE m.seq = target.seq "
        "RETURNING m.seq, m.id"
    )
    cursor = await conn.execute(statement, [*scope.args, *change_args])
    ids = [record_id for _, record_id in sorted(await cursor.fetchall())]
    detail = {"action": req.action}
    await insert_audit(conn, entry(now, "expire", req.agent_id, ids, payload, detail))
    return ids


async def reject(conn: Any, req: DecideRequest, operation: str, now: int) -> list[str]:
    """A rejected review's staged write discarded ([review.decide]): a staged remember's record
    erased (``hard``, its id spent) or kept forgotten; a staged forget or merge changed
    nothing. The ids changed."""
    if operation != "remember":
        return []
    if req.hard:
        await conn.execute(
            "WITH gone AS (DELETE FROM memories WHERE id = %s AND state = 'pending' "
            "RETURNING id, agent_id) INSERT INTO erased (id, agent_id) "
            "SELECT id, agent_id FROM gone ON CONFLICT DO NOTHING",
            (req.review_id,),
        )
        await arun(conn, QUEUE.erase_requests([req.review_id]))
    else:
        await conn.execute(
            "UPDATE memories SET state = 'deleted', updated_at = %s "
            "WHERE id = %s AND state = 'pending'",
            (now, req.review_id),
        )
    return [req.review_id]


async def set_visible(  # noqa: PLR0917 (an approved remember and restore, one statement each)
    conn: Any,
    agent_id: str,
    user_id: str | None,
    ids: list[str],
    from_state: str,
    operation: str,
    now: int,
) -> list[str]:
    """Make the agent's (and user's) records in ``from_state`` among ``ids`` visible again;
    their ids, in the order of ``ids``."""
    user = "" if user_id is None else " AND user_id = %s"
    cursor = await conn.execute(
        "UPDATE memories SET state = 'active', updated_at = %s "
        f"WHERE agent_id = %s AND state = %s{user} AND id = ANY(%s) RETURNING id",
        (now, agent_id, from_state, *([] if user_id is None else [user_id]), ids),
    )
    found = {row[0] for row in await cursor.fetchall()}
    done = [record_id for record_id in dict.fromkeys(ids) if record_id in found]
    request = {"agent_id": agent_id, "ids": ids}
    await insert_audit(conn, entry(now, operation, agent_id, done, request, None))
    return done
