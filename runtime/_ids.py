"""Record ids: minted in one place, so a router and every store mint the same kind of id."""

from __future__ import annotations

from ulid import ULID

__all__ = ["new_id"]


def new_id() -> str:
    """A fresh record id: a ULID, so ids sort by creation time (docs/spec/v0.md#types.id)."""
    return str(ULID())
