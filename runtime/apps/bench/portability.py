"""Carrying memory across stores at scale (docs/portability.md#measured): one agent's records
exported from the embedded store to an archive with their vectors (records per second, and
resident memory from the first page to the last, which a keyset export keeps flat), the
archive verified whole (manifest, every line's schema, counts, SHA-256), imported into a fresh
sqlite-vec store and into PostgreSQL with the vectors reused, and migrated sqlite-vec ->
pgvector with no file between. Records carry their versions (history), as the CLI's export
does by default; the export and the sqlite-vec import are also run without, side by side.

Every step is the CLI's (``mnemowire.portability``, through the validating boundary), verify
pass included: each written record is read back with ``get`` and compared field by field; the
write and the read-back are timed apart. The records are bulk-loaded with precomputed random
vectors of the MiniLM dimension (what an archive carries does not depend on the embedder), a
tenth of them archived, a hundredth erased (tombstones).
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from mnemowire.adapters.pgvector import PgVectorStore
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.bench._corpus import load_numbered
from mnemowire.apps.bench._env import rss_mb
from mnemowire.apps.bench.pgvector import postgres_server
from mnemowire.embedders import HashEmbedder
from mnemowire.layers.memory import Memory
from mnemowire.portability import Archive, Report, export_archive, import_archive, migrate

__all__ = ["run_portability"]

AGENT = "bench-agent"
#: the MiniLM dimension: what a real archive's vectors weigh
DIMENSION = 384
Progress = Callable[[str, int, int], None]


async def _load(memory: Memory, count: int, dimension: int) -> dict[str, int]:
    """``count`` records of one agent, a tenth archived and a hundredth erased afterwards."""
    ids = await load_numbered(memory, AGENT, count, dimension, low_every=10)
    await memory.expire(
        {"agent_id": AGENT, "policy": {"confidence_below": 0.1}, "action": "archive"}
    )
    erased = ids[1::100]
    for start in range(0, len(erased), 500):
        chunk = erased[start : start + 500]
        await memory.forget({"agent_id": AGENT, "ids": chunk, "hard_delete": True})
    return {"records": len(ids) - len(erased), "erased": len(erased)}


def _moved(report: Report) -> dict[str, Any]:
    """A move's numbers: records per second end to end, and of the pages alone when the
    target built its indexes at the end (a bulk import)."""
    out: dict[str, Any] = {
        "records": report.records,
        "outcomes": dict(report.outcomes),
        "seconds": round(report.seconds, 2),
        "records_per_s": round(report.records / report.seconds) if report.seconds else None,
        "faithful": report.faithful,
    }
    if report.indexing_seconds is not None:
        out["indexing_seconds"] = round(report.indexing_seconds, 2)
        pages = report.seconds - report.indexing_seconds
        out["pages_records_per_s"] = round(report.records / pages) if pages > 0 else None
    return out


async def _import(
    target: Memory, archive: Archive, stage: str, progress: Progress | None
) -> dict[str, Any]:
    """The archive imported as ``mnemowire import`` does, the write timed alone (no verify
    pass), then the same command again with the verify pass, as after a crash: everything
    skipped, every record read back and compared."""
    total = archive.records + archive.tombstones
    step = None if progress is None else (lambda done, _t, _s: progress(stage, done, total))
    written = await import_archive(target, archive, verify=False, progress=step)
    again = await import_archive(target, archive, verify=True)
    out = _moved(written)
    out["rerun_with_verify"] = _moved(again)
    out["verified"] = {
        "states": {k: dict(v) for k, v in again.states.items()},
        "differences": len(again.differences),
    }
    return out


async def _run(count: int, dsn: str | None, progress: Progress | None) -> dict[str, Any]:
    embedder = HashEmbedder(DIMENSION)
    results: dict[str, Any] = {"store": f"sqlite-vec (file), {DIMENSION}-d vectors"}
    with tempfile.TemporaryDirectory(prefix="mnemowire-bench-portability-") as folder:
        base = Path(folder)
        source = Memory(SqliteVecStore(str(base / "source.db"), embedder=embedder))
        async with source:
            started = time.perf_counter()
            results["loaded"] = await _load(source, count, DIMENSION)
            results["load_s"] = round(time.perf_counter() - started, 1)
            archive_path = base / "archive.jsonl"
            rss: list[float] = []

            def sample(done: int, _total: int, _stage: str) -> None:
                rss.append(rss_mb())
                if progress is not None:
                    progress("export", done, count)

            with archive_path.open("wb") as out:
                exported = await export_archive(source, out, progress=sample)
            results["export"] = {
                **exported,
                "records_per_s": exported.pop("records_per_second"),
                "archive_mb": round(archive_path.stat().st_size / 2**20, 1),
                "rss_mb_first_page": rss[0],
                "rss_mb_last_page": rss[-1],
                "rss_mb_max": max(rss),
            }
            results["without_history"] = await _without_history(source, base, embedder)
            started = time.perf_counter()
            archive = Archive(archive_path).verify()
            verify_s = time.perf_counter() - started
            results["verify_archive"] = {
                "lines": archive.records + archive.tombstones + 2,
                "seconds": round(verify_s, 2),
                "lines_per_s": round((archive.records + archive.tombstones) / verify_s),
            }
            target = Memory(SqliteVecStore(str(base / "target.db"), embedder=embedder))
            async with target:
                results["import_sqlite_vec"] = await _import(
                    target, archive, "import into sqlite-vec", progress
                )
            async with postgres_server(dsn) as (pg_dsn, settings):
                results["postgres_settings"] = settings
                async with _pgvector(pg_dsn, embedder) as pg:
                    results["import_pgvector"] = await _import(
                        pg, archive, "import into pgvector", progress
                    )
                async with _pgvector(pg_dsn, embedder) as pg:
                    step = None
                    if progress is not None:
                        total = archive.records + archive.tombstones
                        step = lambda done, _t, _s: progress("migrate", done, total)  # noqa: E731
                    moved = await migrate(source, pg, verify=False, progress=step)
                    results["migrate_sqlite_vec_to_pgvector"] = _moved(moved)
    return results


async def _without_history(source: Memory, base: Path, embedder: HashEmbedder) -> dict[str, Any]:
    """What carrying history costs, side by side: the same export with ``--no-history``, and
    that archive imported into a fresh sqlite-vec store (the write alone)."""
    path = base / "archive-no-history.jsonl"
    with path.open("wb") as out:
        exported = await export_archive(source, out, history=False)
    target = Memory(SqliteVecStore(str(base / "target-no-history.db"), embedder=embedder))
    async with target:
        written = await import_archive(target, Archive(path).verify(), verify=False)
    return {
        "export": {
            "records_per_s": exported["records_per_second"],
            "seconds": exported["seconds"],
            "archive_mb": round(path.stat().st_size / 2**20, 1),
        },
        "import_sqlite_vec": _moved(written),
    }


@contextlib.asynccontextmanager
async def _pgvector(dsn: str, embedder: HashEmbedder) -> AsyncIterator[Memory]:
    """A fresh schema, dropped afterwards."""
    store = PgVectorStore(dsn, embedder=embedder, schema=f"bench_{uuid.uuid4().hex[:8]}")
    async with Memory(store) as memory:
        try:
            yield memory
        finally:
            await store.drop()


def run_portability(
    count: int = 100_000, dsn: str | None = None, progress: Progress | None = None
) -> Any:
    """Export ``count`` records, verify the archive, import it into sqlite-vec and pgvector,
    and migrate sqlite-vec -> pgvector; ``dsn``: a PostgreSQL to use (a local one otherwise)."""
    return asyncio.run(_run(count, dsn, progress))
