"""The sqlite-vec store's spec v0.1 operations (get, list, restore, update, remember_batch),
kept apart from the five of ``store.py``; ``SqliteVecStore`` holds them. Their database
steps are ``_browse``'s, their rules the kit's."""

from __future__ import annotations

import builtins
import time
from typing import Any, TypeVar

from mnemowire.adapters.sqlite_vec import _browse
from mnemowire.adapters.sqlite_vec._host import StoreHost
from mnemowire.adapters.sqlite_vec._reviews import QUEUE
from mnemowire.adapters.sqlite_vec._schema import cursor_key
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
from mnemowire.kit.history import Version, history_after, history_answer, history_page
from mnemowire.kit.sql_steps import run
from mnemowire.models import (
    GetRequest,
    GetResponse,
    HistoryRequest,
    HistoryResponse,
    ListRequest,
    ListResponse,
    RememberBatchRequest,
    RememberBatchResponse,
    RememberRequest,
    RestoreRequest,
    RestoreResponse,
    UpdateRequest,
    UpdateResponse,
)

__all__ = ["RecordOperations"]

T = TypeVar("T")


class RecordOperations:
    """get, list, restore, update and remember_batch on the store's database."""

    def __init__(self, host: StoreHost) -> None:
        self._host = host
        #: list cursors, bound to their request under the database's key (read on first use)
        self._cursors: Cursors | None = None

    async def get(self, request: GetRequest) -> GetResponse:
        """By id, so its cost grows with the ids asked (at most 1000), not with the data: it
        runs on the calling thread when the store is idle (``_inline``)."""
        started = time.perf_counter()
        answer: GetResponse | None = self._host._inline(lambda: True, self._get, request, started)
        if answer is not None:
            return answer
        got: GetResponse = await self._host._call(self._get, request, started)
        return got

    async def list(self, request: ListRequest) -> ListResponse:
        started = time.perf_counter()
        page: ListResponse = await self._host._call(self._list, request, to_wire(request), started)
        return page

    async def restore(self, request: RestoreRequest) -> RestoreResponse:
        """Bring archived records back into recall ([restore.archived])."""
        started = time.perf_counter()
        restored = await self._host._call(
            self._host._set_visible, request.agent_id, request.user_id, request.ids, "archived",
            "restore",
        )  # fmt: skip
        return restore_answer(restored, self._host._result(len(restored), started))

    async def update(self, request: UpdateRequest) -> UpdateResponse:
        """Change one record at the version the caller read ([update.version]): planned on a
        read, embedded (new content) outside the lock, written if still at that version."""
        await self._host._setup()
        started = time.perf_counter()
        plan: UpdatePlan = await self._host._call(self._plan_update, request)
        if plan.new_text is not None:
            plan.vector = (await self._host._embed([plan.new_text]))[0]
        now = await self._host._call(self._update, request, to_wire(request), plan)
        return plan.answer(request, now, self._host._result(1, started))

    async def history(self, request: HistoryRequest) -> HistoryResponse:
        """Every version of one record, oldest first ([history.versions]), read by the
        revision it starts after: its cost grows with the page, not the store."""
        started = time.perf_counter()
        answer: HistoryResponse = await self._host._call(self._history, request, started)
        return answer

    async def remember_batch(
        self, request: RememberBatchRequest, *, vectors: Vectors | None = None
    ) -> RememberBatchResponse:
        """Many remembers in one transaction, all or nothing ([batch.atomic]); ``vectors``
        (checked first) skip the embedding."""
        await self._host._setup()
        started = time.perf_counter()
        batch: builtins.list[tuple[RememberRequest, dict[str, Any]]] = [
            (r, to_wire(r)) for r in request.requests
        ]
        embedded = await batch_vectors(self._host.embedder, request.requests, vectors)
        results = await self._host._call(self._host._insert, batch, embedded, started, 0)
        return batch_answer(results, self._host._result(len(results), started))

    # -- the database steps (run by ``_locked`` or ``_inline``) --------------------------------

    def _get(self, req: GetRequest, started: float) -> GetResponse:
        now = self._host._clock()
        with self._host._db.transaction(write=False) as tx:
            found = _browse.get(tx, req, now)
        return get_answer(req.ids, found, self._host._result(len(found), started))

    def _list(self, req: ListRequest, payload: dict[str, Any], started: float) -> ListResponse:
        now = self._host._clock()
        with self._host._db.transaction(write=False) as tx:
            cursors = self._cursor_codec(tx)
            rows = _browse.list_after(tx, req, payload.get("filter"), now, cursors.position(req))
        page, cursor = cursors.page(req, rows)
        return list_answer(page, cursor, self._host._result(len(page), started))

    def _history(self, req: HistoryRequest, started: float) -> HistoryResponse:
        with self._host._db.transaction(write=False) as tx:
            cursors = self._cursor_codec(tx)
            versions: builtins.list[Version]
            versions, dropped = run(
                tx, history_page(QUEUE, "seq", req, history_after(req, cursors))
            )
        return history_answer(
            req, versions, dropped, cursors, self._host._result(len(versions[: req.limit]), started)
        )

    def _cursor_codec(self, tx: Any) -> Cursors:
        if self._cursors is None:
            self._cursors = Cursors(cursor_key(tx))
        return self._cursors

    def _plan_update(self, req: UpdateRequest) -> UpdatePlan:
        with self._host._db.transaction(write=False) as tx:
            return UpdatePlan.of(req, _browse.update_target(tx, req), self._host._policy)

    def _update(self, req: UpdateRequest, payload: dict[str, Any], plan: UpdatePlan) -> int:
        now = self._host._clock()
        with self._host._db.transaction() as tx:
            _browse.apply_update(tx, req, payload, plan, now, self._host._index)
        return now
