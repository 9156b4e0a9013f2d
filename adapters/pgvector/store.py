"""The PostgreSQL store: pgvector (IVFFlat, cosine) for vectors, a GIN-indexed tsvector for
keywords, every record field a native column.

Semantics are the sqlite-vec store's, operation for operation (docs/spec/v0.md). Recall is
hybrid: the k' nearest vectors and the k' best keyword matches (an OR of the query's rare
words) are fused by Reciprocal Rank Fusion, then multiplied by each record's demote factor;
ties go to the smaller id. Every recall filter is part of both searches' WHERE clause; the
IVFFlat scan runs in ``relaxed_order`` (``_search``), so filters apply before the top k' is cut,
and if it comes back short (past ``ivfflat.max_probes``) the same query runs exactly: a small
tenant beside a huge one always gets its full k. The index is sized for the table and rebuilt
in the background as it grows (``_vector_index``).

Every operation is one transaction on a pooled connection (psycopg 3, psycopg_pool; see
``_database``); the embedder runs outside transactions. A lost connection is an
:class:`~mnemowire.errors.UnavailableError`, the transaction is rolled back, and the store
reconnects once the server answers again.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import functools
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from psycopg.rows import dict_row

from mnemowire import __version__
from mnemowire.adapters.pgvector import _changes
from mnemowire.adapters.pgvector._archive_ops import ArchiveOperations
from mnemowire.adapters.pgvector._bulk import load_fresh
from mnemowire.adapters.pgvector._database import Database
from mnemowire.adapters.pgvector._dedupe import remember_once
from mnemowire.adapters.pgvector._record_ops import RecordOperations
from mnemowire.adapters.pgvector._review_ops import ReviewOperations
from mnemowire.adapters.pgvector._search import (
    AgentSizes,
    Ranked,
    Searched,
    keyword_matches,
    rank,
    recall_query,
    stale_records,
)
from mnemowire.adapters.pgvector._sql import Scope
from mnemowire.adapters.pgvector._upkeep import Upkeep
from mnemowire.adapters.pgvector._urls import host, parse_url, public_name
from mnemowire.adapters.pgvector._vector_index import IndexKeeper
from mnemowire.adapters.pgvector._writes import existing
from mnemowire.embedders import Embedder, Vectors
from mnemowire.errors import ConfigError, MnemowireError, UnavailableError
from mnemowire.kit import (
    ComposedStore,
    EmbedderSetup,
    Implements,
    MergePlan,
    batch_vectors,
    elapsed_ms,
    embed,
    now_ms,
    query_embedding,
    recall_answer,
    search_depth,
    searchable_text,
    store_result,
    to_wire,
)
from mnemowire.kit.dedupe import dedupe_mode, dedupe_option
from mnemowire.kit.keywords import keyword_terms, rare_terms
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
    MergeRequest,
    MergeResponse,
    RecallRequest,
    RecallResponse,
    RememberRequest,
    RememberResponse,
    StoreResult,
)
from mnemowire.protocol import QueryEmbedding

__all__ = ["CAPABILITIES", "IMPLEMENTS", "PgVectorStore"]

#: what the store serves when no staging policy is set, written against spec v0.4
CAPABILITIES = (
    *("semantic", "episodic", "procedural", "emotional", "vector", "fts", "user_scope"),
    *("metadata_filter", "freshness", "expiry", "forget", "merge", "expire", "hard_delete"),
    *("governance", "recall_tracking", "demote", "archive", "relevance", "client_ids"),
    *("get", "list", "restore", "update", "remember_batch", "query_vector", "seals"),
    *("reviews", "decide", "export_records", "import_records", "scopes"),
    "history",
    *("consolidate", "promote", "dedupe", "run_start", "run_fire", "run_get"),
)
#: the pinned claim: a new spec version adds nothing here until the store opts in
IMPLEMENTS = Implements(
    "v0.4",
    (*CAPABILITIES, "staging_policy"),
    declined={"graph": "the store knows no neighbours between records"},
)


class PgVectorStore(ComposedStore[RecordOperations, ReviewOperations]):
    """A memorywire store in a PostgreSQL database with pgvector.

    >>> store = PgVectorStore.from_url("pgvector://app@db:5432/memory", embedder=embedder)
    >>> async with store:                                             # doctest: +SKIP
    ...     await store.remember({"agent_id": "a", "type": "semantic", "content": "tea"})

    ``dsn`` is a libpq connection string; ``schema`` the PostgreSQL schema holding the tables
    (created, and migrated, on first use); ``clock`` returns epoch milliseconds (tests pass a
    fake one); ``probes`` fixes the IVFFlat cells a search scans (default: a share of the index
    that grows as the search's scope narrows the table; higher: better recall, slower);
    ``read_dsn`` names a streaming replica: recall searches there (falling back to the primary
    while it cannot be reached), everything else, recall tracking included, goes to ``dsn``;
    ``tracer(event, details)``, if given, hears how each search went (``vector_search``: rows
    and whether the exact fallback ran; ``keyword_search``: the words searched).
    The store connects on first use or on ``async with``; ``aclose`` releases the pool.
    """

    def __init__(
        self,
        dsn: str,
        *,
        embedder: Embedder,
        name: str | None = None,
        schema: str = "public",
        extension_schema: str = "public",
        clock: Callable[[], int] = now_ms,
        pool_min: int = 1,
        pool_max: int = 8,
        pool_timeout: float = 10.0,
        probes: int | None = None,
        read_dsn: str | None = None,
        tracer: Callable[[str, dict[str, Any]], None] | None = None,
        policy: StagingRules | None = None,
        history_limit: int | None = None,
        dedupe: str | None = None,
    ) -> None:
        if history_limit is not None and history_limit < 1:
            raise ConfigError(f"history_limit must be >= 1, not {history_limit!r}")
        if not 0 <= pool_min <= pool_max or pool_max < 1:
            raise ConfigError(
                f"need 0 <= pool_min <= pool_max, 1 <= pool_max; not {pool_min}, {pool_max}"
            )
        if probes is not None and probes < 1:
            raise ConfigError(f"probes must be at least 1, not {probes}")
        if pool_timeout <= 0:
            raise ConfigError(f"pool_timeout must be positive, not {pool_timeout}")
        self.dsn = dsn
        self.embedder = embedder
        self.schema = schema
        self._name = name or public_name(dsn, schema)
        self._clock = clock
        self._tracer = tracer
        #: the operator's staging policy (docs/spec/v0.2.md#review.policy) and dedupe, if any
        self._policy, self._dedupe = policy, None if dedupe is None else dedupe_option(dedupe)
        connect = functools.partial(
            Database,
            schema=schema,
            extension_schema=extension_schema,
            embedder=embedder,
            pool_sizes=(pool_min, pool_max),
            pool_timeout=pool_timeout,
            probes=probes,
        )
        self._db = connect(dsn, name=self._name, history_limit=history_limit)
        self._sizes = AgentSizes()
        self._index = IndexKeeper(
            self._db, dimension=embedder.dimension, probes=probes, built=self._sizes.expire
        )
        super().__init__(
            RecordOperations(self),
            ReviewOperations(self),
            ArchiveOperations(self),
            LifecycleOperations(self, clock),
        )
        self._upkeep = Upkeep(self)
        #: the ANALYZE a recall started because the statistics were stale, while it runs
        self._analyzing: asyncio.Task[None] | None = None
        self._setup = EmbedderSetup(embedder)
        #: a streaming replica for recall's searches (writes stay on the primary)
        self._replica = (
            None
            if read_dsn is None
            else connect(read_dsn, name=f"{self._name} (replica {host(read_dsn)})", read_only=True)
        )

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        embedder: Embedder | None = None,
        clock: Callable[[], int] | None = None,
    ) -> PgVectorStore:
        """Open ``pgvector://[user[:password]@]host[:port]/database[?options]``.

        Store options: ``embedder`` (e.g. ``hash:64``), ``name``, ``schema`` (default public),
        ``extension_schema`` (where to create pgvector if missing), ``pool_min``, ``pool_max``,
        ``pool_timeout`` (seconds), ``probes``, ``replica`` (``host:port`` of a streaming
        replica for recall's searches), ``policy`` (a staging policy's JSON file:
        docs/governance.md#policy), ``history_limit`` (the versions kept of each record, kept
        in the schema: docs/lifecycle.md#history), ``dedupe`` (docs/lifecycle.md#dedupe). Every
        other option must be a libpq parameter (``sslmode=require``, ``connect_timeout=5``,
        ``host=/var/run/postgresql``, ...); any other name is a ConfigError with the closest
        known one. ``clock`` is the constructor's (epoch ms), as for every store opened by URL.
        """
        dsn, read_dsn, options = parse_url(url)
        if embedder is None:
            from mnemowire.embedders import load_embedder

            embedder = load_embedder(options.get("embedder", "default"))
        return cls(
            dsn,
            embedder=embedder,
            name=options.get("name"),
            schema=options.get("schema", "public"),
            extension_schema=options.get("extension_schema", "public"),
            clock=clock or now_ms,
            pool_min=options.get("pool_min", 1),
            pool_max=options.get("pool_max", 8),
            pool_timeout=options.get("pool_timeout", 10.0),
            probes=options.get("probes"),
            read_dsn=read_dsn,
            policy=StagingRules.named_by(options),
            history_limit=options.get("history_limit"),
            dedupe=options.get("dedupe"),
        )

    @property
    def name(self) -> str:
        return self._name

    async def __aenter__(self) -> PgVectorStore:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def open(self) -> None:
        """Connect, create or upgrade the schema, and open the pool (once; later calls no-op).
        Every operation calls it, so ``async with`` is optional."""
        await self._db.pool()

    async def aclose(self) -> None:
        await self._index.aclose()
        if self._analyzing is not None:
            self._analyzing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._analyzing
        await self._db.close()
        if self._replica is not None:
            await self._replica.close()

    # -- spec v0.1's record operations, v0.2's review queue and v0.3's archive:
    # ``_record_ops``, ``_review_ops`` and ``_archive_ops``, answered by
    # ``kit.ComposedStore``; the audit log is read in ``_record_ops`` too

    async def audit_entries(self) -> builtins.list[dict[str, Any]]:
        """The audit log's hash chain, oldest first (``RecordOperations.audit_entries``)."""
        return await self._record_ops.audit_entries()

    # -- upkeep: ``_upkeep`` ----------------------------------------------------------------

    async def grant(self, role: str) -> None:
        """Give ``role`` what it needs to run this store and no more (``Upkeep.grant``)."""
        await self._upkeep.grant(role)

    async def vacuum(self, *, erase: bool = False) -> builtins.list[str]:
        return await self._upkeep.vacuum(erase=erase)

    async def prewarm(self) -> dict[str, int]:
        return await self._upkeep.prewarm()

    async def drop(self) -> None:
        """Drop the store's schema (``Upkeep.drop``)."""
        await self._upkeep.drop()

    def capabilities(self) -> Capabilities:
        policy = None if self._policy is None else self._policy.document
        return IMPLEMENTS.declaration(self._name, staging_policy=policy)

    # -- the five operations -----------------------------------------------------------------

    async def remember(self, request: RememberRequest) -> RememberResponse:
        req, payload = request, to_wire(request)
        await self._setup()
        started = time.perf_counter()
        if req.id is not None:
            async with self._db.transaction("remember") as conn:
                replay = (await existing(conn, [req], self._results(started)))[0]
            if isinstance(replay, RememberResponse):
                return replay
        vectors = await self._embed([searchable_text(req.type, req.content)])
        async with self._db.transaction("remember") as conn:
            response = await remember_once(
                conn, (req, payload), vectors[0], dedupe_mode(req, self._dedupe),
                now=self._clock(), result=self._results(started), policy=self._policy,
            )  # fmt: skip
        self._sizes.changed([req.agent_id])
        return response

    async def recall(
        self,
        request: RecallRequest,
        *,
        query_vector: QueryEmbedding | None = None,
    ) -> RecallResponse:
        req, payload = request, to_wire(request)
        await self._setup()
        started = time.perf_counter()
        vector = await query_embedding(self.embedder, req, query_vector)
        now = self._clock()
        scope = Scope.of(req, payload, now)
        k = req.k
        fetch = search_depth(k, req.query)
        # Both searches are one statement, so one snapshot, without BEGIN/COMMIT round trips
        # (the replies of [recall.replies] are read right after, on the same connection);
        # the only write, recall tracking, is a statement of its own, always on the primary.
        if self._replica is None:
            async with self._db.connection("recall") as conn:
                ranked = await self._search(conn, scope, vector, req, fetch)
                await self._track(conn, stale_records(ranked.top_records(), now), now)
        else:
            ranked = await self._search_replica(scope, vector, req, fetch)
            stale = stale_records(ranked.top_records(), now)
            if stale:
                async with self._db.connection("recall") as conn:
                    await self._track(conn, stale, now)
        return recall_answer(self._name, ranked.hits(), self._result(len(ranked.top), started))

    async def forget(self, request: ForgetRequest) -> ForgetResponse:
        req, payload = request, to_wire(request)
        staged_by = staging(self._policy, "forget", req, payload)
        started = time.perf_counter()
        prepared = await forget_prelude(  # [forget.dry-run], [forget.all]
            req, payload, staged_by,
            lambda: self._reach(req, payload),
            lambda count: self._result(count, started),
        )  # fmt: skip
        if isinstance(prepared, ForgetResponse):
            return prepared
        req, payload = prepared
        if staged_by is not None:  # [review.staging]
            return await self._review_ops.stage_forget(req, payload, staged_by)
        async with self._db.transaction("forget") as conn:
            ids = await _changes.forget(conn, req, payload, self._clock())
        self._sizes.changed([req.agent_id])
        return ForgetResponse(
            forgotten_ids=ids,
            stores=[self._result(len(ids), started)],
            hard_delete=req.hard_delete,
            pending_approval=False,
        )

    async def _reach(self, req: ForgetRequest, payload: dict[str, Any]) -> list[str]:
        async with self._db.connection("forget") as conn:
            return await _changes.forget_reach(conn, req, payload)

    async def merge(self, request: MergeRequest) -> MergeResponse:
        req, payload = request, to_wire(request)
        staged_by = staging(self._policy, "merge", req, payload)
        if staged_by is not None:  # [review.staging]
            return await self._review_ops.stage_merge(req, payload, staged_by)
        await self._setup()
        started = time.perf_counter()
        MergePlan.refuse_self_merge(req)
        async with self._db.transaction("merge") as conn:
            plan = MergePlan.of(req, await _changes.merge_targets(conn, req, self._clock()))
        if plan.new_text is not None:
            plan.vector = (await self._embed([plan.new_text]))[0]
        async with self._db.transaction("merge") as conn:
            await _changes.merge(conn, req, payload, plan, self._clock())
        self._sizes.changed([req.agent_id])
        return MergeResponse(
            canonical=req.canonical,
            merged_count=len(req.duplicates),
            strategy_used=plan.strategy,
            stores=[self._result(1 + len(req.duplicates), started)],
        )

    async def expire(self, request: ExpireRequest) -> ExpireResponse:
        req, payload = request, to_wire(request)
        started = time.perf_counter()
        async with self._db.transaction("expire") as conn:
            ids = await _changes.expire(conn, req, payload, self._clock())
        self._sizes.changed([req.agent_id])
        return ExpireResponse(
            matched_count=len(ids),
            action_taken=req.action,
            matched_ids=ids,
            stores=[self._result(len(ids), started)],
            **({"dry_run": True} if req.dry_run else {}),
        )

    async def health(self) -> Health:
        started = time.perf_counter()
        try:
            details = await self._health_details()
        except MnemowireError as exc:
            return Health(store=self._name, status="down", details={"error": str(exc)})
        status = "ok"
        if self._replica is not None:
            details["replica"] = replica = await self._replica.standby()
            if "error" in replica:  # recall falls back to the primary: slower, not down
                status = "degraded"
        return Health(
            store=self._name, status=status, latency_ms=elapsed_ms(started), details=details
        )

    # -- extras beyond the protocol ----------------------------------------------------------

    @contextlib.asynccontextmanager
    async def bulk_import(self, incoming: int) -> AsyncIterator[bool]:
        """Hold around the pages of an import of ``incoming`` records
        (``protocol.BulkImportStore``): into a store holding fewer active records, the vector
        and keyword indexes are dropped first (the block gets True) and built once when the
        block ends, the vector index's cells then trained on every record; then the planner's
        statistics refreshed. Each page is its own transaction; recall stays exact meanwhile.
        Killed before the end, the store builds them when it is next opened."""
        await self._setup()
        deferred = await self._upkeep.defer_indexes(incoming)
        try:
            yield deferred
        finally:
            if deferred:
                await self._upkeep.build_indexes()
                await self._analyze()

    async def load_fresh(
        self,
        requests: Sequence[RememberRequest],
        *,
        vectors: Vectors | None = None,
        batch_size: int = 5_000,
    ) -> builtins.list[RememberResponse]:
        """An operator's first import into a store nobody uses yet (not a protocol operation: the
        usual import is ``Memory.remember_many``, chunks of ``remember_batch``). Both indexes are
        dropped, every row COPYed (``batch_size`` rows per COPY), the indexes built once at the end
        (faster than row by row, and the vector index's cells trained on every record), all in one
        transaction that blocks every other reader and writer of the store until it commits (all or
        nothing); then the planner's statistics are refreshed.

        ``requests`` are trusted as a store trusts a request (validate them first:
        ``mnemowire.layers.validating.parse_requests``); ``vectors`` (one row per request,
        from this store's embedder) skip the embedding, which otherwise runs before the
        transaction starts."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        vectors = await batch_vectors(self.embedder, requests, vectors)  # checked or made
        await self._setup()
        typed = [(r, to_wire(r)) for r in requests]
        try:
            responses = await load_fresh(
                self._db, typed, vectors, batch_size, self._clock, self._results, self._policy
            )
        finally:
            self._sizes.changed({r.agent_id for r, _ in typed})
        await self._analyze()
        return responses

    # -- plumbing ----------------------------------------------------------------------------

    async def _embed(self, texts: builtins.list[str]) -> Vectors:
        return await embed(self.embedder, texts)

    def _result(self, count: int, started: float) -> StoreResult:
        return store_result(self._name, count, started)

    def _results(self, started: float) -> Callable[[int], StoreResult]:
        """``_result`` for one operation's start time, for the write helpers."""
        return lambda count: self._result(count, started)

    async def _analyze(self) -> None:
        """Refresh planner and word statistics after a bulk import (skipped without the
        privilege: autovacuum will get there)."""
        with contextlib.suppress(MnemowireError):
            async with self._db.connection("analyze") as conn:
                await conn.execute("ANALYZE memories")
        self._sizes.expire()  # count again, and read the new statistics

    def _analyze_soon(self) -> None:
        """ANALYZE in the background, for a recall that found the statistics stale
        (``AgentSizes`` says when): that recall and the next do not wait for it."""
        self._sizes.stale = False
        if self._analyzing is None or self._analyzing.done():
            self._analyzing = asyncio.create_task(self._analyze(), name="ANALYZE memories")

    # -- recall ------------------------------------------------------------------------------

    def _trace(self, searched: Searched, fetch: int) -> None:
        if self._tracer is not None:
            found, matched = searched.found, searched.matched
            exact = bool(found) and bool(found[0]["exact"])
            self._tracer("vector_search", {"fetch": fetch, "returned": len(found), "exact": exact})
            self._tracer("keyword_search", {"terms": searched.terms, "returned": len(matched)})

    async def _search(
        self, conn: Any, scope: Scope, vector: Any, req: RecallRequest, fetch: int
    ) -> Ranked:
        """The query's words counted, then both searches in one statement, ranked (the
        replies of the best candidates that ask read right after, on this connection)."""
        query = req.query
        counts = await self._sizes.of(conn, scope.agent_id)
        documents = counts.size
        if self._sizes.stale:
            self._analyze_soon()
        await self._index.before_search(conn, counts.lists, counts.table_rows, documents)
        held = await self._sizes.held(conn, scope.agent_id, keyword_terms(query))
        kept = rare_terms(held, documents)
        cursor = conn.cursor(row_factory=dict_row)
        await cursor.execute(*recall_query(scope, vector, kept, fetch))
        rows = await cursor.fetchall()
        found = sorted(
            (r for r in rows if r["side"] == "vector"), key=lambda r: (r["distance"], r["id"])
        )
        counted = {term: held[term] for term in kept}
        matched = keyword_matches(
            [r for r in rows if r["side"] == "keyword"], counted, documents, fetch
        )
        searched = Searched(found, matched, sorted(kept))
        self._trace(searched, fetch)
        return await rank(cursor, scope, vector, searched, req)

    async def _search_replica(
        self, scope: Scope, vector: Any, req: RecallRequest, fetch: int
    ) -> Ranked:
        """The searches on the replica; on the primary while the replica cannot be reached."""
        if self._replica is not None:
            try:
                async with self._replica.connection("recall") as conn:
                    return await self._search(conn, scope, vector, req, fetch)
            except UnavailableError as exc:
                if self._tracer is not None:
                    self._tracer("replica_unavailable", {"error": str(exc)})
        async with self._db.connection("recall") as conn:
            return await self._search(conn, scope, vector, req, fetch)

    async def _track(self, conn: Any, stale: builtins.list[int], now: int) -> None:
        """Record the recall time of records (seq numbers, ascending: rows are locked in that
        order, so concurrent recalls never deadlock; a record deleted meanwhile is skipped).
        One statement, its own transaction, committed without waiting for the WAL flush: a
        recall must not pay an fsync, and a crash can lose at most the last instant's recall
        times (which only makes ``no_recall_in_days`` slightly more eager), never a record."""
        if stale:
            await conn.execute(
                "INSERT INTO recalls (memory, at) SELECT m.seq, %s FROM memories m "
                "WHERE m.seq = ANY(%s) "
                "AND set_config('synchronous_commit', 'off', true) IS NOT NULL "
                "ORDER BY m.seq FOR KEY SHARE "
                "ON CONFLICT (memory) DO UPDATE SET at = excluded.at, times = recalls.times + 1",
                (now, stale),
            )

    # -- governance, health -----------------------------------------------------------

    async def _set_visible(
        self,
        agent_id: str,
        user_id: str | None,
        ids: builtins.list[str],
        from_state: str,
        operation: str,
    ) -> builtins.list[str]:
        if not ids:
            return []
        async with self._db.transaction(operation) as conn:
            done = await _changes.set_visible(
                conn, agent_id, user_id, ids, from_state, operation, self._clock()
            )
        self._sizes.changed([agent_id])
        return done

    async def _health_details(self) -> dict[str, Any]:
        return {
            **await self._db.facts(),
            "embedder": f"{self.embedder.name} ({self.embedder.dimension}-d)",
            "pool": self._db.stats(),
            "mnemowire": __version__,
        }


# -- helpers --------------------------------------------------------------------------------
