"""``consolidate`` as a dry run over one agent's 100k records (spec v0.4; target: ≤ 60 s on
sqlite-vec and on pgvector, memory bounded): synthetic sentences with all-MiniLM-L6-v2's
embeddings (computed once, cached on disk), one in a hundred followed by a planted copy
(lower case, no punctuation: an ``exact`` duplicate), bulk-loaded with their vectors, then
planned through the validating boundary as a caller would. The plan reads every record and
its vector (export_records pages) and compares each with every other (kit.consolidation)."""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from mnemowire.apps.bench._cache import cached_embeddings
from mnemowire.apps.bench._corpus import bulk_load, synthetic_texts
from mnemowire.embedders import Embedder
from mnemowire.kit.duplicates import normalised
from mnemowire.layers.memory import Memory
from mnemowire.protocol import MemoryStore

__all__ = ["planted_corpus", "time_plan"]

AGENT = "bench-consolidate"
#: one planted copy after every this many records
PLANT_EVERY = 100


def planted_corpus(size: int) -> tuple[list[str], set[frozenset[int]]]:
    """``size`` texts: synthetic sentences, each ``PLANT_EVERY``-th followed by its copy in
    lower case without punctuation; and the planted pairs, by position."""
    originals = synthetic_texts(size - size // (PLANT_EVERY + 1))
    texts: list[str] = []
    planted: set[frozenset[int]] = set()
    for n, text in enumerate(originals):
        texts.append(text)
        if n % PLANT_EVERY == 0 and len(texts) < size:
            texts.append(normalised(text))
            planted.add(frozenset((len(texts) - 2, len(texts) - 1)))
    return texts[:size], planted


async def time_plan(
    store: MemoryStore,
    model: Embedder,
    size: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """Load the planted corpus into ``store``, then time one dry-run plan of all of it."""
    texts, planted = planted_corpus(size)
    vectors = np.asarray(cached_embeddings(model, texts), dtype=np.float32)
    requests = [{"agent_id": AGENT, "type": "semantic", "content": t} for t in texts]
    async with Memory(store) as memory:
        ids = await bulk_load(memory, requests, vectors)
        progress(f"  {size:,} records loaded; planning")
        started = time.perf_counter()
        plan = await memory.consolidate({"agent_id": AGENT, "limit": 1000})
        seconds = time.perf_counter() - started
    position = {record_id: n for n, record_id in enumerate(ids)}
    found = {frozenset(position[i] for i in (g.canonical, *g.duplicates)) for g in plan.groups}
    return {
        "records": size,
        "planted_pairs": len(planted),
        "seconds": round(seconds, 2),
        "records_per_s": round(size / seconds),
        "groups": len(plan.groups),
        "planted_found": len(planted & found),
        "other_groups": len(found - planted),
        "more": bool(plan.more),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
