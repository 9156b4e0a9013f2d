"""The Memory facade: what applications, the CLI and the demo talk to.

It is the validating boundary (:class:`~mnemowire.layers.validating.ValidatingStore`) opened by
URL: every request (a dict or a generated model) is validated against the spec once before any
store sees it, every response is validated against its response schema before the caller sees
it, and every failure is a :class:`~mnemowire.errors.MnemowireError` carrying the spec's error
envelope. Over one store it calls that store; over several it builds a
:class:`~mnemowire.layers.router.MemoryRouter`.

>>> async with Memory.open("sqlite-vec://memory.db") as memory:      # doctest: +SKIP
...     await memory.remember({"agent_id": "a", "type": "semantic", "content": "Alice likes tea"})
...     found = await memory.recall({"agent_id": "a", "query": "what does Alice drink?"})

Scripts without an event loop use :class:`SyncMemory`, the same methods without ``await``.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from mnemowire.embedders import Vectors
from mnemowire.errors import MnemowireError
from mnemowire.layers.validating import ValidatingStore
from mnemowire.models import (
    Capabilities,
    Health,
    RecallRequest,
    RecallResponse,
    RememberRequest,
    RememberResponse,
)
from mnemowire.models.operations import BY_NAME, Operation, Req, Resp, SyncOperations
from mnemowire.protocol import QueryEmbedding
from mnemowire.registry import open_store

__all__ = ["Memory", "RunningLoopError", "SyncMemory"]


class Memory(ValidatingStore):
    """Validated access to one store, or to a router over several."""

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
        from mnemowire.layers.router import MemoryRouter

        return cls(MemoryRouter(stores, **router_options))

    async def __aenter__(self) -> Memory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def call(self, operation: str, request: Mapping[str, Any]) -> BaseModel:
        """Run an operation by name (the CLI's JSON Lines mode)."""
        if operation not in BY_NAME:
            raise ValueError(f"unknown operation {operation!r}; known: {', '.join(BY_NAME)}")
        answer: BaseModel = await self.operate(BY_NAME[operation], request)
        return answer


class RunningLoopError(MnemowireError, RuntimeError):
    """:class:`SyncMemory` used where an event loop is already running (Jupyter, an async
    app), where it cannot block on a loop of its own; a RuntimeError, as asyncio's was."""


def _no_running_loop() -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RunningLoopError(
        "SyncMemory cannot run inside a running event loop (Jupyter, an async app): use the "
        "async Memory there, with await: `async with Memory.open(url) as memory: "
        "await memory.recall(...)`"
    )


class SyncMemory(SyncOperations):
    """:class:`Memory` for scripts: the same operations, blocking, on a private event loop.

    Inside a running event loop it raises :class:`RunningLoopError` when made, before it opens
    anything: every call would fail there, and leave its coroutine unawaited.
    """

    def __init__(self, memory: Memory) -> None:
        _no_running_loop()
        self._memory = memory
        self._runner = asyncio.Runner()

    @classmethod
    def open(cls, urls: str | Sequence[str], **options: Any) -> SyncMemory:
        _no_running_loop()  # before Memory.open opens the stores
        return cls(Memory.open(urls, **options))

    def __enter__(self) -> SyncMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._runner.run(self._memory.aclose())
        self._runner.close()

    def _operate(self, operation: Operation[Req, Resp], request: Req | Mapping[str, Any]) -> Resp:
        return self._runner.run(self._memory.operate(operation, request))

    def recall(
        self,
        request: RecallRequest | Mapping[str, Any],
        *,
        query_vector: QueryEmbedding | None = None,
    ) -> RecallResponse:
        return self._runner.run(self._memory.recall(request, query_vector=query_vector))

    def remember_many(
        self,
        requests: Sequence[RememberRequest | Mapping[str, Any]],
        *,
        batch_size: int | None = None,
        vectors: Vectors | None = None,
        concurrency: int = 1,
    ) -> builtins.list[RememberResponse]:
        """:meth:`Memory.remember_many <ValidatingStore.remember_many>`, blocking."""
        return self._runner.run(
            self._memory.remember_many(
                requests, batch_size=batch_size, vectors=vectors, concurrency=concurrency
            )
        )

    def health(self) -> Health:
        return self._runner.run(self._memory.health())

    def capabilities(self) -> Capabilities:
        return self._memory.capabilities()
