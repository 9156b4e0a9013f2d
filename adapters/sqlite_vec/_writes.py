"""Every write of the sqlite-vec store, inside the caller's transaction: new records (with
replays of known ids), the indexes of visible records, forget, merge, expire, approval and
restore, each with its audit row."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mnemowire.adapters.sqlite_vec import _keywords
from mnemowire.adapters.sqlite_vec._filters import DIALECT
from mnemowire.adapters.sqlite_vec._records import COLUMNS, record
from mnemowire.adapters.sqlite_vec._reviews import QUEUE
from mnemowire.adapters.sqlite_vec._schema import NEVER, user_key
from mnemowire.adapters.sqlite_vec._vectors import blob
from mnemowire.kit import (
    TYPE_FIELDS,
    MergePlan,
    StoredWrite,
    json_text,
    new_id,
    replay,
    require_versions,
    require_visible,
    searchable_text,
)
from mnemowire.kit.audit import append_sqlite
from mnemowire.kit.reviews import staging
from mnemowire.kit.sql import expire_scope, merge_scope
from mnemowire.kit.sql_steps import run
from mnemowire.kit.staging import StagingRules
from mnemowire.models import (
    DecideRequest,
    ExpireRequest,
    ForgetRequest,
    MergeRequest,
    RememberRequest,
    RememberResponse,
    StoreResult,
)

__all__ = [
    "IndexWriter",
    "existing",
    "expire",
    "forget",
    "merge",
    "merge_targets",
    "reject",
    "set_visible",
    "write_record",
]

#: a response's stores[] entry for a count of records
Result = Callable[[int], StoreResult]


class IndexWriter:
    """The search indexes of visible records: the vec0 table, the keyword rows, the change log
    the in-memory index catches up from, and each agent's count of visible records.

    During a bulk write (``bulk`` set), keyword rows are collected and inserted at the end in
    key order, so each leaf of the keyword index is written once for the whole batch."""

    def __init__(self) -> None:
        self.bulk: list[tuple[int, int]] | None = None

    def add(self, tx: Any, rowid: int, record: dict[str, Any], vector: Any) -> None:
        self.add_many(tx, [(rowid, record, vector)])

    def add_many(self, tx: Any, added: Sequence[tuple[int, dict[str, Any], Any]]) -> None:
        """Index visible records, each (rowid, its columns by name, its vector): each table's
        rows in one executemany, each agent's count in one write."""
        if not added:
            return
        tx.executemany(
            "INSERT INTO memories_vec(rowid, agent_id, embedding, user_key, type, created_at, "
            "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (rowid, columns["agent_id"], blob(vector), user_key(columns["user_id"]),
                 columns["type"], columns["created_at"], columns["expires_at"] or NEVER)
                for rowid, columns, vector in added
            ],
        )  # fmt: skip
        rows = [
            row
            for rowid, columns, _ in added
            for row in _keywords.rows_of(
                columns["agent_id"], rowid, searchable_text(columns["type"], columns["content"])
            )
        ]
        if self.bulk is not None:
            self.bulk.extend(rows)
        else:
            _keywords.insert(tx, rows)
        tx.executemany(
            "INSERT INTO vec_changes(agent_id, record, added) VALUES (?, ?, 1)",
            [(columns["agent_id"], rowid) for rowid, columns, _ in added],
        )
        for agent, count in Counter(columns["agent_id"] for _, columns, _ in added).items():
            self._count(tx, agent, count)

    def remove(self, tx: Any, rowid: int, agent_id: str) -> None:
        tx.execute("DELETE FROM memories_vec WHERE rowid = ?", (rowid,))
        _keywords.remove_record(tx, rowid)
        tx.execute(
            "INSERT INTO vec_changes(agent_id, record, added) VALUES (?, ?, 0)", (agent_id, rowid)
        )
        self._count(tx, agent_id, -1)

    def flush(self, tx: Any) -> None:
        """Insert the keyword rows a bulk write collected, in key order."""
        if self.bulk:
            _keywords.insert(tx, sorted(self.bulk))
        self.bulk = None

    def _count(self, tx: Any, agent_id: str, change: int) -> None:
        """The agent's count of visible records, changed by ``change``."""
        tx.execute(
            "INSERT INTO agent_stats(agent_id, visible) VALUES (?, ?) "
            "ON CONFLICT(agent_id) DO UPDATE SET visible = visible + excluded.visible",
            (agent_id, change),
        )


# -- remember --------------------------------------------------------------------------------


def existing(tx: Any, req: RememberRequest, result: StoreResult) -> RememberResponse | None:
    """The kit's ``replay`` of ``req.id``: the first write's response for the same writer's
    record, None for an id never used (or no id), ConflictError otherwise."""
    if req.id is None:
        return None
    row = tx.execute(
        "SELECT agent_id, user_id, type, content, created_at, state FROM memories WHERE id = ?",
        (req.id,),
    ).fetchone()
    stored = None
    if row is not None:
        agent, user, kind, content, created_at, state = row
        stored = StoredWrite(agent, user, kind, content, created_at, state == "pending")
    erased = row is None and tx.execute("SELECT 1 FROM erased WHERE id = ?", (req.id,)).fetchone()
    return replay(req, stored, erased=bool(erased), result=result)


def write_record(  # noqa: PLR0917 (a remember's parts, as the store has them)
    tx: Any,
    req: RememberRequest,
    payload: dict[str, Any],
    vector: Any,
    now: int,
    result: Result,
    index: IndexWriter,
    policy: StagingRules | None = None,
) -> RememberResponse:
    """Store a new record (its type-specific fields as sent: ``payload`` is the wire JSON)
    and index it unless it is staged for review (the request asks, or ``policy`` does)."""
    fields = {
        "id": req.id or new_id(),
        "agent_id": req.agent_id,
        "user_id": req.user_id,
        "type": req.type,
        "content": req.content,
        "metadata": payload.get("metadata", {}),
        "confidence": req.confidence,
        "source": req.source,
        "created_at": now,
        "updated_at": now,
        "expires_at": req.expires_at,
        **{name: payload.get(name) for name in TYPE_FIELDS},
    }
    staged_by = staging(policy, "remember", req, payload)
    pending = staged_by is not None
    cursor = tx.execute(
        "INSERT INTO memories(id, agent_id, user_id, type, content, metadata, confidence, "
        "source, created_at, updated_at, expires_at, event_time, location, participants, "
        "sentiment, valence, arousal, emotion, target, state, embedding, seal) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            fields["id"],
            fields["agent_id"],
            fields["user_id"],
            fields["type"],
            fields["content"],
            json_text(fields["metadata"]),
            fields["confidence"],
            fields["source"],
            now,
            now,
            fields["expires_at"],
            fields["event_time"],
            fields["location"],
            None if fields["participants"] is None else json_text(fields["participants"]),
            fields["sentiment"],
            fields["valence"],
            fields["arousal"],
            fields["emotion"],
            fields["target"],
            "pending" if pending else "active",
            blob(vector),
            json_text(payload["seal"]) if "seal" in payload else None,
        ),
    )
    if staged_by is not None:
        staged = (fields["id"], "remember", req.agent_id, req.user_id, payload, staged_by, now)
        run(tx, QUEUE.stage(*staged))
    else:
        index.add(tx, cursor.lastrowid, fields, vector)
    detail = {"pending": True} if pending else None
    append_sqlite(tx, now, "remember", req.agent_id, [fields["id"]], payload, detail)
    return RememberResponse(
        id=fields["id"], stored_at=now, stores=[result(1)], pending_approval=pending
    )


# -- forget ----------------------------------------------------------------------------------


def forget_reach(tx: Any, req: ForgetRequest, payload: dict[str, Any]) -> list[str]:
    """The ids a forget would reach now, changing nothing ([forget.dry-run])."""
    return [record_id for _, record_id, _ in run(tx, QUEUE.forget_targets(req, payload))]


def forget(
    tx: Any, req: ForgetRequest, payload: dict[str, Any], now: int, index: IndexWriter
) -> list[str]:
    """Hide or erase what the request reaches ([forget.scope]); returns the ids it named or
    matched (a hard delete also erases what was merged into them: [forget.soft])."""
    hard = req.hard_delete
    targets = run(tx, QUEUE.forget_targets(req, payload))
    ids = [record_id for _, record_id, _ in targets]
    run(tx, QUEUE.withdraw([i for _, i, state in targets if state == "pending"], now))
    absorbed = _merged_into(tx, req.agent_id, ids) if hard else []
    for rowid, _, state in [*targets, *absorbed]:
        if state == "active":
            index.remove(tx, rowid, req.agent_id)
        if hard:
            tx.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
        else:
            tx.execute(
                "UPDATE memories SET state = 'deleted', updated_at = ? WHERE rowid = ?",
                (now, rowid),
            )
    detail: dict[str, Any] = {"hard_delete": hard}
    if hard:
        erased = [*ids, *(record_id for _, record_id, _ in absorbed)]
        tx.executemany(
            "INSERT OR IGNORE INTO erased(id, agent_id) VALUES (?, ?)",
            [(i, req.agent_id) for i in erased],
        )
        run(tx, QUEUE.erase_requests(erased))  # whatever state their reviews ended in
        if absorbed:
            detail["erased_with"] = [record_id for _, record_id, _ in absorbed]
    if req.reason is not None:
        detail["reason"] = req.reason
    append_sqlite(tx, now, "forget", req.agent_id, ids, payload, detail)
    return ids


def _merged_into(tx: Any, agent_id: str, ids: list[str]) -> list[tuple[Any, ...]]:
    """Every record merged into one of ``ids``, directly or through earlier merges (their
    content lives on in the canonical's history): erased with it ([forget.soft])."""
    if not ids:
        return []
    return list(
        tx.execute(
            "WITH RECURSIVE absorbed(id) AS ("
            f"SELECT id FROM memories WHERE agent_id = ? AND state = 'merged' "
            f"AND merged_into IN ({','.join('?' * len(ids))}) "
            "UNION SELECT m.id FROM memories m JOIN absorbed a ON m.merged_into = a.id "
            "WHERE m.agent_id = ? AND m.state = 'merged') "
            "SELECT m.rowid, m.id, m.state FROM memories m JOIN absorbed a ON m.id = a.id "
            f"WHERE m.id NOT IN ({','.join('?' * len(ids))}) ORDER BY m.rowid",
            [agent_id, *ids, agent_id, *ids],
        )
    )


# -- merge -----------------------------------------------------------------------------------


def merge_targets(tx: Any, req: MergeRequest, now: int) -> dict[str, dict[str, Any]]:
    """The canonical and duplicates, each a visible record of the agent ([merge.ownership])."""
    ids = [req.canonical, *req.duplicates]
    scope = merge_scope(DIALECT, req.agent_id, ids, now)
    rows = tx.execute(f"SELECT {COLUMNS} FROM memories m WHERE {scope.sql}", scope.args)
    found = {row[1]: record(row) for row in rows.fetchall()}
    require_visible(req.agent_id, found, ids)
    return found


def merge(  # noqa: PLR0917 (a merge's parts, as the store has them)
    tx: Any,
    req: MergeRequest,
    payload: dict[str, Any],
    plan: MergePlan,
    now: int,
    index: IndexWriter,
) -> None:
    """Apply ``plan``, unless a record changed since it was made ([merge.strategies])."""
    current = merge_targets(tx, req, now)
    plan.check_unchanged(current)
    require_versions(req, current)  # read again under the write's lock
    canonical = current[req.canonical]
    vector = plan.vector
    later = plan.written_at(canonical, now)
    if plan.update:
        tx.execute(
            "UPDATE memories SET content = ?, confidence = ?, metadata = ?, "
            "updated_at = ?, embedding = coalesce(?, embedding) WHERE rowid = ?",
            (
                plan.update["content"],
                plan.update["confidence"],
                json_text(plan.update["metadata"]),
                later,
                None if vector is None else blob(vector),
                canonical["rowid"],
            ),
        )
        if vector is not None:
            index.remove(tx, canonical["rowid"], req.agent_id)
            index.add(tx, canonical["rowid"], {**canonical, **plan.update}, vector)
    else:
        tx.execute(
            "UPDATE memories SET updated_at = ? WHERE rowid = ?", (later, canonical["rowid"])
        )
    for duplicate in req.duplicates:
        rowid = current[duplicate]["rowid"]
        index.remove(tx, rowid, req.agent_id)
        tx.execute(
            "UPDATE memories SET state = 'merged', merged_into = ?, updated_at = ? WHERE rowid = ?",
            (req.canonical, now, rowid),
        )
    ids = [req.canonical, *req.duplicates]
    append_sqlite(tx, now, "merge", req.agent_id, ids, payload, {"strategy": plan.strategy})


# -- expire, approval, restore ---------------------------------------------------------------


def expire(
    tx: Any, req: ExpireRequest, payload: dict[str, Any], now: int, index: IndexWriter
) -> list[str]:
    """Apply the policy's action to what it matches ([expire.policy]); returns their ids.
    Demote sets the factor (it never compounds)."""
    scope = expire_scope(DIALECT, req, now, last_recalled="m.last_recalled_at")
    matched = [
        record(row)
        for row in tx.execute(
            f"SELECT {COLUMNS} FROM memories m WHERE {scope.sql} ORDER BY m.rowid", scope.args
        )
    ]
    if req.dry_run:  # [expire.dry-run]: matched, reported, nothing changed
        return [r["id"] for r in matched]
    for found in matched:
        if req.action == "demote":
            tx.execute(
                "UPDATE memories SET demote = ? WHERE rowid = ?",
                (req.demote_factor, found["rowid"]),
            )
            continue
        index.remove(tx, found["rowid"], req.agent_id)
        state = "deleted" if req.action == "forget" else "archived"
        tx.execute(
            "UPDATE memories SET state = ?, updated_at = ? WHERE rowid = ?",
            (state, now, found["rowid"]),
        )
    ids = [r["id"] for r in matched]
    append_sqlite(tx, now, "expire", req.agent_id, ids, payload, {"action": req.action})
    return ids


def reject(tx: Any, req: DecideRequest, operation: str, now: int) -> list[str]:
    """A rejected review's staged write discarded ([review.decide]): a staged remember's record
    erased (``hard``) or kept forgotten; a staged forget or merge changed nothing, so nothing
    is left to undo. The ids changed."""
    if operation != "remember":
        return []
    if req.hard:
        tx.execute("DELETE FROM memories WHERE id = ? AND state = 'pending'", (req.review_id,))
        tx.execute(
            "INSERT OR IGNORE INTO erased(id, agent_id) VALUES (?, ?)",
            (req.review_id, req.agent_id),
        )
        run(tx, QUEUE.erase_requests([req.review_id]))
    else:
        tx.execute(
            "UPDATE memories SET state = 'deleted', updated_at = ? WHERE id = ? "
            "AND state = 'pending'",
            (now, req.review_id),
        )
    return [req.review_id]


def set_visible(  # noqa: PLR0917 (an approved remember and restore, one statement each)
    tx: Any,
    agent_id: str,
    user_id: str | None,
    ids: list[str],
    from_state: str,
    operation: str,
    now: int,
    index: IndexWriter,
) -> list[str]:
    """Make the agent's (and user's) records in ``from_state`` among ``ids`` visible again;
    their ids, in the order of ``ids``."""
    user = "" if user_id is None else " AND user_id = ?"
    rows = tx.execute(
        f"SELECT {COLUMNS}, embedding FROM memories WHERE agent_id = ? AND state = ?{user} "
        f"AND id IN ({','.join('?' * len(ids))}) ORDER BY rowid",
        [agent_id, from_state, *([] if user_id is None else [user_id]), *ids],
    ).fetchall()
    for row in rows:
        found = record(row[:-1])
        tx.execute(
            "UPDATE memories SET state = 'active', updated_at = ? WHERE rowid = ?",
            (now, found["rowid"]),
        )
        index.add(tx, found["rowid"], found, np.frombuffer(row[-1], np.float32))
    restored = {row[1] for row in rows}
    done = [record_id for record_id in dict.fromkeys(ids) if record_id in restored]
    append_sqlite(tx, now, operation, agent_id, done, {"agent_id": agent_id, "ids": ids})
    return done
