"""Readers never wait for writers: while another process holds the write lock (a long import,
a slow erasure), a store on the same file opens and recalls, and its recall times are kept
until they can be written; an expire of this store sees them."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.adapters.sqlite_vec._driver import connect, find_driver
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConfigError
from tests.adapters._support import CheckedStore, Clock


async def test_open_and_recall_do_not_wait_for_another_writer(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    clock = Clock()
    async with CheckedStore(SqliteVecStore(path, embedder=HashEmbedder(32), clock=clock)) as first:
        kept = (await first.remember({"agent_id": "a", "type": "semantic", "content": "tea"})).id
        idle = (await first.remember({"agent_id": "a", "type": "semantic", "content": "rug"})).id
    writer = connect(find_driver(), path)
    writer.execute("BEGIN IMMEDIATE")  # another process's long write
    writer.execute("UPDATE memories SET confidence = confidence")
    clock.advance(days=3)
    store = CheckedStore(SqliteVecStore(path, embedder=HashEmbedder(32), clock=clock))  # no wait
    try:
        found = await store.recall({"agent_id": "a", "query": "tea", "k": 1})
        assert [h.id for h in found.results] == [kept]
        assert writer.in_transaction  # all of that while the lock was held
        writer.execute("COMMIT")
        expired = await store.expire(
            {"agent_id": "a", "policy": {"no_recall_in_days": 1}, "action": "archive"}
        )
        assert expired.matched_ids == [idle]  # the recall made while locked counted
    finally:
        await store.aclose()
        writer.close()


async def test_a_file_from_a_newer_mnemowire_is_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "newer.db")
    async with SqliteVecStore(path, embedder=HashEmbedder(32)):
        pass
    connection = connect(find_driver(), path)
    connection.execute("UPDATE mnemowire_meta SET value = '99' WHERE key = 'schema_version'")
    connection.close()
    with pytest.raises(ConfigError, match="made by a newer mnemowire"):
        SqliteVecStore(path, embedder=HashEmbedder(32))
