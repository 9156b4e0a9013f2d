"""Latency of one store, and of two of them fused by a MemoryRouter, on the quality corpus.

What an application waits for, through the Memory facade (request and response validated):

- **ingest**: one ``remember`` per corpus memory (310, all four types, short and long), with
  its embedding, so a write's cost includes the model;
- **recall**: every corpus query (165, k = 5, filters as written) ``rounds`` times over the
  loaded store, the query's embedding included;
- **recall, search only**: the same recalls with the query already embedded (``QueryEmbedding``),
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

Both setups are open at once and measured in turns, operation by operation, alternating which
goes first: these machines drift by tens of percent within minutes, and measured one after the
other a drift lands on one setup only. In turns it lands on both, so ``fused_vs_single``
compares like with like.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

from mnemowire.apps.bench._stores import OpenedStore, opened
from mnemowire.apps.bench._timing import load_average, percentiles
from mnemowire.apps.bench.quality import CorpusMemory, LabelledQuery, load_corpus, load_queries
from mnemowire.embedders import Embedder, Vectors
from mnemowire.layers.memory import Memory
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import RecallRequest, RecallResponse
from mnemowire.protocol import MemoryStore, QueryEmbedding

__all__ = ["run_latency"]

Progress = Callable[[str, int, int], None]
_WARM_UP = 5
#: the two recall measures: with the query's embedding, and with the vector given
_RECALLS = ("recall", "recall_search_only")


async def run_latency(
    url: str, embedder: Embedder, *, rounds: int = 2, progress: Progress | None = None
) -> dict[str, Any]:
    """Measure one store, single and fused; returns its entry of the report's ``stores``."""
    corpus, queries = load_corpus(), load_queries()
    loads = {"start": load_average()}
    embedder.embed(["warm up"])
    embed_ms, embedded = _timed_sync(lambda q: embedder.embed([str(q.recall["query"])]), queries)
    # the search-only recalls are given these vectors rather than embedding every query again
    vectors = [QueryEmbedding(embedder.name, vector) for vector in embedded]
    entry: dict[str, Any] = {"store": url, "embed": percentiles(embed_ms)}
    async with AsyncExitStack() as stack:
        handle = await stack.enter_async_context(opened(url, embedder))
        children = [
            await stack.enter_async_context(opened(url, embedder, name=f"bench-{side}"))
            for side in ("a", "b")
        ]
        entry["store"] = handle.url
        clocked = _Clocked(handle.store)
        single = _Setup(Memory(clocked), [clocked], handle, [handle])
        clocks = [_Clocked(child.store) for child in children]
        fused = _Setup(Memory(MemoryRouter(clocks)), clocks, children[0], children)
        setups = [single, fused]
        for setup in setups:
            await setup.warm_up()
        for done, item in enumerate(corpus, start=1):
            for setup in _turns(setups, done):
                await setup.remember(item)
            _tick(progress, "latency: remember", done, len(corpus))
        samples = rounds * len(queries)
        for stage, given in (("recall", False), ("recall_search_only", True)):
            for done in range(1, samples + 1):
                i = (done - 1) % len(queries)
                for setup in _turns(setups, done):
                    await setup.recall(stage, queries[i], vectors[i] if given else None)
                _tick(progress, f"latency: {stage.replace('_', ' ')}", done, samples)
        entry["single"] = single.report()
        entry["fused"] = {**fused.report(), "stores": len(children), "fusion": "rrf"}
    single_p50, fused_p50 = entry["single"]["recall"]["p50_ms"], entry["fused"]["recall"]["p50_ms"]
    entry["fused_vs_single"] = round(fused_p50 / single_p50, 3)
    loads["end"] = load_average()
    entry["load_average"] = loads
    return entry


@dataclass
class _Setup:
    """One way to reach the store: itself, or a router over two of it; it keeps its samples.

    ``namer`` gives the agent prefix; every handle in ``handles`` records what was written, so
    each child store forgets its own copies afterwards."""

    memory: Memory
    clocks: list[_Clocked]
    namer: OpenedStore
    handles: list[OpenedStore]
    samples: dict[str, list[float]] = field(
        default_factory=lambda: {k: [] for k in ("ingest", *_RECALLS, "overhead")}
    )

    async def warm_up(self) -> None:
        """A few untimed writes and recalls (model load, first transactions)."""
        warm = self.namer.agent("warm-up")
        for i in range(_WARM_UP):
            stored = await self.memory.remember(
                {"agent_id": warm, "type": "semantic", "content": f"warm-up note {i}"}
            )
            self._written(warm, stored.id)
            await self.memory.recall({"agent_id": warm, "query": f"warm-up note {i}"})

    async def remember(self, item: CorpusMemory) -> None:
        request = {**item.remember, "agent_id": self.namer.agent(item.remember["agent_id"])}
        started = time.perf_counter()
        stored = await self.memory.remember(request)
        self.samples["ingest"].append(_ms(started))
        self._written(request["agent_id"], stored.id)

    async def recall(self, stage: str, query: LabelledQuery, vector: QueryEmbedding | None) -> None:
        """One recall, timed under ``stage``; with ``vector`` (search only), also the overhead:
        the wall time minus the union of the stores' recall calls."""
        request = {**query.recall, "agent_id": self.namer.agent(query.recall["agent_id"])}
        for clock in self.clocks:
            clock.spans.clear()
        started = time.perf_counter()
        await self.memory.recall(request, query_vector=vector)
        wall = _ms(started)
        self.samples[stage].append(wall)
        if vector is not None:
            spans = [span for clock in self.clocks for span in clock.spans]
            self.samples["overhead"].append(wall - _covered_ms(spans))

    def report(self) -> dict[str, Any]:
        return {name: percentiles(values) for name, values in self.samples.items()}

    def _written(self, agent: str, record: str) -> None:
        for handle in self.handles:
            handle.written.append((agent, record))


def _turns(setups: list[_Setup], done: int) -> Iterator[_Setup]:
    """The setups in order on odd turns, reversed on even ones: neither always goes first."""
    return iter(setups) if done % 2 else reversed(setups)


def _tick(progress: Progress | None, stage: str, done: int, total: int) -> None:
    if progress is not None:
        progress(stage, done, total)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


class _Clocked:
    """A store that notes when each of its recalls ran; everything else is the store's own
    (attributes are forwarded, so a router sees the store's name, capabilities and embedder)."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store
        self.spans: list[tuple[float, float]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
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


def _timed_sync(
    call: Callable[[LabelledQuery], Vectors], items: Sequence[LabelledQuery]
) -> tuple[list[float], list[Vectors]]:
    """Each call's milliseconds, and what it returned."""
    samples, results = [], []
    for item in items:
        started = time.perf_counter()
        results.append(call(item))
        samples.append(_ms(started))
    return samples, results
