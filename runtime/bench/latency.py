"""Latency of one store, and of two of them fused by a MemoryRouter, on the quality corpus.

What an application waits for, through the Memory facade (request and response validated):

- **ingest**: one ``remember`` per corpus memory (310, all four types, short and long), with
  its embedding, so a write's cost includes the model;
- **recall**: every corpus query (165, k = 5, filters as written) ``rounds`` times over the
  loaded store, the query's embedding included;
- **recall, search only**: the same recalls with the query already embedded (``QueryVector``),
  which is what the store itself costs;
- **overhead**: in each search-only recall, the time no store was working: the facade's
  validation of request and response, and for the router its planning, checking each store's
  answer and fusion. It is the wall time minus the time covered by the stores' ``recall``
  calls (their union: stores may run one after the other or side by side), measured by
  wrapping each store; a store's check of its own request is its own time;
- **embed**: the embedder alone on each query text, for scale.

Fused runs the same workload through a MemoryRouter over two fresh instances of the store
(default RRF fusion). The router embeds each query once and sends the vector to both; each
child embeds a remember itself, so fused ingest pays the model twice. A few untimed operations
warm each setup first (model load, first transactions).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from typing import Any, TypeVar

from mnemowire.bench._stores import OpenedStore, opened
from mnemowire.bench._timing import load_average, percentiles
from mnemowire.bench.quality import CorpusMemory, LabelledQuery, load_corpus, load_queries
from mnemowire.embedders import Embedder
from mnemowire.memory import Memory
from mnemowire.models import RecallRequest, RecallResponse
from mnemowire.protocol import MemoryStore, QueryVector
from mnemowire.router import MemoryRouter

__all__ = ["run_latency"]

Progress = Callable[[str, int, int], None]
T = TypeVar("T")
_WARM_UP = 5


async def run_latency(
    url: str, embedder: Embedder, *, rounds: int = 2, progress: Progress | None = None
) -> dict[str, Any]:
    """Measure one store, single and fused; returns its entry of the report's ``stores``."""
    corpus, queries = load_corpus(), load_queries()
    loads = {"start": load_average()}
    embedder.embed(["warm up"])
    embed_ms = _timed_sync(lambda q: embedder.embed([str(q.recall["query"])]), queries)
    entry: dict[str, Any] = {"store": url, "embed": percentiles(embed_ms)}
    async with opened(url, embedder) as handle:
        entry["store"] = handle.url
        clocked = _Clocked(handle.store)
        entry["single"] = await _workload(
            clocked,
            clocks=[clocked],
            namer=handle,
            handles=[handle],
            embedder=embedder,
            corpus=corpus,
            queries=queries,
            rounds=rounds,
            progress=progress,
            label="single",
        )
    async with AsyncExitStack() as stack:
        children = [
            await stack.enter_async_context(opened(url, embedder, name=f"bench-{side}"))
            for side in ("a", "b")
        ]
        clocks = [_Clocked(child.store) for child in children]
        entry["fused"] = await _workload(
            MemoryRouter(clocks),
            clocks=clocks,
            namer=children[0],
            handles=children,
            embedder=embedder,
            corpus=corpus,
            queries=queries,
            rounds=rounds,
            progress=progress,
            label="fused",
        )
        entry["fused"]["stores"] = len(children)
        entry["fused"]["fusion"] = "rrf"
    single, fused = entry["single"]["recall"]["p50_ms"], entry["fused"]["recall"]["p50_ms"]
    entry["fused_vs_single"] = round(fused / single, 3)
    loads["end"] = load_average()
    entry["load_average"] = loads
    return entry


class _Clocked:
    """A store that notes when each of its recalls ran; everything else is the store's own
    (attributes are forwarded, so a router sees the store's name, capabilities and embedder)."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self.spans: list[tuple[float, float]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def recall(
        self, request: RecallRequest | dict[str, Any], *, query_vector: QueryVector | None = None
    ) -> RecallResponse:
        started = time.perf_counter()
        try:
            return await self._store.recall(request, query_vector=query_vector)
        finally:
            self.spans.append((started, time.perf_counter()))


def _covered_ms(spans: Sequence[tuple[float, float]]) -> float:
    """How long at least one of the spans was running, in ms."""
    total, reach = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total * 1000


async def _workload(
    store: MemoryStore,
    *,
    clocks: Sequence[_Clocked],
    namer: OpenedStore,
    handles: Sequence[OpenedStore],
    embedder: Embedder,
    corpus: Sequence[CorpusMemory],
    queries: Sequence[LabelledQuery],
    rounds: int,
    progress: Progress | None,
    label: str,
) -> dict[str, Any]:
    """Ingest the corpus, then recall every query ``rounds`` times, through ``store``.

    ``namer`` gives the agent prefix; every handle in ``handles`` records what was written, so
    each child store forgets its own copies afterwards."""
    memory = Memory(store)
    warm = namer.agent("warm-up")
    for i in range(_WARM_UP):
        stored = await memory.remember(
            {"agent_id": warm, "type": "semantic", "content": f"warm-up note {i}"}
        )
        for handle in handles:
            handle.written.append((warm, stored.id))
        await memory.recall({"agent_id": warm, "query": f"warm-up note {i}"})

    async def remember(item: CorpusMemory) -> None:
        request = {**item.remember, "agent_id": namer.agent(item.remember["agent_id"])}
        stored = await memory.remember(request)
        for handle in handles:
            handle.written.append((request["agent_id"], stored.id))

    ingest = await _timed(remember, corpus, progress, f"latency {label}: remember")
    requests = [{**q.recall, "agent_id": namer.agent(q.recall["agent_id"])} for q in queries]
    vectors = [QueryVector(embedder.name, embedder.embed([str(r["query"])])) for r in requests]

    async def recall(i: int) -> None:
        await memory.recall(requests[i % len(requests)])

    overhead: list[float] = []

    async def search_only(i: int) -> None:
        for clock in clocks:
            clock.spans.clear()
        started = time.perf_counter()
        await memory.recall(requests[i % len(requests)], query_vector=vectors[i % len(requests)])
        wall = (time.perf_counter() - started) * 1000
        overhead.append(wall - _covered_ms([s for clock in clocks for s in clock.spans]))

    indexes = list(range(rounds * len(requests)))
    return {
        "ingest": percentiles(ingest),
        "recall": percentiles(await _timed(recall, indexes, progress, f"latency {label}: recall")),
        "recall_search_only": percentiles(
            await _timed(search_only, indexes, progress, f"latency {label}: search only")
        ),
        "overhead": percentiles(overhead),
    }


async def _timed(
    call: Callable[[T], Awaitable[None]],
    items: Sequence[T],
    progress: Progress | None,
    stage: str,
) -> list[float]:
    samples = []
    for done, item in enumerate(items, start=1):
        started = time.perf_counter()
        await call(item)
        samples.append((time.perf_counter() - started) * 1000)
        if progress is not None:
            progress(stage, done, len(items))
    return samples


def _timed_sync(
    call: Callable[[LabelledQuery], object], items: Sequence[LabelledQuery]
) -> list[float]:
    samples = []
    for item in items:
        started = time.perf_counter()
        call(item)
        samples.append((time.perf_counter() - started) * 1000)
    return samples
