"""The mem0 store on the real mem0ai 2.2.1 (qdrant local, mem0's own MiniLM embedder), in the
`nox -s mem0` virtualenv: the main suite does not install mem0 (~1.6 GB) and ignores this
folder. The first store of a session loads the model (~6 s); the next open in ~0.2 s."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.mem0 import Mem0Store
from tests.adapters._support import CheckedStore, Clock

__all__ = ["CheckedStore", "Clock"]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def raw(tmp_path: Path, clock: Clock) -> AsyncIterator[Mem0Store]:
    store = Mem0Store(tmp_path / "mem0", clock=clock)
    try:
        yield store
    finally:
        await store.aclose()


@pytest.fixture
def store(raw: Mem0Store) -> CheckedStore:
    """The store with requests parsed and answers held to the spec, as the boundary would."""
    return CheckedStore(raw)


@pytest.fixture
async def make_store(tmp_path: Path, clock: Clock) -> AsyncIterator[Callable[..., CheckedStore]]:
    """Stores as the shared review tests open them (``policy=`` and the like). (Nothing here
    imports the conformance package: hypothesis must not touch its storage while conftests
    load, and the suite turns that warning into an error.)"""
    opened: list[Mem0Store] = []

    def factory(**options: Any) -> CheckedStore:
        store = Mem0Store(tmp_path / f"mem0-{len(opened)}", clock=clock, **options)
        opened.append(store)
        return CheckedStore(store)

    yield factory
    for store in opened:
        await store.aclose()
