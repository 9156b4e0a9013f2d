"""Recall from a streaming replica: searches go there, recall tracking and every write go to
the primary, a synchronous replica keeps read-your-writes, and a lost replica falls back."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from mnemowire.adapters.pgvector import PgVectorStore
from mnemowire.apps.tools.postgres import FAST_SETTINGS, LocalServer, start, stop
from mnemowire.embedders import HashEmbedder
from mnemowire.layers.memory import Memory


@pytest.fixture
def pair() -> Iterator[tuple[LocalServer, LocalServer]]:
    """A primary and a hot standby streaming from it, each in a folder of its own."""
    folders = [Path(tempfile.mkdtemp(prefix=f"mnemowire-pg-{role}-")) for role in "pr"]
    try:
        primary = start(folders[0], settings=FAST_SETTINGS)
        replica = start(folders[1], settings=FAST_SETTINGS, replica_of=primary)
        yield primary, replica
    finally:
        for folder in reversed(folders):
            stop(folder)
            shutil.rmtree(folder, ignore_errors=True)


def sql(dsn: str, statement: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        cursor = conn.execute(statement)
        return cursor.fetchall() if cursor.description else []


async def until(condition: Any, what: str, seconds: float = 20.0) -> None:
    for _ in range(int(seconds / 0.1)):
        if await condition():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def test_recall_searches_the_replica_and_writes_stay_on_the_primary(
    pair: tuple[LocalServer, LocalServer],
) -> None:
    primary, replica = pair
    events: list[tuple[str, dict[str, Any]]] = []
    store = PgVectorStore(
        primary.dsn(),
        read_dsn=replica.dsn(),
        embedder=HashEmbedder(64),
        pool_timeout=3.0,
        tracer=lambda *event: events.append(event),
    )
    async with store:

        async def recalled(query: str) -> list[str]:
            found = await Memory(store).recall({"agent_id": "a", "query": query, "k": 5})
            return [hit.content for hit in found.results]

        async def replica_has_schema() -> bool:
            rows = sql(replica.dsn(), "SELECT to_regclass('public.mnemowire_meta') IS NOT NULL")
            return bool(rows[0][0])

        await until(replica_has_schema, "the replica to receive the schema")
        # replication paused: a new record is on the primary only, and recall does not see it
        sql(replica.dsn(), "SELECT pg_wal_replay_pause()")
        await Memory(store).remember({"agent_id": "a", "type": "semantic", "content": "green tea"})
        assert await recalled("green tea") == []
        health = await store.health()
        assert health.status == "ok"
        assert health.details is not None
        assert health.details["replica"]["in_recovery"] is True
        sql(replica.dsn(), "SELECT pg_wal_replay_resume()")

        async def seen() -> bool:
            return await recalled("green tea") == ["green tea"]

        await until(seen, "the replica to replay the write")
        assert sql(primary.dsn(), "SELECT count(*) FROM recalls") == [(1,)]  # tracked there
        # a synchronous replica (remote_apply): read-your-writes holds on it
        sql(primary.dsn(), "ALTER SYSTEM SET synchronous_standby_names = '*'")
        sql(primary.dsn(), "ALTER SYSTEM SET synchronous_commit = 'remote_apply'")
        sql(primary.dsn(), "SELECT pg_reload_conf()")

        async def synchronous() -> bool:
            return sql(primary.dsn(), "SELECT sync_state FROM pg_stat_replication") == [("sync",)]

        await until(synchronous, "the replica to become synchronous")
        for i in range(5):
            content = f"oolong number {i}"
            await Memory(store).remember({"agent_id": "a", "type": "semantic", "content": content})
            assert content in await recalled(content)
        assert not [e for e in events if e[0] == "replica_unavailable"]
        # the replica goes away: recall carries on against the primary
        stop(replica.folder)
        assert "green tea" in await recalled("green tea")
        assert [e for e in events if e[0] == "replica_unavailable"]
        assert (await store.health()).status == "degraded"
