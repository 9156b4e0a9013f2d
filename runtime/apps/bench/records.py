"""Spec v0.1's record operations at scale: paging through one agent's 100k records with
``list`` (records per second, and resident memory from the first page to the last, which a
keyset listing keeps flat), ``get`` of 100 ids, checking a record seal, and verifying the audit
log's hash chain (one entry per record).

Everything goes through the validating boundary (``Memory``), as a caller's requests would:
each page is validated against list.response on its way out. The records are bulk-imported
with precomputed random vectors (what list and get measure does not depend on the embedder).
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.bench._corpus import load_numbered
from mnemowire.apps.bench._env import rss_mb
from mnemowire.apps.bench._timing import percentiles
from mnemowire.embedders import HashEmbedder
from mnemowire.kit.audit import verify
from mnemowire.layers.memory import Memory
from mnemowire.seals import SealKeys

__all__ = ["run_records"]

AGENT = "bench-agent"
PAGE = 1000


async def _list_all(memory: Memory) -> dict[str, Any]:
    request: dict[str, Any] = {"agent_id": AGENT, "limit": PAGE}
    seen = pages = 0
    rss: list[float] = []
    started = time.perf_counter()
    while True:
        page = await memory.list(request)
        seen, pages = seen + len(page.records), pages + 1
        rss.append(rss_mb())
        if page.next_cursor is None:
            break
        request = {**request, "cursor": page.next_cursor}
    elapsed = time.perf_counter() - started
    return {
        "records": seen,
        "pages": pages,
        "page_size": PAGE,
        "seconds": round(elapsed, 3),
        "records_per_s": round(seen / elapsed),
        "rss_mb_first_page": rss[0],
        "rss_mb_last_page": rss[-1],
        "rss_mb_max": max(rss),
    }


async def _get(memory: Memory, ids: list[str], rounds: int) -> dict[str, Any]:
    rng = random.Random(0)
    samples = []
    for _ in range(rounds):
        asked = rng.sample(ids, 100)
        started = time.perf_counter()
        found = await memory.get({"agent_id": AGENT, "ids": asked})
        samples.append((time.perf_counter() - started) * 1000)
        assert len(found.records) == 100
    return {"ids_per_request": 100, **percentiles(samples)}


def _seal_verify(rounds: int) -> dict[str, Any]:
    keys = SealKeys({"bench": bytes(range(32))})
    record = {
        "id": "01J9ZX4R5Y6T7U8I9O0P1A2S3D",
        "agent_id": "assistant-1",
        "user_id": "alice",
        "type": "semantic",
        "content": "Alice is allergic to peanuts and tree nuts; she carries an epinephrine pen.",
        "metadata": {"topic": "health", "source": "chat", "importance": 3, "score": 0.75},
    }
    seal = keys.seal(record)
    timed: Callable[[], bool] = lambda: keys.verify(seal, record)  # noqa: E731
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(1000):
            timed()
        samples.append((time.perf_counter() - started) * 1e3)  # µs per call: ms per 1000
    stats = percentiles(samples)
    return {"p50_us": stats["p50_ms"], "p95_us": stats["p95_ms"], "n": rounds * 1000}


async def _audit_verify(store: SqliteVecStore, rounds: int = 3) -> dict[str, Any]:
    """The audit log's hash chain read and verified whole, as `mnemowire audit verify` does:
    one entry per record loaded."""
    totals, reads = [], []
    entries, ok = 0, False
    for _ in range(rounds):
        started = time.perf_counter()
        rows = await store.audit_entries()
        read = time.perf_counter()
        verdict = verify(rows)
        totals.append(time.perf_counter() - started)
        reads.append(read - started)
        entries, ok = verdict.entries, verdict.ok
    return {
        "entries": entries,
        "ok": ok,
        "p50_s": round(sorted(totals)[len(totals) // 2], 3),
        "read_p50_s": round(sorted(reads)[len(reads) // 2], 3),
        "n": rounds,
    }


async def _run(count: int, get_rounds: int, seal_rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mnemowire-bench-records-") as folder:
        store = SqliteVecStore(str(Path(folder) / "records.db"), embedder=HashEmbedder(64))
        async with Memory(store) as memory:
            load_started = time.perf_counter()
            ids = await load_numbered(memory, AGENT, count, store.embedder.dimension)
            load_s = time.perf_counter() - load_started
            listing = await _list_all(memory)
            got = await _get(memory, ids, get_rounds)
            audited = await _audit_verify(store)
    return {
        "store": "sqlite-vec (file, HashEmbedder 64-d)",
        "records": count,
        "load_s": round(load_s, 2),
        "list": listing,
        "get": got,
        "seal_verify": _seal_verify(seal_rounds),
        "audit_verify": audited,
    }


def run_records(count: int = 100_000, get_rounds: int = 200, seal_rounds: int = 50) -> Any:
    """List ``count`` records of one agent page by page, get 100 ids ``get_rounds`` times, and
    verify a seal 1000 x ``seal_rounds`` times."""
    return asyncio.run(_run(count, get_rounds, seal_rounds))
