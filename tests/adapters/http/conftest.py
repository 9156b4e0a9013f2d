"""Fixtures for the http:// store: every store a test opens is a real sqlite-vec store served
by a real server (tests/server/_serving.py) and reached over HTTP by HttpStore; the test keeps
the store's clock and file."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.http import HttpStore
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import MemoryServer
from mnemowire.embedders import Embedder, HashEmbedder
from tests.adapters._support import CheckedStore, Clock
from tests.adapters.sqlite_vec.conftest import audit, holds
from tests.server._serving import serving

__all__ = ["StoreFactory", "audit", "holds"]  # the served file's audit log and bytes

StoreFactory = Callable[..., Any]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def snapshot(tmp_path: Path) -> Callable[[], str]:
    """The served store file's bytes (main file and write-ahead log), hashed."""

    def take() -> str:
        path = tmp_path / "memory.db"
        digest = hashlib.sha256()
        for part in (path, path.with_name(path.name + "-wal")):
            if part.exists():
                digest.update(part.read_bytes())
        return digest.hexdigest()

    return take


@pytest.fixture
async def make_store(tmp_path: Path, clock: Clock) -> AsyncIterator[StoreFactory]:
    with contextlib.ExitStack() as servers:
        clients: list[HttpStore] = []

        def factory(
            path: str | None = None, *, embedder: Embedder | None = None, **options: Any
        ) -> CheckedStore:
            store = SqliteVecStore(
                str(tmp_path / "memory.db") if path is None else path,
                embedder=embedder or HashEmbedder(64),
                clock=clock,
                **options,
            )
            url = servers.enter_context(serving(MemoryServer(store)))
            client = HttpStore(url)
            clients.append(client)
            return CheckedStore(client)

        yield factory
        for client in clients:
            await client.aclose()
