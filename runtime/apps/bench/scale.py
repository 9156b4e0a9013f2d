"""Scale: recall latency and search accuracy of one store as it grows (``mnemowire bench scale``;
``bench store`` is its old name).

Per size N (one agent holding all N, and the largest N spread over ten agents): recall
p50/p95/p99 with the query's embedding and without it (``QueryEmbedding``), and the vector
search's recall@10 against exact brute-force search over the same vectors, for the agent
asked, over all probes and per kind. Probes: half the quality benchmark's questions, half
template sentences (a template's neighbours are near-duplicates any search finds; a
question's are loose, which is where an approximate search loses recall). Plus bulk
ingest throughput with real embedding. Corpus texts are synthetic
(``_corpus``: templates, seeded) and their embeddings are computed once and cached on disk
(``_cache``), so a rerun skips the slow part. Loading N memories is the facade's bulk import
(``Memory.remember_many(requests, vectors=...)``: ``remember_batch`` in chunks, with the cached
vectors); a store that cannot take them (no ``remember_batch``, or no embedder of its own, as
over HTTP) is reported as skipped rather than made to re-embed 100,000 texts one by one. A
store with upkeep (``MaintainedStore``: pgvector) is vacuumed after each load, timed apart,
so recall is measured on fresh planner statistics, not beside the ANALYZE a stale table
starts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mnemowire.apps.bench._cache import cached_embeddings
from mnemowire.apps.bench._corpus import synthetic_texts
from mnemowire.apps.bench._stores import OpenedStore, opened
from mnemowire.apps.bench._timing import load_average, percentiles
from mnemowire.apps.bench.quality import load_queries
from mnemowire.embedders import Embedder, Vectors
from mnemowire.layers.memory import Memory
from mnemowire.protocol import MaintainedStore, QueryEmbedding, VectorBatchStore

__all__ = ["DEFAULT_SIZES", "run_scale"]

Progress = Callable[[str, int, int], None]
DEFAULT_SIZES = (1_000, 10_000, 100_000)


async def run_scale(
    url: str,
    embedder: Embedder,
    *,
    sizes: Sequence[int] = DEFAULT_SIZES,
    spread_agents: int = 10,
    queries: int = 200,
    ingest: int = 1_000,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Measure one store at each size; returns its entry of the report's ``stores`` list."""
    loads = {"start": load_average()}
    entry: dict[str, Any] = {"store": url, "layouts": []}
    embedder.embed(["warm up"])
    async with opened(url, embedder) as handle:
        entry["store"] = handle.url
        store = handle.store
        served = "remember_batch" in store.capabilities().capabilities
        if not (served and isinstance(store, VectorBatchStore)):
            entry["skipped"] = (
                "the store takes no precomputed vectors (remember_batch with vectors)"
            )
            loads["end"] = load_average()
            entry["load_average"] = loads
            return entry
        texts = synthetic_texts(ingest, seed=11)
        agent = handle.agent("bulk")
        started = time.perf_counter()
        stored = await Memory(store).remember_many(
            [{"agent_id": agent, "type": "semantic", "content": t} for t in texts],
            batch_size=128,
        )
        seconds = time.perf_counter() - started
        handle.written.extend((agent, response.id) for response in stored)
        entry["bulk_ingest"] = {
            "memories": ingest,
            "seconds": round(seconds, 2),
            "per_second": round(ingest / seconds, 1),
        }
    largest = max(sizes)
    texts = synthetic_texts(largest)
    vectors = cached_embeddings(
        embedder,
        texts,
        progress=None if progress is None else _counting(progress, "scale: embed corpus", largest),
    )
    # half the probes are the quality benchmark's questions: unlike template sentences, their
    # neighbours in this corpus are loose, which is where an approximate search loses recall
    asked = [str(q.recall["query"]) for q in load_queries() if q.query_class != "no_match"]
    probes = asked[: queries // 2]
    question_count = len(probes)
    probes += synthetic_texts(queries - len(probes), seed=99)
    probe_vectors = embedder.embed(probes)
    layouts = [(n, 1) for n in sorted(sizes)]
    if spread_agents > 1:
        layouts.append((largest, spread_agents))
    for size, agents in layouts:
        async with opened(url, embedder) as handle:
            started = time.perf_counter()
            requests = [
                {"agent_id": handle.agent(f"agent-{i % agents}"), "type": "semantic",
                 "content": texts[i]}
                for i in range(size)
            ]  # fmt: skip
            # through the boundary, as an application imports: every request validated first
            bulk = Memory(handle.store)
            stored = await bulk.remember_many(requests, vectors=vectors[:size])
            load_s = time.perf_counter() - started
            upkeep_s = None
            if isinstance(handle.store, MaintainedStore):  # what autovacuum would start
                begun = time.perf_counter()
                await handle.store.vacuum()
                upkeep_s = round(time.perf_counter() - begun, 2)
            handle.written.extend(
                (request["agent_id"], response.id)
                for request, response in zip(requests, stored, strict=True)
            )
            position = {response.id: i for i, response in enumerate(stored)}
            layout = await _measure(
                handle,
                embedder,
                queries=(probes, probe_vectors, question_count),
                corpus=(vectors[:size], position),
                agents=agents,
                load_s=load_s,
                progress=progress,
            )
            if upkeep_s is not None:
                layout["vacuum_seconds"] = upkeep_s
            entry["layouts"].append(layout)
    loads["end"] = load_average()
    entry["load_average"] = loads
    return entry


def _counting(progress: Progress, stage: str, total: int) -> Callable[[int], None]:
    done = 0

    def step(count: int) -> None:
        nonlocal done
        done += count
        progress(stage, done, total)

    return step


async def _measure(
    handle: OpenedStore,
    embedder: Embedder,
    *,
    queries: tuple[list[str], Vectors, int],
    corpus: tuple[Vectors, dict[str, int]],
    agents: int,
    load_s: float,
    progress: Progress | None,
) -> dict[str, Any]:
    probes, probe_vectors, questions = queries
    vectors, position = corpus
    store = Memory(handle.store)  # recall as applications call it: validated both ways
    agent = handle.agent("agent-0")
    with_embedding: list[float] = []
    search_only: list[float] = []
    # hits per probe kind: the first ``questions`` probes are real questions, then templates
    hits = {"questions": 0, "templates": 0}
    rows = np.flatnonzero(np.arange(len(vectors)) % agents == 0)  # agent-0's rows
    stage = f"scale: {len(vectors)} memories" + (f" / {agents} agents" if agents > 1 else "")
    for i, (text, vector) in enumerate(zip(probes, probe_vectors, strict=True)):
        request = {"agent_id": agent, "query": text, "k": 10}
        started = time.perf_counter()
        await store.recall(request)
        with_embedding.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        await store.recall(request, query_vector=QueryEmbedding(embedder.name, vector))
        search_only.append((time.perf_counter() - started) * 1000)
        exact = set(rows[np.argsort(-(vectors[rows] @ vector), kind="stable")[:10]].tolist())
        # A query with no word characters has no keyword matches: the ranking is the vector
        # search's own, which is what recall@10 against exact search measures.
        vector_only = await store.recall(
            {"agent_id": agent, "query": "?", "k": 10},
            query_vector=QueryEmbedding(embedder.name, vector),
        )
        found = {position[hit.id] for hit in vector_only.results if hit.id in position}
        hits["questions" if i < questions else "templates"] += len(exact & found)
        if progress is not None:
            progress(stage, i + 1, len(probes))
    return {
        "memories": len(vectors),
        "agents": agents,
        "load_seconds": round(load_s, 2),
        "recall": percentiles(with_embedding),
        "recall_search_only": percentiles(search_only),
        "vector_recall_at_10": round(sum(hits.values()) / (10 * len(probes)), 4),
        "vector_recall_at_10_questions": _share(hits["questions"], 10 * questions),
        "vector_recall_at_10_templates": _share(hits["templates"], 10 * (len(probes) - questions)),
    }


def _share(hits: int, asked: int) -> float | None:
    """hits of asked, or None when no probe of that kind was asked."""
    return round(hits / asked, 4) if asked else None
