"""The sqlite-vec store's spec v0.1 operations (get, list, restore, update, remember_batch),
kept apart from the five of ``store.py``; ``SqliteVecStore`` inherits them. Their database
steps are ``_browse``'s, their rules the kit's."""

from __future__ import annotations

import builtins
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mnemowire.adapters.sqlite_vec import _browse
from mnemowire.adapters.sqlite_vec._database import Database
from mnemowire.adapters.sqlite_vec._schema import cursor_key
from mnemowire.adapters.sqlite_vec._writes import IndexWriter
from mnemowire.embedders import Vectors
from mnemowire.kit import (
    Cursors,
    EmbedderSetup,
    UpdatePlan,
    batch_answer,
    get_answer,
    list_answer,
    restore_answer,
    searchable_text,
    to_wire,
)
from mnemowire.kit.staging import StagingRules
from mnemowire.models import (
    GetRequest,
    GetResponse,
    ListRequest,
    ListResponse,
    RememberBatchRequest,
    RememberBatchResponse,
    RememberRequest,
    RememberResponse,
    RestoreRequest,
    RestoreResponse,
    StoreResult,
    UpdateRequest,
    UpdateResponse,
)

__all__ = ["RecordOperations"]

T = TypeVar("T")


class RecordOperations:
    """get, list, restore, update and remember_batch on the store's database."""

    _db: Database
    _clock: Callable[[], int]
    _index: IndexWriter
    _cursors: Cursors | None
    _setup: EmbedderSetup
    _policy: StagingRules | None
    _call: Callable[..., Awaitable[Any]]
    _inline: Callable[..., Any]
    _embed: Callable[[builtins.list[str]], Awaitable[Vectors]]
    _result: Callable[[int, float], StoreResult]
    _insert: Callable[..., builtins.list[RememberResponse]]
    _set_visible: Callable[..., builtins.list[str]]

    async def get(self, request: GetRequest) -> GetResponse:
        """By id, so its cost grows with the ids asked (at most 1000), not with the data: it
        runs on the calling thread when the store is idle (``_inline``)."""
        started = time.perf_counter()
        answer: GetResponse | None = self._inline(lambda: True, self._get, request, started)
        if answer is not None:
            return answer
        got: GetResponse = await self._call(self._get, request, started)
        return got

    async def list(self, request: ListRequest) -> ListResponse:
        started = time.perf_counter()
        page: ListResponse = await self._call(self._list, request, to_wire(request), started)
        return page

    async def restore(self, request: RestoreRequest) -> RestoreResponse:
        """Bring archived records back into recall ([restore.archived])."""
        started = time.perf_counter()
        restored = await self._call(
            self._set_visible, request.agent_id, request.user_id, request.ids, "archived",
            "restore",
        )  # fmt: skip
        return restore_answer(restored, self._result(len(restored), started))

    async def update(self, request: UpdateRequest) -> UpdateResponse:
        """Change one record at the version the caller read ([update.version]): planned on a
        read, embedded (new content) outside the lock, written if still at that version."""
        await self._setup()
        started = time.perf_counter()
        plan: UpdatePlan = await self._call(self._plan_update, request)
        if plan.new_text is not None:
            plan.vector = (await self._embed([plan.new_text]))[0]
        now = await self._call(self._update, request, to_wire(request), plan)
        return plan.answer(request, now, self._result(1, started))

    async def remember_batch(self, request: RememberBatchRequest) -> RememberBatchResponse:
        """Many remembers in one transaction, all or nothing ([batch.atomic])."""
        await self._setup()
        started = time.perf_counter()
        batch: builtins.list[tuple[RememberRequest, dict[str, Any]]] = [
            (r, to_wire(r)) for r in request.requests
        ]
        vectors = await self._embed([searchable_text(r.type, r.content) for r, _ in batch])
        results = await self._call(self._insert, batch, vectors, started, 0)
        return batch_answer(results, self._result(len(results), started))

    # -- the database steps (run by ``_locked`` or ``_inline``) --------------------------------

    def _get(self, req: GetRequest, started: float) -> GetResponse:
        now = self._clock()
        with self._db.transaction(write=False) as tx:
            found = _browse.get(tx, req, now)
        return get_answer(req.ids, found, self._result(len(found), started))

    def _list(self, req: ListRequest, payload: dict[str, Any], started: float) -> ListResponse:
        now = self._clock()
        with self._db.transaction(write=False) as tx:
            if self._cursors is None:
                self._cursors = Cursors(cursor_key(tx))
            after = self._cursors.position(req)
            rows = _browse.list_after(tx, req, payload.get("filter"), now, after)
        page, cursor = self._cursors.page(req, rows)
        return list_answer(page, cursor, self._result(len(page), started))

    def _plan_update(self, req: UpdateRequest) -> UpdatePlan:
        with self._db.transaction(write=False) as tx:
            return UpdatePlan.of(req, _browse.update_target(tx, req), self._policy)

    def _update(self, req: UpdateRequest, payload: dict[str, Any], plan: UpdatePlan) -> int:
        now = self._clock()
        with self._db.transaction() as tx:
            _browse.apply_update(tx, req, payload, plan, now, self._index)
        return now
