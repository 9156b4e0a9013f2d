"""Fixtures for the sqlite-vec store: a fake clock and a factory of stores that check every
response against the spec's response schema."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import Embedder, HashEmbedder
from tests.adapters._support import CheckedStore, Clock

__all__ = ["CheckedStore", "Clock", "StoreFactory"]


StoreFactory = Callable[..., Any]


@pytest.fixture
def clock() -> Clock:
    return Clock()


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
