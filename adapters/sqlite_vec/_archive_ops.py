"""The sqlite-vec store's spec v0.3 operations (export_records, import_records, scopes): the
kit's archive rules (``mnemowire.kit.archive``) over this store's tables. An import page is one
transaction: every record, its index rows, its review, the page's tombstones and its audit
entries, or nothing."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from mnemowire.adapters.sqlite_vec._host import StoreHost
from mnemowire.adapters.sqlite_vec._records import COLUMNS, records
from mnemowire.adapters.sqlite_vec._reviews import QUEUE
from mnemowire.adapters.sqlite_vec._schema import cursor_key
from mnemowire.adapters.sqlite_vec._vectors import blob
from mnemowire.adapters.sqlite_vec._writes import IndexWriter
from mnemowire.errors import ConflictError
from mnemowire.kit import TYPE_FIELDS, Cursors, json_text
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
from mnemowire.kit.audit import append_entry_sqlite
from mnemowire.kit.history import archived_histories, carried_rows
from mnemowire.kit.sql_steps import run
from mnemowire.models import (
    ExportRecordsRequest,
    ExportRecordsResponse,
    ImportRecordsRequest,
    ImportRecordsResponse,
    ScopesRequest,
    ScopesResponse,
)

__all__ = ["ArchiveOperations"]

#: the columns an import writes, in ``_row``'s order
_WRITTEN = (
    "id", "agent_id", "user_id", "type", "content", "metadata", "confidence", "source",
    "created_at", "updated_at", "expires_at", *TYPE_FIELDS, "state", "merged_into", "demote",
    "last_recalled_at", "recall_count", "version", "seal", "embedding",
)  # fmt: skip
_JSON_COLUMNS = ("metadata", "participants", "seal")
#: each row with its rowid, given as SQLite would choose it (after the largest), so a page's
#: rows go in with one executemany and its index rows know their record
_INSERT = (
    f"INSERT INTO memories(rowid, {', '.join(_WRITTEN)}) "
    f"VALUES (?, {', '.join('?' for _ in _WRITTEN)})"
)


class ArchiveOperations:
    """export_records, import_records and scopes on the store's database."""

    def __init__(self, host: StoreHost) -> None:
        self._host = host
        self._cursors: Cursors | None = None

    async def export_records(self, request: ExportRecordsRequest) -> ExportRecordsResponse:
        started = time.perf_counter()
        page: ExportRecordsResponse = await self._host._call(self._export, request, started)
        return page

    async def import_records(self, request: ImportRecordsRequest) -> ImportRecordsResponse:
        """Planned on a read (which ids the target holds or erased), embedded outside the lock
        where the archive's vectors cannot be reused, then written in one transaction that
        plans again, so a write between the two cannot slip past the plan."""
        await self._host._setup()
        started = time.perf_counter()
        plan: ImportPlan = await self._host._call(self._plan, request)
        vectors, kept = await import_vectors(self._host.embedder, request, plan.written)
        answer: ImportRecordsResponse = await self._host._call(
            self._import, request, plan, vectors, kept, started
        )
        return answer

    async def scopes(self, request: ScopesRequest) -> ScopesResponse:
        started = time.perf_counter()
        page: ScopesResponse = await self._host._call(self._scopes, request, started)
        return page

    # -- the database steps ----------------------------------------------------------------

    def _cursor_codec(self, tx: Any) -> Cursors:
        if self._cursors is None:
            self._cursors = Cursors(cursor_key(tx))
        return self._cursors

    def _export(self, req: ExportRecordsRequest, started: float) -> ExportRecordsResponse:
        with self._host._db.transaction(write=False) as tx:
            cursors = self._cursor_codec(tx)
            start = cursors.after_id(req)
            states = export_states(req)
            where = ["agent_id = ?", "id > ?", f"state IN ({', '.join('?' for _ in states)})"]
            args: list[Any] = [req.agent_id, start, *states]
            if req.user_id is not None:
                where.append("user_id = ?")
                args.append(req.user_id)
            if req.types:
                where.append(f"type IN ({', '.join('?' for _ in req.types)})")
                args.extend(str(t) for t in req.types)
            rows = tx.execute(
                f"SELECT {COLUMNS}, embedding FROM memories WHERE {' AND '.join(where)} "
                "ORDER BY id LIMIT ?",
                (*args, req.limit + 1),
            ).fetchall()
            tombstones: list[tuple[str, str]] = []
            if req.user_id is None and not req.types:
                tombstones = tx.execute(
                    "SELECT id, agent_id FROM erased WHERE agent_id = ? AND id > ? "
                    "ORDER BY id LIMIT ?",
                    (req.agent_id, start, req.limit + 1),
                ).fetchall()
            stored = records([row[:-1] for row in rows])
            for fields, row in zip(stored, rows, strict=True):
                fields["embedding"] = row[-1]
            kept, kept_tombstones, last = page_items(
                stored, [(t[0], t[1]) for t in tombstones], req.limit
            )
            pending = [k["id"] for k in kept if k["state"] == "pending"]
            reviews = _reviews_of(tx, pending)
            histories = (
                run(tx, archived_histories(QUEUE, "seq", {k["id"]: k for k in kept}))
                if req.include_history
                else {}
            )
            head = tx.execute("SELECT digest FROM audit_log ORDER BY seq DESC LIMIT 1").fetchone()
        lines = [
            archive_record(
                k,
                review=reviews.get(k["id"]),
                vector=np.frombuffer(k["embedding"], np.float32) if req.include_vectors else None,
                encoding=req.vector_encoding,
                history=histories.get(k["id"]),
            )
            for k in kept
        ]
        cursor = None if last is None else cursors.make(req, {"id": last})
        return export_answer(
            lines,
            kept_tombstones,
            cursor,
            self._host._result(len(lines), started),
            embedder=self._host.embedder if req.include_vectors else None,
            audit_head=None if head is None else head[0],
        )

    def _plan(self, req: ImportRecordsRequest) -> ImportPlan:
        with self._host._db.transaction(write=False) as tx:
            return _plan(tx, req)

    def _import(
        self,
        req: ImportRecordsRequest,
        planned: ImportPlan,
        vectors: Any,
        kept: dict[str, dict[str, str]],
        started: float,
    ) -> ImportRecordsResponse:
        now = self._host._clock()
        index = self._host._index
        row_of = {p.index: row for row, p in enumerate(planned.written)}
        index.bulk = []
        try:
            with self._host._db.transaction() as tx:
                plan = _plan(tx, req, planned)  # again, under the write lock
                if any(p.index not in row_of for p in plan.written):
                    raise ConflictError(
                        "the target changed while the page was embedded (another writer "
                        "erased or removed one of its ids); send the page again"
                    )
                _write(tx, plan.written, [vectors[row_of[p.index]] for p in plan.written], index)
                added, known, held = _tombstones(tx, req)
                for made in plan.audit_entries(added, now):
                    append_entry_sqlite(tx, made)
                index.flush(tx)
        finally:
            index.bulk = None
        result = self._host._result(len(plan.written), started)
        return plan.answer(result, (len(added), known, held), kept)

    def _scopes(self, req: ScopesRequest, started: float) -> ScopesResponse:
        with self._host._db.transaction(write=False) as tx:
            cursors = self._cursor_codec(tx)
            start = cursors.after_id(req)
            named = ""
            args: list[Any] = [start, start]
            if req.agent_ids:
                marks = ", ".join("?" for _ in req.agent_ids)
                named = f" AND agent_id IN ({marks})"
                args = [start, *req.agent_ids, start, *req.agent_ids]
            agents = [
                row[0]
                for row in tx.execute(
                    f"SELECT agent_id FROM memories WHERE agent_id > ?{named} "
                    f"UNION SELECT agent_id FROM erased WHERE agent_id > ?{named} "
                    "ORDER BY 1 LIMIT ?",
                    (*args, req.limit + 1),
                ).fetchall()
            ]
            page = agents[: req.limit]
            entries = [_agent(tx, agent, req.max_users) for agent in page]
        cursor = cursors.make(req, {"id": page[-1]}) if len(agents) > req.limit else None
        return scopes_answer(entries, cursor, self._host._result(len(entries), started))


def _plan(tx: Any, req: ImportRecordsRequest, earlier: ImportPlan | None = None) -> ImportPlan:
    """The page's plan on what the target holds and erased now (``earlier`` when that is
    what it was made on)."""
    ids = [line.record.id for line in req.records or []]
    held: dict[str, str] = {}
    erased: list[str] = []
    for chunk in range(0, len(ids), 500):
        part = ids[chunk : chunk + 500]
        marks = ", ".join("?" for _ in part)
        rows = tx.execute(f"SELECT id, agent_id FROM memories WHERE id IN ({marks})", part)
        held.update((r[0], r[1]) for r in rows)
        erased += [r[0] for r in tx.execute(f"SELECT id FROM erased WHERE id IN ({marks})", part)]
    if earlier is not None and earlier.made_on(held, erased):
        return earlier
    return ImportPlan(req, held, erased)


def _write(tx: Any, placed: list[Placed], vectors: list[Any], index: IndexWriter) -> None:
    """The page's records as the archive says, replacing the target's (overwrite): their rows
    in one executemany, the active ones indexed, the pending ones queued for review."""
    for p in placed:
        if p.outcome == "overwritten":
            _remove(tx, p.target_id, index)
    (top,) = tx.execute("SELECT coalesce(max(rowid), 0) FROM memories").fetchone()
    rows: list[tuple[Any, ...]] = []
    active: list[tuple[int, dict[str, Any], Any]] = []
    for rowid, (p, vector) in enumerate(zip(placed, vectors, strict=True), start=top + 1):
        columns = {name: p.record.get(name) for name in _WRITTEN}
        columns["embedding"] = blob(vector)
        rows.append((rowid, *(
            json_text(value) if name in _JSON_COLUMNS and value is not None else value
            for name, value in columns.items()
        )))  # fmt: skip
        if columns["state"] == "active":
            active.append((rowid, columns, vector))
    tx.executemany(_INSERT, rows)
    _carry(tx, placed)
    index.add_many(tx, active)
    for p in placed:
        if p.record["state"] == "pending":
            run(tx, QUEUE.stage_imported(p.record))


def _carry(tx: Any, placed: list[Placed]) -> None:
    """The versions the page's records carry ([import.history]), kept before the version
    the insert made (which the import's audit entry stamps), past the bound dropped."""
    carrying = [p for p in placed if p.history]
    if not carrying:
        return
    tx.executemany(
        "UPDATE history SET revision = ? WHERE record_id = ? AND revision = 1",
        [(p.history[-1].revision + 1, p.target_id) for p in carrying],
    )
    tx.executemany(
        "INSERT INTO history(record_id, revision, at, fields, carried) VALUES (?, ?, ?, ?, ?)",
        [
            (i, rev, at, json_text(f), json_text(said))
            for i, rev, at, f, said in carried_rows(placed)
        ],
    )
    tx.executemany(
        "DELETE FROM history WHERE record_id = ? AND revision <= ? - (SELECT CAST(value AS "
        "INTEGER) FROM mnemowire_meta WHERE key = 'history_limit')",
        [(p.target_id, p.history[-1].revision + 1) for p in carrying],
    )


def _remove(tx: Any, record_id: str, index: IndexWriter) -> None:
    """An overwritten record's row, index rows and review."""
    old = tx.execute(
        "SELECT rowid, agent_id, state FROM memories WHERE id = ?", (record_id,)
    ).fetchone()
    if old is not None:
        if old[2] == "active":
            index.remove(tx, old[0], old[1])
        tx.execute("DELETE FROM memories WHERE rowid = ?", (old[0],))
        tx.execute("DELETE FROM reviews WHERE review_id = ?", (record_id,))


def _tombstones(tx: Any, req: ImportRecordsRequest) -> tuple[list[str], int, int]:
    """The page's erased ids, kept: (those added, how many were known already, how many the
    target holds live: an id the source erased after this target copied it, left for the
    operator to forget)."""
    added: list[str] = []
    known = held = 0
    for tombstone in req.tombstones or []:
        if tx.execute("SELECT 1 FROM memories WHERE id = ?", (tombstone.id,)).fetchone():
            held += 1
            continue
        cursor = tx.execute(
            "INSERT OR IGNORE INTO erased(id, agent_id) VALUES (?, ?)",
            (tombstone.id, tombstone.agent_id),
        )
        if cursor.rowcount:
            added.append(tombstone.id)
        else:
            known += 1
    return added, known, held


def _reviews_of(tx: Any, ids: list[str]) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    marks = ", ".join("?" for _ in ids)
    rows = tx.execute(
        f"SELECT review_id, staged_by, requested_at FROM reviews WHERE review_id IN ({marks}) "
        "AND state = 'pending'",
        ids,
    ).fetchall()
    return {r[0]: {"review_id": r[0], "staged_by": r[1], "requested_at": r[2]} for r in rows}


def _agent(tx: Any, agent_id: str, max_users: int) -> dict[str, Any]:
    counts = tx.execute(
        "SELECT type, state, count(*) FROM memories WHERE agent_id = ? GROUP BY type, state",
        (agent_id,),
    ).fetchall()
    users = tx.execute(
        "SELECT user_id, count(*) AS n FROM memories WHERE agent_id = ? GROUP BY user_id "
        "ORDER BY n DESC, user_id LIMIT ?",
        (agent_id, max_users + 1),
    ).fetchall()
    (erased,) = tx.execute("SELECT count(*) FROM erased WHERE agent_id = ?", (agent_id,)).fetchone()
    return agent_scope(agent_id, counts, users, erased, max_users)
