"""The pgvector store's first import into an unused store (``PgVectorStore.load_fresh``, an
operator's method outside the protocol, like ``vacuum``): every row loaded with binary COPY while
both indexes are dropped, then the indexes built once at the end, all in one transaction. A bulk
build is faster than maintaining the indexes row by row (and the vector index's cells are then
trained on every row); any other import goes through ``remember_batch`` (the facade's
``remember_many``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from mnemowire.adapters.pgvector._database import Database
from mnemowire.adapters.pgvector._migrations import keyword_index
from mnemowire.adapters.pgvector._vector_index import build_missing
from mnemowire.adapters.pgvector._writes import Result, write
from mnemowire.embedders import Vectors
from mnemowire.kit.staging import StagingRules
from mnemowire.models import RememberRequest, RememberResponse

__all__ = ["load_fresh"]


async def load_fresh(  # noqa: PLR0917
    db: Database,
    typed: Sequence[tuple[RememberRequest, dict[str, Any]]],
    vectors: Vectors,
    batch_size: int,
    clock: Callable[[], int],
    results: Callable[[float], Result],
    policy: StagingRules | None,
) -> list[RememberResponse]:
    """Every row COPYed (``batch_size`` per COPY) with both indexes dropped, then the indexes
    built once, all in one transaction (it blocks the store's other readers and writers until
    it commits); a staging policy stages rows as it would any remember."""
    started = time.perf_counter()
    responses: list[RememberResponse] = []
    async with db.transaction("load_fresh") as conn:
        # both indexes are built once at the end: row by row, the GIN index (written
        # through) made a 100k COPY ~20 % slower
        await conn.execute("DROP INDEX IF EXISTS memories_embedding")
        await conn.execute("DROP INDEX memories_search")
        for start in range(0, len(typed), batch_size):
            responses.extend(
                await write(
                    conn,
                    typed[start : start + batch_size],
                    vectors[start : start + batch_size],
                    now=clock(),
                    result=results(started),
                    copy=True,
                    offset=start,
                    policy=policy,
                )
            )
        await build_missing(conn, vectors.shape[1])
        await conn.execute(keyword_index())
    return responses
