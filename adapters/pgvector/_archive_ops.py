"""The pgvector store's spec v0.3 operations (export_records, import_records, scopes): the kit's
archive rules (``mnemowire.kit.archive``) over this store's tables. An export page is read in
one repeatable-read snapshot; an import page is one transaction (records by binary COPY, their
recall times, reviews, the page's tombstones and its audit entries), or nothing."""

from __future__ import annotations

import time
from typing import Any

from psycopg import errors as pg_errors
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from mnemowire.adapters.pgvector._browse import cursor_key
from mnemowire.adapters.pgvector._host import StoreHost
from mnemowire.adapters.pgvector._reviews import QUEUE
from mnemowire.adapters.pgvector._sql import COLUMNS, lexemes_of
from mnemowire.adapters.pgvector._writes import append_audit, copy_rows
from mnemowire.errors import ConflictError
from mnemowire.kit import TYPE_FIELDS, Cursors, searchable_text
from mnemowire.kit.archive import (
    ImportPlan,
    Placed,
    agent_scope,
    archive_record,
    export_answer,
    export_states,
    import_vectors,
    page_items,
    scopes_answer,
)
from mnemowire.kit.history import archived_histories, carried_rows
from mnemowire.kit.sql_steps import arun
from mnemowire.models import (
    ExportRecordsRequest,
    ExportRecordsResponse,
    ImportRecordsRequest,
    ImportRecordsResponse,
    ScopesRequest,
    ScopesResponse,
)

__all__ = ["ArchiveOperations"]

#: the memories columns an import writes, and their types for binary COPY
_WRITTEN = (
    "id", "agent_id", "user_id", "type", "content", "metadata", "confidence", "source",
    "created_at", "updated_at", "expires_at", *TYPE_FIELDS, "state", "merged_into", "demote",
    "version", "seal", "embedding", "search",
)  # fmt: skip
_FIELD_TYPES = {
    "event_time": "int8", "location": "text", "participants": "jsonb", "sentiment": "text",
    "valence": "float8", "arousal": "float8", "emotion": "text", "target": "text",
}  # fmt: skip
_TYPES = (
    "text", "text", "text", "text", "text", "jsonb", "float8", "text", "int8", "int8", "int8",
    *(_FIELD_TYPES[name] for name in TYPE_FIELDS), "text", "text", "float8", "int8", "jsonb",
    "vector", "tsvector",
)  # fmt: skip
_JSON = ("metadata", "participants", "seal")


class ArchiveOperations:
    """export_records, import_records and scopes on the store's schema."""

    def __init__(self, host: StoreHost) -> None:
        self._host = host
        #: export and scope cursors, bound to their request under the schema's key
        self._cursors: Cursors | None = None

    async def _snapshot(self, conn: Any) -> Cursors:
        """Begin a read in one repeatable-read snapshot (a record erased between two reads is a
        record or a tombstone, never both); the cursors, made on first use."""
        await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        if self._cursors is None:
            self._cursors = Cursors(await cursor_key(conn))
        return self._cursors

    async def export_records(self, request: ExportRecordsRequest) -> ExportRecordsResponse:
        started = time.perf_counter()
        req = request
        async with self._host._db.transaction("export_records") as conn:
            cursors = await self._snapshot(conn)
            start = cursors.after_id(req)
            where = ["m.agent_id = %s", 'm.id COLLATE "C" > %s', "m.state = ANY(%s)"]
            args: list[Any] = [req.agent_id, start, export_states(req)]
            if req.user_id is not None:
                where.append("m.user_id = %s")
                args.append(req.user_id)
            if req.types:
                where.append("m.type = ANY(%s)")
                args.append([str(t) for t in req.types])
            vector = ", m.embedding" if req.include_vectors else ""
            async with conn.cursor(row_factory=dict_row) as by_name:
                await by_name.execute(
                    f"SELECT {COLUMNS}, r.at AS last_recalled_at, r.times AS recall_count{vector} "
                    "FROM memories m "
                    f"LEFT JOIN recalls r ON r.memory = m.seq WHERE {' AND '.join(where)} "
                    'ORDER BY m.id COLLATE "C" LIMIT %s',
                    (*args, req.limit + 1),
                )
                rows = await by_name.fetchall()
            tombstones: list[tuple[str, str]] = []
            if req.user_id is None and not req.types:
                cursor = await conn.execute(
                    'SELECT id, agent_id FROM erased WHERE agent_id = %s AND id COLLATE "C" > %s '
                    'ORDER BY id COLLATE "C" LIMIT %s',
                    (req.agent_id, start, req.limit + 1),
                )
                tombstones = [(r[0], r[1]) for r in await cursor.fetchall()]
            kept, kept_tombstones, last = page_items(rows, tombstones, req.limit)
            pending = [k["id"] for k in kept if k["state"] == "pending"]
            reviews = await _reviews_of(conn, pending)
            histories = (
                await arun(conn, archived_histories(QUEUE, "position", {k["id"]: k for k in kept}))
                if req.include_history
                else {}
            )
            cursor = await conn.execute(
                "SELECT digest FROM audit_log WHERE position IS NOT NULL "
                "ORDER BY position DESC LIMIT 1"
            )
            head = await cursor.fetchone()
        lines = [
            archive_record(
                k,
                review=reviews.get(k["id"]),
                vector=k["embedding"].to_numpy() if req.include_vectors else None,
                encoding=req.vector_encoding,
                history=histories.get(k["id"]),
            )
            for k in kept
        ]
        next_cursor = None if last is None else cursors.make(req, {"id": last})
        return export_answer(
            lines,
            kept_tombstones,
            next_cursor,
            self._host._result(len(lines), started),
            embedder=self._host.embedder if req.include_vectors else None,
            audit_head=None if head is None else head[0],
        )

    async def import_records(self, request: ImportRecordsRequest) -> ImportRecordsResponse:
        """Planned on a read (which ids the target holds or erased), embedded outside any
        transaction where the archive's vectors cannot be reused, then written in one
        transaction that plans again, so a write between the two cannot slip past the plan
        (and one racing it on an id makes the page a ConflictError, written by neither)."""
        await self._host._setup()
        started = time.perf_counter()
        async with self._host._db.connection("import_records") as conn:
            planned = await _plan(conn, request)
        vectors, kept = await import_vectors(self._host.embedder, request, planned.written)
        row_of = {p.index: row for row, p in enumerate(planned.written)}
        now = self._host._clock()
        try:
            async with self._host._db.transaction("import_records") as conn:
                plan = await _plan(conn, request, planned)
                if any(p.index not in row_of for p in plan.written):
                    raise ConflictError(_CHANGED)
                await _replace(conn, [p for p in plan.written if p.outcome == "overwritten"])
                await _write(conn, plan.written, [vectors[row_of[p.index]] for p in plan.written])
                added, known, held = await _tombstones(conn, request)
                await append_audit(conn, plan.audit_entries(added, now))
        except pg_errors.UniqueViolation as exc:  # a remember took one of the ids meanwhile
            raise ConflictError(_CHANGED) from exc
        self._host._sizes.changed({p.record["agent_id"] for p in plan.written})
        result = self._host._result(len(plan.written), started)
        return plan.answer(result, (len(added), known, held), kept)

    async def scopes(self, request: ScopesRequest) -> ScopesResponse:
        started = time.perf_counter()
        req = request
        async with self._host._db.transaction("scopes") as conn:
            cursors = await self._snapshot(conn)
            start = cursors.after_id(req)
            named = ""
            args: list[Any] = [start, start]
            if req.agent_ids:
                named = " AND agent_id = ANY(%s)"
                args = [start, list(req.agent_ids), start, list(req.agent_ids)]
            cursor = await conn.execute(
                'SELECT agent_id FROM (SELECT agent_id FROM memories WHERE agent_id COLLATE "C" '
                f'> %s{named} UNION SELECT agent_id FROM erased WHERE agent_id COLLATE "C" > %s'
                f'{named}) a ORDER BY agent_id COLLATE "C" LIMIT %s',
                (*args, req.limit + 1),
            )
            agents = [row[0] for row in await cursor.fetchall()]
            page = agents[: req.limit]
            entries = [await _agent(conn, agent, req.max_users) for agent in page]
        next_cursor = cursors.make(req, {"id": page[-1]}) if len(agents) > req.limit else None
        return scopes_answer(entries, next_cursor, self._host._result(len(entries), started))


_CHANGED = (
    "the target changed while the page was embedded (another writer took, erased or removed "
    "one of its ids); send the page again"
)


async def _plan(
    conn: Any, req: ImportRecordsRequest, earlier: ImportPlan | None = None
) -> ImportPlan:
    """The page's plan on what the target holds and erased now (``earlier`` when that is
    what it was made on)."""
    ids = [line.record.id for line in req.records or []]
    held: dict[str, str] = {}
    erased: list[str] = []
    if ids:
        cursor = await conn.execute("SELECT id, agent_id FROM memories WHERE id = ANY(%s)", (ids,))
        held = {r[0]: r[1] for r in await cursor.fetchall()}
        cursor = await conn.execute("SELECT id FROM erased WHERE id = ANY(%s)", (ids,))
        erased = [r[0] for r in await cursor.fetchall()]
    if earlier is not None and earlier.made_on(held, erased):
        return earlier
    return ImportPlan(req, held, erased)


async def _replace(conn: Any, overwritten: list[Placed]) -> None:
    """The target's records an overwrite replaces, removed with their recall times and
    reviews (the archive's record and review take their place)."""
    if not overwritten:
        return
    ids = [p.target_id for p in overwritten]
    await conn.execute(
        "WITH gone AS (DELETE FROM memories WHERE id = ANY(%s) RETURNING seq) "
        "DELETE FROM recalls r USING gone WHERE r.memory = gone.seq",
        (ids,),
    )
    await conn.execute("DELETE FROM reviews WHERE review_id = ANY(%s)", (ids,))


async def _write(conn: Any, placed: list[Placed], vectors: list[Any]) -> None:
    """Each record as the archive says (binary COPY), its last recall time, and the review
    of each pending one."""
    if not placed:
        return
    rows = []
    recalled: list[tuple[str, int, int]] = []
    for p, vector in zip(placed, vectors, strict=True):
        fields = p.record
        values = []
        for name in _WRITTEN[:-2]:
            value = fields.get(name)
            values.append(Jsonb(value) if name in _JSON and value is not None else value)
        words = lexemes_of(fields["agent_id"], searchable_text(fields["type"], fields["content"]))
        rows.append((*values, vector, words))
        if fields.get("last_recalled_at") is not None:
            recalled.append(
                (p.target_id, fields["last_recalled_at"], fields.get("recall_count") or 0)
            )
    await copy_rows(conn, "memories", _WRITTEN, _TYPES, rows)
    if recalled:
        await conn.execute(
            "INSERT INTO recalls (memory, at, times) SELECT m.seq, v.at, v.times FROM "
            "unnest(%s::text[], %s::int8[], %s::int8[]) AS v(id, at, times) "
            "JOIN memories m ON m.id = v.id",
            ([r[0] for r in recalled], [r[1] for r in recalled], [r[2] for r in recalled]),
        )
    for p in placed:
        if p.record["state"] == "pending":
            await arun(conn, QUEUE.stage_imported(p.record))
    await _carry(conn, placed)


async def _carry(conn: Any, placed: list[Placed]) -> None:
    """The versions the page's records carry ([import.history]), kept before the version the
    COPY made (which the import's audit entry stamps), by the schema's ``history_carry``."""
    versions = [
        {"id": record_id, "revision": revision, "at": at, "fields": fields, "said": said}
        for record_id, revision, at, fields, said in carried_rows(placed)
    ]
    if versions:
        await conn.execute("SELECT history_carry(%s)", (Jsonb(versions),))


async def _tombstones(conn: Any, req: ImportRecordsRequest) -> tuple[list[str], int, int]:
    """The page's erased ids, kept: (those added, how many were known already, how many the
    target holds live: an id the source erased after this target copied it, left for the
    operator to forget)."""
    tombstones = req.tombstones or []
    if not tombstones:
        return [], 0, 0
    ids = [t.id for t in tombstones]
    cursor = await conn.execute("SELECT id FROM memories WHERE id = ANY(%s)", (ids,))
    live = {r[0] for r in await cursor.fetchall()}
    fresh = [t for t in tombstones if t.id not in live]
    cursor = await conn.execute(
        "INSERT INTO erased (id, agent_id) SELECT * FROM unnest(%s::text[], %s::text[]) "
        "ON CONFLICT DO NOTHING RETURNING id",
        ([t.id for t in fresh], [t.agent_id for t in fresh]),
    )
    inserted = {r[0] for r in await cursor.fetchall()}
    added = [t.id for t in fresh if t.id in inserted]
    return added, len(fresh) - len(added), len(tombstones) - len(fresh)


async def _reviews_of(conn: Any, ids: list[str]) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    cursor = await conn.execute(
        "SELECT review_id, staged_by, requested_at FROM reviews WHERE review_id = ANY(%s) "
        "AND state = 'pending'",
        (ids,),
    )
    return {
        r[0]: {"review_id": r[0], "staged_by": r[1], "requested_at": r[2]}
        for r in await cursor.fetchall()
    }


async def _agent(conn: Any, agent_id: str, max_users: int) -> dict[str, Any]:
    cursor = await conn.execute(
        "SELECT type, state, count(*) FROM memories WHERE agent_id = %s GROUP BY type, state",
        (agent_id,),
    )
    counts = await cursor.fetchall()
    cursor = await conn.execute(
        "SELECT user_id, count(*) AS n FROM memories WHERE agent_id = %s GROUP BY user_id "
        'ORDER BY n DESC, user_id COLLATE "C" NULLS FIRST LIMIT %s',
        (agent_id, max_users + 1),
    )
    users = await cursor.fetchall()
    cursor = await conn.execute("SELECT count(*) FROM erased WHERE agent_id = %s", (agent_id,))
    (erased,) = await cursor.fetchone()
    return agent_scope(agent_id, counts, users, erased, max_users)
