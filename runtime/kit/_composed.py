"""A store that holds its spec v0.1 record operations (and v0.4's history), its v0.2 review
queue, its v0.3 archive operations and the v0.4 operations it serves over its own others as
objects of their own (the sqlite-vec and pgvector stores: ``_record_ops``, ``_review_ops``,
``_archive_ops``, ``_lifecycle_ops``), and answers for them by handing each request on:
written once here instead of once per store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from mnemowire.models.operations import (
    ConsolidateStore,
    ExportRecordsStore,
    HistoryStore,
    ImportRecordsStore,
    PromoteStore,
    RunFireStore,
    RunGetStore,
    RunStartStore,
    ScopesStore,
)
from mnemowire.protocol import GetStore, ListStore, RestoreStore, ReviewStore, UpdateStore

if TYPE_CHECKING:
    from mnemowire.embedders import Vectors
    from mnemowire.models import (
        ConsolidateRequest,
        ConsolidateResponse,
        DecideRequest,
        DecideResponse,
        ExportRecordsRequest,
        ExportRecordsResponse,
        GetRequest,
        GetResponse,
        HistoryRequest,
        HistoryResponse,
        ImportRecordsRequest,
        ImportRecordsResponse,
        ListRequest,
        ListResponse,
        PromoteRequest,
        PromoteResponse,
        RememberBatchRequest,
        RememberBatchResponse,
        RestoreRequest,
        RestoreResponse,
        ReviewsRequest,
        ReviewsResponse,
        RunFireRequest,
        RunFireResponse,
        RunGetRequest,
        RunGetResponse,
        RunStartRequest,
        RunStartResponse,
        ScopesRequest,
        ScopesResponse,
        UpdateRequest,
        UpdateResponse,
    )

__all__ = ["ArchiveOps", "ComposedStore", "LifecycleOps", "RecordOps"]


class RecordOps(GetStore, ListStore, RestoreStore, UpdateStore, HistoryStore, Protocol):
    """get, list, restore, update, history and remember_batch, the batch with its vectors when
    the caller has them (``protocol.VectorBatchStore``)."""

    async def remember_batch(
        self, request: RememberBatchRequest, *, vectors: Vectors | None = None
    ) -> RememberBatchResponse: ...


class ArchiveOps(ExportRecordsStore, ImportRecordsStore, ScopesStore, Protocol):
    """export_records, import_records and scopes (spec v0.3)."""


class LifecycleOps(
    ConsolidateStore, PromoteStore, RunStartStore, RunFireStore, RunGetStore, Protocol
):
    """consolidate, promote and the procedure runs (spec v0.4; ``kit.lifecycle``)."""


Records = TypeVar("Records", bound=RecordOps)
Reviews = TypeVar("Reviews", bound=ReviewStore)


class ComposedStore(Generic[Records, Reviews]):
    """The store's record operations, review queue, archive operations and lifecycle
    operations, each an object it made over itself (so ``_review_ops`` keeps its own type,
    with what the store's forget and merge stage)."""

    def __init__(
        self, records: Records, reviews: Reviews, archive: ArchiveOps, lifecycle: LifecycleOps
    ) -> None:
        self._record_ops = records
        self._review_ops = reviews
        self._archive_ops = archive
        self._lifecycle_ops = lifecycle

    async def get(self, request: GetRequest) -> GetResponse:
        return await self._record_ops.get(request)

    async def list(self, request: ListRequest) -> ListResponse:
        return await self._record_ops.list(request)

    async def restore(self, request: RestoreRequest) -> RestoreResponse:
        return await self._record_ops.restore(request)

    async def update(self, request: UpdateRequest) -> UpdateResponse:
        return await self._record_ops.update(request)

    async def history(self, request: HistoryRequest) -> HistoryResponse:
        return await self._record_ops.history(request)

    async def remember_batch(
        self, request: RememberBatchRequest, *, vectors: Vectors | None = None
    ) -> RememberBatchResponse:
        """``vectors``: one row per request from this store's embedder (an import that has
        them skips the embedding; ``protocol.VectorBatchStore``)."""
        return await self._record_ops.remember_batch(request, vectors=vectors)

    async def reviews(self, request: ReviewsRequest) -> ReviewsResponse:
        return await self._review_ops.reviews(request)

    async def decide(self, request: DecideRequest) -> DecideResponse:
        return await self._review_ops.decide(request)

    async def export_records(self, request: ExportRecordsRequest) -> ExportRecordsResponse:
        return await self._archive_ops.export_records(request)

    async def import_records(self, request: ImportRecordsRequest) -> ImportRecordsResponse:
        return await self._archive_ops.import_records(request)

    async def scopes(self, request: ScopesRequest) -> ScopesResponse:
        return await self._archive_ops.scopes(request)

    async def consolidate(self, request: ConsolidateRequest) -> ConsolidateResponse:
        return await self._lifecycle_ops.consolidate(request)

    async def promote(self, request: PromoteRequest) -> PromoteResponse:
        return await self._lifecycle_ops.promote(request)

    async def run_start(self, request: RunStartRequest) -> RunStartResponse:
        return await self._lifecycle_ops.run_start(request)

    async def run_fire(self, request: RunFireRequest) -> RunFireResponse:
        return await self._lifecycle_ops.run_fire(request)

    async def run_get(self, request: RunGetRequest) -> RunGetResponse:
        return await self._lifecycle_ops.run_get(request)
