"""Fixtures for the router tests: real sqlite-vec stores, and routers whose every answer (and
every error envelope) is checked against the spec before a test sees it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import Embedder, HashEmbedder
from mnemowire.errors import MnemowireError
from mnemowire.kit import to_wire
from mnemowire.layers.router import MemoryRouter
from mnemowire.protocol import MemoryStore
from tests.adapters._support import RESPONSES, CheckedStore, Parsing


class CheckedRouter(CheckedStore):
    """A router that takes spec JSON, and whose responses, capabilities and error envelopes
    must all be valid messages."""

    def capabilities(self) -> Any:
        declared = self.inner.capabilities()
        assert spec.validate("capabilities", to_wire(declared)) is None
        return declared

    def _checked(self, name: str, method: Callable[..., Awaitable[Any]]) -> Any:
        return _envelopes_checked(super()._checked(name, method))

    def __getattr__(self, name: str) -> Any:
        attribute = super().__getattr__(name)
        if name in RESPONSES or name == "remember_many":
            return _envelopes_checked(attribute)
        return attribute


def _envelopes_checked(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    async def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        except MnemowireError as exc:
            envelope = exc.envelope
            raise_if_invalid = spec.validate("error", envelope)
            if raise_if_invalid is not None:
                raise AssertionError(f"an invalid error envelope: {envelope}") from exc
            raise

    return call


StoreFactory = Callable[..., Any]
RouterFactory = Callable[..., CheckedRouter]


@pytest.fixture
async def make_store() -> AsyncIterator[StoreFactory]:
    """``make_store(name, cls=SqliteVecStore, embedder=HashEmbedder(64), **kwargs)``: an
    in-memory store (or a subclass of it) that takes spec JSON (:class:`Parsing`: its answers
    stay raw, so a child's broken answer reaches the router), closed after the test."""
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
        return Parsing(store)

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
