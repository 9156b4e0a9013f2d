"""Writing records: replay or conflict for known ids, then one INSERT (remember) or a binary
COPY per batch (remember_batch, load_fresh), each record with its audit row, inside the caller's
transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from psycopg.types.json import Jsonb

from mnemowire.adapters.pgvector._reviews import QUEUE
from mnemowire.adapters.pgvector._sql import lexemes_of
from mnemowire.embedders import Vectors
from mnemowire.errors import StoreError
from mnemowire.kit import (
    TYPE_FIELDS,
    StoredWrite,
    in_batch,
    new_id,
    replay,
    searchable_text,
)
from mnemowire.kit.audit import GENESIS, chain_digest, entry
from mnemowire.kit.reviews import staging
from mnemowire.kit.sql_steps import arun
from mnemowire.kit.staging import StagingRules
from mnemowire.models import RememberRequest, RememberResponse, StoreResult

__all__ = ["append_audit", "chained", "copy_rows", "existing", "insert_audit", "write"]

#: a response's stores[] entry for a count of records
Result = Callable[[int], StoreResult]
#: the memories columns a remember writes, in order, and their types for binary COPY
_COLUMNS = (
    "id", "agent_id", "user_id", "type", "content", "metadata", "confidence", "source",
    "created_at", "updated_at", "expires_at", "event_time", "location", "participants",
    "sentiment", "valence", "arousal", "emotion", "target", "state", "embedding", "search",
    "seal",
)  # fmt: skip
_TYPES = (
    "text", "text", "text", "text", "text", "jsonb", "float8", "text", "int8", "int8", "int8",
    "int8", "text", "jsonb", "text", "float8", "float8", "text", "text", "text", "vector",
    "tsvector", "jsonb",
)  # fmt: skip
_AUDIT_COLUMNS = (
    "at", "operation", "agent_id", "ids", "request_sha256", "detail", "position", "digest"
)  # fmt: skip
_AUDIT_TYPES = ("int8", "text", "text", "jsonb", "text", "jsonb", "int8", "text")


async def existing(
    conn: Any, reqs: Sequence[RememberRequest], result: Result, offset: int | None = None
) -> list[RememberResponse | None]:
    """Per request, the kit's ``replay`` of its id: the first write's response for the same
    writer's record, None for an id never used (or no id), ConflictError otherwise (naming the
    request's place, ``offset`` onwards, in a batch message)."""
    wanted = [r.id for r in reqs if r.id is not None]
    found: dict[str, StoredWrite] = {}
    erased: set[str] = set()
    if wanted:
        cursor = await conn.execute(
            "SELECT id, agent_id, user_id, type, content, created_at, state FROM memories "
            "WHERE id = ANY(%s)",
            (wanted,),
        )
        for record_id, agent, user, kind, content, created_at, state in await cursor.fetchall():
            found[record_id] = StoredWrite(
                agent, user, kind, content, created_at, state == "pending"
            )
        missing = [i for i in wanted if i not in found]
        if missing:
            cursor = await conn.execute("SELECT id FROM erased WHERE id = ANY(%s)", (missing,))
            erased = {row[0] for row in await cursor.fetchall()}
    out: list[RememberResponse | None] = []
    for number, req in enumerate(reqs):
        with in_batch(None if offset is None else offset + number):
            stored = None if req.id is None else found.get(req.id)
            out.append(replay(req, stored, erased=req.id in erased, result=result(0)))
    return out


async def write(
    conn: Any,
    batch: Sequence[tuple[RememberRequest, dict[str, Any]]],
    vectors: Vectors,
    *,
    now: int,
    result: Result,
    copy: bool = False,
    offset: int | None = None,
    policy: StagingRules | None = None,
) -> list[RememberResponse]:
    """Store new records (replaying ids that exist): one INSERT, or COPY for bulk (``copy``).
    A duplicate id inside the batch replays its first occurrence. ``offset``: the batch's
    place in a batch message, so an error names the request; ``policy``: the store's staging
    policy, which may stage a record its request did not."""
    replays = await existing(conn, [r for r, _ in batch], result, offset)
    rows: list[tuple[Any, ...]] = []
    audits: list[dict[str, Any]] = []
    out: list[RememberResponse] = []
    fresh: dict[str, tuple[RememberRequest, RememberResponse]] = {}
    staged: list[tuple[str, RememberRequest, dict[str, Any], str]] = []
    for number, ((req, payload), vector, earlier) in enumerate(
        zip(batch, vectors, replays, strict=True)
    ):
        if earlier is not None:
            out.append(earlier)
            continue
        if req.id is not None and req.id in fresh:  # the id's first write is in this batch
            first, response = fresh[req.id]
            stored = StoredWrite(
                first.agent_id, first.user_id, first.type, first.content, now, pending=False
            )
            with in_batch(None if offset is None else offset + number):
                replay(req, stored, erased=False, result=result(0))  # or the id's conflict
            out.append(response.model_copy(update={"replayed": True}))
            continue
        record_id = req.id or new_id()
        staged_by = staging(policy, "remember", req, payload)
        pending = staged_by is not None
        rows.append(_row(record_id, req, payload, vector, now=now, pending=pending))
        if staged_by is not None:
            staged.append((record_id, req, payload, staged_by))
        detail = {"pending": True} if pending else None
        audits.append(entry(now, "remember", req.agent_id, [record_id], payload, detail))
        response = RememberResponse(
            id=record_id, stored_at=now, stores=[result(1)], pending_approval=pending
        )
        fresh[record_id] = (req, response)
        out.append(response)
    if not rows:
        return out
    if copy:
        await copy_rows(conn, "memories", _COLUMNS, _TYPES, rows)
        await append_audit(conn, audits)
        await _queue(conn, staged, now)
        return out
    [row] = rows
    cursor = await conn.execute(
        f"INSERT INTO memories ({', '.join(_COLUMNS)}) VALUES ({', '.join(['%s'] * len(row))}) "
        "ON CONFLICT (id) DO NOTHING RETURNING seq",
        row,
    )
    if await cursor.fetchone() is None:  # a concurrent remember took the id meanwhile
        [req] = [r for r, _ in batch]
        raced = (await existing(conn, [req], result))[0]
        if raced is None:
            raise StoreError(f"id {req.id!r} vanished while being written; retry")
        return [raced]
    await insert_audit(conn, audits[0])
    await _queue(conn, staged, now)
    return out


async def _queue(
    conn: Any, staged: Sequence[tuple[str, RememberRequest, dict[str, Any], str]], now: int
) -> None:
    """Each staged remember's review ([review.staging]): its id is the record's."""
    for record_id, req, payload, staged_by in staged:
        queued = QUEUE.stage(record_id, "remember", req.agent_id, req.user_id, payload,
                             staged_by, now)  # fmt: skip
        await arun(conn, queued)


async def chained(conn: Any, entries: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """``entries`` as audit_log rows that continue the hash chain (kit.audit), each with its
    position and digest. Writers of every process take the schema's audit lock first (held
    to the end of the transaction), so no other entry comes between the last one read and
    these; ``seq`` cannot number the chain, since a rolled-back insert leaves a gap in it."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtext('mnemowire.audit.' || current_schema()))"
    )
    cursor = await conn.execute(
        "SELECT position, digest FROM audit_log WHERE position IS NOT NULL "
        "ORDER BY position DESC LIMIT 1"
    )
    last = await cursor.fetchone()
    position, previous = (0, GENESIS) if last is None else (int(last[0]), str(last[1]))
    rows = []
    for one in entries:
        position += 1
        previous = chain_digest(previous, {**one, "seq": position})
        detail = one["detail"]
        rows.append((
            one["at"], one["operation"], one["agent_id"], Jsonb(one["ids"]),
            one["request_sha256"], None if detail is None else Jsonb(detail), position, previous,
        ))  # fmt: skip
    return rows


async def append_audit(conn: Any, entries: Sequence[dict[str, Any]]) -> None:
    """``entries`` (kit.audit ``entry``) appended to the chain with one binary COPY."""
    if entries:
        rows = await chained(conn, entries)
        await copy_rows(conn, "audit_log", _AUDIT_COLUMNS, _AUDIT_TYPES, rows)


async def insert_audit(conn: Any, written: dict[str, Any]) -> None:
    [row] = await chained(conn, [written])
    marks = ", ".join(["%s"] * len(_AUDIT_COLUMNS))
    await conn.execute(f"INSERT INTO audit_log ({', '.join(_AUDIT_COLUMNS)}) VALUES ({marks})", row)


def _row(
    record_id: str,
    req: RememberRequest,
    payload: dict[str, Any],
    vector: Any,
    *,
    now: int,
    pending: bool,
) -> tuple[Any, ...]:
    """The memories row of a new record, in ``_COLUMNS`` order. Fields come from the wire
    JSON, so they are stored exactly as sent."""
    return (
        record_id,
        req.agent_id,
        req.user_id,
        req.type,
        req.content,
        Jsonb(payload.get("metadata", {})),
        req.confidence,
        req.source,
        now,
        now,
        req.expires_at,
        *(
            Jsonb(payload[name])
            if name == "participants" and payload.get(name) is not None
            else payload.get(name)
            for name in TYPE_FIELDS
        ),
        "pending" if pending else "active",
        vector,
        lexemes_of(req.agent_id, searchable_text(req.type, req.content)),
        Jsonb(payload["seal"]) if "seal" in payload else None,
    )


async def copy_rows(
    conn: Any,
    table: str,
    columns: Sequence[str],
    types: Sequence[str],
    rows: list[tuple[Any, ...]],
) -> None:
    """Binary COPY of ``rows`` into ``table``."""
    statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN WITH (FORMAT BINARY)"
    async with conn.cursor().copy(statement) as copy:
        copy.set_types(list(types))
        for row in rows:
            await copy.write_row(row)
