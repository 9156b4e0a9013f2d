"""Dedupe on write for the sqlite-vec store (docs/spec/v0.4.md#remember.dedupe): the agent's
records nearest a remember, by the store's own vector search, read inside the write
transaction the remember then takes (so no other writer can store a copy in between), and
weighed by ``kit.dedupe``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mnemowire.adapters.sqlite_vec._accel import IndexCache
from mnemowire.adapters.sqlite_vec._records import Scope
from mnemowire.adapters.sqlite_vec._search import nearest
from mnemowire.kit.dedupe import CANDIDATES, answered_by, as_staged, duplicate_of, duplicating
from mnemowire.models import (
    DedupeMode,
    RecallRequest,
    RememberRequest,
    RememberResponse,
    StoreResult,
)

__all__ = ["duplicate", "remember_once"]


def duplicate(  # noqa: PLR0917 (a write's parts, as the store has them)
    tx: Any,
    req: RememberRequest,
    payload: dict[str, Any],
    vector: Any,
    now: int,
    indexes: IndexCache,
    accelerate_above: int,
) -> dict[str, Any] | None:
    """The stored record ``req`` duplicates, if any (its row), among the agent's visible
    records of its type nearest ``vector``."""
    near = RecallRequest(
        agent_id=req.agent_id, user_id=req.user_id, types=[req.type], query="-", k=CANDIDATES
    )
    found = nearest(tx, Scope.of(near, now), vector, CANDIDATES, indexes, accelerate_above)
    same = duplicate_of(req, payload, found)
    return next((row for row, _ in found if row["id"] == same), None)


def remember_once(  # noqa: PLR0917 (a write's parts, as the store has them)
    tx: Any,
    sent: tuple[RememberRequest, dict[str, Any]],
    vector: Any,
    dedupe: str | None,
    search: tuple[int, IndexCache, int],
    result: Callable[[int], StoreResult],
    write: Callable[[RememberRequest, dict[str, Any]], RememberResponse],
) -> RememberResponse:
    """One remember written by ``write`` in ``tx``, unless ``dedupe`` finds the record it
    duplicates (``search``: the time and the store's indexes): then answered by that record
    (``existing``) or staged beside it (``review``)."""
    req, payload = sent
    found = None if dedupe is None else duplicate(tx, req, payload, vector, *search)
    if found is not None and dedupe == DedupeMode.EXISTING:
        return answered_by(found, result(0))
    if found is not None:
        req, payload = as_staged(req, payload)
    return duplicating(write(req, payload), found)
