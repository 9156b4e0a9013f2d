"""The review queue at scale (spec v0.2, docs/governance.md#review): a page of pending reviews
with their diffs, out of ``pending`` staged remembers beside ``existing`` active memories of the
same agent (each remember's diff searches them for its closest three), and what a decision adds
to the write it applies.

The decision's cost is measured against the write alone, side by side in one run: approving a
staged remember through ``decide`` against making it visible with the store's ``approve`` (the
same write: index rows, audit entry), and an approved staged forget against the same forget sent
directly. The difference is what deciding adds: reading the review, ending it first thing in
the transaction, recording the decision and its audit entry, the response.

Everything goes through the validating boundary (``Memory``), as a reviewer's requests would.
Vectors are random 384-d rows (the dimension of all-MiniLM-L6-v2), bulk-imported: what the
queue measures does not depend on the embedder.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.bench._timing import percentiles
from mnemowire.embedders import HashEmbedder
from mnemowire.layers.memory import Memory

__all__ = ["run_reviews"]

AGENT = "bench-agent"
PAGE = 50
DIMENSION = 384


async def _load(memory: Memory, store: SqliteVecStore, count: int, *, staged: bool) -> list[str]:
    rng = np.random.default_rng(1 if staged else 0)
    ids: list[str] = []
    for start in range(0, count, 2000):
        n = min(2000, count - start)
        requests = [
            {
                "agent_id": AGENT,
                "user_id": f"user-{(start + i) % 20}",
                "type": "semantic",
                "content": f"{'staged' if staged else 'kept'} memory {start + i} about item {i}",
                "metadata": {"n": start + i},
                **({"approval_required": True} if staged else {}),
            }
            for i in range(n)
        ]
        vectors = rng.standard_normal((n, DIMENSION)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        done = await memory.remember_many(requests, vectors=vectors, batch_size=1000)
        ids += [d.id for d in done]
    return ids


async def _pages(memory: Memory, staged: list[str], rounds: int) -> dict[str, Any]:
    """Pages of 50 with diffs (3 related each), starting at random places in the queue."""
    rng = random.Random(0)
    ordered = sorted(staged)
    samples = []
    for _ in range(rounds):
        cursor = ordered[rng.randrange(len(ordered) - PAGE)]
        started = time.perf_counter()
        page = await memory.reviews({"agent_id": AGENT, "cursor": cursor, "limit": PAGE})
        samples.append((time.perf_counter() - started) * 1000)
        assert len(page.reviews) == PAGE
        assert all(len(r.diff.related or []) == 3 for r in page.reviews)
    return {"page": PAGE, "related": 3, **percentiles(samples)}


def _timed(samples: list[float], started: float) -> None:
    samples.append((time.perf_counter() - started) * 1000)


async def _decisions(
    memory: Memory, store: SqliteVecStore, staged: list[str], kept: list[str], rounds: int
) -> dict[str, Any]:
    """Interleaved, so drift hits both sides alike: decide vs the same write alone."""
    decided: list[float] = []
    approved: list[float] = []
    forget_decided: list[float] = []
    forgotten: list[float] = []
    pending = iter(staged)
    victims = iter(kept)
    for _ in range(rounds):
        started = time.perf_counter()
        await memory.decide(
            {"agent_id": AGENT, "review_id": next(pending), "approved": True, "reviewer": "b"}
        )
        _timed(decided, started)
        started = time.perf_counter()
        await store.approve(AGENT, [next(pending)])
        _timed(approved, started)
        staged_forget = await memory.forget(
            {"agent_id": AGENT, "ids": [next(victims)], "approval_required": True}
        )
        started = time.perf_counter()
        await memory.decide(
            {
                "agent_id": AGENT,
                "review_id": staged_forget.review_id,
                "approved": True,
                "reviewer": "b",
            }
        )
        _timed(forget_decided, started)
        started = time.perf_counter()
        await memory.forget({"agent_id": AGENT, "ids": [next(victims)]})
        _timed(forgotten, started)
    return {
        "remember": _added(percentiles(decided), percentiles(approved)),
        "forget": _added(percentiles(forget_decided), percentiles(forgotten)),
    }


def _added(decide: dict[str, Any], alone: dict[str, Any]) -> dict[str, Any]:
    """A decision's timings beside the write's, and the difference of their medians."""
    added = round(decide["p50_ms"] - alone["p50_ms"], 3)
    return {"decide": decide, "write_alone": alone, "added_p50_ms": added}


async def _run(pending: int, existing: int, page_rounds: int, decisions: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mnemowire-bench-reviews-") as folder:
        store = SqliteVecStore(str(Path(folder) / "reviews.db"), embedder=HashEmbedder(DIMENSION))
        async with Memory(store) as memory:
            load_started = time.perf_counter()
            kept = await _load(memory, store, existing, staged=False)
            staged = await _load(memory, store, pending, staged=True)
            load_s = time.perf_counter() - load_started
            pages = await _pages(memory, staged, page_rounds)
            rng = random.Random(1)
            rng.shuffle(staged)
            rng.shuffle(kept)
            decided = await _decisions(memory, store, staged, kept, decisions)
    return {
        "store": f"sqlite-vec (file, {DIMENSION}-d vectors)",
        "pending": pending,
        "existing": existing,
        "load_s": round(load_s, 2),
        "list_page": pages,
        "decision": decided,
    }


def run_reviews(
    pending: int = 10_000, existing: int = 10_000, page_rounds: int = 200, decisions: int = 200
) -> Any:
    """List pages of the queue ``page_rounds`` times and decide ``decisions`` reviews of each
    kind, beside the same writes made directly."""
    return asyncio.run(_run(pending, existing, page_rounds, decisions))
