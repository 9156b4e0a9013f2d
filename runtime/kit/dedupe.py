"""Dedupe on write (spec v0.4, docs/spec/v0.4.md#remember.dedupe): whether a remember says
what an active record of its agent already says, decided by the duplicate judge
(``kit.duplicates``) over the store's nearest records. A store reads the candidates with its
own search, inside the transaction its write would take, and hands them here, so the verdict is
one rule on every store and no writer can slip a copy in between."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mnemowire.kit.duplicates import Parsed, judge
from mnemowire.models import (
    TYPE_SPECIFIC_FIELDS,
    DedupeMode,
    MemoryType,
    RememberRequest,
    RememberResponse,
    StoreResult,
)

__all__ = [
    "CANDIDATES",
    "answered_by",
    "as_staged",
    "dedupe_mode",
    "dedupe_option",
    "duplicate_of",
    "duplicating",
]

#: the nearest records a remember is weighed against, closest first
CANDIDATES = 16


def dedupe_option(value: str) -> str:
    """A store's ``dedupe`` option (its operator's default for remembers that do not say): one
    of the spec's modes."""
    modes = [str(mode) for mode in DedupeMode]
    if value not in modes:
        raise ValueError(f"must be one of {', '.join(modes)}")
    return value


def dedupe_mode(request: RememberRequest, default: str | None) -> str | None:
    """The dedupe a remember asks for: its own ``dedupe``, else the operator's default for the
    store (a store option), else none."""
    asked = request.dedupe
    return str(asked) if asked is not None else default


def duplicate_of(
    request: RememberRequest,
    wire: Mapping[str, Any],
    candidates: Iterable[tuple[Mapping[str, Any], float]],
) -> str | None:
    """The id of the first candidate (a stored record's fields and its cosine similarity to
    the remember, closest first) that says what ``request`` says: the same user (or none on
    both), the same type and the same fields of that type (another time, place or feeling is
    another memory), an expiry no sooner than the remember's (a working note does not answer
    a lasting fact), and a judge's verdict of duplicate that leaves the remember nothing to
    add (a remember that extends a record with a detail is not answered by it). A procedure
    duplicates only the same machine, word for word. ``wire`` is the request as JSON."""
    kind = str(request.type)
    own = {name: wire.get(name) for name in TYPE_SPECIFIC_FIELDS.get(kind, ())}
    said = Parsed.of(request.content)
    for row, similarity in candidates:
        if str(row["type"]) != kind or row.get("user_id") != request.user_id:
            continue
        if any(row.get(name) != value for name, value in own.items()):
            continue
        if _sooner(row.get("expires_at"), request.expires_at):
            continue
        if kind == MemoryType.PROCEDURAL:
            if row["content"] == request.content:
                return str(row["id"])
            continue
        verdict = judge(Parsed.of(str(row["content"])), said, similarity)
        if verdict.duplicate and not (verdict.reason == "extends" and verdict.only_in_second):
            return str(row["id"])
    return None


def _sooner(stored: Any, asked: int | None) -> bool:
    """Whether a stored record's expiry comes before the one a remember asks for (none:
    never)."""
    return stored is not None and (asked is None or int(stored) < asked)


def answered_by(row: Mapping[str, Any], result: StoreResult) -> RememberResponse:
    """The answer to a remember ``existing`` dedupe answered with a stored record (its row):
    that record's id and time, nothing written (``result`` counts 0)."""
    record_id = str(row["id"])
    return RememberResponse(
        id=record_id,
        stored_at=int(row["created_at"]),
        stores=[result],
        pending_approval=False,
        duplicate_of=record_id,
    )


def as_staged(
    request: RememberRequest, payload: Mapping[str, Any]
) -> tuple[RememberRequest, dict[str, Any]]:
    """A remember ``review`` dedupe sends to a reviewer: staged as approval_required stages."""
    staged = {**payload, "approval_required": True}
    return request.model_copy(update={"approval_required": True}), staged


def duplicating(response: RememberResponse, row: Mapping[str, Any] | None) -> RememberResponse:
    """A remember's answer, naming the record it duplicates when dedupe found one."""
    if row is None:
        return response
    return response.model_copy(update={"duplicate_of": str(row["id"])})
