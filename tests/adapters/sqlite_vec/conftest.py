"""Fixtures for the sqlite-vec store: a fake clock and a factory of stores that check every
response against the spec's response schema."""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.adapters.sqlite_vec._driver import connect, find_driver
from mnemowire.embedders import Embedder, HashEmbedder
from mnemowire.layers.memory import Memory
from tests.adapters._support import CheckedStore, Clock

__all__ = ["CheckedStore", "Clock", "StoreFactory"]


StoreFactory = Callable[..., Any]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def snapshot(tmp_path: Path) -> Callable[[], str]:
    """The default store file's bytes (main file and write-ahead log), hashed: equal
    snapshots mean nothing was written, byte for byte."""

    def take() -> str:
        path = tmp_path / "memory.db"
        digest = hashlib.sha256()
        for part in (path, path.with_name(path.name + "-wal")):
            if part.exists():
                digest.update(part.read_bytes())
        return digest.hexdigest()

    return take


@pytest.fixture
def audit(tmp_path: Path) -> Callable[[], list[dict[str, Any]]]:
    """The default store file's audit log, oldest first: operation, agent_id, ids, detail."""

    def read() -> list[dict[str, Any]]:
        connection = connect(find_driver(), str(tmp_path / "memory.db"))
        try:
            rows = connection.execute(
                "SELECT operation, agent_id, ids, detail FROM audit_log ORDER BY seq"
            ).fetchall()
        finally:
            connection.close()
        return [
            {
                "operation": operation,
                "agent_id": agent_id,
                "ids": json.loads(ids),
                "detail": json.loads(detail) if detail else {},
            }
            for operation, agent_id, ids, detail in rows
        ]

    return read


@pytest.fixture
def holds(tmp_path: Path) -> Callable[[str], bool]:
    """Whether the bytes of the default store file (after a checkpoint: main file and write-ahead
    log) still contain ``text`` anywhere, in UTF-8: the data, not a view of it."""

    def check(text: str) -> bool:
        path = tmp_path / "memory.db"
        connection = connect(find_driver(), str(path))
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()
        needle = text.encode("utf-8")
        return any(
            part.exists() and needle in part.read_bytes()
            for part in (path, path.with_name(path.name + "-wal"))
        )

    return check


@pytest.fixture
async def make_store(tmp_path: Path, clock: Clock) -> AsyncIterator[StoreFactory]:
    opened: list[SqliteVecStore] = []

    def factory(
        path: str | None = None, *, embedder: Embedder | None = None, **options: Any
    ) -> CheckedStore:
        store = SqliteVecStore(
            str(tmp_path / "memory.db") if path is None else path,
            embedder=embedder or HashEmbedder(64),
            clock=clock,
            **options,
        )
        opened.append(store)
        return CheckedStore(store)

    yield factory
    for store in opened:
        await store.aclose()


@pytest.fixture
def archive_store() -> Callable[..., Memory]:
    """Stores of their own, in memory (tests/adapters/_archive.py)."""

    def factory(dimension: int = 32, **options: Any) -> Memory:
        return Memory(SqliteVecStore(":memory:", embedder=HashEmbedder(dimension), **options))

    return factory
