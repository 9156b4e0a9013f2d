"""The Memory facade: what applications, the CLI and the demo talk to.

It is the validating boundary (:class:`~mnemowire.layers.validating.ValidatingStore`) opened by
URL: every request (a dict or a generated model) is validated against the spec once before any
store sees it, every response is validated against its response schema before the caller sees
it, and every failure is a :class:`~mnemowire.errors.MnemowireError` carrying the spec's error
envelope. Over one store it calls that store; over several it builds a
:class:`~mnemowire.layers.router.MemoryRouter`.

>>> async with Memory.open("sqlite-vec://memory.db") as memory:      # doctest: +SKIP
...     await memory.remember("Alice likes tea", agent="assistant", user="alice")
...     found = await memory.recall("what does Alice drink?", agent="assistant")

The common operations take their request as arguments (:mod:`mnemowire.layers.keywords`) or
as the wire's dict or model (``{"agent_id": "a", "type": "semantic", "content": ...}``); both
cross the same boundary. Scripts without an event loop use :class:`SyncMemory`, the same
methods without ``await``.
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from mnemowire.embedders import Vectors
from mnemowire.errors import MnemowireError
from mnemowire.layers.keywords import keyword_request, speaking_keywords
from mnemowire.layers.validating import ValidatingStore, request_bound
from mnemowire.models import (
    Capabilities,
    ForgetRequest,
    ForgetResponse,
    GetRequest,
    GetResponse,
    Health,
    HistoryRequest,
    HistoryResponse,
    ListRequest,
    ListResponse,
    MemoryRecord,
    RecallRequest,
    RecallResponse,
    RememberRequest,
    RememberResponse,
    UpdateRequest,
    UpdateResponse,
)
from mnemowire.models.operations import (
    BY_NAME,
    FORGET,
    GET,
    HISTORY,
    LIST,
    REMEMBER,
    UPDATE,
    Operation,
    Req,
    Resp,
    SyncOperations,
)
from mnemowire.protocol import QueryEmbedding
from mnemowire.registry import default_store_url, open_store

__all__ = ["Memory", "RunningLoopError", "SyncMemory", "no_running_loop"]


class Memory(ValidatingStore):
    """Validated access to one store, or to a router over several."""

    @classmethod
    def open(
        cls, urls: str | Sequence[str] | None = None, *, embedder: Any = None, **router_options: Any
    ) -> Memory:
        """Open stores by URL; with several, fan out through a MemoryRouter; with none, the
        default store (``$MNEMOWIRE_STORE``, or a sqlite-vec file in the user's data
        directory, as the CLI's).

        ``embedder`` (an Embedder) is shared by every store that embeds, so a router embeds a
        query once; ``router_options`` go to MemoryRouter (weights, quorum, deadline_s, ...).
        """
        if urls is None:
            urls = default_store_url()
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

    # -- the short path: a request as arguments (mnemowire.layers.keywords) -----------------

    async def remember(
        self,
        request: RememberRequest | Mapping[str, Any] | str | None = None,
        *,
        agent: str | None = None,
        user: str | None = None,
        type: str | None = None,  # the spec's field name
        metadata: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> RememberResponse:
        """Store one memory: ``remember("Alice likes tea", agent="assistant", user="alice")``
        (``type`` semantic unless said), or the wire's request as a dict or model."""
        said = {"agent": agent, "user": user, "type": type, "metadata": metadata, **fields}
        return await self._keyword_call(REMEMBER, request, said)

    async def recall(
        self,
        request: RecallRequest | Mapping[str, Any] | str | None = None,
        *,
        agent: str | None = None,
        user: str | None = None,
        k: int | None = None,
        query_vector: QueryEmbedding | None = None,
        **fields: Any,
    ) -> RecallResponse:
        """The memories that best answer a query: ``recall("what does Alice drink?",
        agent="assistant", k=3)``, or the wire's request. ``query_vector``: the query's
        embedding when the caller already has it."""
        said = {"agent": agent, "user": user, "k": k, **fields}
        payload, names = keyword_request("recall", request, said)
        with speaking_keywords("recall", names):
            return await super().recall(payload, query_vector=query_vector)

    async def get(
        self,
        request: GetRequest | Mapping[str, Any] | str | builtins.list[str] | None = None,
        *,
        agent: str | None = None,
        **fields: Any,
    ) -> GetResponse:
        """Records by id: ``get(["01J…", "01K…"], agent="assistant")`` (one id alone too)."""
        return await self._keyword_call(GET, request, {"agent": agent, **fields})

    async def list(
        self,
        request: ListRequest | Mapping[str, Any] | None = None,
        *,
        agent: str | None = None,
        user: str | None = None,
        **fields: Any,
    ) -> ListResponse:
        """One page of an agent's records: ``list(agent="assistant", user="alice")``."""
        return await self._keyword_call(LIST, request, {"agent": agent, "user": user, **fields})

    async def update(
        self,
        request: UpdateRequest | Mapping[str, Any] | str | None = None,
        *,
        agent: str | None = None,
        **fields: Any,
    ) -> UpdateResponse:
        """Change a record at the version read: ``update(id, agent="a", expected_version=1,
        content="...")``."""
        return await self._keyword_call(UPDATE, request, {"agent": agent, **fields})

    async def forget(
        self,
        request: ForgetRequest | Mapping[str, Any] | str | builtins.list[str] | None = None,
        *,
        agent: str | None = None,
        user: str | None = None,
        **fields: Any,
    ) -> ForgetResponse:
        """Forget records by id or filter: ``forget(id, agent="a", hard_delete=True)``."""
        said = {"agent": agent, "user": user, **fields}
        return await self._keyword_call(FORGET, request, said)

    async def history(
        self,
        request: HistoryRequest | Mapping[str, Any] | str | None = None,
        *,
        agent: str | None = None,
        user: str | None = None,
        **fields: Any,
    ) -> HistoryResponse:
        """A page of a record's versions, oldest first: ``history(id, agent="a")``."""
        said = {"agent": agent, "user": user, **fields}
        return await self._keyword_call(HISTORY, request, said)

    # -- conveniences of the boundary over many pages or many ids ---------------------------

    async def list_all(
        self, request: Mapping[str, Any], *, most: int | None = None
    ) -> builtins.list[MemoryRecord]:
        """Every record a ``list`` request matches, newest first, page after page (pages of
        the spec's largest ``limit``), at most ``most`` (None: all)."""
        ceiling = request_bound("list.request", "limit", version=self.version)
        paged = dict(request)
        records: builtins.list[MemoryRecord] = []
        while most is None or len(records) < most:
            paged["limit"] = ceiling if most is None else min(ceiling, most - len(records))
            page = await self.list(paged)
            records.extend(page.records)
            if page.next_cursor is None:
                break
            paged["cursor"] = page.next_cursor
        return records

    async def forget_many(
        self, ids: Sequence[str], request: Mapping[str, Any]
    ) -> builtins.list[ForgetResponse]:
        """Forget ``ids`` with ``request``'s other fields, as many ``forget`` messages as the
        spec's ``maxItems`` of ids needs (each whole; those before a failing one stay done)."""
        ceiling = request_bound("forget.request", "ids", "maxItems", version=self.version)
        return [
            await self.forget({**request, "ids": builtins.list(ids[start : start + ceiling])})
            for start in range(0, len(ids), ceiling)
        ]

    async def _keyword_call(
        self, operation: Operation[Req, Resp], request: Any, keywords: Mapping[str, Any]
    ) -> Resp:
        payload, names = keyword_request(operation.name, request, keywords)
        with speaking_keywords(operation.name, names):
            return await self.operate(operation, payload)


class RunningLoopError(MnemowireError, RuntimeError):
    """:class:`SyncMemory` used where an event loop is already running (Jupyter, an async
    app), where it cannot block on a loop of its own; a RuntimeError, as asyncio's was."""


def no_running_loop(
    blocking: str = "SyncMemory",
    instead: str = "the async Memory, with await: `async with Memory.open(url) as memory: "
    "await memory.recall(...)`",
) -> None:
    """Refuse a blocking facade (``blocking``) inside a running event loop, where it cannot run
    a loop of its own, saying what to use there (``instead``)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RunningLoopError(
        f"{blocking} cannot run inside a running event loop (Jupyter, an async app): use "
        f"{instead} there"
    )


class SyncMemory(SyncOperations):
    """:class:`Memory` for scripts: the same operations, blocking, on a private event loop.

    Inside a running event loop it raises :class:`RunningLoopError` when made, before it opens
    anything: every call would fail there, and leave its coroutine unawaited.
    """

    def __init__(self, memory: Memory) -> None:
        no_running_loop()
        self._memory = memory
        self._runner = asyncio.Runner()

    @classmethod
    def open(cls, urls: str | Sequence[str] | None = None, **options: Any) -> SyncMemory:
        no_running_loop()  # before Memory.open opens the stores
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

    # the short path, as Memory's (each runs Memory's method to the end)

    def remember(
        self,
        request: RememberRequest | Mapping[str, Any] | str | None = None,
        *,
        agent: str | None = None,
        user: str | None = None,
        type: str | None = None,  # the spec's field name
        metadata: Mapping[str, Any] | None = None,
        **fields: Any,
    ) -> RememberResponse:
        """:meth:`Memory.remember`, blocking."""
        return self._runner.run(
            self._memory.remember(
                request, agent=agent, user=user, type=type, metadata=metadata, **fields
            )
        )

    def recall(
        self,
        request: RecallRequest | Mapping[str, Any] | str | None = None,
        *,
        agent: str | None = None,
        user: str | None = None,
        k: int | None = None,
        query_vector: QueryEmbedding | None = None,
        **fields: Any,
    ) -> RecallResponse:
        """:meth:`Memory.recall`, blocking."""
        return self._runner.run(
            self._memory.recall(
                request, agent=agent, user=user, k=k, query_vector=query_vector, **fields
            )
        )

    def get(
        self,
        request: GetRequest | Mapping[str, Any] | str | builtins.list[str] | None = None,
        *,
        agent: str | None = None,
        **fields: Any,
    ) -> GetResponse:
        """:meth:`Memory.get`, blocking."""
        return self._runner.run(self._memory.get(request, agent=agent, **fields))

    def list(
        self,
        request: ListRequest | Mapping[str, Any] | None = None,
        *,
        agent: str | None = None,
        user: str | None = None,
        **fields: Any,
    ) -> ListResponse:
        """:meth:`Memory.list`, blocking."""
        return self._runner.run(self._memory.list(request, agent=agent, user=user, **fields))

    def update(
        self,
        request: UpdateRequest | Mapping[str, Any] | str | None = None,
        *,
        agent: str | None = None,
        **fields: Any,
    ) -> UpdateResponse:
        """:meth:`Memory.update`, blocking."""
        return self._runner.run(self._memory.update(request, agent=agent, **fields))

    def forget(
        self,
        request: ForgetRequest | Mapping[str, Any] | str | builtins.list[str] | None = None,
        *,
        agent: str | None = None,
        user: str | None = None,
        **fields: Any,
    ) -> ForgetResponse:
        """:meth:`Memory.forget`, blocking."""
        return self._runner.run(self._memory.forget(request, agent=agent, user=user, **fields))

    def history(
        self,
        request: HistoryRequest | Mapping[str, Any] | str | None = None,
        *,
        agent: str | None = None,
        user: str | None = None,
        **fields: Any,
    ) -> HistoryResponse:
        """:meth:`Memory.history`, blocking."""
        return self._runner.run(self._memory.history(request, agent=agent, user=user, **fields))

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
