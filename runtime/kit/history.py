"""A record's history as a store answers for it (spec v0.4: docs/spec/v0.4.md#history.versions),
with no I/O: the versions a store read, each with the audit entry that made it, as the
``history`` response.

A store keeps, per record, one row per version: its revision (1 for the write that stored the
record, one more per change), when, the audit entry that made it (``audit_seq``: the entry's
operation, ids and ``detail.caller`` say how and by whom), and the record's stored fields as
they stood (the newest version's are the record's own). Older versions past the operator's
bound are dropped oldest first, and ``dropped`` says how many ([history.bound]).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mnemowire.errors import NotFoundError
from mnemowire.kit._basics import max_items
from mnemowire.kit._browse import Cursors
from mnemowire.kit.archive import KEPT_FROM_STORED, Placed
from mnemowire.kit.sql import Clause
from mnemowire.kit.sql_reviews import ReviewTables
from mnemowire.kit.sql_steps import Query, Steps
from mnemowire.models import (
    MEMORY_RECORD_FIELDS,
    ArchiveRecord,
    HistoryRequest,
    HistoryResponse,
    StoreResult,
)

__all__ = [
    "CARRIED_MAX",
    "DEFAULT_HISTORY_LIMIT",
    "UNRECORDED",
    "VERSION_FIELDS",
    "Version",
    "archived_histories",
    "carried_rows",
    "history_after",
    "history_answer",
    "history_not_found",
    "history_page",
]

#: the stored columns a version keeps of a record: its wire fields as of spec v0.4 and where a
#: merge folded it. Written out, not derived from the generated models: a SQL store's
#: migration writes its history triggers over exactly these, and a published migration never
#: changes (a field a later spec adds is a new migration in each store).
VERSION_FIELDS: tuple[str, ...] = (
    "id", "agent_id", "user_id", "type", "content", "metadata", "confidence", "source",
    "created_at", "updated_at", "expires_at", "event_time", "location", "participants",
    "sentiment", "valence", "arousal", "emotion", "target", "state", "merged_into", "version",
    "seal",
)  # fmt: skip
#: the versions a store keeps of each record unless its operator says otherwise
DEFAULT_HISTORY_LIMIT = 1000
#: the operation of a version no audit entry made (a record stored before its store kept
#: history: [history.versions])
UNRECORDED = "unrecorded"
#: the versions an archive line carries at most (its schema's ``maxItems``): a record kept
#: with more carries its newest, and ``history_dropped`` counts the rest
CARRIED_MAX = max_items(ArchiveRecord, "history")


@dataclass(frozen=True)
class Version:
    """One version of a record as a store reads it: ``fields``, the record's stored columns by
    field name (JSON decoded, ``state`` as the store spells it: ``deleted`` for a forgotten
    record), and the audit entry that made it, when there is one (``operation``, ``ids``,
    ``detail`` decoded)."""

    revision: int
    at: int
    fields: Mapping[str, Any]
    audit_seq: int | None = None
    operation: str | None = None
    ids: Sequence[str] = ()
    detail: Mapping[str, Any] | None = None
    #: a version an import brought from the archive's source ([import.history]): its
    #: operation, ``ids`` and ``detail`` are what its entry said there, since no audit entry
    #: of this store made it
    imported: bool = False

    @classmethod
    def from_row(
        cls,
        revision: int,
        at: int,
        fields: Mapping[str, Any],
        audit: tuple[int | None, str | None, Any, Any],
        carried: Any = None,
    ) -> Version:
        """A version from a history row joined to its audit entry (``seq``, ``operation``,
        ``ids`` and ``detail`` as the audit log stores them: JSON text or decoded), and the
        row's ``carried`` column (JSON text or decoded; None for a version made here)."""
        seq, operation, ids, detail = audit
        if carried is not None:  # what the source's entry said: its operation and merge, in
            # the shape of an audit entry of this store (the merge's ids, caller and reason)
            said = json.loads(carried) if isinstance(carried, str) else dict(carried)
            return cls(
                revision,
                at,
                fields,
                operation=said.get("operation"),
                ids=said.get("merged_from") or (),
                detail=said,
                imported=True,
            )
        return cls(
            revision,
            at,
            fields,
            audit_seq=seq,
            operation=operation,
            ids=json.loads(ids) if isinstance(ids, str) else list(ids or ()),
            detail=json.loads(detail) if isinstance(detail, str) else detail,
        )

    def entry(self) -> dict[str, Any]:
        """The version as a ``HistoryEntry``: the record in its kept state (forgotten,
        merged: [history.states]), and what the merge that made it folded in or into."""
        record = {
            name: value
            for name in MEMORY_RECORD_FIELDS
            if (value := self.fields.get(name)) is not None
        }
        stored_state = str(self.fields.get("state", "active"))
        record["state"] = KEPT_FROM_STORED.get(stored_state, stored_state)
        out: dict[str, Any] = {
            "revision": self.revision,
            "at": self.at,
            "operation": self.operation or UNRECORDED,
            "record": record,
        }
        for said in ("caller", "reason"):  # as the audit entry's detail keeps them
            value = (self.detail or {}).get(said)
            if isinstance(value, str) and value:
                out[said] = value
        record_id = self.fields.get("id")
        if self.fields.get("merged_into") and stored_state == "merged":
            out["merged_into"] = self.fields["merged_into"]
        elif self.operation == "merge":
            folded = [i for i in self.ids if i != record_id]
            if folded:
                out["merged_from"] = folded
        if self.audit_seq is not None:
            out["audit_seq"] = self.audit_seq
        if self.imported:
            out["imported"] = True
        return out


def archived_histories(
    tables: ReviewTables, audit_position: str, current: Mapping[str, Mapping[str, Any]]
) -> Steps[dict[str, tuple[list[dict[str, Any]], int]]]:
    """The kept versions of the records an export page holds (``current``: each one's stored
    fields by id, what its newest version is), as an archive line carries them
    ([archive.history]): per id, its ``HistoryEntry`` objects oldest first (the newest
    ``CARRIED_MAX``) and how many older ones it no longer keeps. One read, in the export's
    snapshot."""
    if not current:
        return {}
    where = tables.dialect.one_of(Clause(), "h.record_id", list(current))
    rows = yield Query(
        f"SELECT {_versions_of(audit_position)} WHERE {where.sql} ORDER BY h.record_id, h.revision",
        where.args,
    )
    versions: dict[str, list[Version]] = {}
    for row in rows:
        versions.setdefault(row[0], []).append(_version(tables, row, current[row[0]]))
    out: dict[str, tuple[list[dict[str, Any]], int]] = {}
    for record_id, kept in versions.items():
        shown = kept[-CARRIED_MAX:]
        out[record_id] = ([v.entry() for v in shown], shown[0].revision - 1)
    return out


def history_not_found(req: HistoryRequest) -> NotFoundError:
    """The answer for a record the request may not see: none of that id in the agent's (and
    user's) scope, or one erased with its history ([history.scope])."""
    scope = f"agent {req.agent_id!r}" + (
        "" if req.user_id is None else f" and user {req.user_id!r}"
    )
    return NotFoundError(
        f"no record {req.id!r} for {scope}, in any state (an erased record's history goes "
        "with it); check the id with `mnemowire get` or `mnemowire list`",
        details=[{"path": "/id", "rule": "not_found", "message": f"not a record of {scope}"}],
    )


def history_page(
    tables: ReviewTables, audit_position: str, req: HistoryRequest, after: int
) -> Steps[tuple[list[Version], int]]:
    """A SQL store's versions of the request's record after revision ``after`` (its
    ``history`` table, written by its triggers), oldest first, one more than a page when
    another page follows, and how many the bound dropped ([history.bound]); NotFoundError
    when the record is not one the request may see, in any state ([history.scope]).
    ``tables`` read the ``memories m`` row (the newest version is the record itself);
    ``audit_position`` is the ``audit_log`` column ``history.audit_seq`` names. Run it in one
    snapshot (a read transaction)."""
    p = tables.dialect.param
    user = "" if req.user_id is None else f" AND m.user_id = {p}"
    args = [req.id, req.agent_id, *([] if req.user_id is None else [req.user_id])]
    row = yield Query(
        f"SELECT {tables.columns} FROM memories m WHERE m.id = {p} AND m.agent_id = {p}{user}",
        args,
        "one",
    )
    if row is None:  # a forgotten or merged record keeps its history; an erased one does not
        raise history_not_found(req)
    current = tables.stored(row)
    rows = yield Query(
        f"SELECT {_versions_of(audit_position)} WHERE h.record_id = {p} AND h.revision > {p} "
        f"ORDER BY h.revision LIMIT {p}",
        [req.id, after, req.limit + 1],
    )
    versions = [_version(tables, row, current) for row in rows]
    oldest = yield Query(
        f"SELECT min(revision) FROM history WHERE record_id = {p}", [req.id], "one"
    )
    return versions, 0 if oldest[0] is None else int(oldest[0]) - 1


def _versions_of(audit_position: str) -> str:
    """The columns and tables a read of versions selects: each history row with its record
    id first, joined to the audit entry that made it (``audit_position``: the ``audit_log``
    column ``history.audit_seq`` names)."""
    return (
        f"h.record_id, h.revision, h.at, h.fields, h.carried, a.{audit_position}, "
        f"a.operation, a.ids, a.detail FROM history h LEFT JOIN audit_log a "
        f"ON a.{audit_position} = h.audit_seq"
    )


def _version(tables: ReviewTables, row: Sequence[Any], current: Mapping[str, Any]) -> Version:
    """One row of ``_versions_of`` as a version: its fields, or ``current`` (the record as
    stored now) for the newest, which keeps none of its own."""
    _, revision, at, fields, carried, seq, operation, ids, detail = row
    stored = current if fields is None else tables.read_json(fields)
    return Version.from_row(revision, at, stored, (seq, operation, ids, detail), carried)


def history_answer(
    req: HistoryRequest,
    versions: Sequence[Version],
    dropped: int,
    cursors: Cursors,
    result: StoreResult,
) -> HistoryResponse:
    """A history page from the ``limit + 1`` versions a store read after the cursor's
    revision (oldest first), with the cursor after its last one when another page follows."""
    page = versions[: req.limit]
    answer: dict[str, Any] = {
        "id": req.id,
        "entries": [v.entry() for v in page],
        "dropped": dropped,
        "latency_ms": result.latency_ms,
        "stores": [result],
    }
    if len(versions) > req.limit:
        answer["next_cursor"] = cursors.at(req, [page[-1].revision])
    return HistoryResponse.model_validate(answer)


def history_after(req: HistoryRequest, cursors: Cursors) -> int:
    """The revision ``req``'s page starts after: 0 for the first page."""
    position = cursors.position(req)
    return 0 if position is None else int(position[0])


def carried_rows(
    placed: Sequence[Placed],
) -> list[tuple[str, int, int, dict[str, Any], dict[str, Any]]]:
    """The history rows a target keeps for the versions an import page's written records
    carry ([import.history]): ``(record_id, revision, at, fields, said)``, the fields the
    ``VERSION_FIELDS`` a store's own versions keep."""
    return [
        (p.target_id, v.revision, v.at, {n: v.fields.get(n) for n in VERSION_FIELDS}, v.said)
        for p in placed
        for v in p.history
    ]
