"""Latency and scale of one store: ingest, remember, and recall at growing sizes.

Measured per size N (one agent, and N spread over 10 agents): recall p50/p95/p99 including the
query embedding and excluding it, and the vector search's recall@10 against exact brute-force
search over the same vectors. Plus single remember latency next to the embedding time alone,
and bulk ingest throughput with real embedding. Corpus texts are synthetic (``_corpus``) and
their embeddings are cached on disk, so reruns skip the slow part.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mnemowire.bench._cache import cached_embeddings
from mnemowire.bench._corpus import synthetic_texts
from mnemowire.embedders import Embedder
from mnemowire.protocol import QueryVector

__all__ = ["percentiles", "run_store_bench"]

Progress = Callable[[str, int, int], None]


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)

    return {
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": at(0.95),
        "p99_ms": at(0.99),
        "n": len(ordered),
    }


async def run_store_bench(
    embedder: Embedder,
    *,
    sizes: tuple[int, ...] = (1_000, 10_000, 100_000),
    spread_agents: int = 10,
    queries: int = 200,
    ingest: int = 1_000,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run the sqlite-vec benchmarks in a temporary folder; returns the JSON-able report."""
    report: dict[str, Any] = {"embedder": embedder.name, "sizes": {}}
    embedder.embed(["warm up"])
    with tempfile.TemporaryDirectory(prefix="mnemowire-bench-") as folder:
        root = Path(folder)
        async with _open(root / "ops.db", embedder) as store:
            report["embed_one"] = percentiles(
                _time(lambda i: embedder.embed([f"probe {i}"]), queries)
            )
            remember_ms = []
            for i in range(queries):
                started = time.perf_counter()
                await store.remember(
                    {
                        "agent_id": "ops",
                        "type": "semantic",
                        "content": f"single remember number {i} about tea",
                    }
                )
                remember_ms.append((time.perf_counter() - started) * 1000)
            report["remember"] = percentiles(remember_ms)
            texts = synthetic_texts(ingest, seed=11)
            started = time.perf_counter()
            await store.remember_many(
                [{"agent_id": "bulk", "type": "semantic", "content": t} for t in texts],
                batch_size=128,
            )
            seconds = time.perf_counter() - started
            report["bulk_ingest"] = {
                "memories": ingest,
                "seconds": round(seconds, 2),
                "per_second": round(ingest / seconds, 1),
            }
        largest = max(sizes)
        texts = synthetic_texts(largest)
        vectors = cached_embeddings(
            embedder,
            texts,
            progress=None if progress is None else lambda n: progress("embed corpus", n, largest),
        )
        probes = synthetic_texts(queries, seed=99)
        probe_vectors = embedder.embed(probes)
        layouts = [(n, 1) for n in sizes] + [(largest, spread_agents)]
        for size, agents in layouts:
            key = f"{size}" if agents == 1 else f"{size}/{agents}-agents"
            path = root / f"scale-{size}-{agents}.db"
            async with _open(path, embedder) as store:
                started = time.perf_counter()
                requests = [
                    {"agent_id": f"agent-{i % agents}", "type": "semantic", "content": texts[i]}
                    for i in range(size)
                ]
                stored = await store.remember_many(
                    requests, batch_size=1000, vectors=vectors[:size]
                )
                load_s = time.perf_counter() - started
                position = {response.id: i for i, response in enumerate(stored)}
                report["sizes"][key] = await _measure(
                    store,
                    embedder,
                    queries=(probes, probe_vectors),
                    corpus=(vectors[:size], position),
                    agents=agents,
                    load_s=load_s,
                    progress=progress,
                )
    return report


async def _measure(
    store: Any,
    embedder: Embedder,
    *,
    queries: tuple[list[str], Any],
    corpus: tuple[Any, dict[str, int]],
    agents: int,
    load_s: float,
    progress: Progress | None,
) -> dict[str, Any]:
    probes, probe_vectors = queries
    vectors, position = corpus
    with_embedding: list[float] = []
    search_only: list[float] = []
    hits = 0
    mine = np.arange(len(vectors)) % agents == 0  # agent-0's rows
    rows = np.flatnonzero(mine)
    for i, (text, vector) in enumerate(zip(probes, probe_vectors, strict=True)):
        request = {"agent_id": "agent-0", "query": text, "k": 10}
        started = time.perf_counter()
        await store.recall(request)
        with_embedding.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        await store.recall(request, query_vector=QueryVector(embedder.name, vector))
        search_only.append((time.perf_counter() - started) * 1000)
        exact = set(rows[np.argsort(-(vectors[rows] @ vector), kind="stable")[:10]].tolist())
        # A query with no word characters has no keyword matches: the ranking is the vector
        # search's own, which is what recall@10 against exact search measures.
        vector_only = await store.recall(
            {"agent_id": "agent-0", "query": "?", "k": 10},
            query_vector=QueryVector(embedder.name, vector),
        )
        found = {position[hit.id] for hit in vector_only.results}
        hits += len(exact & found)
        if progress is not None:
            progress("recall", i + 1, len(probes))
    return {
        "memories": len(vectors),
        "agents": agents,
        "load_seconds": round(load_s, 2),
        "recall": percentiles(with_embedding),
        "recall_search_only": percentiles(search_only),
        "vector_recall_at_10": round(hits / (10 * len(probes)), 4),
    }


def _open(path: Path, embedder: Embedder) -> Any:
    from mnemowire.registry import open_store

    return open_store(f"sqlite-vec://{path}", embedder=embedder)


def _time(call: Callable[[int], object], count: int) -> list[float]:
    samples = []
    for i in range(count):
        started = time.perf_counter()
        call(i)
        samples.append((time.perf_counter() - started) * 1000)
    return samples
