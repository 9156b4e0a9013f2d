"""The Memory facade: what applications, the CLI and the demo talk to.

It is the boundary: every request (a dict or a generated model) is validated against the spec
before any store sees it, every response is validated against its response schema before the
caller sees it, and every failure is a :class:`~mnemowire.errors.MnemowireError` carrying the
spec's error envelope. Over one store it calls that store; over several it builds a
:class:`~mnemowire.router.MemoryRouter`.

>>> async with Memory.open("sqlite-vec://memory.db") as memory:      # doctest: +SKIP
...     await memory.remember({"agent_id": "a", "type": "semantic", "content": "Alice likes tea"})
...     found = await memory.recall({"agent_id": "a", "query": "what does Alice drink?"})

Scripts without an event loop use :class:`SyncMemory`, the same methods without ``await``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from mnemowire import spec
from mnemowire.errors import MnemowireError, StoreError
from mnemowire.kit import checked, to_wire
from mnemowire.models import (
    Capabilities,
    ExpireRequest,
    ExpireResponse,
    ForgetRequest,
    ForgetResponse,
    Health,
    MergeRequest,
    MergeResponse,
    RecallRequest,
    RecallResponse,
    RememberRequest,
    RememberResponse,
)
from mnemowire.protocol import MemoryStore, QueryVector
from mnemowire.registry import open_store

__all__ = ["OPERATIONS", "Memory", "SyncMemory"]

R = TypeVar("R", bound=BaseModel)
#: operation -> (request model, response model)
OPERATIONS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "remember": (RememberRequest, RememberResponse),
    "recall": (RecallRequest, RecallResponse),
    "forget": (ForgetRequest, ForgetResponse),
    "merge": (MergeRequest, MergeResponse),
    "expire": (ExpireRequest, ExpireResponse),
}


class Memory:
    """Validated access to one store, or to a router over several."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    @classmethod
    def open(
        cls, urls: str | Sequence[str], *, embedder: Any = None, **router_options: Any
    ) -> Memory:
        """Open stores by URL; with several, fan out through a MemoryRouter.

        ``embedder`` (an Embedder) is shared by every store that embeds, so a router embeds a
        query once; ``router_options`` go to MemoryRouter (weights, quorum, deadline_s, ...).
        """
        urls = [urls] if isinstance(urls, str) else list(urls)
        if not urls:
            raise ValueError("Memory.open needs at least one store URL")
        options = {} if embedder is None else {"embedder": embedder}
        stores = [open_store(url, **options) for url in urls]
        if len(stores) == 1 and not router_options:
            return cls(stores[0])
        from mnemowire.router import MemoryRouter

        return cls(MemoryRouter(stores, **router_options))

    async def __aenter__(self) -> Memory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.store.aclose()

    async def remember(self, request: RememberRequest | dict[str, Any]) -> RememberResponse:
        req, _ = checked("remember.request", request, RememberRequest)
        return await self._answer("remember.response", self.store.remember(req))

    async def recall(
        self, request: RecallRequest | dict[str, Any], *, query_vector: QueryVector | None = None
    ) -> RecallResponse:
        """``query_vector``: the query's embedding when the caller already has it (a store
        whose embedder has another name embeds the query itself)."""
        req, _ = checked("recall.request", request, RecallRequest)
        return await self._answer(
            "recall.response", self.store.recall(req, query_vector=query_vector)
        )

    async def forget(self, request: ForgetRequest | dict[str, Any]) -> ForgetResponse:
        req, _ = checked("forget.request", request, ForgetRequest)
        return await self._answer("forget.response", self.store.forget(req))

    async def merge(self, request: MergeRequest | dict[str, Any]) -> MergeResponse:
        req, _ = checked("merge.request", request, MergeRequest)
        return await self._answer("merge.response", self.store.merge(req))

    async def expire(self, request: ExpireRequest | dict[str, Any]) -> ExpireResponse:
        req, _ = checked("expire.request", request, ExpireRequest)
        return await self._answer("expire.response", self.store.expire(req))

    async def call(self, operation: str, request: dict[str, Any]) -> BaseModel:
        """Run an operation by name (the CLI's JSON Lines mode)."""
        if operation not in OPERATIONS:
            raise ValueError(f"unknown operation {operation!r}; known: {', '.join(OPERATIONS)}")
        method: Callable[[dict[str, Any]], Awaitable[BaseModel]] = getattr(self, operation)
        return await method(request)

    async def health(self) -> Health:
        return await self._answer("health", self.store.health())

    def capabilities(self) -> Capabilities:
        return self.store.capabilities()

    async def _answer(self, message: str, pending: Awaitable[R]) -> R:
        """Await a store's answer and hold it to the spec before handing it out."""
        try:
            response = await pending
        except MnemowireError:
            raise
        except Exception as exc:  # a store bug must still surface as a spec error envelope
            raise StoreError(f"{self.store.name} failed: {type(exc).__name__}: {exc}") from exc
        envelope = spec.validate(message, to_wire(response))
        if envelope is not None:
            raise StoreError(
                f"{self.store.name} answered with an invalid {message}; this is a bug in that "
                "store",
                details=envelope["details"],
            )
        return response


class SyncMemory:
    """:class:`Memory` for scripts: the same operations, blocking, on a private event loop."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory
        self._runner = asyncio.Runner()

    @classmethod
    def open(cls, urls: str | Sequence[str], **options: Any) -> SyncMemory:
        return cls(Memory.open(urls, **options))

    def __enter__(self) -> SyncMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._runner.run(self._memory.aclose())
        self._runner.close()

    def remember(self, request: RememberRequest | dict[str, Any]) -> RememberResponse:
        return self._runner.run(self._memory.remember(request))

    def recall(
        self, request: RecallRequest | dict[str, Any], *, query_vector: QueryVector | None = None
    ) -> RecallResponse:
        return self._runner.run(self._memory.recall(request, query_vector=query_vector))

    def forget(self, request: ForgetRequest | dict[str, Any]) -> ForgetResponse:
        return self._runner.run(self._memory.forget(request))

    def merge(self, request: MergeRequest | dict[str, Any]) -> MergeResponse:
        return self._runner.run(self._memory.merge(request))

    def expire(self, request: ExpireRequest | dict[str, Any]) -> ExpireResponse:
        return self._runner.run(self._memory.expire(request))

    def health(self) -> Health:
        return self._runner.run(self._memory.health())

    def capabilities(self) -> Capabilities:
        return self._memory.capabilities()
