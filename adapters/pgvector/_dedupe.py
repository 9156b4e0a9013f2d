"""Dedupe on write for the pgvector store (docs/spec/v0.4.md#remember.dedupe): the agent's
records of the remember's type nearest it by cosine distance, read inside the transaction the
remember then writes in, under a transaction-scoped advisory lock on the agent, user and type
(so of two remembers saying the same thing at once, the second sees the first), and weighed by
``kit.dedupe``."""

from __future__ import annotations

import json
from typing import Any

from mnemowire.adapters.pgvector._reviews import stored
from mnemowire.adapters.pgvector._sql import COLUMNS, Scope
from mnemowire.adapters.pgvector._vector_index import nearest
from mnemowire.adapters.pgvector._writes import Result, write
from mnemowire.kit.dedupe import CANDIDATES, answered_by, as_staged, duplicate_of, duplicating
from mnemowire.kit.staging import StagingRules
from mnemowire.models import DedupeMode, RecallRequest, RememberRequest, RememberResponse

__all__ = ["duplicate", "remember_once"]


async def duplicate(
    conn: Any, req: RememberRequest, payload: dict[str, Any], vector: Any, now: int
) -> dict[str, Any] | None:
    """The stored record ``req`` duplicates, if any (its row), among the agent's visible
    records of its type nearest ``vector``."""
    key = json.dumps(["dedupe", req.agent_id, req.user_id, str(req.type)])
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (key,))
    near = RecallRequest(
        agent_id=req.agent_id, user_id=req.user_id, types=[req.type], query="-", k=CANDIDATES
    )
    scope = Scope.of(near, {}, now)
    # the index scan's order is approximate (relaxed_order): the nearest are picked there and
    # ordered exactly here, ties by id
    cursor = await conn.execute(
        f"WITH near AS MATERIALIZED (SELECT {COLUMNS}, m.embedding <=> %s AS distance "
        f"FROM memories m WHERE {scope.sql} "
        f"ORDER BY {nearest('m.embedding', '%s', len(vector))} LIMIT %s) "
        "SELECT * FROM near ORDER BY distance, id",
        [vector, *scope.args, vector, CANDIDATES],
    )
    found = [(stored(row[:-1]), 1 - float(row[-1])) for row in await cursor.fetchall()]
    same = duplicate_of(req, payload, found)
    return next((row for row, _ in found if row["id"] == same), None)


async def remember_once(
    conn: Any,
    sent: tuple[RememberRequest, dict[str, Any]],
    vector: Any,
    dedupe: str | None,
    *,
    now: int,
    result: Result,
    policy: StagingRules | None,
) -> RememberResponse:
    """One remember written in ``conn``'s transaction, unless ``dedupe`` finds the record it
    duplicates: then answered by that record (``existing``) or staged beside it (``review``)."""
    req, payload = sent
    found = None if dedupe is None else await duplicate(conn, req, payload, vector, now)
    if found is not None and dedupe == DedupeMode.EXISTING:
        return answered_by(found, result(0))
    if found is not None:
        req, payload = as_staged(req, payload)
    batch, vectors = [(req, payload)], vector[None, :]
    [written] = await write(conn, batch, vectors, now=now, result=result, policy=policy)
    return duplicating(written, found)
