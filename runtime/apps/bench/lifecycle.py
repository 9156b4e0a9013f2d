"""Spec v0.4's lifecycle operations: duplicate detection's precision and recall on the
labelled pairs (tuning and held-out halves); a consolidation plan over 100k records on
sqlite-vec and on pgvector (``consolidation_scale``); reading a record's history (a page
of 100 versions, through the validating boundary as a caller would) and a procedure run's
step (``procedure_steps``) on sqlite-vec and on pgvector (a local server started for the
run), and what keeping history costs the embedded
store's writes, side by side in one run: the same bulk load and the same updates on a store
as shipped and on one whose history triggers were dropped (the only difference), in turns.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemowire.adapters.pgvector import PgVectorStore
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.adapters.sqlite_vec._driver import connect, find_driver
from mnemowire.apps.bench._corpus import load_numbered
from mnemowire.apps.bench._timing import percentiles
from mnemowire.apps.bench.consolidation_scale import time_plan
from mnemowire.apps.bench.duplicates import score_pairs
from mnemowire.apps.bench.pgvector import postgres_server
from mnemowire.apps.bench.procedure_steps import time_steps
from mnemowire.embedders import HashEmbedder, default_embedder
from mnemowire.layers.memory import Memory
from mnemowire.protocol import MemoryStore

__all__ = ["run_lifecycle"]

AGENT = "bench-agent"
#: the triggers that keep history (adapters/sqlite_vec/_schema.py, migration 8)
HISTORY_TRIGGERS = ("history_stored", "history_changed", "history_erased", "history_audited")


async def _versions(memory: Memory, record: str, count: int) -> None:
    """Update ``record`` until it has ``count`` versions."""
    for version in range(1, count):
        await memory.update(
            {
                "agent_id": AGENT,
                "id": record,
                "expected_version": version,
                "content": f"the locker code is now {version:04d}",
            }
        )


async def _history(
    store: MemoryStore, versions: int, records: int, rounds: int, held: int
) -> dict[str, Any]:
    """p50/p95 of one history page holding all ``versions`` versions of a record, in a store
    of ``held`` records."""
    async with Memory(store) as memory:
        ids = await load_numbered(memory, AGENT, held, 64)
        chosen = ids[:: len(ids) // records][:records]
        for record in chosen:
            await _versions(memory, record, versions)
        samples = []
        for n in range(rounds):
            request = {"agent_id": AGENT, "id": chosen[n % records], "limit": versions}
            started = time.perf_counter()
            page = await memory.history(request)
            samples.append((time.perf_counter() - started) * 1000)
            assert len(page.entries) == versions
            assert page.next_cursor is None
    return {"versions": versions, "records": records, "store_records": held,
            **percentiles(samples)}  # fmt: skip


def _without_history(path: Path) -> None:
    connection = connect(find_driver(), str(path))
    try:
        for name in HISTORY_TRIGGERS:
            connection.execute(f"DROP TRIGGER {name}")
    finally:
        connection.close()


async def _side(path: Path, count: int, updates: int) -> tuple[float, list[float]]:
    """Seconds to bulk-load ``count`` records, and each of ``updates`` updates' ms."""
    store = SqliteVecStore(str(path), embedder=HashEmbedder(64))
    async with Memory(store) as memory:
        started = time.perf_counter()
        ids = await load_numbered(memory, AGENT, count, store.embedder.dimension)
        load = time.perf_counter() - started
        samples = []
        for record in ids[:updates]:
            begun = time.perf_counter()
            await memory.update(
                {"agent_id": AGENT, "id": record, "expected_version": 1, "content": "changed"}
            )
            samples.append((time.perf_counter() - begun) * 1000)
    return load, samples


async def _write_cost(folder: Path, count: int, updates: int, turns: int) -> dict[str, Any]:
    """The same writes with and without history, in alternating turns on fresh files."""
    sides: dict[str, dict[str, list[float]]] = {
        name: {"load": [], "update": []} for name in ("with_history", "without_history")
    }
    order = ["with_history", "without_history"]
    for turn in range(turns):
        for name in order if turn % 2 == 0 else order[::-1]:
            path = folder / f"{name}-{turn}.db"
            if name == "without_history":
                await SqliteVecStore(str(path), embedder=HashEmbedder(64)).aclose()  # made
                _without_history(path)
            load, samples = await _side(path, count, updates)
            sides[name]["load"].append(load)
            sides[name]["update"] += samples
    out: dict[str, Any] = {"records": count, "updates": updates, "turns": turns}
    for name, measured in sides.items():
        loads = sorted(measured["load"])
        median = loads[len(loads) // 2]
        update = percentiles(measured["update"])
        out[name] = {
            "load_s": round(median, 3),
            "records_per_s": round(count / median),
            "update_p50_ms": update["p50_ms"],
            "update_p95_ms": update["p95_ms"],
        }
    shipped, bare = out["with_history"], out["without_history"]
    out["load_overhead_pct"] = round(100 * (shipped["load_s"] / bare["load_s"] - 1), 1)
    out["update_overhead_pct"] = round(
        100 * (shipped["update_p50_ms"] / bare["update_p50_ms"] - 1), 1
    )
    return out


async def _run(  # noqa: PLR0917 (the command's options)
    versions: int,
    rounds: int,
    count: int,
    held: int,
    planned: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mnemowire-bench-lifecycle-") as name:
        folder = Path(name)
        progress(f"history on sqlite-vec: {versions} versions of 10 records, {rounds} reads")
        embedded = SqliteVecStore(str(folder / "history.db"), embedder=HashEmbedder(64))
        history = await _history(embedded, versions, 10, rounds, held)
        progress(f"procedure steps on sqlite-vec: {rounds} events on one run")
        embedded = SqliteVecStore(str(folder / "steps.db"), embedder=HashEmbedder(64))
        steps = await time_steps(embedded, rounds, held)
        progress("history and procedure steps on pgvector (a local server)")
        async with postgres_server(None) as (dsn, _):
            served = PgVectorStore(dsn, embedder=HashEmbedder(64), schema="bench_history")
            history_pg = await _history(served, versions, 10, rounds, held)
            served = PgVectorStore(dsn, embedder=HashEmbedder(64), schema="bench_steps")
            steps_pg = await time_steps(served, rounds, held)
        progress(f"write cost: {count:,} records and 500 updates, with and without history")
        cost = await _write_cost(folder, count, 500, turns=4)
    progress("duplicate detection on the labelled pairs (all-MiniLM-L6-v2)")
    model = default_embedder()
    duplicates = [score_pairs(model, name) for name in ("tune", "holdout")]
    plans: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="mnemowire-bench-consolidate-") as name:
        progress(f"consolidate --dry-run over {planned:,} records on sqlite-vec")
        embedded = SqliteVecStore(str(Path(name) / "plan.db"), embedder=model)
        plans["sqlite-vec"] = await time_plan(embedded, model, planned, progress)
    progress(f"consolidate --dry-run over {planned:,} records on pgvector (a local server)")
    async with postgres_server(None) as (dsn, _):
        served = PgVectorStore(dsn, embedder=model, schema="bench_consolidate")
        plans["pgvector"] = await time_plan(served, model, planned, progress)
    return {
        "store": "sqlite-vec (file) and pgvector (local server), HashEmbedder 64-d",
        "history": history,
        "history_pgvector": history_pg,
        "procedure_steps": {"sqlite-vec": steps, "pgvector": steps_pg},
        "write_cost": cost,
        "duplicates": duplicates,
        "consolidate_plan": plans,
    }


def run_lifecycle(  # noqa: PLR0917 (the command's options)
    versions: int = 100,
    rounds: int = 500,
    count: int = 20_000,
    held: int = 10_000,
    planned: int = 100_000,
    progress: Callable[[str], None] = lambda _: None,
) -> Any:
    """Score the duplicate judge, read ``rounds`` history pages of ``versions`` versions each
    and fire ``rounds`` events on a procedure run in stores of ``held`` records, time the
    writes of ``count`` records with and without history, and a consolidation plan over
    ``planned`` records."""
    return asyncio.run(_run(versions, rounds, count, held, planned, progress))
