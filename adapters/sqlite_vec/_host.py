"""What the store's operation objects (``_record_ops.RecordOperations``,
``_review_ops.ReviewOperations``) need of the ``SqliteVecStore`` that holds them: its database,
clock, vector indexes, embedder setup and staging policy, and the steps every operation is
made of. Typed, so a step's signature changing in the store is a type error in them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from mnemowire.adapters.sqlite_vec._accel import IndexCache
    from mnemowire.adapters.sqlite_vec._database import Database
    from mnemowire.adapters.sqlite_vec._writes import IndexWriter
    from mnemowire.embedders import Embedder, Vectors
    from mnemowire.kit import EmbedderSetup
    from mnemowire.kit.staging import StagingRules
    from mnemowire.models import RememberRequest, RememberResponse, StoreResult

__all__ = ["StoreHost"]

T = TypeVar("T")


class StoreHost(Protocol):
    embedder: Embedder
    _db: Database
    _clock: Callable[[], int]
    _index: IndexWriter
    _indexes: IndexCache
    _accelerate_above: int
    _setup: EmbedderSetup
    _policy: StagingRules | None

    async def _call(self, fn: Callable[..., T], *args: Any) -> T: ...

    def _inline(self, ready: Callable[[], bool], fn: Callable[..., T], *args: Any) -> T | None: ...

    async def _embed(self, texts: list[str]) -> Vectors: ...

    def _result(self, count: int, started: float) -> StoreResult: ...

    def _insert(
        self,
        batch: list[tuple[RememberRequest, dict[str, Any]]],
        vectors: Vectors,
        started: float,
        first: int | None = None,
    ) -> list[RememberResponse]: ...

    def _set_visible(
        self, agent_id: str, user_id: str | None, ids: list[str], from_state: str, operation: str
    ) -> list[str]: ...
