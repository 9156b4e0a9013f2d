"""``mem0://FOLDER``: a memorywire store over the real mem0 library (mem0ai 2.2.1), offline
(docs/adapters/mem0.md).

Each record is one mem0 memory, written by ``Memory.add(..., infer=False)`` (the wire's
remember stores what it is given; no LLM is reachable here). What mem0 holds natively: the
content (mem0's ``memory`` text, embedded by mem0's own embedder), the agent and the user (as
mem0's ``agent_id`` / ``user_id`` scopes). Everything else the wire carries (type, metadata,
confidence, source, times in milliseconds, expiry, the emotional and episodic fields, state)
travels in mem0's metadata as one JSON text, ``mw_record``, read back exactly; the three
fields recall filters on natively sit beside it (``mw_id``, ``mw_type``, ``mw_state``).

Scope is exact: mem0's filters narrow a search to the agent, user, types and live records,
and the adapter applies the rest (metadata filters, freshness, expiry, ``min_relevance``) to
what comes back, fetching deeper until it has ``k`` hits or the agent has no more. Recall
embeds through mem0's embedder and searches mem0's vector store, the two calls
``Memory.search`` makes, without its threshold, which drops every hit whose cosine
similarity is negative even at ``threshold=0.0``.

mem0's calls are synchronous and its local qdrant is one process's: every operation runs
whole on the store's one worker thread, so a replay check and its write are one step, and an
operation whose caller gives up still ends whole.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from mnemowire import kit
from mnemowire.adapters.mem0._backend import IdMap, close_memory, entity, open_memory
from mnemowire.adapters.mem0._rows import payload_of, record_of, unit
from mnemowire.embedders import MINILM_NAME, Embedder
from mnemowire.errors import ConfigError, MnemowireError, StoreError
from mnemowire.models import (
    MEMORY_RECORD_FIELDS,
    SPEC_VERSION,
    Capabilities,
    Capability,
    ExpireRequest,
    ExpireResponse,
    ForgetRequest,
    ForgetResponse,
    GetRequest,
    GetResponse,
    Health,
    HealthStatus,
    ListRequest,
    ListResponse,
    MergeRequest,
    MergeResponse,
    RecallRequest,
    RecallResponse,
    RememberRequest,
    RememberResponse,
    UpdateRequest,
    UpdateResponse,
)
from mnemowire.protocol import QueryEmbedding

__all__ = ["Mem0Store"]

T = TypeVar("T")
#: what mem0 cannot serve: keyword search (its BM25 needs fastembed, which downloads a model),
#: the graph (needs an LLM), the ranking extras (recall tracking, demote, archive, and restore,
#: which brings back what archive hid), batches (all or nothing: mem0 has no transaction),
#: and query vectors (mem0 embeds every query itself)
UNDECLARED = {
    Capability.FTS,
    Capability.GRAPH,
    Capability.RECALL_TRACKING,
    Capability.DEMOTE,
    Capability.ARCHIVE,
    Capability.RESTORE,
    Capability.REMEMBER_BATCH,
    Capability.QUERY_VECTOR,
}
CAPABILITIES = [c.value for c in Capability if c not in UNDECLARED]
URL_OPTIONS = {"name": kit.text, "model": kit.text}
#: as many rows as one listing may return (mem0's get_all has no paging)
_ALL = 1_000_000


class Mem0Store:
    """Records in mem0, in ``folder`` (``:memory:``: a fresh temporary folder, removed on
    close). One store per folder per process: qdrant's local mode locks its folder."""

    def __init__(
        self,
        folder: str | Path,
        *,
        name: str | None = None,
        model: str | None = None,
        clock: Callable[[], int] = kit.now_ms,
    ) -> None:
        self._temporary = str(folder) == ":memory:"
        self._folder = (
            Path(tempfile.mkdtemp(prefix="mnemowire-mem0-")) if self._temporary else Path(folder)
        )
        self._name = name or ("mem0://:memory:" if self._temporary else f"mem0://{folder}")
        self._clock = clock
        self._model = model
        self._cursors: kit.Cursors | None = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mem0")
        memory = None
        try:
            memory = open_memory(self._folder, model=model)
            self._ids = IdMap(self._folder / "mnemowire-ids.db")
        except Exception as exc:  # mem0's own failures too (a locked folder, a bad model path)
            if memory is not None:
                close_memory(memory)  # its folder lock, or the next open fails
            self._worker.shutdown()
            self._discard()
            if isinstance(exc, MnemowireError):
                raise
            raise ConfigError(f"{self._name}: mem0 would not open: {exc}") from exc
        self._memory = memory

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        embedder: Embedder | None = None,
        clock: Callable[[], int] = kit.now_ms,
    ) -> Mem0Store:
        """``mem0://FOLDER`` or ``mem0://:memory:``; options ``name``, ``model`` (a folder
        with a sentence-transformers model; default all-MiniLM-L6-v2 from its wheel). An
        ``embedder`` is accepted when it is that same model (mem0 embeds with its own copy)."""
        location, _, query = url.removeprefix("mem0://").partition("?")
        if not location:
            raise ConfigError(f"{url!r}: write mem0://FOLDER or mem0://:memory:")
        options, _ = kit.url_options(url, query, URL_OPTIONS)
        if embedder is not None and (embedder.name != MINILM_NAME or "model" in options):
            raise ConfigError(
                f"the mem0 store embeds with mem0's own embedder (all-MiniLM-L6-v2 through its "
                f"huggingface provider, or ?model=PATH), not {embedder.name}; leave out "
                "--embedder"
            )
        model = options.get("model")
        return cls(location, name=options.get("name"), model=model, clock=clock)

    @property
    def name(self) -> str:
        return self._name

    def capabilities(self) -> Capabilities:
        return kit.declare(self._name, SPEC_VERSION, CAPABILITIES)

    async def health(self) -> Health:
        started = time.perf_counter()
        try:
            count = await self._run(lambda: self._memory.vector_store.client.count(
                collection_name=self._memory.vector_store.collection_name).count)  # fmt: skip
        except MnemowireError as exc:
            return Health(store=self._name, status=HealthStatus.DOWN, details={"error": str(exc)})
        return Health(
            store=self._name,
            status=HealthStatus.OK,
            latency_ms=kit.elapsed_ms(started),
            details={"backend": "mem0ai 2.2.1, qdrant local", "rows": count},
        )

    async def aclose(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._worker, self._close)
        self._worker.shutdown(wait=True)

    def _close(self) -> None:
        close_memory(self._memory)
        self._ids.close()
        self._discard()

    def _discard(self) -> None:
        if self._temporary:
            shutil.rmtree(self._folder, ignore_errors=True)

    async def _run(self, work: Callable[[], T]) -> T:
        """``work`` on the worker thread, as one step; mem0's and qdrant's own exceptions come
        back as a StoreError naming the store."""

        def guarded() -> T:
            try:
                return work()
            except MnemowireError:
                raise
            except Exception as exc:
                raise StoreError(f"{self._name}: mem0 failed: {type(exc).__name__}: {exc}") from exc

        # a caller that stops waiting cancels the wait, not the thread: the work ends whole
        return await asyncio.get_running_loop().run_in_executor(self._worker, guarded)

    # -- rows and records ------------------------------------------------------------------------

    def _records(self, rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        rows = list(rows)
        owners = self._ids.owners([str(row["id"]) for row in rows])
        return [r for r in (record_of(row, owners) for row in rows) if r is not None]

    def _scope(
        self, agent_id: str, user_id: str | None, states: Sequence[str] | None = None
    ) -> dict[str, Any]:
        scope: dict[str, Any] = {"agent_id": entity(agent_id)}
        if user_id is not None:
            scope["user_id"] = entity(user_id)
        if states is not None:
            scope["mw_state"] = {"in": list(states)}
        return scope

    def _listed(self, scope: dict[str, Any]) -> list[dict[str, Any]]:
        rows = self._memory.get_all(filters=scope, top_k=_ALL, show_expired=True)["results"]
        return self._records(rows)

    def _named(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The records the id map holds for ``ids`` (of any agent), by wire id."""
        found: dict[str, dict[str, Any]] = {}
        for record_id in dict.fromkeys(ids):
            mapped = self._ids.get(record_id)
            if mapped is None or mapped.mem0_id is None:
                continue
            row = self._memory.get(mapped.mem0_id)
            record = None if row is None else record_of(row, {mapped.mem0_id: record_id})
            if record is not None:
                found[record_id] = record
        return found

    def _visible(self, record: dict[str, Any], agent_id: str, now: int) -> bool:
        expires = record.get("expires_at")
        return (
            record["agent_id"] == agent_id
            and record["state"] == "active"
            and (expires is None or expires > now)
        )

    def _rewrite(self, record: dict[str, Any], *, text: str | None = None) -> None:
        """Write ``record``'s state and fields back (and new content, re-embedded by mem0)."""
        self._memory.update(record["mem0_id"], text=text, metadata=payload_of(record))

    # -- operations ------------------------------------------------------------------------------

    async def remember(self, request: RememberRequest) -> RememberResponse:
        req, payload = request, kit.to_wire(request)
        kit.refuse_undeclared(self.capabilities(), "remember", payload)
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
            stored = kit.StoredWrite(*fields, held["created_at"], pending=staged)
        # an id the map holds without a record was erased (or its row is gone): never reused
        erased = held is None and req.id is not None and self._ids.get(req.id) is not None
        result = kit.store_result(self._name, 0, started)
        replayed = kit.replay(req, stored, erased=erased, result=result)
        if replayed is not None:
            return replayed
        now = self._clock()
        pending = bool(req.approval_required)
        record: dict[str, Any] = {
            **{k: v for k, v in payload.items() if k != "approval_required"},
            "id": req.id or kit.new_id(),
            "metadata": payload.get("metadata", {}),
            "confidence": req.confidence,
            "created_at": now,
            "updated_at": now,
            "state": "pending" if pending else "active",
            "version": 1,
        }
        user = entity(req.user_id) if req.user_id is not None else None
        added = self._memory.add(
            req.content,
            agent_id=entity(req.agent_id),
            user_id=user,
            metadata=payload_of(record),
            infer=False,
        )
        mem0_id = str(added["results"][0]["id"])
        try:  # the map's entry last: until it is written the row is not a record
            self._ids.put(record["id"], mem0_id, req.agent_id)
        except Exception:
            self._memory.delete(mem0_id)
            raise
        return RememberResponse(
            id=record["id"],
            stored_at=now,
            stores=[kit.store_result(self._name, 1, started)],
            pending_approval=pending,
        )

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        req, payload = request, kit.to_wire(request)
        kit.refuse_undeclared(self.capabilities(), "recall", payload)
        started = time.perf_counter()
        given = query_vector if self._takes(query_vector) else None
        ranked = await self._run(lambda: self._recall(req, payload, given))
        result = kit.store_result(self._name, len(ranked), started)
        return kit.recall_answer(self._name, ranked, result)

    def _takes(self, query_vector: QueryEmbedding | None) -> bool:
        """Whether a caller's vector (a router's, embedded once for its children) is the one
        mem0 would make: the same model (mem0's default) makes the same vector."""
        return (
            query_vector is not None
            and self._model is None
            and query_vector.embedder == MINILM_NAME
        )

    def _recall(
        self, req: RecallRequest, payload: dict[str, Any], given: QueryEmbedding | None
    ) -> list[tuple[dict[str, Any], float, float]]:
        # the state is checked here, not in mem0's filter: qdrant's local mode evaluates each
        # condition in Python over every point, and nearly every record is active
        scope = self._scope(req.agent_id, req.user_id)
        if req.types:
            scope["mw_type"] = {"in": [str(t) for t in req.types]}
        store = self._memory.vector_store
        if given is not None:
            vector = unit(given.vector)
        else:
            vector = unit(self._memory.embedding_model.embed(req.query, "search"))
        now = self._clock()
        since = kit.cutoff(now, req.fresher_than_days)
        depth = kit.search_depth(req.k)
        while True:
            found = store.search(
                query=req.query, vectors=vector.tolist(), top_k=depth, filters=scope
            )
            rows = [
                {"id": hit.id, "memory": hit.payload.get("data", ""), "metadata": hit.payload}
                for hit in found
            ]
            scores = self._similarities(vector, [hit.id for hit in found])
            ranked = []
            for record in self._records(rows):
                relevance = scores[record["mem0_id"]]
                if (
                    self._visible(record, req.agent_id, now)
                    and (since is None or record["created_at"] >= since)
                    and kit.matches(record["metadata"], payload.get("filter"))
                    and (req.min_relevance is None or relevance >= req.min_relevance)
                ):
                    ranked.append((record, relevance, relevance))
            if len(ranked) >= req.k or len(found) < depth:
                break
            depth *= 4  # the exact filters took too many: look deeper
        ranked.sort(key=lambda hit: (-hit[1], hit[0]["id"]))
        return ranked[: req.k]

    def _similarities(self, query: np.ndarray[Any, Any], ids: list[Any]) -> dict[str, float]:
        """Cosine similarity of the query to each row, in float32 from the stored vectors.
        qdrant's local mode scores a point it has just stored with a slightly different float
        the first time it is searched (0.37012337, then 0.3701234 for the same query), so a
        recall would not answer the same twice; the stored vectors do not change."""
        store = self._memory.vector_store
        points = store.client.retrieve(store.collection_name, ids, with_vectors=True)
        out = {}
        for point in points:
            stored = point.vector[""] if isinstance(point.vector, dict) else point.vector
            similarity = float(unit(stored) @ query)
            out[str(point.id)] = max(-1.0, min(1.0, similarity))
        return out

    async def forget(self, request: ForgetRequest) -> ForgetResponse:
        req, payload = request, kit.to_wire(request)
        kit.refuse_undeclared(self.capabilities(), "forget", payload)
        started = time.perf_counter()
        ids = await self._run(lambda: self._forget(req, payload))
        return ForgetResponse(
            forgotten_ids=ids,
            stores=[kit.store_result(self._name, len(ids), started)],
            hard_delete=req.hard_delete,
            pending_approval=False,
        )

    def _forget(self, req: ForgetRequest, payload: dict[str, Any]) -> list[str]:
        states = kit.forget_states(req.hard_delete, named=req.ids is not None)
        if req.ids is not None:
            candidates = list(self._named(req.ids).values())
        else:
            candidates = self._listed(self._scope(req.agent_id, req.user_id, states))
        targets = [
            r
            for r in candidates
            if r["agent_id"] == req.agent_id
            and r["state"] in states
            and (req.user_id is None or r.get("user_id") == req.user_id)
            and kit.matches(r["metadata"], payload.get("filter"))
        ]
        if req.hard_delete:  # erase them, and whatever was merged into them
            gone = {r["id"]: r for r in targets}
            merged = self._listed(self._scope(req.agent_id, None, ["merged"]))
            while absorbed := {
                r["id"]: r for r in merged
                if r.get("merged_into") in gone and r["id"] not in gone
            }:  # fmt: skip
                gone |= absorbed
            for record in gone.values():
                self._ids.erase(record["id"])  # first: from now on the row is not a record
                self._memory.delete(record["mem0_id"])
        else:
            now = self._clock()
            for record in targets:
                self._rewrite({**record, "state": "deleted", "updated_at": now})
        return [r["id"] for r in targets]

    async def approve(self, agent_id: str, ids: Sequence[str]) -> list[str]:
        """Staged writes of ``agent_id`` made visible ([remember.pending]); the ids approved."""
        return await self._run(lambda: self._approve(agent_id, ids))

    def _approve(self, agent_id: str, ids: Sequence[str]) -> list[str]:
        found = self._named(ids)
        approved = []
        for record_id in ids:
            record = found.get(record_id)
            if record is None or record["agent_id"] != agent_id or record["state"] != "pending":
                continue
            self._rewrite({**record, "state": "active", "updated_at": self._clock()})
            approved.append(record_id)
        return approved

    async def merge(self, request: MergeRequest) -> MergeResponse:
        started = time.perf_counter()
        kit.MergePlan.refuse_self_merge(request)
        plan = await self._run(lambda: self._merge(request))
        return MergeResponse(
            canonical=request.canonical,
            merged_count=len(request.duplicates),
            strategy_used=plan.strategy,
            stores=[kit.store_result(self._name, 1 + len(request.duplicates), started)],
        )

    def _merge(self, req: MergeRequest) -> kit.MergePlan:
        ids = [req.canonical, *req.duplicates]
        now = self._clock()
        found = {i: r for i, r in self._named(ids).items() if self._visible(r, req.agent_id, now)}
        kit.require_visible(req.agent_id, found, ids)
        plan = kit.MergePlan.of(req, found)
        canonical = {**found[req.canonical], **(plan.update or {}), "updated_at": now}
        # the canonical first: a merge stopped half-way leaves duplicates, never lost content
        self._rewrite(canonical, text=plan.new_text)
        for duplicate in req.duplicates:
            record = found[duplicate]
            self._rewrite(
                {**record, "state": "merged", "merged_into": req.canonical, "updated_at": now}
            )
        return plan

    async def expire(self, request: ExpireRequest) -> ExpireResponse:
        req, payload = request, kit.to_wire(request)
        kit.refuse_undeclared(self.capabilities(), "expire", payload)
        started = time.perf_counter()
        ids = await self._run(lambda: self._expire(req))
        return ExpireResponse.model_validate(
            {
                "matched_count": len(ids),
                "action_taken": req.action,
                "matched_ids": ids,
                "stores": [kit.store_result(self._name, len(ids), started)],
                **({"dry_run": True} if req.dry_run else {}),
            }
        )

    def _expire(self, req: ExpireRequest) -> list[str]:
        now, policy = self._clock(), req.policy
        older = kit.cutoff(now, policy.older_than_days)
        matched = [
            r
            for r in self._listed(self._scope(req.agent_id, req.user_id, ["active"]))
            if self._visible(r, req.agent_id, now)
            and (req.user_id is None or r.get("user_id") == req.user_id)
            and (older is None or r["created_at"] < older)
            and (policy.type is None or r["type"] == policy.type)
            and (policy.confidence_below is None or r["confidence"] < policy.confidence_below)
        ]
        if not req.dry_run:
            for record in matched:  # the one action declared: forget
                self._rewrite({**record, "state": "deleted", "updated_at": now})
        return [r["id"] for r in matched]

    # -- spec v0.1: records read back whole, and changed one at a time ---------------------------

    def _wire(self, record: dict[str, Any], now: int) -> dict[str, Any]:
        """A record as get and list answer it: its wire fields, its state as a caller sees it."""
        fields = {k: record[k] for k in MEMORY_RECORD_FIELDS if record.get(k) is not None}
        fields["state"] = kit.record_state(record["state"], record.get("expires_at"), now)
        return fields

    def _in_scope(self, record: dict[str, Any], agent_id: str, user_id: str | None) -> bool:
        return record["agent_id"] == agent_id and (
            user_id is None or record.get("user_id") == user_id
        )

    async def get(self, request: GetRequest) -> GetResponse:
        started = time.perf_counter()
        found = await self._run(lambda: self._get(request))
        result = kit.store_result(self._name, len(found), started)
        return kit.get_answer(request.ids, found, result)

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
        payload = kit.to_wire(request)
        page, cursor = await self._run(lambda: self._list(request, payload))
        return kit.list_answer(page, cursor, kit.store_result(self._name, len(page), started))

    def _list(
        self, req: ListRequest, payload: dict[str, Any]
    ) -> tuple[Sequence[Mapping[str, Any]], str | None]:
        """One page. mem0 lists without order or offset, so every page reads the agent's rows
        and orders them here (docs/adapters/mem0.md: fine for an agent's thousands)."""
        if self._cursors is None:
            self._cursors = kit.Cursors(self._ids.cursor_key())
        after = self._cursors.position(req)
        now, states = self._clock(), {str(s) for s in req.states}
        types = {str(t) for t in req.types} if req.types else None
        records = [
            self._wire(r, now)
            for r in self._listed(self._scope(req.agent_id, req.user_id))
            if self._in_scope(r, req.agent_id, req.user_id)
            and (types is None or r["type"] in types)
            and kit.matches(r["metadata"], payload.get("filter"))
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
        return plan.answer(request, now, kit.store_result(self._name, 1, started))

    def _update(self, req: UpdateRequest) -> tuple[kit.UpdatePlan, int]:
        """Planned and written in one step on the worker: no other update runs between."""
        current = self._named([req.id]).get(req.id)
        if current is not None and not (
            self._in_scope(current, req.agent_id, req.user_id)
            and current["state"] in ("active", "pending")
        ):
            current = None
        plan = kit.UpdatePlan.of(req, current)
        now = self._clock()
        if plan.changes:
            assert current is not None  # UpdatePlan.of refused a missing record
            record = {**current, **plan.changes, "version": plan.next_version, "updated_at": now}
            self._rewrite(record, text=plan.changes.get("content"))
        return plan, now
