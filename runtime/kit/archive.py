"""Spec v0.3's archive operations as a store sees them, with no I/O (docs/spec/v0.3.md): an
export page's lines from stored rows, the plan of an import page (which record goes under which
id, which is skipped, overwritten or refused) and what the store keeps of it, and a scope
listing's answer. A store reads and writes its own tables around these; the rules live here
once, so every store that keeps records in a table of its own decides the same way."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mnemowire.embedders import Embedder, Vectors
from mnemowire.errors import ConflictError, RequestError
from mnemowire.kit._basics import new_id, to_wire
from mnemowire.kit._browse import page_answer
from mnemowire.kit._embedding import embed
from mnemowire.kit._records import searchable_text
from mnemowire.kit.audit import entry
from mnemowire.models import (
    MEMORY_RECORD_FIELDS,
    ArchiveRecord,
    ExportRecordsRequest,
    ExportRecordsResponse,
    ImportRecordsRequest,
    ImportRecordsResponse,
    KeptState,
    RememberRequest,
    ScopesResponse,
    StoreResult,
)

__all__ = [
    "DEFAULT_CONFIDENCE",
    "KEPT_FROM_STORED",
    "STORED_FROM_KEPT",
    "Carried",
    "ImportPlan",
    "Placed",
    "agent_scope",
    "archive_record",
    "carried_versions",
    "check_agents",
    "decoded_vector",
    "export_answer",
    "export_states",
    "import_vectors",
    "page_items",
    "scopes_answer",
]

#: the kept states (the archive's names) as the SQL stores' ``state`` column spells them
STORED_FROM_KEPT: dict[str, str] = {
    KeptState.ACTIVE: "active",
    KeptState.PENDING: "pending",
    KeptState.ARCHIVED: "archived",
    KeptState.FORGOTTEN: "deleted",
    KeptState.MERGED: "merged",
}
KEPT_FROM_STORED: dict[str, str] = {stored: str(kept) for kept, stored in STORED_FROM_KEPT.items()}
#: what a stored record's confidence is when its archive line leaves it out (the spec default)
DEFAULT_CONFIDENCE: float = RememberRequest.model_fields["confidence"].default
#: a line's record fields: the state travels beside the record, as the archive spells it
_LINE_RECORD_FIELDS = tuple(name for name in MEMORY_RECORD_FIELDS if name != "state")


def archive_record(
    row: Mapping[str, Any],
    *,
    review: Mapping[str, Any] | None = None,
    vector: np.ndarray[Any, Any] | None = None,
    encoding: str = "float",
    history: tuple[list[dict[str, Any]], int] | None = None,
) -> dict[str, Any]:
    """An export's line for a stored row (columns by field name, JSON decoded, ``state`` as the
    store spells it): the record's wire fields, its kept state, and what the row adds; its
    float32 ``vector`` as export's ``vector_encoding`` asks ([archive.vector]); its
    ``history`` (its entries, oldest first, and how many older ones are no longer kept:
    [archive.history])."""
    record = {name: value for name in _LINE_RECORD_FIELDS if (value := row.get(name)) is not None}
    line: dict[str, Any] = {"kind": "record", "record": record}
    line["state"] = KEPT_FROM_STORED[row["state"]]
    if row.get("merged_into") is not None:
        line["merged_into"] = row["merged_into"]
    if review is not None:
        line["review"] = dict(review)
    if row.get("last_recalled_at") is not None:
        line["last_recalled_at"] = row["last_recalled_at"]
    if row.get("recall_count"):
        line["recall_count"] = row["recall_count"]
    if row.get("demote") not in (None, 1.0):
        line["demote"] = row["demote"]
    if history is not None and history[0]:
        line["history"], dropped = history
        if dropped:
            line["history_dropped"] = dropped
    if vector is not None:
        if encoding == "base64":
            raw = np.asarray(vector, dtype="<f4").tobytes()
            line["vector_base64"] = base64.b64encode(raw).decode("ascii")
        else:
            line["vector"] = vector.tolist()
    return line


#: what a carried version keeps of its entry besides the record, its time and revision
_CARRIED_SAID = ("operation", "caller", "reason", "merged_from")


@dataclass(frozen=True)
class Carried:
    """One version an archive line carries, as a target keeps it ([import.history]): its
    revision and time, the record's fields as they stood (wire names, the state as the SQL
    stores spell it, the target's id), and what its entry said (``said``)."""

    revision: int
    at: int
    fields: dict[str, Any]
    said: dict[str, Any]


def carried_versions(line: ArchiveRecord, index: int, target_id: str) -> list[Carried]:
    """The versions ``line`` carries, to be kept before the import's own version (whose
    revision is the last one's plus 1), under the record's id on the target; a RequestError
    naming ``records[index]`` when the revisions do not run on from ``history_dropped + 1``
    without a gap ([archive.history]), or a version is of another record or agent."""
    out: list[Carried] = []
    dropped = line.history_dropped or 0
    for n, version in enumerate(line.history or []):
        where = f"/records/{index}/history/{n}"
        if version.revision != dropped + 1 + n:
            raise _refused(
                where + "/revision", "revisions",
                f"is {version.revision}: the versions run on from history_dropped + 1 "
                f"({dropped + 1}) without a gap, so this one is {dropped + 1 + n}",
            )  # fmt: skip
        record = version.record
        if record.id != line.record.id or record.agent_id != line.record.agent_id:
            raise _refused(
                where + "/record", "history", "is a version of another record: a line's "
                "history is its own record's, same id and agent",
            )  # fmt: skip
        fields = to_wire(record)
        fields["id"] = target_id
        fields["state"] = STORED_FROM_KEPT.get(str(record.state or "active"), "active")
        fields["merged_into"] = version.merged_into if fields["state"] == "merged" else None
        wire = to_wire(version)
        said = {name: wire[name] for name in _CARRIED_SAID if wire.get(name) is not None}
        out.append(Carried(version.revision, version.at, fields, said))
    return out


def decoded_vector(
    vector: Sequence[float] | None, encoded: str | None, where: str
) -> np.ndarray[Any, Any] | None:
    """A record line's vector as float32 values, from either of its forms
    (docs/spec/v0.3.md#archive.vector), or None; a RequestError naming ``where`` (the line's
    JSON pointer) for a line carrying both, or a ``vector_base64`` that is not whole, finite
    float32 values (its schema checked it is base64)."""
    if encoded is None:
        if vector is None:
            return None
        with np.errstate(over="ignore"):  # a double past float32's range: the store's inf
            return np.asarray(vector, dtype=np.float32)
    if vector is not None:
        raise _refused(where, "oneVector", "carries vector and vector_base64: send one")
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _refused(where + "/vector_base64", "pattern", f"is not base64 ({exc})") from exc
    if len(raw) % 4:
        raise _refused(where + "/vector_base64", "float32", f"decodes to {len(raw)} bytes, "
                       "not whole float32 values (4 bytes each)")  # fmt: skip
    values = np.frombuffer(raw, dtype="<f4")
    if not np.isfinite(values).all():
        raise _refused(where + "/vector_base64", "json",
                       "holds NaN or an infinity; send finite numbers")  # fmt: skip
    return values


def _refused(path: str, rule: str, message: str) -> RequestError:
    """A refusal naming the field as a caller writes it (``records[3].vector_base64``)."""
    name = ""
    for part in path.strip("/").split("/") if path.strip("/") else []:
        name += f"[{part}]" if part.isdigit() else f".{part}" if name else part
    return RequestError(
        f"{name or 'the record line'} {message}",
        details=[{"path": path, "rule": rule, "message": message}],
    )


def export_answer(
    records: Sequence[dict[str, Any]],
    tombstones: Sequence[tuple[str, str]],
    next_cursor: str | None,
    result: StoreResult,
    *,
    embedder: Embedder | None = None,
    audit_head: str | None = None,
) -> ExportRecordsResponse:
    """An export page from its lines (``archive_record``) and its (id, agent_id) tombstones."""
    answer = page_answer(
        {
            "records": list(records),
            "tombstones": [{"kind": "tombstone", "id": i, "agent_id": a} for i, a in tombstones],
        },
        next_cursor,
        result,
    )
    if embedder is not None:
        answer["embedder"] = {"name": embedder.name, "dimension": embedder.dimension}
    if audit_head is not None:
        answer["audit_head"] = audit_head
    return ExportRecordsResponse.model_validate(answer)


def page_items(
    records: Sequence[Mapping[str, Any]], tombstones: Sequence[tuple[str, str]], limit: int
) -> tuple[list[Mapping[str, Any]], list[tuple[str, str]], str | None]:
    """An export page from up to ``limit + 1`` records and tombstones each read after the
    cursor, both in id order: the first ``limit`` of the two together, and the last id kept
    when more follow (where the next page starts)."""
    ids = sorted([r["id"] for r in records] + [t[0] for t in tombstones])
    if len(ids) <= limit:
        return list(records), list(tombstones), None
    last: str = ids[limit - 1]
    kept_records = [r for r in records if r["id"] <= last]
    return kept_records, [t for t in tombstones if t[0] <= last], last


@dataclass
class Placed:
    """One record of an import page: the line, the id it goes under, and what happens."""

    index: int
    line: ArchiveRecord
    target_id: str
    outcome: str  # imported | overwritten | skipped | erased
    #: a written record's fields as the store writes them (wire names; ``id`` is ``target_id``)
    record: dict[str, Any] = field(default_factory=dict)
    #: the line's vector as float32 values, from either form (``decoded_vector``)
    vector: np.ndarray[Any, Any] | None = None
    #: the versions the line carries, oldest first ([import.history]); the import's own
    #: version follows them
    history: list[Carried] = field(default_factory=list)

    @property
    def written(self) -> bool:
        return self.outcome in ("imported", "overwritten")


class ImportPlan:
    """What one import page does on a target that holds ``held`` ids (a live or hidden record
    each) and erased ``erased`` (docs/spec/v0.3.md#import.ids, #import.conflict,
    #import.erased). Raises RequestError for a page that breaks a rule beyond its schema, and
    ConflictError when ``on_conflict`` is fail and any record conflicts: nothing is written."""

    def __init__(
        self, request: ImportRecordsRequest, held: Mapping[str, str], erased: Iterable[str]
    ) -> None:
        """``held``: the ids the target holds, each with its record's agent."""
        self.request = request
        #: what the plan was made on: a store planning again under its write lock reuses the
        #: plan when the target still holds and erased the same ids (``made_on``)
        self.taken: tuple[dict[str, str], frozenset[str]] = (dict(held), frozenset(erased))
        lines = request.records or []
        check_agents(request)
        vectors = [
            decoded_vector(line.vector, line.vector_base64, f"/records/{i}")
            for i, line in enumerate(lines)
        ]
        held_ids, erased_ids = set(held), set(erased)
        foreign: list[dict[str, str]] = []
        seen: set[str] = set()
        fresh: dict[str, str] = {}
        conflicts: list[dict[str, str]] = []
        policy = request.id_policy
        self.placed: list[Placed] = []
        for index, line in enumerate(lines):
            source_id = line.record.id
            if source_id in seen:
                raise RequestError(
                    f"records[{index}] repeats id {source_id!r}: an archive holds each id once",
                    details=[{"path": f"/records/{index}/record/id", "rule": "uniqueIds",
                              "message": "repeats an id of this page"}],
                )  # fmt: skip
            seen.add(source_id)
            taken = source_id in held_ids or source_id in erased_ids
            if policy == "new" or (policy == "remap" and taken):
                fresh[source_id] = new_id()
                self.placed.append(Placed(index, line, fresh[source_id], "imported"))
                continue
            if source_id in held_ids and held[source_id] != line.record.agent_id:
                foreign.append({"path": f"/records/{index}/record/id", "rule": "conflict",
                                "message": "another agent's record holds this id"})  # fmt: skip
                outcome = "skipped"
            elif source_id in erased_ids:
                outcome = "erased"
            elif source_id in held_ids:
                outcome = {"skip": "skipped", "overwrite": "overwritten"}.get(
                    request.on_conflict, "conflict"
                )
            else:
                outcome = "imported"
            if outcome == "conflict" or (outcome == "erased" and request.on_conflict == "fail"):
                conflicts.append({"path": f"/records/{index}/record/id", "rule": "conflict",
                                  "message": "the target erased this id" if outcome == "erased"
                                  else "the target holds this id"})  # fmt: skip
            self.placed.append(Placed(index, line, source_id, outcome))
        if foreign:  # never skipped quietly, never overwritten: ids are one record's, everywhere
            raise ConflictError(
                f"{len(foreign)} record(s) of the page have ids another agent's records hold "
                "on the target: nothing was written; import with id_policy remap (the CLI: "
                "--ids remap)",
                details=foreign[:100],
            )
        if conflicts:
            raise ConflictError(
                f"{len(conflicts)} record(s) of the page have ids the target holds or erased, "
                "and on_conflict is fail: nothing was written; send on_conflict skip or "
                "overwrite, or id_policy remap (the CLI: --on-conflict, --ids)",
                details=conflicts[:100],
            )
        for placed in self.written:  # what a skipped record would be is never asked
            placed.record = _target_record(placed, fresh)
            placed.vector = vectors[placed.index]
            placed.history = carried_versions(placed.line, placed.index, placed.target_id)

    def made_on(self, held: Mapping[str, str], erased: Iterable[str]) -> bool:
        """Whether the plan was made on a target holding ``held`` and having erased
        ``erased`` (so planning again would plan the same)."""
        return self.taken == (dict(held), frozenset(erased))

    @property
    def written(self) -> list[Placed]:
        return [p for p in self.placed if p.written]

    def audit_entries(self, added: Sequence[str], now: int) -> list[dict[str, Any]]:
        """The page's audit entries (kit.audit ``entry``, not yet chained): one per agent it
        changed, with the ids written and the erased ids ``added``, and where they came from
        (the archive's digest, the source's audit head: docs/spec/v0.3.md#import.custody).
        A page that changes nothing (a rerun) has none. The request is digested once."""
        request = self.request
        written: dict[str, list[str]] = {}
        for p in self.written:
            written.setdefault(p.record["agent_id"], []).append(p.target_id)
        new = set(added)
        tombstones: dict[str, list[str]] = {}
        for tombstone in request.tombstones or []:
            if tombstone.id in new:
                tombstones.setdefault(tombstone.agent_id, []).append(tombstone.id)
        detail: dict[str, Any] = {
            "id_policy": request.id_policy,
            "on_conflict": request.on_conflict,
        }
        if request.archive is not None:
            detail["archive"] = to_wire(request.archive)
        entries: list[dict[str, Any]] = []
        sha256: str | None = None
        for agent in dict.fromkeys([*written, *tombstones]):
            erased = tombstones.get(agent)
            described = {**detail, "tombstones": erased} if erased else detail
            ids = written.get(agent, [])
            made = entry(
                now, "import_records", agent, ids, {} if sha256 else to_wire(request), described
            )
            if sha256 is None:
                sha256 = made["request_sha256"]
            entries.append({**made, "request_sha256": sha256})
        return entries

    def answer(
        self,
        result: StoreResult,
        tombstones: tuple[int, int, int],
        kept: Mapping[str, Mapping[str, str]] | None = None,
    ) -> ImportRecordsResponse:
        """The page's response: each record's outcome (and new id), the tombstones (added,
        known, held live), and what the store kept other than exactly."""
        results = []
        for p in self.placed:
            item: dict[str, Any] = {"id": p.line.record.id, "outcome": p.outcome}
            if p.target_id != p.line.record.id:
                item["new_id"] = p.target_id
            results.append(item)
        added, known, held = tombstones
        counts: dict[str, int] = {"added": added, "known": known}
        if held:
            counts["held"] = held
        answer: dict[str, Any] = {
            "results": results,
            "tombstones": counts,
            "latency_ms": result.latency_ms,
            "stores": [result],
        }
        if kept:
            answer["kept"] = {name: dict(how) for name, how in kept.items()}
        return ImportRecordsResponse.model_validate(answer)


def check_agents(request: ImportRecordsRequest) -> None:
    """Every record's and tombstone's agent is one the page says the archive names
    (docs/spec/v0.3.md#import.agents): a RequestError naming each that is not."""
    agents = set(request.agents)
    outside = [
        {"path": f"/records/{i}/record/agent_id", "rule": "agents",
         "message": "is not one of the page's agents"}
        for i, line in enumerate(request.records or []) if line.record.agent_id not in agents
    ] + [
        {"path": f"/tombstones/{i}/agent_id", "rule": "agents",
         "message": "is not one of the page's agents"}
        for i, t in enumerate(request.tombstones or []) if t.agent_id not in agents
    ]  # fmt: skip
    if outside:
        raise RequestError(
            f"{len(outside)} line(s) name an agent the page's agents leave out: list every "
            "agent of the archive in agents",
            details=outside[:100],
        )


def _target_record(placed: Placed, fresh: Mapping[str, str]) -> dict[str, Any]:
    """The record as the target stores it: its own id, a merged_into that follows a record
    of the same page to its new id, the spec's defaults for what the line leaves out."""
    wire = to_wire(placed.line.record)
    wire.pop("state", None)
    wire["id"] = placed.target_id
    wire.setdefault("updated_at", wire["created_at"])
    wire.setdefault("version", 1)
    wire.setdefault("confidence", DEFAULT_CONFIDENCE)
    wire.setdefault("metadata", {})
    line = placed.line
    if line.merged_into is not None:
        wire["merged_into"] = fresh.get(line.merged_into, line.merged_into)
    wire["state"] = STORED_FROM_KEPT[line.state]
    wire["last_recalled_at"] = line.last_recalled_at
    wire["recall_count"] = line.recall_count or 0
    wire["demote"] = 1.0 if line.demote is None else line.demote
    if line.state == "pending":
        review = line.review
        wire["review"] = {
            "review_id": placed.target_id,
            "staged_by": review.staged_by if review else "import",
            "requested_at": review.requested_at if review else wire["created_at"],
        }
    return wire


async def import_vectors(
    embedder: Embedder, request: ImportRecordsRequest, placed: Sequence[Placed]
) -> tuple[Vectors, dict[str, dict[str, str]]]:
    """The vectors of the records an import writes: the archive's where they came from this
    store's embedder (same name and dimension: docs/spec/v0.3.md#import.vectors), the content
    embedded otherwise; and what the store kept of the vectors sent, when not exactly."""
    dimension = embedder.dimension
    same = request.embedder is not None and (
        request.embedder.name == embedder.name and request.embedder.dimension == dimension
    )
    out = np.zeros((len(placed), dimension), dtype=np.float32)
    missing: list[int] = []
    for row, p in enumerate(placed):
        vector = p.vector
        if same and vector is not None:
            if len(vector) != dimension:
                name = "vector" if p.line.vector is not None else "vector_base64"
                raise RequestError(
                    f"records[{p.index}].{name} has {len(vector)} numbers; the embedder "
                    f"{embedder.name} makes {dimension}",
                    details=[{"path": f"/records/{p.index}/{name}", "rule": "dimension",
                              "message": f"must have {dimension} numbers"}],
                )  # fmt: skip
            out[row] = vector
        else:
            missing.append(row)
    if missing:
        texts = [
            searchable_text(placed[r].record["type"], placed[r].record["content"]) for r in missing
        ]
        embedded = await embed(embedder, texts)
        out[missing] = embedded
    sent = any(p.vector is not None for p in placed)
    kept: dict[str, dict[str, str]] = {}
    if sent and not same:
        named = request.embedder.name if request.embedder else "an unnamed embedder"
        kept["vector"] = {"as": "transformed", "how": f"made by {named}; re-embedded with "
                          f"{embedder.name} ({dimension} dimensions)"}  # fmt: skip
    return out, kept


def scopes_answer(
    agents: Sequence[Mapping[str, Any]], next_cursor: str | None, result: StoreResult
) -> ScopesResponse:
    """A scope listing's page from each agent's counts."""
    return ScopesResponse.model_validate(page_answer({"agents": list(agents)}, next_cursor, result))


def agent_scope(
    agent_id: str,
    counts: Iterable[tuple[str, str, int]],
    users: Sequence[tuple[str | None, int]],
    erased: int,
    max_users: int,
) -> dict[str, Any]:
    """One agent's entry of a scope listing from its (type, stored state, count) rows, its
    (user_id, count) rows most populous first (``max_users + 1`` of them at most), and its
    count of erased ids."""
    by_type: dict[str, int] = {}
    by_state: dict[str, int] = {}
    total = 0
    for kind, state, count in counts:
        by_type[kind] = by_type.get(kind, 0) + count
        kept = KEPT_FROM_STORED.get(state, state)
        by_state[kept] = by_state.get(kept, 0) + count
        total += count
    listed = [
        {"records": count} if user is None else {"user_id": user, "records": count}
        for user, count in users[:max_users]
    ]
    return {
        "agent_id": agent_id,
        "records": total,
        "by_type": by_type,
        "by_state": by_state,
        "erased": erased,
        "users": listed,
        "users_truncated": len(users) > max_users,
    }


def export_states(request: ExportRecordsRequest) -> list[str]:
    """The stored states an export reaches (every kept state when it names none)."""
    states = request.states if request.states is not None else list(KeptState)
    return [STORED_FROM_KEPT[s] for s in states]
