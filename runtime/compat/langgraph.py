"""A LangGraph ``BaseStore`` over any mnemowire store: LangGraph's long-term memory, typed,
governed and portable, behind the ``put``/``get``/``search`` a graph already calls.

>>> from mnemowire.compat.langgraph import MnemowireStore               # doctest: +SKIP
>>> store = MnemowireStore("sqlite-vec://memory.db", agent="assistant")
>>> store.put(("memories", "alice"), "tea", {"text": "Alice likes tea"})
>>> store.search(("memories", "alice"), query="what does Alice drink?")[0].value
{'text': 'Alice likes tea'}
>>> graph = builder.compile(store=store)        # nodes get it as `store` or `runtime.store`

One store is one mnemowire agent (``agent=``); an item is a record of it (its layout:
:mod:`mnemowire.compat._langgraph_shapes`). ``user_label=N`` makes the namespace's label at
position N the record's ``user_id`` (``("memories", "{user_id}")``: ``user_label=1``), so
mnemowire's per-user operations (``scopes``, a forget by user, the reviewer's view) see
LangGraph's users. ``index={"fields": [...]}`` says which fields of a value are embedded
(default: the whole value), by the store's embedder, or by LangGraph's own ``embed`` (with
``dims``) when the index names one; every put is embedded unless it says ``index=False``.
TTLs are the records' ``expires_at``, refreshed on read as LangGraph's ``ttl`` config says.

The store runs every operation on an event loop of its own, in a thread, so the same store
serves a graph's sync nodes (from any thread) and async ones (from any loop) at once.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Coroutine, Iterable, Sequence
from concurrent.futures import CancelledError, Future
from typing import Any, TypeVar

import numpy as np

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        ListNamespacesOp,
        MatchCondition,
        NotProvided,
        Op,
        PutOp,
        Result,
        SearchOp,
        TTLConfig,
        validate_op_namespace,
    )
    from langgraph.store.base.embed import ensure_embeddings
except ImportError as exc:  # pragma: no cover (the extra is installed where tests run)
    raise ImportError(
        f"mnemowire.compat.langgraph needs langgraph ({exc}): pip install 'mnemowire[langgraph]'"
    ) from exc

from mnemowire.compat._hits import hit_score
from mnemowire.compat._langgraph_shapes import (
    INDEXED,
    KEY,
    TTL,
    base_id,
    content_of,
    item_of,
    matches,
    metadata_of,
    namespace_filter,
    namespace_of,
    value_filter,
    value_of,
)
from mnemowire.embedders import Embedder, Vectors
from mnemowire.errors import ConflictError
from mnemowire.filters import matches as matches_filter
from mnemowire.kit import embed
from mnemowire.layers.memory import Memory
from mnemowire.layers.validating import request_bound
from mnemowire.models import MemoryRecord
from mnemowire.protocol import QueryEmbedding

__all__ = ["MnemowireStore"]

T = TypeVar("T")


class _LoopThread:
    """An event loop in a daemon thread that owns the store's connections: coroutines from
    any thread or loop run there, one loop, as the store's pools need."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="mnemowire-langgraph", daemon=True
        )
        self._thread.start()

    def submit(self, work: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(work, self.loop)

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        if threading.current_thread() is self._thread:
            work.close()
            raise RuntimeError("a store operation cannot wait for itself on the store's loop")
        return self.submit(work).result()

    async def arun(self, work: Coroutine[Any, Any, T]) -> T:
        return await asyncio.wrap_future(self.submit(work))

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


class IndexEmbedder:
    """LangGraph's ``index["embed"]`` (a LangChain ``Embeddings``, a function of texts, sync or
    async, or a provider string) as the store's embedder, its vectors made unit length as
    every mnemowire embedder's are. Named by the model it was given, so the store refuses to
    reopen its database with another."""

    def __init__(self, index: IndexConfig) -> None:
        if "dims" not in index:
            raise ValueError("index['embed'] needs index['dims'], the vectors' dimension")
        given = index["embed"]
        self._embeddings = ensure_embeddings(given)
        #: LangGraph wraps an async function alone with no sync path
        self._async_only = inspect.iscoroutinefunction(given)
        self._dimension = int(index["dims"])
        model = given if isinstance(given, str) else getattr(given, "__qualname__", None)
        model = model or type(given).__qualname__
        self._name = f"langgraph-index:{model}/{self._dimension}"

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        if self._async_only:  # stores embed in a worker thread: no loop runs here
            rows = asyncio.run(self._embeddings.aembed_documents(list(texts)))
        else:
            rows = self._embeddings.embed_documents(list(texts))
        vectors = np.asarray(rows, dtype=np.float32).reshape(len(texts), self._dimension)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: Vectors = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
        return unit


class MnemowireStore(BaseStore):
    """LangGraph's ``BaseStore`` over a mnemowire store URL (see the module's docstring)."""

    supports_ttl: bool = True

    def __init__(
        self,
        store: str | Sequence[str] | None = None,
        *,
        agent: str = "langgraph",
        user_label: int | None = None,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        hard_delete: bool = False,
    ) -> None:
        self.agent = agent
        self.user_label = user_label
        self.fields: list[str] = list((index or {}).get("fields") or ["$"])
        self.ttl_config = ttl
        self.hard_delete = hard_delete
        self._sweeper: Future[None] | None = None
        embedder = None if index is None or "embed" not in index else IndexEmbedder(index)
        self._thread = _LoopThread()
        try:
            self.memory = self._thread.run(self._open(store, embedder))
        except BaseException:
            self._thread.stop()
            raise
        #: the most hits one recall returns (the spec's maximum of ``k``)
        self._deepest = request_bound("recall.request", "k", version=self.memory.version)

    @staticmethod
    async def _open(store: str | Sequence[str] | None, embedder: IndexEmbedder | None) -> Memory:
        return Memory.open(store, embedder=embedder)  # on the store's loop: its pools are its

    def close(self) -> None:
        """Close the store and its loop (a graph's process may also just exit)."""
        self.stop_ttl_sweeper()
        self._thread.run(self.memory.aclose())
        self._thread.stop()

    def __enter__(self) -> MnemowireStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> MnemowireStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.stop_ttl_sweeper)
        await self._thread.arun(self.memory.aclose())
        await asyncio.to_thread(self._thread.stop)

    # -- TTL: expired records are hidden at once; a sweep forgets them --------------------

    def sweep_ttl(self) -> int:
        """Forget every item whose TTL has run out (reads already skip them); how many."""
        return self._thread.run(self._sweep())

    async def asweep_ttl(self) -> int:
        return await self._thread.arun(self._sweep())

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> Future[None]:
        """Sweep every ``sweep_interval_minutes`` (default: the ttl config's) until stopped;
        a finished future when there is nothing to sweep by."""
        minutes = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes")
        if not minutes:
            done: Future[None] = Future()
            done.set_result(None)
            return done
        self.stop_ttl_sweeper()
        self._sweeper = self._thread.submit(self._sweeping(float(minutes) * 60))
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper; whether it has stopped within ``timeout`` seconds."""
        sweeper, self._sweeper = self._sweeper, None
        if sweeper is None or sweeper.done():
            return True
        sweeper.cancel()
        try:
            sweeper.result(timeout)
        except CancelledError:
            return True
        except TimeoutError:
            return False
        return True

    async def _sweeping(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            await self._sweep()

    async def _sweep(self) -> int:
        expired = [r.id for r in await self._list({}, None, None, states=["expired"])]
        request = {"agent_id": self.agent, "hard_delete": self.hard_delete}
        await self.memory.forget_many(expired, request)
        return len(expired)

    # -- BaseStore ------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self._thread.run(self._batch(_checked(ops)))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await self._thread.arun(self._batch(_checked(ops)))

    async def _batch(self, ops: list[Op]) -> list[Result]:
        """Each op in order (a get after a put of the same key sees it)."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(await self._get(op))
            elif isinstance(op, PutOp):
                await self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(await self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(await self._list_namespaces(op))
            else:
                raise TypeError(f"unknown store operation {type(op).__name__}")
        return results

    # -- the operations -------------------------------------------------------------------

    async def _get(self, op: GetOp) -> Any:
        record = await self._find(op.namespace, op.key)
        if record is None:
            return None
        if self._refreshing(op.refresh_ttl):
            record = await self._refresh(record)
        return item_of(record, search=False)

    async def _put(self, op: PutOp) -> None:
        """An upsert. A new key is written under its first id in one call; when that id is
        taken (the item exists, or a deleted one had it: ids are never reused, and resending
        a deleted write only replays it), the item is found and changed, or written anew."""
        if op.value is None:
            found = await self._find(op.namespace, op.key)
            if found is not None:
                await self.memory.forget(found.id, agent=self.agent, hard_delete=self.hard_delete)
            return
        fields = None if op.index is False else (op.index or self.fields)
        content, indexed = content_of(op.value, fields)
        ttl = self._ttl(op.ttl)
        metadata = metadata_of(op.namespace, op.key, op.value, indexed, ttl)
        expires = None if ttl is None else _now_ms() + int(ttl * 60_000)
        request: dict[str, Any] = {
            "agent_id": self.agent,
            "type": "semantic",
            "content": content,
            "metadata": metadata,
        }
        user = self._user(op.namespace)
        if user is not None:
            request["user_id"] = user
        if expires is not None:
            request["expires_at"] = expires
        try:
            first = await self.memory.remember({**request, "id": base_id(op.namespace, op.key)})
        except ConflictError:  # a conflict is found before anything is embedded
            first = None
        if first is not None and not first.replayed:
            return
        found = await self._find(op.namespace, op.key)
        if found is not None:
            await self._rewrite(found, content, metadata, expires)
        else:
            await self.memory.remember(request)

    async def _rewrite(
        self, record: MemoryRecord, content: str, metadata: dict[str, Any], expires: int | None
    ) -> None:
        request: dict[str, Any] = {
            "agent_id": self.agent,
            "id": record.id,
            "expected_version": record.version or 1,
            "content": content,
            "metadata": metadata,
        }
        if expires is not None:
            request["expires_at"] = expires
        await self.memory.update(request)

    async def _search(self, op: SearchOp) -> list[Any]:
        native, rest = value_filter(op.filter)
        condition = {**namespace_filter(op.namespace_prefix, exact=False), **native}
        user = self._user(op.namespace_prefix)
        wanted = op.offset + op.limit
        # conditions only Python can judge: every candidate is read, then judged
        most = None if rest else wanted
        if op.query and wanted:
            ranked = self._deepest if rest else wanted
            found = await self._ranked(op.query, condition, user, ranked)
            found = [(score, r) for score, r in found if _kept(r, rest)]
            if len(found) < wanted:  # as LangGraph: the unindexed after the ranked
                unindexed = await self._list({**condition, INDEXED: False}, user, most)
                found += [(None, r) for r in unindexed if _kept(r, rest)]
        else:
            listed = await self._list(condition, user, most) if wanted else []
            found = [(None, r) for r in listed if _kept(r, rest)]
        page = found[op.offset : wanted]
        if self._refreshing(op.refresh_ttl):
            page = [(score, await self._refresh(r)) for score, r in page]
        return [item_of(record, score, search=True) for score, record in page]

    async def _ranked(
        self, query: str, condition: dict[str, Any], user: str | None, wanted: int
    ) -> list[tuple[float | None, Any]]:
        """The indexed records that best answer ``query``, by score (the relevance, cosine
        similarity, where the store measures it) as LangGraph ranks them.

        A metadata filter makes a store scan its filtered set, so the user's (or the agent's)
        nearest are asked first and checked here; only when one of them lies outside the
        namespace or the filter is the filtered search run."""
        scope = {**condition, INDEXED: True}
        request: dict[str, Any] = {
            "agent_id": self.agent,
            "query": query,
            "k": min(wanted, self._deepest),
        }
        if user is not None:
            request["user_id"] = user
        # a user's items mostly share their namespace: their search embeds the query itself
        # (the usual case pays nothing); an agent-wide one is likelier to fall back, so the
        # query is embedded once for both
        vector = None if user is not None else await self._query_vector(query)
        hits = (await self.memory.recall(request, query_vector=vector)).results
        if not all(matches_filter(hit.metadata or {}, scope) for hit in hits):
            filtered = {**request, "filter": scope}
            hits = (await self.memory.recall(filtered, query_vector=vector)).results
        ranked = [(hit_score(hit), hit) for hit in hits]
        return sorted(ranked, key=lambda pair: -(pair[0] or 0.0))

    async def _query_vector(self, query: str) -> QueryEmbedding | None:
        """The query embedded once, by the store's embedder, for both searches (None for a
        store with no embedder of its own, as a router, which embeds it itself)."""
        embedder = getattr(self.memory.store, "embedder", None)
        if not isinstance(embedder, Embedder):
            return None
        return QueryEmbedding(embedder.name, (await embed(embedder, [query]))[0])

    async def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        """Every namespace holding an item, matching the op's conditions, cut to its
        ``max_depth``, sorted; read from the records (paged), as no index lists them."""
        seen: set[tuple[str, ...]] = set()
        for record in await self._list({}, None, None):
            namespace = namespace_of(record.metadata or {})
            if all(_matches(namespace, c) for c in op.match_conditions or ()):
                seen.add(namespace if op.max_depth is None else namespace[: op.max_depth])
        return sorted(seen)[op.offset : op.offset + op.limit]

    # -- helpers --------------------------------------------------------------------------

    async def _find(self, namespace: tuple[str, ...], key: str) -> MemoryRecord | None:
        """The item's record: by its first id (one indexed read), else by its metadata (a key
        written again after a delete); the newest if writers raced."""
        got = await self.memory.get(base_id(namespace, key), agent=self.agent)
        if got.records:
            return got.records[0]
        condition = {**namespace_filter(namespace, exact=True), KEY: key}
        found = await self._list(condition, self._user(namespace), 1)
        return found[0] if found else None

    async def _list(
        self,
        condition: dict[str, Any],
        user: str | None,
        most: int | None,
        *,
        states: Sequence[str] = ("active",),
    ) -> list[MemoryRecord]:
        """Records matching ``condition``, newest first, up to ``most`` (None: all)."""
        request: dict[str, Any] = {"agent_id": self.agent, "states": list(states)}
        if condition:
            request["filter"] = condition
        if user is not None:
            request["user_id"] = user
        return await self.memory.list_all(request, most=most)

    def _user(self, namespace: Sequence[str]) -> str | None:
        if self.user_label is None or len(namespace) <= self.user_label:
            return None
        return namespace[self.user_label]

    def _ttl(self, ttl: float | NotProvided | None) -> float | None:
        if isinstance(ttl, NotProvided):
            return (self.ttl_config or {}).get("default_ttl")
        return ttl

    def _refreshing(self, asked: bool | None) -> bool:
        """Whether a read starts its items' TTLs again: when the op asks (``BaseStore`` fills
        it in from the config) and the config's ``refresh_on_read`` is on, as LangGraph's
        SQL stores read it."""
        return bool(asked) and bool((self.ttl_config or {}).get("refresh_on_read", False))

    async def _refresh(self, record: MemoryRecord) -> MemoryRecord:
        """The record with its TTL started again, when it has one (a write that lost to
        another is left to that one)."""
        ttl = (record.metadata or {}).get(TTL)
        if ttl is None:
            return record
        request = {
            "agent_id": self.agent,
            "id": record.id,
            "expected_version": record.version or 1,
            "expires_at": _now_ms() + int(float(ttl) * 60_000),
        }
        try:
            changed = await self.memory.update(request)
        except ConflictError:
            return record
        return record.model_copy(
            update={
                "expires_at": request["expires_at"],
                "version": changed.version,
                "updated_at": changed.updated_at,
            }
        )


def _kept(record: Any, rest: dict[str, Any]) -> bool:
    return not rest or matches(value_of(record.metadata or {}), rest)


def _checked(ops: Iterable[Op]) -> list[Op]:
    """Every op's namespace checked as LangGraph's own methods check it, before any runs: a
    batch with one bad op changes nothing."""
    listed = list(ops)
    for op in listed:
        validate_op_namespace(op)
    return listed


def _matches(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if not path:
        return True
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(want in ("*", got) for want, got in zip(path, part, strict=True))


def _now_ms() -> int:
    return int(time.time() * 1000)
