"""Fixtures for the sqlite-vec store: a fake clock and a factory of stores that check every
response against the spec's response schema."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mnemowire import spec
from mnemowire._wire import to_wire
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import Embedder, HashEmbedder


class Clock:
    """Epoch milliseconds that only move when a test says so."""

    def __init__(self, now: int = 1_780_000_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, *, days: float = 0, ms: int = 0) -> None:
        self.now += int(days * 86_400_000) + ms


class CheckedStore:
    """A store whose every response is validated against the spec before the test sees it."""

    def __init__(self, store: SqliteVecStore) -> None:
        self.inner = store

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)
        message = {
            "remember": "remember.response",
            "recall": "recall.response",
            "forget": "forget.response",
            "merge": "merge.response",
            "expire": "expire.response",
            "health": "health",
        }.get(name)
        if message is None:
            return attribute

        async def call(*args: Any, **kwargs: Any) -> Any:
            response = await attribute(*args, **kwargs)
            envelope = spec.validate(message, to_wire(response))
            assert envelope is None, envelope
            return response

        return call


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
