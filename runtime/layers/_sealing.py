"""What a router does with record seals (docs/spec/v0.1.md#seals.router): seal what it writes,
and drop what a child returns whose seal does not verify, counting it against that child."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from mnemowire.kit import to_wire
from mnemowire.seals import SealKeys

__all__ = ["sealed", "unsealed_dropped"]

T = TypeVar("T")


def sealed(keys: SealKeys | None, payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` (a remember's wire JSON, its id set) sealed with the router's current key;
    unchanged without keys (a client's own seal then passes through)."""
    if keys is None:
        return payload
    return {**payload, "seal": keys.seal(payload).model_dump()}


def unsealed_dropped(
    keys: SealKeys | None, agent_id: str, items: Sequence[T]
) -> tuple[list[T], int]:
    """The items (hits or records, models with the sealed fields) whose seal verifies for
    ``agent_id``, and how many were dropped. The agent is the request's, not the item's: a
    child returning another agent's record, sealed for that agent, is caught here."""
    if keys is None:
        return list(items), 0
    kept = []
    for item in items:
        fields: Mapping[str, Any] = to_wire(item)  # type: ignore[arg-type]
        record = {**fields, "agent_id": agent_id}
        if keys.verify(fields.get("seal"), record):
            kept.append(item)
    return kept, len(items) - len(kept)
