"""What the store's operation objects (``_record_ops.RecordOperations``,
``_review_ops.ReviewOperations``, ``_upkeep.Upkeep``) need of the ``PgVectorStore`` that holds them:
its schema, database, clock, per-agent sizes, vector index, embedder setup and staging policy, and
the steps every operation is made of. Typed, so a step's signature changing in the store is a type
error in them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mnemowire.adapters.pgvector._database import Database
    from mnemowire.adapters.pgvector._search import AgentSizes
    from mnemowire.adapters.pgvector._vector_index import IndexKeeper
    from mnemowire.embedders import Embedder, Vectors
    from mnemowire.kit import EmbedderSetup
    from mnemowire.kit.staging import StagingRules
    from mnemowire.models import StoreResult

__all__ = ["StoreHost"]


class StoreHost(Protocol):
    schema: str
    _name: str
    embedder: Embedder
    _db: Database
    _clock: Callable[[], int]
    _sizes: AgentSizes
    _index: IndexKeeper
    _setup: EmbedderSetup
    _policy: StagingRules | None

    async def _embed(self, texts: list[str]) -> Vectors: ...

    def _result(self, count: int, started: float) -> StoreResult: ...

    def _results(self, started: float) -> Callable[[int], StoreResult]: ...

    async def _set_visible(
        self, agent_id: str, user_id: str | None, ids: list[str], from_state: str, operation: str
    ) -> list[str]: ...

    async def aclose(self) -> None: ...
