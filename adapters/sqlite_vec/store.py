"""The embedded default store: one SQLite file, sqlite-vec for vectors, FTS5 for keywords.

Recall is hybrid: the k' nearest vectors (vec0, cosine) and the k' best keyword matches (FTS5,
bm25) are fused by Reciprocal Rank Fusion (k=60, ranks from 1) and multiplied by each record's
demote factor. Every recall filter (agent, user, types, metadata, freshness, expiry) applies
inside both searches, before their top k', and only visible records are in either index, so a
small agent beside a huge one always gets its full k. Every operation is one transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import numpy as np

from mnemowire import spec
from mnemowire._version import __version__
from mnemowire._wire import checked, digest, now_ms
from mnemowire.adapters._common import (
    TYPE_FIELDS,
    EmbedderSetup,
    MergePlan,
    cutoff,
    expire_action,
    expire_conditions,
    forget_states,
    id_taken,
    new_id,
    recall_answer,
    same_writer,
    searchable_text,
    unexpired,
)
from mnemowire.adapters.sqlite_vec import _keywords
from mnemowire.adapters.sqlite_vec._accel import IndexCache
from mnemowire.adapters.sqlite_vec._driver import Driver, connect, find_driver
from mnemowire.adapters.sqlite_vec._filters import compile_filter
from mnemowire.adapters.sqlite_vec._schema import MIGRATIONS, NEVER, migrate, user_key
from mnemowire.embedders import Embedder, Vectors
from mnemowire.errors import (
    ConfigError,
    MnemowireError,
    NotFoundError,
    StoreError,
    UnavailableError,
)
from mnemowire.fusion import rrf
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
from mnemowire.protocol import QueryVector
from mnemowire.registry import integer, number, text, url_options

__all__ = ["CAPABILITIES", "SqliteVecStore"]

T = TypeVar("T")
#: how often, at most, recall tracking rewrites a record's last_recalled_at
RECALL_TRACKING_GRANULARITY_MS = 60_000
#: most recall times kept in memory while another connection holds the write lock
MAX_PENDING_RECALLS = 100_000
#: agents with an in-memory index of at most this many rows are recalled on the caller's thread
INLINE_RECALL_ROWS = 4_096
#: what the connection waits for another connection's lock, in ms (inline recall waits for none)
BUSY_TIMEOUT_MS = 10_000
#: what an erasure's WAL checkpoint waits for other connections' readers, in ms
SCRUB_WAIT_MS = 250
#: SQLite's page cache per connection, in KiB
CACHE_KIB = 32_768
CAPABILITIES = (
    "semantic", "episodic", "procedural", "emotional", "vector", "fts", "user_scope",
    "metadata_filter", "freshness", "expiry", "forget", "merge", "expire", "hard_delete",
    "governance", "recall_tracking", "demote", "archive", "relevance", "client_ids",
)  # fmt: skip
_COLUMNS = (
    "rowid, id, agent_id, user_id, type, content, metadata, confidence, source, created_at, "
    "updated_at, expires_at, event_time, location, participants, sentiment, valence, arousal, "
    "emotion, target, state, merged_into, demote, last_recalled_at"
)
_NAMES = tuple(c.strip() for c in _COLUMNS.split(","))
#: the options of a sqlite-vec:// URL, each with its parser
URL_OPTIONS = {
    "embedder": text,
    "name": text,
    "accelerate_above": integer(minimum=0),
    "index_budget_mb": number(minimum=0),
}
#: the same columns of ``memories AS m``
_M_COLUMNS = ", ".join(f"m.{name}" for name in _NAMES)


class SqliteVecStore:
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
    ) -> None:
        self.path = path
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
        self._driver: Driver = find_driver(driver)
        self._lock = threading.RLock()
        self._indexes = IndexCache(embedder.dimension, int(index_budget_mb * 2**20), NEVER)
        self._setup = EmbedderSetup(embedder)
        #: an erasure whose WAL checkpoint could not finish yet (see ``_scrub``)
        self._scrub_pending = False
        #: recall times not written yet, record id -> epoch ms (see ``_track_recalls``)
        self._recalled: dict[str, int] = {}
        #: keyword rows of the bulk write in progress (``_insert_many``), None otherwise
        self._keyword_rows: list[tuple[int, int]] | None = None
        self._closed = False
        with self._errors():
            self._db = connect(self._driver, path)
            self._configure()

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
        ``name``, ``accelerate_above``, ``index_budget_mb``. ``clock`` is the constructor's
        (epoch ms; the quality benchmark passes one to write memories in the past)."""
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
        )

    @property
    def name(self) -> str:
        return self._name

    async def __aenter__(self) -> SqliteVecStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._db.close()

    def capabilities(self) -> Capabilities:
        return Capabilities(
            store=self._name, spec_version=spec.LATEST, capabilities=list(CAPABILITIES)
        )

    # -- the five operations -----------------------------------------------------------------

    async def remember(self, request: RememberRequest | dict[str, Any]) -> RememberResponse:
        req, payload = checked("remember.request", request, RememberRequest)
        await self._setup()
        started = time.perf_counter()
        if req.id is not None:
            replay = await self._call(self._replay, req, started)
            if replay is not None:
                return replay
        vector = (await self._embed([searchable_text(req.type, req.content)]))[0]
        return await self._call(self._insert, req, payload, vector, started)

    async def recall(
        self,
        request: RecallRequest | dict[str, Any],
        *,
        query_vector: QueryVector | None = None,
    ) -> RecallResponse:
        req, _ = checked("recall.request", request, RecallRequest)
        await self._setup()
        started = time.perf_counter()
        if query_vector is not None and query_vector.embedder == self.embedder.name:
            vector = np.asarray(query_vector.vector, np.float32).reshape(-1)
        else:
            vector = (await self._embed([req.query]))[0]
        answer = self._recall_inline(req, vector, started)
        if answer is not None:
            return answer
        return await self._call(self._recall, req, vector, started)

    async def forget(self, request: ForgetRequest | dict[str, Any]) -> ForgetResponse:
        req, payload = checked("forget.request", request, ForgetRequest)
        return await self._call(self._forget, req, payload, time.perf_counter())

    async def merge(self, request: MergeRequest | dict[str, Any]) -> MergeResponse:
        req, payload = checked("merge.request", request, MergeRequest)
        await self._setup()
        started = time.perf_counter()
        plan = await self._call(self._plan_merge, req)
        if plan.new_text is not None:
            plan.vector = (await self._embed([plan.new_text]))[0]
        return await self._call(self._merge, req, payload, plan, started)

    async def expire(self, request: ExpireRequest | dict[str, Any]) -> ExpireResponse:
        req, payload = checked("expire.request", request, ExpireRequest)
        return await self._call(self._expire, req, payload, time.perf_counter())

    async def health(self) -> Health:
        started = time.perf_counter()
        try:
            details = await self._call(self._health_details)
        except MnemowireError as exc:
            return Health(store=self._name, status="down", details={"error": str(exc)})
        return Health(store=self._name, status="ok", latency_ms=_ms(started), details=details)

    # -- extras beyond the protocol ----------------------------------------------------------

    async def remember_many(
        self,
        requests: Sequence[RememberRequest | dict[str, Any]],
        *,
        batch_size: int = 64,
        vectors: Vectors | None = None,
    ) -> list[RememberResponse]:
        """Bulk import: every request is validated first (one bad request stores nothing),
        then content is embedded in batches and each batch is written in one transaction.

        ``vectors`` (one row per request, from this store's embedder) skips the embedding, for
        imports that already have them. A backend failure mid-import keeps earlier batches.
        """
        typed = [checked("remember.request", r, RememberRequest) for r in requests]
        if vectors is not None and vectors.shape != (len(typed), self.embedder.dimension):
            raise ValueError(
                f"vectors must have shape ({len(typed)}, {self.embedder.dimension}), "
                f"not {vectors.shape}"
            )
        responses: list[RememberResponse] = []
        await self._setup()
        for start in range(0, len(typed), batch_size):
            batch = typed[start : start + batch_size]
            started = time.perf_counter()
            if vectors is None:
                texts = [searchable_text(r.type, r.content) for r, _ in batch]
                embedded = await self._embed(texts)
            else:
                embedded = vectors[start : start + batch_size]
            responses.extend(await self._call(self._insert_many, batch, embedded, started))
        return responses

    async def approve(self, agent_id: str, ids: Sequence[str]) -> list[str]:
        """Governance: make staged (pending) writes of ``agent_id`` visible; returns the ids
        approved. Rejecting a staged write is forgetting it (docs/spec/v0.md#remember.pending)."""
        return await self._call(self._set_visible, agent_id, list(ids), "pending", "approve")

    async def restore(self, agent_id: str, ids: Sequence[str]) -> list[str]:
        """Bring archived records of ``agent_id`` back into recall; returns the ids restored."""
        return await self._call(self._set_visible, agent_id, list(ids), "archived", "restore")

    # -- plumbing ----------------------------------------------------------------------------

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking database step in a worker thread, one at a time per store.

        Cancelling the caller (a router's deadline, ``asyncio.timeout``) interrupts the step's
        SQL (``sqlite3_interrupt``: the running statement fails, the transaction rolls back),
        or keeps it from starting if it still waits for the store: the thread must not run on
        for seconds after nobody waits for it, holding the store from the next operation."""
        job = _Job()
        try:
            return await asyncio.to_thread(self._locked, fn, *args, job=job)
        except asyncio.CancelledError:
            job.cancel(self._db)
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
        if not self._lock.acquire(blocking=False):
            return None
        try:
            if (
                self._closed
                or req.filter  # a filter's cost grows with the agent: a worker thread can be
                # cancelled by the caller's deadline, the event loop's own thread cannot
                or not self._indexes.holds(req.agent_id, at_most=INLINE_RECALL_ROWS)
            ):
                return None
            self._db.execute("PRAGMA busy_timeout = 0")
            try:
                with self._errors():
                    return self._recall(req, vector, started)
            except UnavailableError:  # locked by another connection: wait in a worker thread
                return None
            finally:
                self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        finally:
            self._lock.release()

    def _locked(self, fn: Callable[..., T], *args: Any, job: _Job | None = None) -> T:
        with self._lock:
            if self._closed:
                raise UnavailableError(f"store {self._name} is closed")
            if job is not None and not job.start():
                raise UnavailableError(f"{self._name}: the operation was cancelled before it ran")
            try:
                with self._errors():
                    result = fn(*args)
                    if self._recalled:  # times a busy file kept from a recall: try again now
                        self._record_recalls()
                    if self._scrub_pending:
                        self._scrub()
                    return result
            finally:
                if job is not None:
                    job.finish()

    async def _embed(self, texts: list[str]) -> Vectors:
        vectors = await asyncio.to_thread(self.embedder.embed, texts)
        return np.ascontiguousarray(vectors, dtype=np.float32)

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Backend exceptions become mnemowire errors here, and only here."""
        try:
            yield
        except MnemowireError:
            raise
        except self._driver.module.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise UnavailableError(
                    f"{self._name}: database is locked by another writer; retry ({exc})"
                ) from exc
            raise StoreError(f"{self._name}: {exc}") from exc
        except self._driver.module.DatabaseError as exc:
            raise StoreError(f"{self._name}: {exc}") from exc

    @contextlib.contextmanager
    def _transaction(self, write: bool = True) -> Iterator[Any]:
        """One transaction: IMMEDIATE for writes (the write lock is taken up front, so two
        writers never deadlock upgrading), deferred for reads (a consistent WAL snapshot)."""
        self._db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _configure(self) -> None:
        db = self._db
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if self.path != ":memory:":
            db.execute("PRAGMA journal_mode = WAL")  # a no-op, taking no lock, once it is WAL
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA secure_delete = ON")  # erased content is overwritten, not left behind
        # 32 MiB of page cache instead of 2: the keyword index takes ~11 rows a record, and
        # with the default a 100k-record bulk load spent its time re-reading evicted pages
        db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        # A file already at the current layout opens in a read transaction: it must not wait
        # for another process's long write (WAL readers never do). Only a new or older file
        # takes the write lock, and checks again under it.
        with self._transaction(write=False) as tx:
            current = self._layout(tx)
        if current:
            return
        with self._transaction() as tx:
            migrate(tx, self.embedder.dimension)
            if not self._layout(tx):
                tx.executemany(
                    "INSERT INTO mnemowire_meta(key, value) VALUES (?, ?)",
                    [("embedder", self.embedder.name), ("dimension", str(self.embedder.dimension))],
                )

    def _layout(self, tx: Any) -> bool:
        """Whether the file is at the current layout with this store's embedder recorded
        (ConfigError when it was made with another embedder, or by a newer mnemowire)."""
        known = tx.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'mnemowire_meta'"
        ).fetchone()
        if known is None:
            return False
        stored = dict(tx.execute("SELECT key, value FROM mnemowire_meta").fetchall())
        version = int(stored.get("schema_version", 0))
        if version > len(MIGRATIONS):
            raise ConfigError(
                f"{self.path} has layout version {version}, made by a newer mnemowire than this "
                f"one (which knows {len(MIGRATIONS)}); upgrade mnemowire to open it"
            )
        if "embedder" in stored and (stored["embedder"], int(stored["dimension"])) != (
            self.embedder.name,
            self.embedder.dimension,
        ):
            raise ConfigError(
                f"{self.path} was made with embedder {stored['embedder']} "
                f"({stored['dimension']}-d); this store was opened with "
                f"{self.embedder.name} ({self.embedder.dimension}-d). Open it with the same "
                "embedder, or use another file."
            )
        return version == len(MIGRATIONS) and "embedder" in stored

    def _result(self, count: int, started: float) -> StoreResult:
        return StoreResult(store=self._name, status="ok", count=count, latency_ms=_ms(started))

    def _audit(
        self,
        tx: Any,
        operation: str,
        agent_id: str,
        ids: Sequence[str],
        payload: Any,
        *,
        detail: dict[str, Any] | None = None,
    ) -> None:
        tx.execute(
            "INSERT INTO audit_log(at, operation, agent_id, ids, request_sha256, detail) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                self._clock(),
                operation,
                agent_id,
                json.dumps(list(ids)),
                digest(payload),
                json.dumps(detail) if detail else None,
            ),
        )

    # -- index maintenance -------------------------------------------------------------------

    def _index_add(self, tx: Any, rowid: int, record: dict[str, Any], vector: Any) -> None:
        tx.execute(
            "INSERT INTO memories_vec(rowid, agent_id, embedding, user_key, type, created_at, "
            "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                rowid,
                record["agent_id"],
                _blob(vector),
                user_key(record["user_id"]),
                record["type"],
                record["created_at"],
                record["expires_at"] or NEVER,
            ),
        )
        text = searchable_text(record["type"], record["content"])
        rows = _keywords.rows_of(record["agent_id"], rowid, text)
        if self._keyword_rows is not None:  # a bulk write: inserted at the end, sorted
            self._keyword_rows.extend(rows)
        else:
            _keywords.insert(tx, rows)
        self._index_changed(tx, record["agent_id"], rowid, added=True)

    def _index_remove(self, tx: Any, rowid: int, agent_id: str) -> None:
        tx.execute("DELETE FROM memories_vec WHERE rowid = ?", (rowid,))
        _keywords.remove_record(tx, rowid)
        self._index_changed(tx, agent_id, rowid, added=False)

    def _index_changed(self, tx: Any, agent_id: str, rowid: int, *, added: bool) -> None:
        tx.execute(
            "INSERT INTO vec_changes(agent_id, record, added) VALUES (?, ?, ?)",
            (agent_id, rowid, int(added)),
        )
        tx.execute(
            "INSERT INTO agent_stats(agent_id, visible) VALUES (?, ?) "
            "ON CONFLICT(agent_id) DO UPDATE SET visible = visible + excluded.visible",
            (agent_id, 1 if added else -1),
        )

    # -- remember ----------------------------------------------------------------------------

    def _replay(self, req: RememberRequest, started: float) -> RememberResponse | None:
        with self._transaction(write=False) as tx:
            return self._existing(tx, req, started)

    def _existing(self, tx: Any, req: RememberRequest, started: float) -> RememberResponse | None:
        """The first write's response when ``req.id`` exists as the same writer's record
        (``same_writer``); ConflictError when it exists otherwise or was erased; None when the
        id was never used."""
        if req.id is None:
            return None
        row = tx.execute(
            "SELECT agent_id, user_id, type, content, created_at, state FROM memories WHERE id = ?",
            (req.id,),
        ).fetchone()
        if row is None:
            if tx.execute("SELECT 1 FROM erased WHERE id = ?", (req.id,)).fetchone():
                raise id_taken(req.id)
            return None
        *stored, created_at, state = row
        if not same_writer(tuple(stored), req):
            raise id_taken(req.id)
        return RememberResponse(
            id=req.id,
            stored_at=created_at,
            stores=[self._result(0, started)],
            pending_approval=state == "pending",
            replayed=True,
        )

    def _insert(
        self, req: RememberRequest, payload: dict[str, Any], vector: Any, started: float
    ) -> RememberResponse:
        with self._transaction() as tx:
            if req.id is not None:
                replay = self._existing(tx, req, started)
                if replay is not None:
                    return replay
            response = self._write_record(tx, req, payload, vector, started)
        return response

    def _insert_many(
        self, batch: list[tuple[RememberRequest, dict[str, Any]]], vectors: Vectors, started: float
    ) -> list[RememberResponse]:
        self._keyword_rows = []
        try:
            with self._transaction() as tx:
                out = []
                for (req, payload), vector in zip(batch, vectors, strict=True):
                    replay = self._existing(tx, req, started) if req.id is not None else None
                    out.append(replay or self._write_record(tx, req, payload, vector, started))
                # in key order, each leaf of the index is written once for the whole batch
                _keywords.insert(tx, sorted(self._keyword_rows))
        finally:
            self._keyword_rows = None
        return out

    def _write_record(
        self, tx: Any, req: RememberRequest, payload: dict[str, Any], vector: Any, started: float
    ) -> RememberResponse:
        now = self._clock()
        record = {
            "id": req.id or new_id(),
            "agent_id": req.agent_id,
            "user_id": req.user_id,
            "type": req.type,
            "content": req.content,
            "metadata": payload.get("metadata", {}),
            "confidence": req.confidence if req.confidence is not None else 1.0,
            "source": req.source,
            "created_at": now,
            "updated_at": now,
            "expires_at": req.expires_at,
            **{name: payload.get(name) for name in TYPE_FIELDS},
        }
        pending = bool(req.approval_required)
        cursor = tx.execute(
            "INSERT INTO memories(id, agent_id, user_id, type, content, metadata, confidence, "
            "source, created_at, updated_at, expires_at, event_time, location, participants, "
            "sentiment, valence, arousal, emotion, target, state, embedding) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record["id"],
                record["agent_id"],
                record["user_id"],
                record["type"],
                record["content"],
                json.dumps(record["metadata"]),
                record["confidence"],
                record["source"],
                now,
                now,
                record["expires_at"],
                record["event_time"],
                record["location"],
                None if record["participants"] is None else json.dumps(record["participants"]),
                record["sentiment"],
                record["valence"],
                record["arousal"],
                record["emotion"],
                record["target"],
                "pending" if pending else "active",
                _blob(vector),
            ),
        )
        if not pending:
            self._index_add(tx, cursor.lastrowid, record, vector)
        self._audit(
            tx,
            "remember",
            req.agent_id,
            [record["id"]],
            payload,
            detail={"pending": True} if pending else None,
        )
        return RememberResponse(
            id=record["id"],
            stored_at=now,
            stores=[self._result(1, started)],
            pending_approval=pending,
        )

    # -- recall ------------------------------------------------------------------------------

    def _recall(self, req: RecallRequest, vector: Any, started: float) -> RecallResponse:
        scope = _Scope.of(req, self._clock())
        k = req.k if req.k is not None else 5
        # each search over-fetches so fusion and demotion can reorder (twice k: past that, a
        # keyword match still enters through the keyword list; it only loses its vector rank)
        fetch = max(2 * k, 20)
        with self._transaction(write=False) as tx:
            nearest = self._vector_search(tx, scope, vector, fetch)
            keywords = self._keyword_search(tx, scope, req.query, fetch)
            fused = rrf([nearest, keywords])
            candidates = self._candidates(tx, list(fused), scope, vector)
            floor = req.min_relevance
            score = {
                rowid: fused[rowid] * demote
                for rowid, (demote, relevance) in candidates.items()
                if floor is None or relevance >= floor
            }
            top = sorted(score, key=lambda rowid: (-score[rowid], rowid))[:k]
            rows = self._rows(tx, top, scope)
        ranked = [rows[rowid] for rowid in top if rowid in rows]
        self._track_recalls(ranked, scope.now)
        return recall_answer(
            self._name,
            [(r, score[r["rowid"]], candidates[r["rowid"]][1]) for r in ranked],
            self._result(len(ranked), started),
        )

    def _vector_search(self, tx: Any, scope: _Scope, vector: Any, fetch: int) -> list[int]:
        """Record rowids nearest to ``vector`` among those in scope, nearest first."""
        visible = tx.execute(
            "SELECT visible FROM agent_stats WHERE agent_id = ?", (scope.agent_id,)
        ).fetchone()
        if visible is None or visible[0] == 0:
            return []
        index = None
        if visible[0] >= self._accelerate_above:
            index = self._indexes.get(tx, scope.agent_id, visible[0])
        if index is not None:
            only = None
            if scope.filter:
                only = {
                    r
                    for (r,) in tx.execute(
                        f"SELECT m.rowid FROM memories m WHERE {scope.sql}", scope.args
                    )
                }
            hits = index.search(
                vector,
                fetch,
                user_key=scope.user_key,
                types=list(scope.types),
                created_min=scope.created_min,
                now=scope.now,
                only=only,
            )
            return [rowid for rowid, _ in hits]
        if scope.filter:  # exact over the (small) filtered set: vec0 has no metadata column
            rows = tx.execute(
                f"SELECT m.rowid, m.embedding FROM memories m WHERE {scope.sql}", scope.args
            ).fetchall()
            if not rows:
                return []
            matrix = np.frombuffer(b"".join(blob for _, blob in rows), np.float32)
            similarity = matrix.reshape(len(rows), -1) @ vector
            rowids = np.array([rowid for rowid, _ in rows], np.int64)
            order = np.lexsort((rowids, -similarity))[:fetch]
            return [int(rowids[i]) for i in order]
        sql = (
            "SELECT rowid, distance FROM memories_vec WHERE embedding MATCH ? AND k = ? "
            "AND agent_id = ? AND expires_at > ?"
        )
        args: list[Any] = [_blob(vector), fetch, scope.agent_id, scope.now]
        if scope.user_key is not None:
            sql += " AND user_key = ?"
            args.append(scope.user_key)
        if scope.types:
            sql += f" AND type IN ({','.join('?' * len(scope.types))})"
            args.extend(scope.types)
        if scope.created_min is not None:
            sql += " AND created_at >= ?"
            args.append(scope.created_min)
        found = tx.execute(sql, args).fetchall()
        return [rowid for rowid, _ in sorted(found, key=lambda row: (row[1], row[0]))]

    def _keyword_search(self, tx: Any, scope: _Scope, query: str, fetch: int) -> list[int]:
        """Record rowids holding the query's rare words among those in scope (``_keywords``)."""
        visible = tx.execute(
            "SELECT visible FROM agent_stats WHERE agent_id = ?", (scope.agent_id,)
        ).fetchone()
        documents = 0 if visible is None else int(visible[0])
        return _keywords.keyword_search(
            tx, scope.agent_id, documents, query, fetch, where=(scope.sql, scope.args)
        )

    def _candidates(
        self, tx: Any, rowids: list[int], scope: _Scope, vector: Any
    ) -> dict[int, tuple[float, float]]:
        """(demote factor, relevance) of each candidate still in scope (the scope is re-checked
        here). Relevance is the cosine similarity of query and memory: vectors are unit length,
        so a dot product."""
        if not rowids:
            return {}
        placeholders = ",".join("?" * len(rowids))
        rows = tx.execute(
            f"SELECT m.rowid, m.demote, m.embedding FROM memories AS m NOT INDEXED "
            f"WHERE m.rowid IN ({placeholders}) AND {scope.sql}",
            [*rowids, *scope.args],
        ).fetchall()
        if not rows:
            return {}
        matrix = np.frombuffer(b"".join(blob for _, _, blob in rows), np.float32)
        relevance = matrix.reshape(len(rows), -1) @ vector
        return {
            rowid: (demote, max(-1.0, min(1.0, float(sim))))
            for (rowid, demote, _), sim in zip(rows, relevance, strict=True)
        }

    def _rows(self, tx: Any, rowids: list[int], scope: _Scope) -> dict[int, dict[str, Any]]:
        """Full records for rowids, re-checked against the scope (belt and braces)."""
        if not rowids:
            return {}
        placeholders = ",".join("?" * len(rowids))
        rows = tx.execute(
            f"SELECT {_M_COLUMNS} FROM memories AS m NOT INDEXED "
            f"WHERE m.rowid IN ({placeholders}) "
            f"AND {scope.sql}",
            [*rowids, *scope.args],
        ).fetchall()
        return {row[0]: _record(row) for row in rows}

    def _track_recalls(self, records: list[dict[str, Any]], now: int) -> None:
        """Remember when records were last returned, without a write per read and without
        waiting for another writer ([recall.tracking]): a time less than the granularity old is
        not rewritten, and when another connection holds the write lock the times wait in
        memory until this store's next operation (or its next expire) records them."""
        for record in records:
            if (record["last_recalled_at"] or 0) < now - RECALL_TRACKING_GRANULARITY_MS:
                self._recalled[record["id"]] = now
        if self._recalled:
            self._record_recalls()

    def _record_recalls(self) -> None:
        """Write the recall times waiting in memory, unless another connection is writing: then
        they stay (bounded by MAX_PENDING_RECALLS: past that the oldest are dropped, which only
        makes ``no_recall_in_days`` more eager for them)."""
        self._db.execute("PRAGMA busy_timeout = 0")
        try:
            with self._transaction() as tx:
                self._apply_recalls(tx)
        except self._driver.module.OperationalError as exc:
            if not ("locked" in str(exc) or "busy" in str(exc)):
                raise
            while len(self._recalled) > MAX_PENDING_RECALLS:
                self._recalled.pop(next(iter(self._recalled)))
        finally:
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def _apply_recalls(self, tx: Any) -> None:
        """The waiting recall times, written in ``tx`` (a write transaction); by record id,
        which is never reused (a rowid can be)."""
        tx.executemany(
            "UPDATE memories SET last_recalled_at = max(coalesce(last_recalled_at, 0), ?) "
            "WHERE id = ?",
            [(at, record_id) for record_id, at in sorted(self._recalled.items())],
        )
        self._recalled.clear()

    # -- forget ------------------------------------------------------------------------------

    def _forget(
        self, req: ForgetRequest, payload: dict[str, Any], started: float
    ) -> ForgetResponse:
        hard = bool(req.hard_delete)
        states = forget_states(hard, named=req.ids is not None)
        sql = (
            f"SELECT m.rowid, m.id, m.state FROM memories m WHERE m.agent_id = ? "
            f"AND m.state IN ({','.join('?' * len(states))})"
        )
        args: list[Any] = [req.agent_id, *states]
        if req.user_id is not None:
            sql += " AND m.user_id = ?"
            args.append(req.user_id)
        if req.ids:
            sql += f" AND m.id IN ({','.join('?' * len(req.ids))})"
            args.extend(req.ids)
        if payload.get("filter"):
            filter_sql, filter_args = compile_filter(payload["filter"])
            sql += f" AND {filter_sql}"
            args.extend(filter_args)
        now = self._clock()
        with self._transaction() as tx:
            targets = tx.execute(sql + " ORDER BY m.rowid", args).fetchall()
            ids = [record_id for _, record_id, _ in targets]
            absorbed = self._merged_into(tx, req.agent_id, ids) if hard else []
            for rowid, _, state in [*targets, *absorbed]:
                if state == "active":
                    self._index_remove(tx, rowid, req.agent_id)
                if hard:
                    tx.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
                else:
                    tx.execute(
                        "UPDATE memories SET state = 'deleted', updated_at = ? WHERE rowid = ?",
                        (now, rowid),
                    )
            detail: dict[str, Any] = {"hard_delete": hard}
            if hard:
                erased = [*ids, *(record_id for _, record_id, _ in absorbed)]
                tx.executemany(
                    "INSERT OR IGNORE INTO erased(id) VALUES (?)", [(i,) for i in erased]
                )
                if absorbed:
                    detail["erased_with"] = [record_id for _, record_id, _ in absorbed]
            if req.reason is not None:
                detail["reason"] = req.reason
            self._audit(tx, "forget", req.agent_id, ids, payload, detail=detail)
        if hard:
            self._scrub()
        return ForgetResponse(
            forgotten_ids=ids,
            stores=[self._result(len(ids), started)],
            hard_delete=hard,
            pending_approval=False,
        )

    def _scrub(self) -> None:
        """After an erasure: checkpoint the write-ahead log into the file and truncate it, so the
        erased bytes leave the WAL too (``secure_delete`` zeroes them in every page written
        after the delete; the WAL still holds the page versions written before it). A reader in
        another connection can keep the checkpoint from finishing: then it is retried after
        every later write until it does (docs/adapters/sqlite-vec.md, "Erasure")."""
        if self.path == ":memory:":
            return
        self._db.execute(f"PRAGMA busy_timeout = {SCRUB_WAIT_MS}")
        try:
            busy, _, _ = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self._scrub_pending = bool(busy)

    def _merged_into(self, tx: Any, agent_id: str, ids: list[str]) -> list[tuple[Any, ...]]:
        """Every record merged into one of ``ids``, directly or through earlier merges (their
        content lives on in the canonical's history): erased with it ([forget.soft])."""
        if not ids:
            return []
        return list(
            tx.execute(
                "WITH RECURSIVE absorbed(id) AS ("
                f"SELECT id FROM memories WHERE agent_id = ? AND state = 'merged' "
                f"AND merged_into IN ({','.join('?' * len(ids))}) "
                "UNION SELECT m.id FROM memories m JOIN absorbed a ON m.merged_into = a.id "
                "WHERE m.agent_id = ? AND m.state = 'merged') "
                "SELECT m.rowid, m.id, m.state FROM memories m JOIN absorbed a ON m.id = a.id "
                f"WHERE m.id NOT IN ({','.join('?' * len(ids))}) ORDER BY m.rowid",
                [agent_id, *ids, agent_id, *ids],
            )
        )

    # -- merge -------------------------------------------------------------------------------

    def _plan_merge(self, req: MergeRequest) -> MergePlan:
        MergePlan.refuse_self_merge(req)
        with self._transaction(write=False) as tx:
            records = self._visible(tx, req.agent_id, [req.canonical, *req.duplicates])
        return MergePlan.of(req, records)

    def _visible(self, tx: Any, agent_id: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        rows = tx.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE agent_id = ? AND state = 'active' "
            f"AND {unexpired('')} ? AND id IN ({','.join('?' * len(ids))})",
            [agent_id, self._clock(), *ids],
        ).fetchall()
        found = {row[1]: _record(row) for row in rows}
        if len(found) != len(set(ids)):
            raise NotFoundError(
                "merge needs the canonical record and every duplicate to be "
                f"visible records of agent {agent_id!r}; at least one is not"
            )
        return found

    def _merge(
        self,
        req: MergeRequest,
        payload: dict[str, Any],
        plan: MergePlan,
        started: float,
    ) -> MergeResponse:
        vector = plan.vector
        now = self._clock()
        with self._transaction() as tx:
            current = self._visible(tx, req.agent_id, [req.canonical, *req.duplicates])
            plan.check_unchanged(current)
            canonical = current[req.canonical]
            if plan.update:
                tx.execute(
                    "UPDATE memories SET content = ?, confidence = ?, metadata = ?, "
                    "updated_at = ?, embedding = coalesce(?, embedding) WHERE rowid = ?",
                    (
                        plan.update["content"],
                        plan.update["confidence"],
                        json.dumps(plan.update["metadata"]),
                        now,
                        None if vector is None else _blob(vector),
                        canonical["rowid"],
                    ),
                )
                if vector is not None:
                    self._index_remove(tx, canonical["rowid"], req.agent_id)
                    self._index_add(tx, canonical["rowid"], {**canonical, **plan.update}, vector)
            else:
                tx.execute(
                    "UPDATE memories SET updated_at = ? WHERE rowid = ?", (now, canonical["rowid"])
                )
            for duplicate in req.duplicates:
                record = current[duplicate]
                self._index_remove(tx, record["rowid"], req.agent_id)
                tx.execute(
                    "UPDATE memories SET state = 'merged', merged_into = ?, updated_at = ? "
                    "WHERE rowid = ?",
                    (req.canonical, now, record["rowid"]),
                )
            self._audit(
                tx,
                "merge",
                req.agent_id,
                [req.canonical, *req.duplicates],
                payload,
                detail={"strategy": plan.strategy},
            )
        return MergeResponse(
            canonical=req.canonical,
            merged_count=len(req.duplicates),
            strategy_used=plan.strategy,
            stores=[self._result(1 + len(req.duplicates), started)],
        )

    # -- expire ------------------------------------------------------------------------------

    def _expire(
        self, req: ExpireRequest, payload: dict[str, Any], started: float
    ) -> ExpireResponse:
        now = self._clock()
        sql = f"SELECT {_COLUMNS} FROM memories WHERE agent_id = ? AND state = 'active'"
        args: list[Any] = [req.agent_id]
        for condition, value in expire_conditions(
            req, now, column="", last_recalled="last_recalled_at"
        ):
            sql += f" AND {condition} ?"
            args.append(value)
        action, factor = expire_action(req)
        with self._transaction() as tx:
            self._apply_recalls(tx)  # no_recall_in_days reads them
            matched = [_record(row) for row in tx.execute(sql + " ORDER BY rowid", args)]
            for record in matched:
                if action == "demote":
                    tx.execute(
                        "UPDATE memories SET demote = ? WHERE rowid = ?", (factor, record["rowid"])
                    )
                    continue
                self._index_remove(tx, record["rowid"], req.agent_id)
                state = "deleted" if action == "forget" else "archived"
                tx.execute(
                    "UPDATE memories SET state = ?, updated_at = ? WHERE rowid = ?",
                    (state, now, record["rowid"]),
                )
            ids = [r["id"] for r in matched]
            self._audit(tx, "expire", req.agent_id, ids, payload, detail={"action": action})
        return ExpireResponse(
            matched_count=len(ids),
            action_taken=action,
            matched_ids=ids,
            stores=[self._result(len(ids), started)],
        )

    # -- governance and restore --------------------------------------------------------------

    def _set_visible(
        self, agent_id: str, ids: list[str], from_state: str, operation: str
    ) -> list[str]:
        if not ids:
            return []
        now = self._clock()
        with self._transaction() as tx:
            rows = tx.execute(
                f"SELECT {_COLUMNS}, embedding FROM memories WHERE agent_id = ? AND state = ? "
                f"AND id IN ({','.join('?' * len(ids))}) ORDER BY rowid",
                [agent_id, from_state, *ids],
            ).fetchall()
            for row in rows:
                record = _record(row[:-1])
                tx.execute(
                    "UPDATE memories SET state = 'active', updated_at = ? WHERE rowid = ?",
                    (now, record["rowid"]),
                )
                self._index_add(tx, record["rowid"], record, np.frombuffer(row[-1], np.float32))
            done = [row[1] for row in rows]
            self._audit(tx, operation, agent_id, done, {"agent_id": agent_id, "ids": ids})
        return done

    def _health_details(self) -> dict[str, Any]:
        with self._transaction(write=False) as tx:
            counts = dict(tx.execute("SELECT state, count(*) FROM memories GROUP BY state"))
            vec_version = tx.execute("SELECT vec_version()").fetchone()[0]
            schema = tx.execute(
                "SELECT value FROM mnemowire_meta WHERE key = 'schema_version'"
            ).fetchone()[0]
        return {
            "sqlite": f"{self._driver.sqlite_version} ({self._driver.name})",
            "sqlite_vec": vec_version,
            "schema_version": int(schema),
            "embedder": f"{self.embedder.name} ({self.embedder.dimension}-d)",
            "path": self.path,
            "records": counts,
            "indexed_agents": self._indexes.agents,
            "index_mb": round(self._indexes.used / 2**20, 3),
            "mnemowire": __version__,
        }


# -- helpers --------------------------------------------------------------------------------


class _Job:
    """One database step on its way through ``_call``: waiting for the store, running, done or
    cancelled. Its state changes under a lock of its own, so a cancellation interrupts the SQL
    only of the step that is running, never of the next one."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._state = "waiting"

    def start(self) -> bool:
        """Called by the worker holding the store: False if the caller gave up meanwhile."""
        with self._guard:
            if self._state == "cancelled":
                return False
            self._state = "running"
            return True

    def finish(self) -> None:
        with self._guard:
            self._state = "done"

    def cancel(self, connection: Any) -> None:
        with self._guard:
            if self._state == "running":
                connection.interrupt()
            if self._state != "done":
                self._state = "cancelled"


@dataclass(frozen=True)
class _Scope:
    """Which records a recall may see, as values and as a WHERE clause over ``memories m``."""

    agent_id: str
    user_id: str | None
    types: tuple[str, ...]
    created_min: int | None
    now: int
    filter: dict[str, Any] | None
    sql: str
    args: tuple[Any, ...]

    @property
    def user_key(self) -> str | None:
        return None if self.user_id is None else user_key(self.user_id)

    @classmethod
    def of(cls, req: RecallRequest, now: int) -> _Scope:
        wire = req.model_dump(mode="json", by_alias=True, exclude_unset=True)
        spec_filter = wire.get("filter") or None
        types = tuple(wire.get("types") or ())
        created_min = cutoff(now, req.fresher_than_days)
        sql = "m.agent_id = ? AND m.state = 'active' AND (m.expires_at IS NULL OR m.expires_at > ?)"
        args: list[Any] = [req.agent_id, now]
        if req.user_id is not None:
            sql += " AND m.user_id = ?"
            args.append(req.user_id)
        if types:
            sql += f" AND m.type IN ({','.join('?' * len(types))})"
            args.extend(types)
        if created_min is not None:
            sql += " AND m.created_at >= ?"
            args.append(created_min)
        if spec_filter:
            filter_sql, filter_args = compile_filter(spec_filter)
            sql += f" AND {filter_sql}"
            args.extend(filter_args)
        return cls(
            req.agent_id, req.user_id, types, created_min, now, spec_filter, sql, tuple(args)
        )


def _record(row: Sequence[Any]) -> dict[str, Any]:
    record = dict(zip(_NAMES, row, strict=True))
    record["metadata"] = json.loads(record["metadata"])
    if record["participants"] is not None:
        record["participants"] = json.loads(record["participants"])
    return record


def _blob(vector: Any) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
