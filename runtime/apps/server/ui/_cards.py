"""A pending review as the UI shows it: the staged write's records before and after, side by
side, the changed fields marked and the content's changed words marked within them; and a
record's history the same way, each version against the one before.

Works on the wire JSON of a ``review-request`` (what the store's ``reviews`` answered), so the
page shows exactly what the protocol carries; nothing here writes or decides.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mnemowire.apps._times import when
from mnemowire.apps._words import word_diff

__all__ = ["Card", "Pair", "RecordView", "VersionView", "card_of", "versions_of"]

#: fields not shown as rows: the content has a block of its own, id and type head the record
_HIDDEN = {"id", "agent_id", "type", "content", "seal"}
#: fields holding epoch milliseconds, shown as times
_TIMES = {"created_at", "updated_at", "expires_at", "event_time"}


@dataclass(frozen=True)
class Piece:
    """A run of content text, marked ``del`` or ``ins`` where the other side differs."""

    text: str
    mark: str = ""


@dataclass(frozen=True)
class Row:
    name: str
    value: str
    changed: bool = False


@dataclass(frozen=True)
class RecordView:
    id: str
    type: str
    content: list[Piece]
    rows: list[Row]

    @property
    def text(self) -> str:
        return "".join(piece.text for piece in self.content)


@dataclass(frozen=True)
class Pair:
    """One record's place in the diff: before (None: the write creates it) and after (None:
    the write removes it)."""

    label: str
    before: RecordView | None
    after: RecordView | None


@dataclass(frozen=True)
class Related:
    """An existing memory close to a staged remember (shown without its fields: the
    reviewer compares meanings here)."""

    record: RecordView
    percent: int


@dataclass(frozen=True)
class Card:
    review_id: str
    operation: str
    agent_id: str
    user_id: str | None
    staged_by: str
    requested_at: str
    reasoning: str
    pairs: list[Pair]
    related: list[Related] = field(default_factory=list)
    #: the version of the staged write shown, which a decision names ([review.decide]): the
    #: agent may update its staged record between this page and the click on Approve
    version: int = 1

    @property
    def merge_targets(self) -> list[tuple[str, str]]:
        """Records a staged remember may be approved as a merge into, its closest ones: (id,
        what the reviewer reads in the list)."""
        if self.operation != "remember":
            return []
        return [(r.record.id, f"{r.percent}% · {r.record.text[:60]}") for r in self.related]


def _text(value: Any, name: str = "") -> str:
    if name in _TIMES and isinstance(value, int):
        return when(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _rows(record: dict[str, Any], other: dict[str, Any] | None) -> list[Row]:
    """The fields besides the content, each marked changed when ``other`` differs; empty
    ones left out unless the other side has them."""
    names = [k for k in record if k not in _HIDDEN]
    if other is not None:
        names += [k for k in other if k not in _HIDDEN and k not in record]
    rows = []
    for name in names:
        value, then = record.get(name), (other or {}).get(name)
        changed = other is not None and value != then
        if value in (None, "", {}, []) and not changed:
            continue
        rows.append(Row(name, _text("" if value is None else value, name), changed))
    return rows


def _content(before: str, after: str) -> tuple[list[Piece], list[Piece]]:
    """Both sides' content, the words one side lacks marked (``del`` before, ``ins`` after),
    by the bounded diff the CLI shows too (``apps._words``)."""
    left, right = word_diff(before, after)
    return (
        [Piece(text, "del" if changed else "") for text, changed in left],
        [Piece(text, "ins" if changed else "") for text, changed in right],
    )


def _view(
    record: dict[str, Any], other: dict[str, Any] | None = None, pieces: list[Piece] | None = None
) -> RecordView:
    """A record's view; with ``other`` (the other side of a change) its changed fields
    marked, and ``pieces`` its content as marked against the other's."""
    return RecordView(
        str(record.get("id", "")),
        str(record.get("type", "")),
        pieces if pieces is not None else [Piece(str(record.get("content", "")))],
        _rows(record, other),
    )


def _pair(label: str, before: dict[str, Any] | None, after: dict[str, Any] | None) -> Pair:
    if before is not None and after is not None:
        old, new = _content(str(before.get("content", "")), str(after.get("content", "")))
        return Pair(label, _view(before, after, old), _view(after, before, new))
    return Pair(
        label,
        _view(before) if before is not None else None,
        _view(after) if after is not None else None,
    )


def card_of(review: dict[str, Any]) -> Card:
    """The card of one ``review-request`` (wire JSON)."""
    diff: dict[str, Any] = review.get("diff") or {}
    operation = str(review["operation"])
    pairs = [_pair("changed", m["before"], m["after"]) for m in diff.get("modified", [])]
    pairs += [_pair("added", None, r) for r in diff.get("added", [])]
    removed = "duplicate removed" if operation == "merge" else "removed"
    pairs += [_pair(removed, r, None) for r in diff.get("removed", [])]
    related = [
        Related(_view(r["record"]), round(100 * float(r["relevance"])))
        for r in diff.get("related", [])
    ]
    request: dict[str, Any] = review.get("request") or {}
    added = diff.get("added") or [{}]
    return Card(
        review_id=str(review["review_id"]),
        operation=operation,
        agent_id=str(review["agent_id"]),
        user_id=request.get("user_id"),
        staged_by=str(review.get("staged_by", "caller")),
        requested_at=when(review.get("requested_at")),
        reasoning=str(review.get("reasoning", "")),
        pairs=pairs,
        related=related,
        version=int(added[0].get("version", 1)) if operation == "remember" else 1,
    )


@dataclass(frozen=True)
class VersionView:
    """One version of a record's history: how and when it came, and the record then, its
    content and fields marked where they differ from the version before."""

    revision: int
    operation: str
    at: str
    state: str
    version: int | None
    caller: str
    reason: str
    merged_from: list[str]
    merged_into: str
    #: an import brought it from the archive's source ([import.history])
    imported: bool
    record: RecordView


def versions_of(entries: list[dict[str, Any]]) -> list[VersionView]:
    """The ``entries`` of a ``history`` page (wire JSON), oldest first, each marked against
    the one before it (the first of a page as it is)."""
    views, before = [], None
    for entry in entries:
        record: dict[str, Any] = entry["record"]
        if before is None:
            view = _view(record)
        else:
            _, pieces = _content(str(before.get("content", "")), str(record.get("content", "")))
            view = _view(record, before, pieces)
        views.append(
            VersionView(
                revision=int(entry["revision"]),
                operation=str(entry["operation"]),
                at=when(entry["at"]),
                state=str(record.get("state", "")),
                version=record.get("version"),
                caller=str(entry.get("caller", "")),
                reason=str(entry.get("reason", "")),
                merged_from=[str(i) for i in entry.get("merged_from", [])],
                merged_into=str(entry.get("merged_into", "")),
                imported=bool(entry.get("imported")),
                record=view,
            )
        )
        before = record
    return views
