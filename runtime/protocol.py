"""The MemoryStore protocol: what every backend adapter, and the router, implements.

A store takes the spec's requests as the generated models (``mnemowire.models``) and returns
the generated response models; it never invents types of its own. It does not validate: a
request is validated once, at the boundary where it enters (``mnemowire.layers.validating``,
which the facade, the CLI, the harness and every transport go through), and a store trusts
the model it is handed. The surface is as small as the spec: one async method per operation,
plus ``health`` and ``capabilities``. What a store may offer beyond that is an optional
protocol of its own, tied to the capability that promises it: the operations spec v0.1 added
(``GetStore``, ``ListStore``, ``RestoreStore``, ``UpdateStore``, ``RememberBatchStore``:
capabilities ``get``, ``list``, ``restore``, ``update``, ``remember_batch``; each generated
from the spec's operation table, ``mnemowire.models.operations``), ``GraphStore`` (``graph``) and
``ReviewStore`` (spec v0.2: ``reviews``, ``decide``: the one way a staged write is approved);
``VectorBatchStore`` (a ``remember_batch`` that takes precomputed vectors),
``MaintainedStore`` (vacuum, prewarm) and ``BulkImportStore`` (indexes built once around a
many-page import) need none. A bulk import is ``remember_batch`` sent in
chunks (the facade's ``remember_many``), not an operation of its own. Callers test for one
with ``isinstance`` (and the declared capability), never with ``getattr``.

Example::

    async with SqliteVecStore.open(":memory:", embedder=HashEmbedder()) as store:
        stored = await store.remember(RememberRequest(agent_id="a", type="semantic",
                                                      content="Alice likes tea"))
        found = await store.recall(RecallRequest(agent_id="a", query="tea"))
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from mnemowire.models.operations import (
    PROTOCOLS,
    DecideStore,
    GetStore,
    ListStore,
    RememberBatchStore,
    RestoreStore,
    ReviewsStore,
    UpdateStore,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from mnemowire.embedders import Embedder, Vectors
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
        RememberBatchRequest,
        RememberBatchResponse,
        RememberRequest,
        RememberResponse,
    )

__all__ = [
    "BY_CAPABILITY",
    "AuditedStore",
    "BulkImportStore",
    "GetStore",
    "GraphStore",
    "ListStore",
    "MaintainedStore",
    "MemoryStore",
    "QueryEmbedding",
    "RememberBatchStore",
    "RestoreStore",
    "ReviewStore",
    "RoutingStore",
    "UpdateStore",
    "VectorBatchStore",
]


@dataclass(frozen=True)
class QueryEmbedding:
    """A query already embedded, so a router embeds once for every store sharing the model.

    A store uses it only when ``embedder`` equals its own embedder's name; otherwise it embeds
    the query itself.
    """

    embedder: str
    vector: Vectors


@runtime_checkable
class MemoryStore(Protocol):
    """One memorywire store. Every method may raise a :class:`~mnemowire.errors.MnemowireError`
    carrying the spec's error envelope; nothing else escapes a well-behaved store."""

    @property
    def name(self) -> str:
        """Name reported in ``stores[]`` (a URL without credentials, or a configured name)."""
        ...

    async def remember(self, request: RememberRequest) -> RememberResponse:
        """Store one memory; see docs/spec/v0.md#remember.write."""
        ...

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        """Return the best visible matches, best first; see docs/spec/v0.md#recall.scope."""
        ...

    async def forget(self, request: ForgetRequest) -> ForgetResponse:
        """Hide (or erase) records by id and/or filter; see docs/spec/v0.md#forget.scope."""
        ...

    async def merge(self, request: MergeRequest) -> MergeResponse:
        """Collapse duplicates into a canonical record; see docs/spec/v0.md#merge.strategies."""
        ...

    async def expire(self, request: ExpireRequest) -> ExpireResponse:
        """Apply a retention policy; see docs/spec/v0.md#expire.policy."""
        ...

    async def health(self) -> Health:
        """Whether the store can serve now, and what it runs on."""
        ...

    def capabilities(self) -> Capabilities:
        """What the store declares it supports (docs/spec/v0.md#store.capabilities)."""
        ...

    async def aclose(self) -> None:
        """Release connections and files; the store is unusable afterwards."""
        ...


@runtime_checkable
class GraphStore(Protocol):
    """Optional extra of a store that declares the ``graph`` capability: it knows which records
    are near each other, and a router uses that for its hop boost (docs/spec/v0.md#router.fusion).

    The router asks after fusing, only about the ids it already fused, and only boosts items whose
    neighbours are among them; a graph store never adds records to a recall. A router is itself a
    ``GraphStore`` (it asks its graph-capable children), so routers nest.
    """

    async def neighbours(
        self, agent_id: str, ids: Sequence[str], *, hops: int
    ) -> Mapping[str, Mapping[str, int]]:
        """For each of ``ids`` (records of ``agent_id``) that the store knows, the records within
        ``hops`` graph steps and their distance (1 = adjacent). Ids the store does not know are
        left out; an answer naming an id that was not asked about, or a distance outside
        1..hops, is a broken answer and the router ignores the store's whole answer."""
        ...


@runtime_checkable
class VectorBatchStore(RememberBatchStore, Protocol):
    """Optional extra of a store that serves ``remember_batch`` and embeds with an embedder of
    its own: its ``remember_batch`` also takes the requests' vectors (one row per request, from
    ``embedder``), so an import that has them skips the embedding, as ``recall`` takes
    ``query_vector``. A store that cannot use them (one over HTTP: no ``embedder``) is not one.
    """

    @property
    def embedder(self) -> Embedder: ...

    async def remember_batch(
        self, request: RememberBatchRequest, *, vectors: Vectors | None = None
    ) -> RememberBatchResponse: ...


@runtime_checkable
class MaintainedStore(Protocol):
    """Optional extra: the upkeep a database backend wants after heavy writes (no capability:
    it changes nothing a client can see). ``vacuum`` reclaims space and refreshes the
    planner's statistics (``erase=True``: also what a hard delete leaves in the database files)
    and returns the statements run; ``prewarm`` loads the store's pages into the backend's
    cache and returns the pages loaded per relation."""

    async def vacuum(self, *, erase: bool = False) -> list[str]: ...

    async def prewarm(self) -> dict[str, int]: ...


@runtime_checkable
class BulkImportStore(Protocol):
    """Optional extra (no capability: it changes nothing a client can see): a store whose
    import of many pages is much faster when its indexes are built once, at the end, than
    grown record by record (pgvector's HNSW graph: ~7x). ``mnemowire import`` and ``migrate``
    hold ``bulk_import(incoming)`` around their pages; the store decides whether deferring
    pays for ``incoming`` records (the block gets True when it does, so a caller can say that
    the block's end is an index build), and has its indexes back when the block ends, or when
    it is next opened after a crash."""

    def bulk_import(self, incoming: int) -> AbstractAsyncContextManager[bool]: ...


@runtime_checkable
class ReviewStore(ReviewsStore, DecideStore, Protocol):
    """Optional (capabilities ``reviews`` and ``decide``, spec v0.2): pending reviews listed
    with their diffs (docs/spec/v0.2.md#review.list), and one decided at a time, exactly once
    (docs/spec/v0.2.md#review.decide). The queue is one thing: a store serves both or neither."""


@runtime_checkable
class AuditedStore(Protocol):
    """Optional: a store that keeps the audit log as a hash chain (``mnemowire.kit.audit``).
    Every entry, oldest first, with its ``seq`` and chain ``digest``: what ``mnemowire audit
    verify|export`` and the reviewer UI's audit view check (docs/governance.md#audit)."""

    async def audit_entries(self) -> list[dict[str, Any]]: ...


@runtime_checkable
class RoutingStore(Protocol):
    """A store over children (the router): what a check or a tool that looks past it needs,
    such as each child's audit log (conformance's audit checks)."""

    @property
    def stores(self) -> tuple[MemoryStore, ...]: ...


#: the optional protocols a declared capability promises (a store declaring the capability
#: without the protocol cannot be reached through a router for it): each optional operation's
#: generated Protocol and the review queue's two together (``governance``, staging a write,
#: promises no method: a staged write is decided through ``decide``)
BY_CAPABILITY: dict[str, type[Any]] = {
    **PROTOCOLS,
    "reviews": ReviewStore,
    "decide": ReviewStore,
}
