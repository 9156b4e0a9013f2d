"""The pgvector store's bulk import (``remember_many``): batches written with binary COPY,
several at once on as many connections, or, for a first import into an unused store, every
row loaded and both indexes built once at the end."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mnemowire.adapters.pgvector._database import Database, one
from mnemowire.adapters.pgvector._migrations import HNSW_M, keyword_index, vector_index
from mnemowire.adapters.pgvector._writes import Result, write
from mnemowire.embedders import Vectors
from mnemowire.kit import searchable_text
from mnemowire.kit.staging import StagingRules
from mnemowire.models import RememberRequest, RememberResponse

__all__ = ["BulkOptions", "bulk_import"]

Typed = Sequence[tuple[RememberRequest, dict[str, Any]]]


@dataclass(frozen=True)
class BulkOptions:
    """``remember_many``'s knobs (its docstring says what each does)."""

    batch_size: int
    rebuild_index: bool
    concurrency: int
    #: the store's staging policy: a bulk import is staged like any remember
    policy: StagingRules | None = None


async def bulk_import(
    db: Database,
    typed: Typed,
    vectors: Vectors | None,
    *,
    embed: Callable[[list[str]], Awaitable[Vectors]],
    clock: Callable[[], int],
    results: Callable[[float], Result],
    options: BulkOptions,
) -> list[RememberResponse]:
    """Write every request (already validated), embedding the ones without ``vectors``."""
    if options.rebuild_index:
        if vectors is None:  # embed everything first: never inside the long transaction
            vectors = await embed([searchable_text(r.type, r.content) for r, _ in typed])
        return await _rebuild(db, typed, vectors, options, clock, results)
    batch_size = options.batch_size
    batches = [
        (start, typed[start : start + batch_size]) for start in range(0, len(typed), batch_size)
    ]
    ids = [r.id for r, _ in typed if r.id is not None]
    concurrency = options.concurrency
    if len(set(ids)) < len(ids):  # a repeated id must replay its first write: in order
        concurrency = 1
    lanes = asyncio.Semaphore(max(1, concurrency))

    async def one(start: int, batch: Typed) -> list[RememberResponse]:
        async with lanes:
            began = time.perf_counter()
            if vectors is None:
                embedded = await embed([searchable_text(r.type, r.content) for r, _ in batch])
            else:
                embedded = vectors[start : start + len(batch)]
            async with db.transaction("remember_many") as conn:
                return await write(
                    conn, batch, embedded, now=clock(), result=results(began), copy=True,
                    policy=options.policy,
                )  # fmt: skip

    try:  # a failure cancels (rolls back) the batches still running
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(start, batch)) for start, batch in batches]
    except ExceptionGroup as failed:
        raise failed.exceptions[0] from None
    return [response for task in tasks for response in task.result()]


async def _rebuild(  # noqa: PLR0917
    db: Database,
    typed: Typed,
    vectors: Vectors,
    options: BulkOptions,
    clock: Callable[[], int],
    results: Callable[[float], Result],
) -> list[RememberResponse]:
    """Every row COPYed with both indexes dropped, then the indexes built once, all in one
    transaction (it blocks the store's other readers and writers until it commits)."""
    started = time.perf_counter()
    responses: list[RememberResponse] = []
    async with db.transaction("remember_many") as conn:
        cursor = await conn.execute("SELECT count(*) FROM memories WHERE state = 'active'")
        rows = int((await one(cursor))[0]) + len(typed)
        # the graph must fit in maintenance_work_mem, or the build slows down many times
        per_row = vectors.shape[1] * 4 + 16 * HNSW_M * 2 + 256
        memory_mb = max(64, min(4096, rows * per_row * 3 // 2 // 2**20))
        # both indexes are built once at the end: row by row, the GIN index (written
        # through) made a 100k COPY ~20 % slower
        await conn.execute("DROP INDEX memories_embedding")
        await conn.execute("DROP INDEX memories_search")
        batch_size = options.batch_size
        for start in range(0, len(typed), batch_size):
            responses.extend(
                await write(
                    conn,
                    typed[start : start + batch_size],
                    vectors[start : start + batch_size],
                    now=clock(),
                    result=results(started),
                    copy=True,
                    policy=options.policy,
                )
            )
        await conn.execute(
            "SELECT set_config('maintenance_work_mem', %s, true)", (f"{memory_mb}MB",)
        )
        await conn.execute(vector_index())
        await conn.execute(keyword_index())
    return responses
