"""Stores over a memory library that keeps each record as one document and searches it itself
(mem0, Cognee, Letta): the spec's operations written once, over a handful of backend calls.

Such a backend mints its own ids, filters on little or nothing, and has no transaction. A
``DocumentStore`` subclass supplies the backend calls (``_insert``, ``_rewrite``, ``_erase``,
``_named``, ``_listed``, ``_query``, ``_search``); this class keeps the rules:

- **identity**: an ``IdMap`` beside the backend (SQLite) maps each wire id to the backend's id
  and its agent. A backend row is a record only while the map names it, so the map's entry is
  written last and removed first: a crash between the two leaves a row no read returns, never
  a record without its row. An erased id is kept, so it is never reused.
- **scope, exactly**: every read filters its records here by agent, user, state, type,
  metadata, freshness, expiry and ``min_relevance``, whatever the backend narrowed first, and a
  recall searches deeper until it has ``k`` hits or the backend has no more.
- **one step at a time**: backend calls are synchronous and rarely thread-safe, so every
  operation runs whole on the store's one worker thread; a replay check and its write are one
  step, and an operation whose caller gives up still ends whole.
- **audited**: every mutation appends an entry to the audit log, a hash chain (kit.audit) in
  the id map's database, written once the backend is written; a new record's entry commits
  with its map entry, a staged write's with its review, a decision's with its end.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import contextvars
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from mnemowire.errors import MnemowireError, StoreError
from mnemowire.filters import matches
from mnemowire.kit._basics import new_id, to_wire
from mnemowire.kit._browse import Cursors, UpdatePlan, get_answer, list_answer, record_state
from mnemowire.kit._capabilities import refuse_undeclared
from mnemowire.kit._document_archive import DocumentArchive
from mnemowire.kit._document_recall import recall_hits
from mnemowire.kit._document_reviews import ReviewQueue
from mnemowire.kit._id_map import IdMap, MappedId
from mnemowire.kit._implements import Implements
from mnemowire.kit._records import recall_answer, store_result
from mnemowire.kit._rules import (
    MergePlan,
    StoredWrite,
    cutoff,
    forget_states,
    replay,
    require_visible,
    search_depth,
)
from mnemowire.kit.reviews import forget_prelude, staging
from mnemowire.kit.staging import StagingRules
from mnemowire.models import (
    MEMORY_RECORD_FIELDS,
    Capabilities,
    DecideRequest,
    DecideResponse,
    ExpireRequest,
    ExpireResponse,
    ExportRecordsRequest,
    ExportRecordsResponse,
    ForgetRequest,
    ForgetResponse,
    GetRequest,
    GetResponse,
    ImportRecordsRequest,
    ImportRecordsResponse,
    ListRequest,
    ListResponse,
    MergeRequest,
    MergeResponse,
    RecallRequest,
    RecallResponse,
    RememberRequest,
    RememberResponse,
    ReviewsRequest,
    ReviewsResponse,
    ScopesRequest,
    ScopesResponse,
    UpdateRequest,
    UpdateResponse,
)
from mnemowire.protocol import QueryEmbedding

__all__ = ["DECLINED", "DocumentStore", "Hit", "IdMap", "MappedId", "Record"]

T = TypeVar("T")
#: a record as the store holds it: the wire fields, ``state``, and the backend's own keys
Record = dict[str, Any]
#: a search hit: the record and its relevance in [-1, 1]
Hit = tuple[Record, float]
#: what a DocumentStore declines whatever its backend, each with why: a store built on it
#: passes these to its ``Implements`` with its own reasons for keyword search and the graph
#: (the backend's own business); staging policies it serves (declared while one is set)
DECLINED = {
    "recall_tracking": "the kit keeps no per-record recall times beside the backend's rows",
    **dict.fromkeys(("demote", "archive"), "the kit ranks by the backend's relevance alone"),
    "restore": "brings back what archive hid, and archive is declined",
    "remember_batch": "all or nothing needs a transaction that a memory library lacks",
    "query_vector": "a memory library embeds every query itself",
    "history": "the kit keeps a record only as the backend's document, not its past versions",
    "consolidate": "a merge here cannot name the versions a plan read: the kit keeps none",
    "promote": "promotion weighs recall counts, and the kit keeps none (nor merge versions)",
    "dedupe": "the kit cannot weigh a write against the nearest records in its transaction",
    **dict.fromkeys(("run_start", "run_fire", "run_get"), "a run's steps are its history"),
}


class DocumentStore(abc.ABC):
    """The spec's operations over a document backend; see the module's docstring. A subclass
    sets ``backend`` (a name for error messages), opens its backend and ``self._ids`` in its
    constructor, and implements the calls below. ``worker``: a one-thread executor shared
    with other stores (a backend whose state is the process's, such as an event loop of its
    own), kept open on close; by default the store has one of its own. ``policy``: the
    operator's staging policy (docs/spec/v0.2.md#review.policy), if any. The review queue is
    an object of its own (``ReviewQueue``) that the store holds and serves for, as are spec
    v0.3's archive operations (``DocumentArchive``)."""

    backend: str = "the backend"

    def __init__(
        self,
        name: str,
        clock: Callable[[], int],
        worker: ThreadPoolExecutor | None = None,
        *,
        policy: StagingRules | None = None,
    ) -> None:
        self._name = name
        self._clock = clock
        self._policy = policy
        self._cursors: Cursors | None = None
        self._ids: IdMap
        self._queue = ReviewQueue(self)
        self._archive = DocumentArchive(self)
        self._owns_worker = worker is None
        self._worker = worker or ThreadPoolExecutor(max_workers=1, thread_name_prefix=self.backend)

    @property
    def name(self) -> str:
        return self._name

    async def reviews(self, request: ReviewsRequest) -> ReviewsResponse:
        return await self._queue.reviews(request)

    async def decide(self, request: DecideRequest) -> DecideResponse:
        return await self._queue.decide(request)

    async def export_records(self, request: ExportRecordsRequest) -> ExportRecordsResponse:
        return await self._archive.export_records(request)

    async def import_records(self, request: ImportRecordsRequest) -> ImportRecordsResponse:
        return await self._archive.import_records(request)

    async def scopes(self, request: ScopesRequest) -> ScopesResponse:
        return await self._archive.scopes(request)

    @abc.abstractmethod
    def capabilities(self) -> Capabilities: ...

    def _declare(self, implements: Implements, fidelity: Mapping[str, str]) -> Capabilities:
        """The store's ``capabilities`` answer, with its staging policy when it has one."""
        policy = None if self._policy is None else self._policy.document
        return implements.declaration(self._name, fidelity, staging_policy=policy)

    # -- what a subclass supplies (each runs on the worker thread) -------------------------------

    @abc.abstractmethod
    def _insert(self, record: Record) -> str:
        """Write a new record to the backend; return the backend's id for it."""

    def _insert_many(self, records: Sequence[Record]) -> list[str]:
        """Write new records (an import page), their backend ids in order: one ``_insert``
        each, unless the backend has a bulk write (override). All or none: a failure erases
        the rows already written (best effort) and raises the first failure."""
        rows: list[str] = []
        try:
            for record in records:
                rows.append(self._insert(record))
        except BaseException:
            for record, row in zip(records, rows, strict=False):
                with contextlib.suppress(Exception):  # the first failure is the one to report
                    self._erase({**record, "backend_id": row})
            raise
        return rows

    @abc.abstractmethod
    def _rewrite(self, record: Record, *, text: str | None = None) -> None:
        """Write ``record``'s fields and state back (with new content when ``text`` is set)."""

    @abc.abstractmethod
    def _erase(self, record: Record) -> None:
        """Delete the record's row (``record["backend_id"]``) for good; the id map no longer
        names it."""

    @abc.abstractmethod
    def _named(self, ids: Iterable[str]) -> dict[str, Record]:
        """The records the id map holds for ``ids`` (of any agent), by wire id."""

    @abc.abstractmethod
    def _listed(
        self, agent_id: str, user_id: str | None, states: Sequence[str] | None = None
    ) -> list[Record]:
        """The agent's records (at least those of ``user_id`` in ``states``, when given)."""

    @abc.abstractmethod
    def _query(self, req: RecallRequest, given: QueryEmbedding | None) -> Any:
        """What ``_search`` searches with (a query vector, or the text)."""

    @abc.abstractmethod
    def _search(self, query: Any, req: RecallRequest, depth: int) -> tuple[list[Hit], bool]:
        """The ``depth`` nearest rows of the agent as records with their relevance, and
        whether the backend had fewer than ``depth`` to give."""

    @abc.abstractmethod
    def _close(self) -> None:
        """Close the backend and the id map (on the worker thread)."""

    def _first_depth(self, k: int) -> int:
        """How many hits a recall's first search asks the backend for (``search_depth``:
        room for the exact filters; a search that comes back short goes deeper anyway)."""
        return search_depth(k)

    def _takes(self, query_vector: QueryEmbedding | None) -> bool:
        """Whether a caller's query vector is one the backend would make itself."""
        return False

    async def audit_entries(self) -> list[dict[str, Any]]:
        """The audit log, oldest first, each entry with its chain digest (kit.audit): what
        `mnemowire audit verify|export` and the reviewer UI read (protocol AuditedStore)."""
        return await self._run(self._ids.audit_entries)

    # -- running ---------------------------------------------------------------------------------

    async def aclose(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._worker, self._close)
        if self._owns_worker:
            self._worker.shutdown(wait=True)

    async def _run(self, work: Callable[[], T]) -> T:
        """``work`` on the worker thread, as one step; the backend's own exceptions come back
        as a StoreError naming the store."""

        def guarded() -> T:
            try:
                return work()
            except MnemowireError:
                raise
            except Exception as exc:
                raise StoreError(
                    f"{self._name}: {self.backend} failed: {type(exc).__name__}: {exc}"
                ) from exc

        # a caller that stops waiting cancels the wait, not the thread: the work ends whole;
        # it runs in a copy of the caller's context, as asyncio.to_thread's does (an audit
        # entry names the caller a transport set there: kit.audit.as_caller)
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self._worker, context.run, guarded)

    def _visible(self, record: Record, agent_id: str, now: int) -> bool:
        expires = record.get("expires_at")
        return (
            record["agent_id"] == agent_id
            and record["state"] == "active"
            and (expires is None or expires > now)
        )

    def _in_scope(self, record: Record, agent_id: str, user_id: str | None) -> bool:
        return record["agent_id"] == agent_id and (
            user_id is None or record.get("user_id") == user_id
        )

    # -- operations ------------------------------------------------------------------------------

    async def remember(self, request: RememberRequest) -> RememberResponse:
        req, payload = request, to_wire(request)
        refuse_undeclared(self.capabilities(), "remember", payload)
        started = time.perf_counter()
        return await self._run(lambda: self._remember(req, payload, started))

    def _remember(
        self, req: RememberRequest, payload: dict[str, Any], started: float
    ) -> RememberResponse:
        held = self._named([req.id]).get(req.id) if req.id is not None else None
        stored = None
        if held is not None:
            fields = (held["agent_id"], held.get("user_id"), held["type"], held["content"])
            staged = held["state"] == "pending"
            stored = StoredWrite(*fields, held["created_at"], pending=staged)
        # an id the map holds without a record was erased (or its row is gone): never reused
        erased = held is None and req.id is not None and self._ids.get(req.id) is not None
        replayed = replay(req, stored, erased=erased, result=store_result(self._name, 0, started))
        if replayed is not None:
            return replayed
        now = self._clock()
        staged_by = staging(self._policy, "remember", req, payload)
        pending = staged_by is not None
        record: Record = {
            **{k: v for k, v in payload.items() if k != "approval_required"},
            "id": req.id or new_id(),
            "metadata": payload.get("metadata", {}),
            "confidence": req.confidence,
            "created_at": now,
            "updated_at": now,
            "state": "pending" if pending else "active",
            "version": 1,
        }
        backend_id = self._insert(record)
        detail = {"pending": True} if pending else None
        try:  # the map's entry last: until it is written the row is not a record
            with self._ids.transaction():  # with its review and its audit entry
                self._ids.put(record["id"], backend_id, req.agent_id)
                if staged_by is not None:
                    self._queue.queue_remember(record, payload, staged_by)
                self._ids.audit(now, "remember", req.agent_id, [record["id"]], payload, detail)
        except Exception:
            self._ids.erase(record["id"])
            self._erase({**record, "backend_id": backend_id})
            raise
        return RememberResponse(
            id=record["id"],
            stored_at=now,
            stores=[store_result(self._name, 1, started)],
            pending_approval=pending,
        )

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        req, payload = request, to_wire(request)
        refuse_undeclared(self.capabilities(), "recall", payload)
        started = time.perf_counter()
        given = query_vector if self._takes(query_vector) else None
        ranked = await self._run(lambda: self._recall(req, payload, given))
        return recall_answer(self._name, ranked, store_result(self._name, len(ranked), started))

    def _recall(
        self, req: RecallRequest, payload: dict[str, Any], given: QueryEmbedding | None
    ) -> list[tuple[Record, float, float]]:
        query, now = self._query(req, given), self._clock()

        def visible(record: Record) -> bool:
            return self._visible(record, req.agent_id, now) and self._in_scope(
                record, req.agent_id, req.user_id
            )

        return recall_hits(
            req,
            payload,
            now,
            search=lambda depth: self._search(query, req, depth),
            first_depth=self._first_depth(req.k),
            visible=visible,
        )

    async def forget(self, request: ForgetRequest) -> ForgetResponse:
        req, payload = request, to_wire(request)
        refuse_undeclared(self.capabilities(), "forget", payload)
        staged_by = staging(self._policy, "forget", req, payload)
        started = time.perf_counter()
        prepared = await forget_prelude(  # [forget.dry-run], [forget.all]
            req, payload, staged_by,
            lambda: self._run(lambda: [r["id"] for r in self._forget_targets(req, payload)]),
            lambda count: store_result(self._name, count, started),
        )  # fmt: skip
        if isinstance(prepared, ForgetResponse):
            return prepared
        req, payload = prepared
        if staged_by is not None:
            return await self._queue.stage_forget(req, payload, staged_by)
        ids = await self._run(lambda: self._forget(req, payload))
        return ForgetResponse(
            forgotten_ids=ids,
            stores=[store_result(self._name, len(ids), started)],
            hard_delete=req.hard_delete,
            pending_approval=False,
        )

    def _forget_targets(self, req: ForgetRequest, payload: dict[str, Any]) -> list[Record]:
        """The records ``req`` reaches now ([forget.scope]): what a forget does, and what a
        staged one would."""
        states = forget_states(req.hard_delete, named=req.ids is not None)
        if req.ids is not None:
            candidates = list(self._named(req.ids).values())
        else:
            candidates = self._listed(req.agent_id, req.user_id, states)
        return [
            r
            for r in candidates
            if self._in_scope(r, req.agent_id, req.user_id)
            and r["state"] in states
            and matches(r["metadata"], payload.get("filter"))
        ]

    def _forget(self, req: ForgetRequest, payload: dict[str, Any]) -> list[str]:
        targets = self._forget_targets(req, payload)
        staged = [r["id"] for r in targets if r["state"] == "pending"]
        self._ids.reviews.withdraw(staged, self._clock())
        ids = [r["id"] for r in targets]
        detail: dict[str, Any] = {"hard_delete": req.hard_delete}
        if req.hard_delete:  # erase them, and whatever was merged into them
            gone = {r["id"]: r for r in targets}
            merged = self._listed(req.agent_id, None, ["merged"])
            while absorbed := {
                r["id"]: r for r in merged
                if r["state"] == "merged" and r.get("merged_into") in gone and r["id"] not in gone
            }:  # fmt: skip
                gone |= absorbed
            for record in gone.values():
                self._ids.erase(record["id"])  # first: from now on the row is not a record
                self._erase(record)
                self._ids.reviews.erase_request(record["id"])  # whatever state it ended in
            if len(gone) > len(ids):
                detail["erased_with"] = [i for i in gone if i not in set(ids)]
        else:
            now = self._clock()
            for record in targets:
                self._rewrite({**record, "state": "deleted", "updated_at": now})
        if req.reason is not None:
            detail["reason"] = req.reason
        self._ids.audit(self._clock(), "forget", req.agent_id, ids, payload, detail)
        return ids

    def _approve(self, agent_id: str, ids: Sequence[str]) -> list[str]:
        """Staged writes of ``agent_id`` made visible (a decision's, ``kit._document_reviews``);
        the ids approved."""
        found = self._named(ids)
        approved = []
        for record_id in ids:
            record = found.get(record_id)
            if record is None or record["agent_id"] != agent_id or record["state"] != "pending":
                continue
            self._rewrite({**record, "state": "active", "updated_at": self._clock()})
            approved.append(record_id)
        request = {"agent_id": agent_id, "ids": list(ids)}
        self._ids.audit(self._clock(), "approve", agent_id, approved, request)
        return approved

    async def merge(self, request: MergeRequest) -> MergeResponse:
        payload = to_wire(request)
        refuse_undeclared(self.capabilities(), "merge", payload)
        staged_by = staging(self._policy, "merge", request, payload)
        if staged_by is not None:
            return await self._queue.stage_merge(request, payload, staged_by)
        started = time.perf_counter()
        MergePlan.refuse_self_merge(request)
        plan = await self._run(lambda: self._merge(request))
        return MergeResponse(
            canonical=request.canonical,
            merged_count=len(request.duplicates),
            strategy_used=plan.strategy,
            stores=[store_result(self._name, 1 + len(request.duplicates), started)],
        )

    def _merge(self, req: MergeRequest, planned: MergePlan | None = None) -> MergePlan:
        """``planned``: a decided merge's plan, made before its review ended; redone after a
        crash, what was written already is not written again (kit._document_reviews)."""
        ids = [req.canonical, *req.duplicates]
        now = self._clock()
        found = {i: r for i, r in self._named(ids).items() if self._visible(r, req.agent_id, now)}
        # a redo (``planned``): its duplicates may be merged already, its canonical is there
        required = ids if planned is None else [req.canonical]
        require_visible(req.agent_id, {i: found[i] for i in required if i in found}, required)
        plan = planned or MergePlan.of(req, found)
        if not (planned is not None and plan.written(found[req.canonical])):
            canonical = {**found[req.canonical], **(plan.update or {}), "updated_at": now}
            # the canonical first: a merge stopped half-way leaves duplicates, never lost content
            self._rewrite(canonical, text=plan.new_text)
        for duplicate in req.duplicates:
            record = found.get(duplicate)
            if record is not None:  # (absent only in a redo: merged already)
                merged = {**record, "state": "merged", "merged_into": req.canonical}
                self._rewrite({**merged, "updated_at": now})
        detail = {"strategy": plan.strategy}
        self._ids.audit(now, "merge", req.agent_id, ids, to_wire(req), detail)
        return plan

    async def expire(self, request: ExpireRequest) -> ExpireResponse:
        req, payload = request, to_wire(request)
        refuse_undeclared(self.capabilities(), "expire", payload)
        started = time.perf_counter()
        ids = await self._run(lambda: self._expire(req))
        return ExpireResponse.model_validate(
            {
                "matched_count": len(ids),
                "action_taken": req.action,
                "matched_ids": ids,
                "stores": [store_result(self._name, len(ids), started)],
                **({"dry_run": True} if req.dry_run else {}),
            }
        )

    def _expire(self, req: ExpireRequest) -> list[str]:
        now, policy = self._clock(), req.policy
        older = cutoff(now, policy.older_than_days)
        matched = [
            r
            for r in self._listed(req.agent_id, req.user_id, ["active"])
            if self._visible(r, req.agent_id, now)
            and (req.user_id is None or r.get("user_id") == req.user_id)
            and (older is None or r["created_at"] < older)
            and (policy.type is None or r["type"] == policy.type)
            and (policy.confidence_below is None or r["confidence"] < policy.confidence_below)
            and (policy.records is None or policy.records.root.get(r["id"]) == r["version"])
        ]
        ids = [r["id"] for r in matched]
        if not req.dry_run:
            for record in matched:  # the one action a document store declares: forget
                self._rewrite({**record, "state": "deleted", "updated_at": now})
            detail = {"action": req.action}
            self._ids.audit(now, "expire", req.agent_id, ids, to_wire(req), detail)
        return ids

    # -- spec v0.1: records read back whole, and changed one at a time ---------------------------

    def _wire(self, record: Record, now: int) -> dict[str, Any]:
        """A record as get and list answer it: its wire fields, its state as a caller sees it."""
        fields = {k: record[k] for k in MEMORY_RECORD_FIELDS if record.get(k) is not None}
        fields["state"] = record_state(record["state"], record.get("expires_at"), now)
        return fields

    async def get(self, request: GetRequest) -> GetResponse:
        started = time.perf_counter()
        found = await self._run(lambda: self._get(request))
        return get_answer(request.ids, found, store_result(self._name, len(found), started))

    def _get(self, req: GetRequest) -> list[dict[str, Any]]:
        now, states = self._clock(), {str(s) for s in req.states}
        records = [
            self._wire(r, now)
            for r in self._named(req.ids).values()
            if self._in_scope(r, req.agent_id, req.user_id)
        ]
        return [r for r in records if r["state"] in states]

    async def list(self, request: ListRequest) -> ListResponse:
        started = time.perf_counter()
        payload = to_wire(request)
        page, cursor = await self._run(lambda: self._list(request, payload))
        return list_answer(page, cursor, store_result(self._name, len(page), started))

    def _list(
        self, req: ListRequest, payload: dict[str, Any]
    ) -> tuple[Sequence[Mapping[str, Any]], str | None]:
        """One page. A document backend lists without order or offset, so every page reads
        the agent's rows and orders them here (fine for an agent's thousands)."""
        if self._cursors is None:
            self._cursors = Cursors(self._ids.cursor_key())
        after = self._cursors.position(req)
        now, states = self._clock(), {str(s) for s in req.states}
        types = {str(t) for t in req.types} if req.types else None
        records = [
            self._wire(r, now)
            for r in self._listed(req.agent_id, req.user_id)
            if self._in_scope(r, req.agent_id, req.user_id)
            and (types is None or r["type"] in types)
            and matches(r["metadata"], payload.get("filter"))
        ]
        records = [r for r in records if r["state"] in states]
        if req.order == "id":
            records.sort(key=lambda r: r["id"])
            if after is not None:
                records = [r for r in records if (r["id"],) > tuple(after)]
        else:  # newest first: created_at, then id, both descending
            records.sort(key=lambda r: (r["created_at"], r["id"]), reverse=True)
            if after is not None:
                records = [r for r in records if (r["created_at"], r["id"]) < tuple(after)]
        return self._cursors.page(req, records[: req.limit + 1])

    async def update(self, request: UpdateRequest) -> UpdateResponse:
        started = time.perf_counter()
        plan, now = await self._run(lambda: self._update(request))
        return plan.answer(request, now, store_result(self._name, 1, started))

    def _update(self, req: UpdateRequest) -> tuple[UpdatePlan, int]:
        """Planned and written in one step on the worker: no other update runs between."""
        current = self._named([req.id]).get(req.id)
        if current is not None and not (
            self._in_scope(current, req.agent_id, req.user_id)
            and current["state"] in ("active", "pending")
        ):
            current = None
        plan = UpdatePlan.of(req, current, self._policy)
        now = self._clock()
        if plan.changes:
            assert current is not None  # UpdatePlan.of refused a missing record
            record = {**current, **plan.changes, "version": plan.next_version, "updated_at": now}
            self._rewrite(record, text=plan.changes.get("content"))
            detail = plan.audit_detail(req.reason)
            self._ids.audit(now, "update", req.agent_id, [req.id], to_wire(req), detail)
        return plan, now
