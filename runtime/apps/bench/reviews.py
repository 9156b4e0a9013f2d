"""The review queue at scale (spec v0.2, docs/governance.md#review): a page of pending reviews
with their diffs, out of ``pending`` staged remembers beside ``existing`` active memories of the
same agent (each remember's diff searches them for its closest three), and what a decision adds
to the write it applies.

The decision's cost is measured against the write alone, side by side in one run: approving a
staged remember through ``decide`` against bringing an archived record back with ``restore``
(the same write: the record made visible, its index rows, an audit entry), and an approved
staged forget against the same forget sent directly. The difference is what deciding adds:
reading the review, ending it first thing in the transaction, recording the decision and its
audit entry, the response. (Before spec v0.2's queue was the one way to approve, the
remember's baseline was the store's own ``approve``, called past the boundary; ``restore``
goes through it, as ``decide`` does.)

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


async def _load(memory: Memory, count: int, kind: str) -> list[str]:
    """``count`` records: ``kept`` (active), ``staged`` (pending review) or ``archived``."""
    rng = np.random.default_rng(("kept", "staged", "archived").index(kind))
    ids: list[str] = []
    for start in range(0, count, 2000):
        n = min(2000, count - start)
        requests = [
            {
                "agent_id": AGENT,
                "user_id": f"user-{(start + i) % 20}",
                "type": "semantic",
                "content": f"{kind} memory {start + i} about item {i}",
                "metadata": {"n": start + i},
                **({"approval_required": True} if kind == "staged" else {}),
                **({"confidence": 0.1} if kind == "archived" else {}),
            }
            for i in range(n)
        ]
        vectors = rng.standard_normal((n, DIMENSION)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        done = await memory.remember_many(requests, vectors=vectors)
        ids += [d.id for d in done]
    if kind == "archived":
        policy = {"confidence_below": 0.5}
        await memory.expire({"agent_id": AGENT, "policy": policy, "action": "archive"})
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
    memory: Memory, staged: list[str], kept: list[str], archived: list[str], rounds: int
) -> dict[str, Any]:
    """Interleaved, so drift hits both sides alike: decide vs the same write alone."""
    decided: list[float] = []
    restored: list[float] = []
    forget_decided: list[float] = []
    forgotten: list[float] = []
    pending = iter(staged)
    victims = iter(kept)
    hidden = iter(archived)
    for _ in range(rounds):
        started = time.perf_counter()
        await memory.decide(
            {"agent_id": AGENT, "review_id": next(pending), "approved": True, "reviewer": "b"}
        )
        _timed(decided, started)
        started = time.perf_counter()
        await memory.restore({"agent_id": AGENT, "ids": [next(hidden)]})
        _timed(restored, started)
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
        "remember": _added(percentiles(decided), percentiles(restored)),
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
            kept = await _load(memory, existing, "kept")
            staged = await _load(memory, pending, "staged")
            load_s = time.perf_counter() - load_started
            archived = await _load(memory, decisions, "archived")
            pages = await _pages(memory, staged, page_rounds)
            rng = random.Random(1)
            rng.shuffle(staged)
            rng.shuffle(kept)
            decided = await _decisions(memory, staged, kept, archived, decisions)
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
