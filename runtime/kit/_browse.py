"""Records read back whole and changed one at a time (spec v0.1: get, list, update), with the
rules every store keeps the same way: which states a caller sees, what a record looks like on
the wire, how a list cursor is made and checked, and what an update changes."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from mnemowire import spec
from mnemowire.errors import ConflictError, NotFoundError, RequestError
from mnemowire.kit._basics import to_wire
from mnemowire.kit._records import searchable_text
from mnemowire.models import (
    MEMORY_RECORD_FIELDS,
    GetResponse,
    ListRequest,
    ListResponse,
    MemoryType,
    RecordState,
    RememberBatchResponse,
    RememberResponse,
    RestoreResponse,
    StoreResult,
    UpdateRequest,
    UpdateResponse,
)

if TYPE_CHECKING:
    from mnemowire.kit.staging import StagingRules

__all__ = [
    "UPDATABLE_FIELDS",
    "Cursors",
    "RecordRows",
    "UpdatePlan",
    "batch_answer",
    "decode_json_columns",
    "get_answer",
    "list_answer",
    "record_state",
    "restore_answer",
]

#: what an update may change ([update.fields]), in spec order
UPDATABLE_FIELDS = ("content", "metadata", "confidence", "expires_at")
#: bytes of HMAC-SHA256 a cursor keeps: forging one is a 2^-128 guess
_CURSOR_MAC_BYTES = 16
_CURSOR_ERROR = [
    {
        "path": "/cursor",
        "rule": "cursor",
        "message": "is not a cursor this store made for this request",
    }
]


def record_state(state: str, expires_at: int | None, now: int) -> str:
    """A stored record's state as a caller sees it ([records.state]): the store's ``active``
    is ``expired`` once ``expires_at`` has passed."""
    if state == "active" and expires_at is not None and expires_at <= now:
        return RecordState.EXPIRED.value
    return state


class RecordRows:
    """A store's rows (tuples, one value per column of ``columns``) as ``MemoryRecord`` wire
    fields: every field the record has (a ``None`` column is a field not set) and its state as
    a caller sees it. ``json_text`` names the columns holding JSON text (decoded here).

    Built once per store, since get and list turn up to 1000 rows into records per call: field
    positions are resolved up front, and each JSON column of a whole page is decoded in one
    ``json.loads`` (one array of the stored texts) rather than one call per row."""

    def __init__(self, columns: Sequence[str], json_text: Sequence[str] = ()) -> None:
        names = tuple(columns)
        self.columns = names
        self._plain = tuple(
            (name, i)
            for i, name in enumerate(names)
            if name in MEMORY_RECORD_FIELDS and name not in json_text and name != "state"
        )
        self._json = tuple(
            (name, names.index(name)) for name in json_text if name in MEMORY_RECORD_FIELDS
        )
        self._state = names.index("state")
        self._expires = names.index("expires_at")

    def records(self, rows: Sequence[Sequence[Any]], now: int) -> list[dict[str, Any]]:
        """The records of ``rows``, in their order."""
        out = []
        for row in rows:
            fields = {name: row[i] for name, i in self._plain if row[i] is not None}
            fields["state"] = record_state(row[self._state], row[self._expires], now)
            out.append(fields)
        for name, i in self._json:
            for fields, row in zip(out, rows, strict=True):
                if row[i] is not None:
                    fields[name] = row[i]
        decode_json_columns(out, [name for name, _ in self._json])
        return out


def decode_json_columns(records: Sequence[dict[str, Any]], names: Sequence[str]) -> None:
    """Decode each named JSON text column of a page of records in place, a column by one
    ``json.loads`` of an array of its texts (a call per row and column took three times as
    long on a page of hits or an export page)."""
    for name in names:
        held = [fields for fields in records if fields.get(name) is not None]
        if not held:
            continue
        decoded = json.loads(f"[{','.join(fields[name] for fields in held)}]")
        for fields, value in zip(held, decoded, strict=True):
            fields[name] = value


def get_answer(
    ids: Sequence[str], records: Sequence[Mapping[str, Any]], result: StoreResult
) -> GetResponse:
    """A get's response: the records found (``RecordRows.records``), in request order; every
    other id missing."""
    found = {record["id"]: record for record in records}
    return GetResponse.model_validate(
        {
            "records": [found[i] for i in ids if i in found],
            "missing": [i for i in ids if i not in found],
            "latency_ms": result.latency_ms,
            "stores": [result],
        }
    )


def restore_answer(restored: Sequence[str], result: StoreResult) -> RestoreResponse:
    """A restore's response: the ids restored, in request order."""
    return RestoreResponse(
        restored=list(restored),
        latency_ms=result.latency_ms or 0.0,
        stores=[result.model_copy(update={"count": len(restored)})],
    )


def batch_answer(results: Sequence[RememberResponse], result: StoreResult) -> RememberBatchResponse:
    """A batch's response: one remember response per request; the store's count is the records
    it created (a replay creates none)."""
    return RememberBatchResponse(
        results=list(results),
        latency_ms=result.latency_ms or 0.0,
        stores=[result.model_copy(update={"count": sum(not r.replayed for r in results)})],
    )


def list_answer(
    records: Sequence[Mapping[str, Any]], next_cursor: str | None, result: StoreResult
) -> ListResponse:
    """A list page's response (``records``: ``RecordRows.records``)."""
    return ListResponse.model_validate(page_answer({"records": list(records)}, next_cursor, result))


def page_answer(
    fields: dict[str, Any], next_cursor: str | None, result: StoreResult
) -> dict[str, Any]:
    """A store's answer to one page of a paged operation (list, export, a scope listing): its
    ``fields``, the store's latency and result, and the cursor when another page follows."""
    answer = {**fields, "latency_ms": result.latency_ms, "stores": [result]}
    if next_cursor is not None:
        answer["next_cursor"] = next_cursor
    return answer


class Cursors:
    """List cursors ([list.cursor], [list.cursor-binding]): the last record's position in the
    order, authenticated under the store's key together with a digest of the request's other
    fields, so a cursor altered, made by another store or for another request (agent, user,
    filter, types, states, order) is refused, saying nothing of what it held. The page size may
    change between pages."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def make(self, req: BaseModel, last: Mapping[str, Any]) -> str:
        """The cursor after ``last`` (the page's last record) in ``req``'s order (a request
        without ``order``, as an export's or a scope listing's, pages by id)."""
        order = getattr(req, "order", "id")
        position = [last["id"]] if order == "id" else [last["created_at"], last["id"]]
        return self.at(req, position)

    def at(self, req: BaseModel, position: Sequence[Any]) -> str:
        """The cursor of a page starting after ``position`` (JSON values), bound to ``req``:
        for an order of the store's own (a history pages by revision)."""
        body = json.dumps(list(position), separators=(",", ":")).encode()
        token = body + self._mac(req, body)
        return base64.urlsafe_b64encode(token).rstrip(b"=").decode()

    def page(
        self, req: ListRequest, rows: Sequence[Mapping[str, Any]]
    ) -> tuple[Sequence[Mapping[str, Any]], str | None]:
        """A page from the ``limit + 1`` rows a store read (``kit.sql.list_page``), and the
        cursor after its last record when the extra row says another page follows."""
        page = rows[: req.limit]
        return page, self.make(req, page[-1]) if len(rows) > req.limit else None

    def position(self, req: BaseModel) -> tuple[Any, ...] | None:
        """Where ``req``'s page starts: None for the first page, else the position its cursor
        holds (``(id,)`` or ``(created_at, id)``); RequestError for any other cursor."""
        cursor: str | None = getattr(req, "cursor", None)
        if cursor is None:
            return None
        try:
            token = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        except (binascii.Error, ValueError):
            token = b""
        body, mac = token[:-_CURSOR_MAC_BYTES], token[-_CURSOR_MAC_BYTES:]
        if len(token) <= _CURSOR_MAC_BYTES or not hmac.compare_digest(mac, self._mac(req, body)):
            raise _bad_cursor()
        position = json.loads(body)  # ours: the MAC vouches for it
        return tuple(position)

    def after_id(self, req: BaseModel) -> str:
        """The id ``req``'s page starts after, for pages ordered by id alone (export, scopes):
        ``""`` for the first page (every id sorts after it)."""
        position = self.position(req)
        return "" if position is None else str(position[0])

    def _mac(self, req: BaseModel, body: bytes) -> bytes:
        # every field but the cursor and the page size, defaults filled in: a field sent
        # with its default value is the same request as one leaving it out
        fields = req.model_dump(mode="json", by_alias=True, exclude={"cursor", "limit"})
        bound = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
        message = hashlib.sha256(bound).digest() + body
        return hmac.digest(self._key, message, hashlib.sha256)[:_CURSOR_MAC_BYTES]


def _bad_cursor() -> RequestError:
    return RequestError(
        "the cursor is not valid for this list request (altered, from another store, or made "
        "for other fields); send the request without cursor (the CLI: leave out --cursor) to "
        "start from the first page",
        details=list(_CURSOR_ERROR),
    )


@dataclass
class UpdatePlan:
    """What an update does to one record ([update.version], [update.fields]): the fields whose
    value changes, and the text to embed when the content does. ``None`` values clear nothing:
    every updatable field is set only when the request sends it."""

    #: the record as stored when the update was planned (its store key: ``rowid``, ``seq``)
    record: Mapping[str, Any]
    version: int
    changes: dict[str, Any]
    new_text: str | None
    vector: Any = None

    @classmethod
    def of(
        cls,
        req: UpdateRequest,
        current: Mapping[str, Any] | None,
        policy: StagingRules | None = None,
    ) -> UpdatePlan:
        """Check ``req`` against ``current`` (the record as stored, or None when the request
        may not see it: another agent's or user's, forgotten, merged, archived) and the
        store's staging ``policy`` (an update into what it stages is refused), and plan it."""
        if current is None:
            raise NotFoundError(
                f"no active or pending record {req.id!r} of agent {req.agent_id!r}"
                + ("" if req.user_id is None else f" and user {req.user_id!r}"),
                details=[{"path": "/id", "rule": "not_found", "message": "no such record"}],
            )
        if current["version"] != req.expected_version:
            raise ConflictError(
                f"record {req.id!r} is at version {current['version']}, not "
                f"{req.expected_version}: read it again (get) and send the update with "
                "expected_version set to what you read",
                details=[
                    {
                        "path": "/expected_version",
                        "rule": "conflict",
                        "message": f"the record is at version {current['version']}",
                    }
                ],
            )
        wire = to_wire(req)
        if "content" in wire and current["type"] == MemoryType.PROCEDURAL:
            _check_procedural(req.agent_id, wire["content"])
        changes = {
            name: wire[name]
            for name in UPDATABLE_FIELDS
            if name in wire and wire[name] != current.get(name)
        }
        if "seal" in wire and wire["seal"] != current.get("seal"):
            changes["seal"] = wire["seal"]
        if policy is not None:
            policy.refuse_update(current, changes)
        new_text = None
        if "content" in changes:
            new_text = searchable_text(current["type"], changes["content"])
        return cls(current, current["version"], changes, new_text)

    @property
    def changed(self) -> list[str]:
        """The fields whose value changes, in spec order (``updated`` in the response)."""
        return [name for name in (*UPDATABLE_FIELDS, "seal") if name in self.changes]

    @property
    def next_version(self) -> int:
        """The version after the update: one more, unless nothing changed."""
        return self.version + 1 if self.changes else self.version

    def audit_detail(self, reason: str | None) -> dict[str, Any]:
        """The update's audit entry ([update.audit]): versions, fields, the caller's reason;
        never the content, old or new."""
        detail: dict[str, Any] = {
            "from_version": self.version,
            "to_version": self.next_version,
            "fields": self.changed,
        }
        if reason is not None:
            detail["reason"] = reason
        return detail

    def answer(self, req: UpdateRequest, now: int, result: StoreResult) -> UpdateResponse:
        """The update's response, once written at ``now``."""
        return UpdateResponse(
            id=req.id,
            version=self.next_version,
            updated=self.changed,
            updated_at=now,
            latency_ms=result.latency_ms or 0.0,
            stores=[result.model_copy(update={"count": 1 if self.changes else 0})],
        )

    def check_unchanged(self, current: Mapping[str, Any] | None) -> None:
        """Inside the write transaction: the record is still at the planned version (another
        update won the race otherwise: exactly one does) and in the planned state (a staged
        record approved in between is no longer one a staging policy lets change)."""
        if (
            current is None
            or current["version"] != self.version
            or current["state"] != self.record["state"]
        ):
            now = "gone" if current is None else f"at version {current['version']}"
            if current is not None and current["state"] != self.record["state"]:
                now = f"{current['state']} now, {self.record['state']} when read"
            raise ConflictError(
                f"the record changed while the update was prepared (now {now}); read it again",
                details=[{"path": "/expected_version", "rule": "conflict", "message": now}],
            )


def machine_problems(agent_id: str, content: str) -> list[dict[str, Any]] | None:
    """What makes ``content`` no valid procedural content for ``agent_id`` ([types.procedural]:
    the remember schema's rule and its state references), the details at ``/content``; None
    when it is one."""
    probe = {"agent_id": agent_id, "type": MemoryType.PROCEDURAL.value, "content": content}
    envelope = spec.validate("remember.request", probe)
    if envelope is None:
        return None
    return [d for d in envelope["details"] if d["path"].startswith("/content")]


def _check_procedural(agent_id: str, content: str) -> None:
    """A procedural record's new content must be a valid state machine."""
    details = machine_problems(agent_id, content)
    if details is not None:
        raise RequestError(
            "content is not a valid state machine for this procedural record; "
            "send the JSON text of a StateMachine",
            details=details,
        )
