"""Fixtures for the router tests: real sqlite-vec stores, and routers whose every answer (and
every error envelope) is checked against the spec before a test sees it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import Embedder, HashEmbedder
from mnemowire.errors import MnemowireError
from mnemowire.kit import to_wire
from mnemowire.protocol import MemoryStore
from mnemowire.router import MemoryRouter
from tests.adapters._support import RESPONSES


class CheckedRouter:
    """A router whose responses, capabilities and error envelopes must all be valid messages."""

    def __init__(self, router: MemoryRouter) -> None:
        self.inner = router

    def capabilities(self) -> Any:
        declared = self.inner.capabilities()
        assert spec.validate("capabilities", to_wire(declared)) is None
        return declared

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)
        message = RESPONSES.get(name)
        if message is None:
            return attribute

        async def call(*args: Any, **kwargs: Any) -> Any:
            failed: MnemowireError | None = None
            try:
                response = await attribute(*args, **kwargs)
            except MnemowireError as exc:
                failed = exc
            if failed is not None:
                assert spec.validate("error", failed.envelope) is None, failed.envelope
                raise failed
            envelope = spec.validate(message, to_wire(response))
            assert envelope is None, envelope
            return response

        return call


StoreFactory = Callable[..., Any]
RouterFactory = Callable[..., CheckedRouter]


@pytest.fixture
async def make_store() -> AsyncIterator[StoreFactory]:
    """``make_store(name, cls=SqliteVecStore, embedder=HashEmbedder(64), **kwargs)``: an
    in-memory store (or a subclass of it), closed after the test."""
    opened: list[SqliteVecStore] = []

    def factory(
        name: str,
        *,
        cls: type[SqliteVecStore] = SqliteVecStore,
        embedder: Embedder | None = None,
        **kwargs: Any,
    ) -> Any:
        store = cls(":memory:", embedder=embedder or HashEmbedder(64), name=name, **kwargs)
        opened.append(store)
        return store

    yield factory
    for store in opened:
        await store.aclose()


@pytest.fixture
def make_router() -> RouterFactory:
    """``make_router(stores, **options)``: a checked MemoryRouter (the stores are closed by
    make_store, so the router is never closed here)."""

    def factory(stores: list[MemoryStore], **options: Any) -> CheckedRouter:
        options.setdefault("deadline_s", 5.0)
        return CheckedRouter(MemoryRouter(stores, **options))

    return factory
