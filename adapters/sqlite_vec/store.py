"""The embedded default store: one SQLite file, sqlite-vec for vectors, a table of rare words
for keywords.

Recall is hybrid: the k' nearest vectors (cosine) and the k' best keyword matches (rare words of
the agent's own records, ``mnemowire.kit.keywords``) are fused by Reciprocal Rank Fusion (k=60,
ranks from 1) and multiplied by each record's demote factor (``_search``). Every recall filter
(agent, user, types, metadata, freshness, expiry) applies inside both searches, before their
top k', and only visible records are in either index, so a small agent beside a huge one always
gets its full k. Every operation is one transaction (``_database``; the writes: ``_writes``).
"""

from __future__ import annotations

import asyncio
import builtins
import math
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from mnemowire import __version__
from mnemowire.adapters.sqlite_vec import _writes
from mnemowire.adapters.sqlite_vec._accel import IndexCache
from mnemowire.adapters.sqlite_vec._archive_ops import ArchiveOperations
from mnemowire.adapters.sqlite_vec._database import Database, Job
from mnemowire.adapters.sqlite_vec._dedupe import remember_once
from mnemowire.adapters.sqlite_vec._driver import find_driver
from mnemowire.adapters.sqlite_vec._record_ops import RecordOperations
from mnemowire.adapters.sqlite_vec._records import Scope
from mnemowire.adapters.sqlite_vec._review_ops import ReviewOperations
from mnemowire.adapters.sqlite_vec._schema import NEVER
from mnemowire.adapters.sqlite_vec._search import search
from mnemowire.embedders import Embedder, Vectors
from mnemowire.errors import ConfigError, MnemowireError, UnavailableError
from mnemowire.kit import (
    ComposedStore,
    EmbedderSetup,
    Implements,
    MergePlan,
    elapsed_ms,
    embed,
    in_batch,
    integer,
    now_ms,
    number,
    query_embedding,
    recall_answer,
    searchable_text,
    store_result,
    text,
    to_wire,
    url_options,
)
from mnemowire.kit.audit import read_sqlite
from mnemowire.kit.dedupe import dedupe_mode, dedupe_option
from mnemowire.kit.lifecycle import LifecycleOperations
from mnemowire.kit.reviews import forget_prelude, staging
from mnemowire.kit.staging import StagingRules
from mnemowire.models import (
    Capabilities,
    ExpireRequest,
    ExpireResponse,
    ForgetRequest,
    ForgetResponse,
    Health,
    HealthStatus,
    MergeRequest,
    MergeResponse,
    RecallRequest,
    RecallResponse,
    RememberRequest,
    RememberResponse,
    StoreResult,
)
from mnemowire.protocol import QueryEmbedding

__all__ = ["CAPABILITIES", "IMPLEMENTS", "SqliteVecStore"]

T = TypeVar("T")
#: what the store serves when no staging policy is set, written against spec v0.4
CAPABILITIES = (
    *("semantic", "episodic", "procedural", "emotional", "vector", "fts", "user_scope"),
    *("metadata_filter", "freshness", "expiry", "forget", "merge", "expire", "hard_delete"),
    *("governance", "recall_tracking", "demote", "archive", "relevance", "client_ids"),
    *("get", "list", "restore", "update", "remember_batch", "query_vector", "seals"),
    *("reviews", "decide"),
    *("export_records", "import_records", "scopes"),
    "history",
    *("consolidate", "promote", "dedupe", "run_start", "run_fire", "run_get"),
)
#: the pinned claim: a new spec version adds nothing here until the store opts in
IMPLEMENTS = Implements(
    "v0.4",
    (*CAPABILITIES, "staging_policy"),
    declined={"graph": "the store knows no neighbours between records"},
)
#: how often, at most, recall tracking rewrites a record's last_recalled_at
RECALL_TRACKING_GRANULARITY_MS = 60_000
#: most recall times kept in memory while another connection holds the write lock
MAX_PENDING_RECALLS = 100_000
#: agents with an in-memory index of at most this many rows are recalled on the caller's thread
INLINE_RECALL_ROWS = 4_096
#: the options of a sqlite-vec:// URL, each with its parser
URL_OPTIONS = {
    "embedder": text,
    "name": text,
    "accelerate_above": integer(minimum=0),
    "index_budget_mb": number(minimum=0),
    "policy": text,
    "history_limit": integer(minimum=1),
    "dedupe": dedupe_option,
}


class SqliteVecStore(ComposedStore[RecordOperations, ReviewOperations]):
    """A memorywire store in one SQLite file (or ``:memory:``).

    >>> store = SqliteVecStore(":memory:", embedder=HashEmbedder())   # doctest: +SKIP
    >>> await store.remember(RememberRequest(agent_id="a", type="semantic", content="tea"))

    ``clock`` returns epoch milliseconds (tests pass a fake one to exercise expiry). Vector
    search runs on an in-process index per agent (``_accel``: a float32 matrix, the least
    recently searched agents dropped past ``index_budget_mb``) instead of vec0's per-query
    scan, for agents of at least ``accelerate_above`` visible records; the others, and agents
    too large for the budget, are searched by vec0.

    Database work runs in a worker thread, one operation at a time, except a recall that cannot
    wait on anything (the agent's index cached and at most ``INLINE_RECALL_ROWS`` rows, the
    store idle, the database not locked by another connection): that runs on the caller's
    thread, where it costs half as much (``_recall_inline``).
    """

    def __init__(
        self,
        path: str = ":memory:",
        *,
        embedder: Embedder,
        name: str | None = None,
        clock: Callable[[], int] = now_ms,
        accelerate_above: int = 0,
        index_budget_mb: float = 512,
        driver: str | None = None,
        policy: StagingRules | None = None,
        history_limit: int | None = None,
        dedupe: str | None = None,
    ) -> None:
        self.path = path
        #: the operator's dedupe for remembers that do not say (docs/spec/v0.4.md#remember.dedupe)
        self._dedupe = None if dedupe is None else dedupe_option(dedupe)
        #: the operator's staging policy (docs/spec/v0.2.md#review.policy), if any
        self._policy = policy
        self.embedder = embedder
        self._name = name or f"sqlite-vec://{path}"
        self._clock = clock
        if not (math.isfinite(index_budget_mb) and index_budget_mb >= 0):
            raise ConfigError(
                f"index_budget_mb must be a finite number >= 0, not {index_budget_mb!r}"
            )
        if accelerate_above < 0:
            raise ConfigError(f"accelerate_above must be >= 0, not {accelerate_above!r}")
        self._accelerate_above = accelerate_above
        self._indexes = IndexCache(embedder.dimension, int(index_budget_mb * 2**20), NEVER)
        self._index = _writes.IndexWriter()
        self._setup = EmbedderSetup(embedder)
        #: recall times not written yet, record id -> epoch ms (see ``_track_recalls``)
        self._recalled: dict[str, int] = {}
        self._db = Database(path, self._name, find_driver(driver), embedder)
        if history_limit is not None:
            if history_limit < 1:
                raise ConfigError(f"history_limit must be >= 1, not {history_limit!r}")
            self._db.keep_versions(history_limit)
        super().__init__(
            RecordOperations(self),
            ReviewOperations(self),
            ArchiveOperations(self),
            LifecycleOperations(self, clock),
        )

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        embedder: Embedder | None = None,
        clock: Callable[[], int] | None = None,
    ) -> SqliteVecStore:
        """Open ``sqlite-vec://PATH`` (``sqlite-vec://:memory:``, ``sqlite-vec:///abs.db``,
        ``sqlite-vec://relative.db``); query options: ``embedder`` (e.g. ``hash:64``),
        ``name``, ``accelerate_above``, ``index_budget_mb``, ``policy`` (a staging policy's
        JSON file: docs/governance.md#policy), ``history_limit`` (the versions kept of each
        record, kept in the file: docs/lifecycle.md#history), ``dedupe`` (the operator's
        default for remembers that do not say: docs/lifecycle.md#dedupe). ``clock`` is the
        constructor's (epoch ms; the quality benchmark passes one to write memories in the
        past)."""
        parts = urlsplit(url)
        if parts.scheme != "sqlite-vec":
            raise ConfigError(f"not a sqlite-vec URL: {url!r}; use sqlite-vec://PATH")
        path = unquote(parts.netloc + parts.path) or ":memory:"
        options, _ = url_options(url, parts.query, URL_OPTIONS)
        if embedder is None:
            from mnemowire.embedders import load_embedder

            embedder = load_embedder(options.get("embedder", "default"))
        return cls(
            path,
            embedder=embedder,
            name=options.get("name"),
            clock=clock or now_ms,
            accelerate_above=options.get("accelerate_above", 0),
            index_budget_mb=options.get("index_budget_mb", 512),
            policy=StagingRules.named_by(options),
            history_limit=options.get("history_limit"),
            dedupe=options.get("dedupe"),
        )

    @property
    def name(self) -> str:
        return self._name

    async def __aenter__(self) -> SqliteVecStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._db.close()

    # spec v0.1's record operations, v0.2's review queue and v0.3's archive are
    # ``_record_ops``, ``_review_ops`` and ``_archive_ops``, answered by ``kit.ComposedStore``

    def capabilities(self) -> Capabilities:
        policy = None if self._policy is None else self._policy.document
        return IMPLEMENTS.declaration(self._name, staging_policy=policy)

    # -- the five operations -----------------------------------------------------------------

    async def remember(self, request: RememberRequest) -> RememberResponse:
        req, payload = request, to_wire(request)
        await self._setup()
        started = time.perf_counter()
        if req.id is not None:
            replay = await self._call(self._replay, req, started)
            if replay is not None:
                return replay
        vector = (await self._embed([searchable_text(req.type, req.content)]))[0]
        dedupe = dedupe_mode(req, self._dedupe)
        batch = [(req, payload)]
        [response] = await self._call(self._insert, batch, vector[None, :], started, None, dedupe)
        return response

    async def recall(
        self,
        request: RecallRequest,
        *,
        query_vector: QueryEmbedding | None = None,
    ) -> RecallResponse:
        await self._setup()
        started = time.perf_counter()
        vector = await query_embedding(self.embedder, request, query_vector)
        answer = self._recall_inline(request, vector, started)
        if answer is not None:
            return answer
        return await self._call(self._recall, request, vector, started)

    async def forget(self, request: ForgetRequest) -> ForgetResponse:
        req, payload = request, to_wire(request)
        staged_by = staging(self._policy, "forget", req, payload)
        started = time.perf_counter()
        prepared = await forget_prelude(  # [forget.dry-run], [forget.all]
            req, payload, staged_by,
            lambda: self._call(self._reach, req, payload),
            lambda count: self._result(count, started),
        )  # fmt: skip
        if isinstance(prepared, ForgetResponse):
            return prepared
        req, payload = prepared
        if staged_by is not None:  # [review.staging]
            return await self._review_ops.stage_forget(req, payload, staged_by)
        return await self._call(self._forget, req, payload, started)

    async def merge(self, request: MergeRequest) -> MergeResponse:
        req, payload = request, to_wire(request)
        staged_by = staging(self._policy, "merge", req, payload)
        if staged_by is not None:  # [review.staging]
            return await self._review_ops.stage_merge(req, payload, staged_by)
        await self._setup()
        started = time.perf_counter()
        plan = await self._call(self._plan_merge, req)
        if plan.new_text is not None:
            plan.vector = (await self._embed([plan.new_text]))[0]
        return await self._call(self._merge, req, payload, plan, started)

    async def expire(self, request: ExpireRequest) -> ExpireResponse:
        req, payload = request, to_wire(request)
        return await self._call(self._expire, req, payload, time.perf_counter())

    async def health(self) -> Health:
        started = time.perf_counter()
        try:
            details = await self._call(self._health_details)
        except MnemowireError as exc:
            return Health(store=self._name, status=HealthStatus.DOWN, details={"error": str(exc)})
        return Health(
            store=self._name,
            status=HealthStatus.OK,
            latency_ms=elapsed_ms(started),
            details=details,
        )

    # -- extras beyond the protocol ----------------------------------------------------------

    async def audit_entries(self) -> builtins.list[dict[str, Any]]:
        """The audit log, oldest first: every entry with its chain digest (kit.audit), for
        `mnemowire audit verify|export`."""
        return await self._call(read_sqlite, self._db.connection)

    # -- plumbing ----------------------------------------------------------------------------

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking database step in a worker thread, one at a time per store.

        Cancelling the caller (a router's deadline, ``asyncio.timeout``) interrupts the step's
        SQL (``sqlite3_interrupt``: the running statement fails, the transaction rolls back),
        or keeps it from starting if it still waits for the store: the thread must not run on
        for seconds after nobody waits for it, holding the store from the next operation."""
        job = Job()
        try:
            return await asyncio.to_thread(self._locked, fn, *args, job=job)
        except asyncio.CancelledError:
            job.cancel(self._db.connection)
            raise

    def _recall_inline(
        self, req: RecallRequest, vector: Any, started: float
    ) -> RecallResponse | None:
        """Recall on the calling thread when that cannot wait on anything, else None.

        A worker thread costs more than the recall it runs when the agent's vectors are already
        in memory: two thread wake-ups (~0.6 ms on this project's VMs, more than the ~0.5 ms of
        work), and when a router asks several stores at once their threads hand the GIL back and
        forth on every SQLite step (docs/benchmarks.md, latency). So such a recall runs here,
        provided nothing can make it wait: the store's lock is free (no other operation is
        running), the agent's index is cached and small (no load, no long matrix product), and
        SQLite does not wait for another connection's lock (busy_timeout 0: a busy database
        sends the recall to the worker thread, which waits as usual).
        """
        if req.filter:  # a filter's cost grows with the agent: a worker thread can be
            return None  # cancelled by the caller's deadline, the event loop's own thread cannot
        return self._inline(
            lambda: self._indexes.holds(req.agent_id, at_most=INLINE_RECALL_ROWS),
            self._recall,
            req,
            vector,
            started,
        )

    def _inline(self, ready: Callable[[], bool], fn: Callable[..., T], *args: Any) -> T | None:
        """``fn(*args)`` on the calling thread if nothing can make it wait (the store's lock is
        free, ``ready()`` holds, SQLite does not wait for another connection: busy_timeout
        0), else None: the caller then runs it in the worker thread as usual."""
        db = self._db
        if not db.lock.acquire(blocking=False):
            return None
        try:
            if db.closed or not ready():
                return None
            try:
                with db.waiting(0), db.errors():
                    return fn(*args)
            except UnavailableError:  # locked by another connection: wait in a worker thread
                return None
        finally:
            db.lock.release()

    def _locked(self, fn: Callable[..., T], *args: Any, job: Job | None = None) -> T:
        db = self._db
        with db.lock:
            if db.closed:
                raise UnavailableError(f"store {self._name} is closed")
            if job is not None and not job.start():
                raise UnavailableError(f"{self._name}: the operation was cancelled before it ran")
            try:
                with db.errors():
                    result = fn(*args)
                    if self._recalled:  # times a busy file kept from a recall: try again now
                        self._record_recalls()
                    if db.scrub_pending:
                        db.scrub()
                    return result
            finally:
                if job is not None:
                    job.finish()

    async def _embed(self, texts: builtins.list[str]) -> Vectors:
        return await embed(self.embedder, texts)

    def _result(self, count: int, started: float) -> StoreResult:
        return store_result(self._name, count, started)

    # -- the operations' database steps (run by ``_locked``) ---------------------------------

    def _replay(self, req: RememberRequest, started: float) -> RememberResponse | None:
        with self._db.transaction(write=False) as tx:
            return _writes.existing(tx, req, self._result(0, started))

    def _insert(
        self,
        batch: builtins.list[tuple[RememberRequest, dict[str, Any]]],
        vectors: Vectors,
        started: float,
        first: int | None = None,
        dedupe: str | None = None,
    ) -> builtins.list[RememberResponse]:
        """Write a batch in one transaction, each request replaying its id if known; ``first``
        (the batch's place in a batch message or an import) makes errors name the request;
        ``dedupe`` (a single remember's) weighs it against the nearest records first."""
        self._index.bulk = [] if len(batch) > 1 else None
        out = []

        def result(count: int) -> StoreResult:
            return self._result(count, started)

        try:
            with self._db.transaction() as tx:
                for number, ((req, payload), vector) in enumerate(zip(batch, vectors, strict=True)):
                    with in_batch(None if first is None else first + number):
                        replay = _writes.existing(tx, req, result(0))
                        out.append(
                            replay or self._write(tx, (req, payload), vector, result, dedupe)
                        )
                self._index.flush(tx)
        finally:
            self._index.bulk = None
        return out

    def _write(
        self,
        tx: Any,
        sent: tuple[RememberRequest, dict[str, Any]],
        vector: Any,
        result: Callable[[int], StoreResult],
        dedupe: str | None,
    ) -> RememberResponse:
        def write(req: RememberRequest, payload: dict[str, Any]) -> RememberResponse:
            now, index, policy = self._clock(), self._index, self._policy
            return _writes.write_record(tx, req, payload, vector, now, result, index, policy)

        search = (self._clock(), self._indexes, self._accelerate_above)
        return remember_once(tx, sent, vector, dedupe, search, result, write)

    def _recall(self, req: RecallRequest, vector: Any, started: float) -> RecallResponse:
        scope = Scope.of(req, self._clock())
        with self._db.transaction(write=False) as tx:
            ranked = search(
                tx,
                scope,
                vector,
                req.query,
                req.k,
                req.min_relevance,
                self._indexes,
                self._accelerate_above,
            )
        self._track_recalls([found for found, _, _ in ranked], scope.now)
        return recall_answer(self._name, ranked, self._result(len(ranked), started))

    def _track_recalls(self, records: builtins.list[dict[str, Any]], now: int) -> None:
        """Remember when records were last returned, without a write per read and without
        waiting for another writer ([recall.tracking]): a time less than the granularity old is
        not rewritten, and when another connection holds the write lock the times wait in
        memory until this store's next operation (or its next expire) records them."""
        for found in records:
            if (found["last_recalled_at"] or 0) < now - RECALL_TRACKING_GRANULARITY_MS:
                self._recalled[found["id"]] = now
        if self._recalled:
            self._record_recalls()

    def _record_recalls(self) -> None:
        """Write the recall times waiting in memory, unless another connection is writing: then
        they stay (bounded by MAX_PENDING_RECALLS: past that the oldest are dropped, which only
        makes ``no_recall_in_days`` more eager for them)."""
        db = self._db
        try:
            with db.waiting(0), db.transaction() as tx:
                self._apply_recalls(tx)
        except db.driver.module.OperationalError as exc:
            if not db.is_busy(exc):
                raise
            while len(self._recalled) > MAX_PENDING_RECALLS:
                self._recalled.pop(next(iter(self._recalled)))

    def _apply_recalls(self, tx: Any) -> None:
        """The waiting recall times, written in ``tx`` (a write transaction); by record id,
        which is never reused (a rowid can be)."""
        tx.executemany(
            "UPDATE memories SET "
            "recall_count = recall_count + (coalesce(last_recalled_at, 0) < ?), "
            "last_recalled_at = max(coalesce(last_recalled_at, 0), ?) WHERE id = ?",
            [(at, at, record_id) for record_id, at in sorted(self._recalled.items())],
        )
        self._recalled.clear()

    def _forget(
        self, req: ForgetRequest, payload: dict[str, Any], started: float
    ) -> ForgetResponse:
        with self._db.transaction() as tx:
            ids = _writes.forget(tx, req, payload, self._clock(), self._index)
        if req.hard_delete:
            self._db.scrub()
        return ForgetResponse(
            forgotten_ids=ids,
            stores=[self._result(len(ids), started)],
            hard_delete=req.hard_delete,
            pending_approval=False,
        )

    def _reach(self, req: ForgetRequest, payload: dict[str, Any]) -> builtins.list[str]:
        with self._db.transaction(write=False) as tx:
            return _writes.forget_reach(tx, req, payload)

    def _plan_merge(self, req: MergeRequest) -> MergePlan:
        MergePlan.refuse_self_merge(req)
        with self._db.transaction(write=False) as tx:
            records = _writes.merge_targets(tx, req, self._clock())
        return MergePlan.of(req, records)

    def _merge(
        self, req: MergeRequest, payload: dict[str, Any], plan: MergePlan, started: float
    ) -> MergeResponse:
        with self._db.transaction() as tx:
            _writes.merge(tx, req, payload, plan, self._clock(), self._index)
        return MergeResponse(
            canonical=req.canonical,
            merged_count=len(req.duplicates),
            strategy_used=plan.strategy,
            stores=[self._result(1 + len(req.duplicates), started)],
        )

    def _expire(
        self, req: ExpireRequest, payload: dict[str, Any], started: float
    ) -> ExpireResponse:
        with self._db.transaction() as tx:
            self._apply_recalls(tx)  # no_recall_in_days reads them
            ids = _writes.expire(tx, req, payload, self._clock(), self._index)
        return ExpireResponse(
            matched_count=len(ids),
            action_taken=req.action,
            matched_ids=ids,
            stores=[self._result(len(ids), started)],
            **({"dry_run": True} if req.dry_run else {}),
        )

    def _set_visible(
        self,
        agent_id: str,
        user_id: str | None,
        ids: builtins.list[str],
        from_state: str,
        operation: str,
    ) -> builtins.list[str]:
        if not ids:
            return []
        with self._db.transaction() as tx:
            return _writes.set_visible(
                tx, agent_id, user_id, ids, from_state, operation, self._clock(), self._index
            )

    def _health_details(self) -> dict[str, Any]:
        with self._db.transaction(write=False) as tx:
            counts = dict(tx.execute("SELECT state, count(*) FROM memories GROUP BY state"))
            vec_version = tx.execute("SELECT vec_version()").fetchone()[0]
            schema = tx.execute(
                "SELECT value FROM mnemowire_meta WHERE key = 'schema_version'"
            ).fetchone()[0]
        driver = self._db.driver
        return {
            "sqlite": f"{driver.sqlite_version} ({driver.name})",
            "sqlite_vec": vec_version,
            "schema_version": int(schema),
            "embedder": f"{self.embedder.name} ({self.embedder.dimension}-d)",
            "path": self.path,
            "records": counts,
            "indexed_agents": self._indexes.agents,
            "index_mb": round(self._indexes.used / 2**20, 3),
            "mnemowire": __version__,
        }
