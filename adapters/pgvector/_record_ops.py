"""The pgvector store's spec v0.1 operations (get, list, restore, update, remember_batch),
kept apart from the five of ``store.py``; ``PgVectorStore`` holds them. Their SQL is
``_browse``'s, their rules the kit's."""

from __future__ import annotations

import builtins
import time
from typing import Any

from mnemowire.adapters.pgvector import _browse
from mnemowire.adapters.pgvector._host import StoreHost
from mnemowire.adapters.pgvector._reviews import QUEUE
from mnemowire.adapters.pgvector._writes import write
from mnemowire.embedders import Vectors
from mnemowire.kit import (
    Cursors,
    UpdatePlan,
    batch_answer,
    batch_vectors,
    get_answer,
    list_answer,
    restore_answer,
    to_wire,
)
from mnemowire.kit.audit import stored_entry
from mnemowire.kit.history import history_after, history_answer, history_page
from mnemowire.kit.sql_steps import arun
from mnemowire.models import (
    GetRequest,
    GetResponse,
    HistoryRequest,
    HistoryResponse,
    ListRequest,
    ListResponse,
    RememberBatchRequest,
    RememberBatchResponse,
    RestoreRequest,
    RestoreResponse,
    UpdateRequest,
    UpdateResponse,
)

__all__ = ["RecordOperations"]


class RecordOperations:
    """get, list, restore, update and remember_batch on the store's schema."""

    def __init__(self, host: StoreHost) -> None:
        self._host = host
        #: list cursors, bound to their request under the schema's key (read on first use)
        self._cursors: Cursors | None = None

    async def audit_entries(self) -> builtins.list[dict[str, Any]]:
        """The audit log's hash chain, oldest first, for `mnemowire audit verify|export`:
        every entry since the chain began (schema version 5; older entries have no place in
        it), numbered by its place (``seq``)."""
        async with self._host._db.connection("audit") as conn:
            # ids and detail as JSON text, parsed by the kit: a value nested past the JSON
            # loader's depth (jsonb holds one) is then an entry verify names, not a traceback
            cursor = await conn.execute(
                "SELECT position, at, operation, agent_id, ids::text, request_sha256, "
                "detail::text, digest FROM audit_log WHERE position IS NOT NULL "
                "ORDER BY position"
            )
            rows = await cursor.fetchall()
        return [stored_entry(row) for row in rows]

    async def get(self, request: GetRequest) -> GetResponse:
        started = time.perf_counter()
        now = self._host._clock()
        async with self._host._db.connection("get") as conn:
            found = await _browse.get(conn, request, now)
        return get_answer(request.ids, found, self._host._result(len(found), started))

    async def list(self, request: ListRequest) -> ListResponse:
        started = time.perf_counter()
        now = self._host._clock()
        async with self._host._db.connection("list") as conn:
            cursors = await self._cursor_codec(conn)
            spec_filter = to_wire(request).get("filter")
            rows = await _browse.list_after(
                conn, request, spec_filter, now, cursors.position(request)
            )
        page, cursor = cursors.page(request, rows)
        return list_answer(page, cursor, self._host._result(len(page), started))

    async def restore(self, request: RestoreRequest) -> RestoreResponse:
        """Bring archived records back into recall ([restore.archived])."""
        started = time.perf_counter()
        restored = await self._host._set_visible(
            request.agent_id, request.user_id, request.ids, "archived", "restore"
        )
        return restore_answer(restored, self._host._result(len(restored), started))

    async def update(self, request: UpdateRequest) -> UpdateResponse:
        """Change one record at the version the caller read ([update.version]): planned on a
        read, embedded (new content) outside any transaction, written under a row lock if
        still at that version."""
        await self._host._setup()
        started = time.perf_counter()
        async with self._host._db.connection("update") as conn:
            plan = UpdatePlan.of(
                request, await _browse.update_target(conn, request), self._host._policy
            )
        if plan.new_text is not None:
            plan.vector = (await self._host._embed([plan.new_text]))[0]
        now = self._host._clock()
        async with self._host._db.transaction("update") as conn:
            await _browse.apply_update(conn, request, to_wire(request), plan, now)
        return plan.answer(request, now, self._host._result(1, started))

    async def history(self, request: HistoryRequest) -> HistoryResponse:
        """Every version of one record, oldest first ([history.versions]), read by the
        revision it starts after, in one snapshot."""
        started = time.perf_counter()
        async with self._host._db.transaction("history") as conn:
            # the record and its versions from one snapshot, whatever commits meanwhile
            await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            cursors = await self._cursor_codec(conn)
            after = history_after(request, cursors)
            versions, dropped = await arun(conn, history_page(QUEUE, "position", request, after))
        result = self._host._result(len(versions[: request.limit]), started)
        return history_answer(request, versions, dropped, cursors, result)

    async def _cursor_codec(self, conn: Any) -> Cursors:
        if self._cursors is None:
            self._cursors = Cursors(await _browse.cursor_key(conn))
        return self._cursors

    async def remember_batch(
        self, request: RememberBatchRequest, *, vectors: Vectors | None = None
    ) -> RememberBatchResponse:
        """Many remembers in one transaction, written with COPY, all or nothing
        ([batch.atomic]); ``vectors`` (checked first) skip the embedding, which otherwise runs
        outside the transaction."""
        await self._host._setup()
        started = time.perf_counter()
        batch = [(r, to_wire(r)) for r in request.requests]
        embedded = await batch_vectors(self._host.embedder, request.requests, vectors)
        async with self._host._db.transaction("remember_batch") as conn:
            results = await write(
                conn, batch, embedded, now=self._host._clock(),
                result=self._host._results(started), copy=True, offset=0,
                policy=self._host._policy,
            )  # fmt: skip
        self._host._sizes.changed({r.agent_id for r, _ in batch})
        return batch_answer(results, self._host._result(len(results), started))
