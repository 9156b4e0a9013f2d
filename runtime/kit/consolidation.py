"""Consolidation of duplicates (spec v0.4, docs/spec/v0.4.md#consolidate.duplicates), written
once over a store's own ``export_records`` and ``merge``: a store that serves both (and
keeps versions) serves ``consolidate`` by calling :func:`consolidate` on itself, and so does
the router, whose export reads every child and whose merge reaches every copy, so one plan
covers them all, by id.

The plan reads the scope's active records with their vectors, page by page, and groups them by
user and type (a merge never crosses either), and by the fields of their type: two episodes at
different times or places, or two emotions of another polarity, are never compared. Within a
group, every record is compared with every other by one matrix product a block of rows at a
time (exact, no index to trust: the memory it takes is the group's vectors plus one block), and
each record brings forward its closest neighbours above the judge's candidate similarity.
``kit.duplicates.judge`` decides each pair from its words. The pairs it accepts join records
into groups; each group keeps the record that says the most as canonical, and only the records
the judge accepts against that record directly (a chain of near-equal pairs can drift from its
start). Each merge names the versions read, so applying it later, from another process, leaves
a record changed since untouched and says so.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from mnemowire.errors import ConflictError, NotFoundError, RequestError
from mnemowire.kit._basics import json_text
from mnemowire.kit._rules import MOVED_ON
from mnemowire.kit.duplicates import CANDIDATE_SIMILARITY, Parsed, judge
from mnemowire.models import (
    REMEMBER_REQUEST_DEFAULTS,
    TYPE_SPECIFIC_FIELDS,
    ArchiveRecord,
    ConsolidateRequest,
    ConsolidateResponse,
    ExportRecordsRequest,
    GetRequest,
    MemoryRecord,
    MemoryType,
    MergeRequest,
    MergeResponse,
    MergeStrategy,
)
from mnemowire.models.operations import ExportRecordsStore, GetStore

__all__ = [
    "ConsolidatingStore",
    "RecordGroup",
    "ScannedRecord",
    "active_lines",
    "confidence_of",
    "consolidate",
    "duplicate_merges",
    "plan_refused",
    "still_current",
]

#: the records each record brings forward as candidates, closest first (records with the same
#: normalised text are joined before, whatever their vectors)
NEIGHBOURS = 16
#: rows of one block of the similarity product: a block of a 100k-record group is 200 MB
BLOCK_ROWS = 512
#: records read per export page
PAGE = 1000

Vector = npt.NDArray[np.float32]


class ConsolidatingStore(ExportRecordsStore, GetStore, Protocol):
    """What a consolidation is made of: the scope read with its vectors (export_records), the
    records' current versions (get), and merges (merge, honouring expected_versions)."""

    async def merge(self, request: MergeRequest) -> MergeResponse: ...


@dataclass(slots=True)
class ScannedRecord:
    """A record as a plan weighs it (its words parsed once, when first compared)."""

    id: str
    content: str
    confidence: float
    created_at: int
    version: int
    parsed: Parsed | None = None

    @classmethod
    def of(cls, record: MemoryRecord) -> ScannedRecord:
        """A record as an export line holds it, with the spec's defaults for what it omits."""
        return cls(
            record.id,
            record.content,
            confidence_of(record),
            int(record.created_at),
            int(record.version if record.version is not None else 1),
        )

    def text(self) -> Parsed:
        if self.parsed is None:
            self.parsed = Parsed.of(self.content)
        return self.parsed


@dataclass(slots=True)
class RecordGroup:
    """The records of one user and one type, and their unit vectors (row i is record i)."""

    user_id: str | None
    type: str
    records: list[ScannedRecord] = field(default_factory=list)
    rows: list[Vector] = field(default_factory=list)

    def add(self, record: MemoryRecord, vector_base64: str) -> None:
        """A record of an export line, with its vector as the line encodes it."""
        self.records.append(ScannedRecord.of(record))
        self.rows.append(np.frombuffer(base64.b64decode(vector_base64), dtype="<f4"))


def confidence_of(record: MemoryRecord) -> float:
    """A record's confidence, the spec's default when it holds none."""
    confidence = record.confidence
    return float(REMEMBER_REQUEST_DEFAULTS["confidence"] if confidence is None else confidence)


async def active_lines(
    store: ExportRecordsStore, agent_id: str, user_id: str | None, types: list[str] | None
) -> AsyncIterator[ArchiveRecord]:
    """The export lines of a scope's active records with their vectors (base64), page by page:
    what a plan reads."""
    wire: dict[str, Any] = {
        "agent_id": agent_id,
        "states": ["active"],
        "include_vectors": True,
        "vector_encoding": "base64",
        "limit": PAGE,
    }
    if user_id is not None:
        wire["user_id"] = user_id
    if types is not None:
        wire["types"] = types
    while True:
        page = await store.export_records(ExportRecordsRequest.model_validate(wire))
        for line in page.records:
            yield line
        if page.next_cursor is None:
            return
        wire["cursor"] = page.next_cursor


async def consolidate(
    store: ConsolidatingStore, request: ConsolidateRequest
) -> ConsolidateResponse:
    """Plan the merges of ``request``'s scope (or take the plan it sends), and with
    ``dry_run`` false apply them, each as one merge naming the versions it was planned at."""
    if request.plan is not None:
        _check_plan(request)
        groups = [
            {
                "canonical": merge.canonical,
                "duplicates": list(merge.duplicates),
                "expected_versions": dict(merge.expected_versions.root),
                "evidence": [],
            }
            for merge in request.plan
        ]
        scanned, more = 0, False
    else:
        groups, scanned = await _plan(store, request)
        more = len(groups) > request.limit
        groups = groups[: request.limit]
    if request.dry_run:
        await still_current(store, request.agent_id, groups, planned=request.plan is None)
    else:
        await _check_strategy(store, request, groups)
        for group in groups:
            await _apply(store, request, group)
    return ConsolidateResponse.model_validate(
        {"dry_run": request.dry_run, "scanned": scanned, "groups": groups, "more": more}
    )


def _check_plan(request: ConsolidateRequest) -> None:
    """A sent plan is refused whole before any of it is applied when one of its merges could
    never be made: a record merged into itself, versions of records it does not merge, or a
    record in two of its merges."""
    seen: set[str] = set()
    for n, merge in enumerate(request.plan or ()):
        named = {merge.canonical, *merge.duplicates}
        problem = ""
        if merge.canonical in merge.duplicates:
            problem = "its canonical record is also one of its duplicates"
        elif set(merge.expected_versions.root) != named:
            problem = "expected_versions must name exactly its canonical record and duplicates"
        elif named & seen:
            problem = f"it names {sorted(named & seen)[0]!r}, which an earlier merge names too"
        if problem:
            raise plan_refused(n, problem, "consolidate", "merge", "groups")
        seen |= named


def plan_refused(n: int, problem: str, operation: str, entry: str, listed: str) -> RequestError:
    """The refusal of a sent plan whose ``n``-th ``entry`` could never be made (rule
    ``<operation>.apply``), naming the command that takes a dry run's answer as it was printed."""
    return RequestError(
        f"plan {entry} {n}: {problem}; send the {listed} a dry run answered (mnemowire "
        f"{operation} --plan FILE takes that answer as it was printed)",
        details=[{"path": f"/plan/{n}", "rule": f"{operation}.apply", "message": problem}],
    )


async def _apply(
    store: ConsolidatingStore, request: ConsolidateRequest, group: dict[str, Any]
) -> None:
    """One group as one merge; a record that moved on since the plan leaves it untouched."""
    merge = MergeRequest.model_validate(
        {
            "agent_id": request.agent_id,
            "canonical": group["canonical"],
            "duplicates": group["duplicates"],
            "expected_versions": group["expected_versions"],
            "strategy": request.strategy,
            **({"approval_required": True} if request.approval_required else {}),
        }
    )
    try:
        answer = await store.merge(merge)
    except NotFoundError:  # a record merged, forgotten or erased since the plan
        group["status"] = "changed"
        return
    except ConflictError as exc:
        if not any(d.get("rule") == MOVED_ON for d in exc.envelope.get("details", [])):
            raise  # not a record that moved on: a merge the request cannot make
        group["status"] = "changed"
        return
    if answer.pending_approval:
        group["status"] = "pending_approval"
        group["review_id"] = answer.review_id
    else:
        group["status"] = "merged"


async def still_current(
    store: GetStore, agent_id: str, entries: list[dict[str, Any]], *, planned: bool
) -> None:
    """A dry run's statuses (a consolidation's groups, a promotion's actions): a plan just
    made is current; a plan sent is checked against the records as they stand (visible, at
    the versions it names)."""
    if planned:
        for entry in entries:
            entry["status"] = "planned"
        return
    found = await _visible(store, agent_id, {i for e in entries for i in e["expected_versions"]})
    current = {i: r.version for i, r in found.items() if r.version is not None}
    for entry in entries:
        expected = entry["expected_versions"]
        fresh = all(current.get(i) == v for i, v in expected.items())
        entry["status"] = "planned" if fresh else "changed"


async def _visible(store: GetStore, agent_id: str, ids: set[str]) -> dict[str, MemoryRecord]:
    """The active records of ``ids`` the agent may see, by id, a page of gets at a time."""
    wanted = sorted(ids)
    found: dict[str, MemoryRecord] = {}
    for start in range(0, len(wanted), 100):
        page = await store.get(
            GetRequest.model_validate({"agent_id": agent_id, "ids": wanted[start : start + 100]})
        )
        found.update({r.id: r for r in page.records})
    return found


async def _check_strategy(
    store: ConsolidatingStore, request: ConsolidateRequest, groups: list[dict[str, Any]]
) -> None:
    """merge_content cannot merge procedural records (two state machines do not
    concatenate): such a request is refused whole, before any group is merged, instead of
    failing at the first procedural group with the groups before it merged."""
    if request.strategy != MergeStrategy.MERGE_CONTENT.value or not groups:
        return
    if request.plan is None:
        types = {str(g["type"]) for g in groups}
    else:
        found = await _visible(store, request.agent_id, {g["canonical"] for g in groups})
        types = {str(r.type) for r in found.values()}
    if MemoryType.PROCEDURAL in types:
        problem = "merge_content cannot merge procedural records"
        raise RequestError(
            f"{problem} (two state machines do not concatenate), and the groups include some; "
            "nothing was merged: leave them out with --type, or use --strategy keep_canonical",
            details=[{"path": "/strategy", "rule": "consolidate.apply", "message": problem}],
        )


# -- the plan ----------------------------------------------------------------------------------


async def _plan(
    store: ConsolidatingStore, request: ConsolidateRequest
) -> tuple[list[dict[str, Any]], int]:
    """Every group of duplicates in the scope, largest first, and how many records were read."""
    by_scope, scanned = await _read(store, request)
    planned: list[dict[str, Any]] = []
    for group in by_scope.values():
        if len(group.records) > 1:
            planned.extend(duplicate_merges(group))
    planned.sort(key=lambda g: (-len(g["duplicates"]), g["canonical"]))
    return planned, scanned


async def _read(
    store: ConsolidatingStore, request: ConsolidateRequest
) -> tuple[dict[tuple[str | None, str, str], RecordGroup], int]:
    """The scope's active records with their vectors, by user, type and the fields of their
    type (``_particulars``)."""
    types = None if request.types is None else [str(t) for t in request.types]
    groups: dict[tuple[str | None, str, str], RecordGroup] = {}
    scanned = 0
    async for line in active_lines(store, request.agent_id, request.user_id, types):
        record = line.record
        if line.vector_base64 is None:  # a record the store holds no vector for: never a pair
            continue
        scanned += 1
        key = (record.user_id, str(record.type), _particulars(record))
        group = groups.setdefault(key, RecordGroup(record.user_id, str(record.type)))
        group.add(record, line.vector_base64)
    return groups, scanned


def _particulars(record: MemoryRecord) -> str:
    """A record's type-specific fields (an episode's time, place and participants; an
    emotion's polarity and target) as one key: two records that differ in them are two
    events or two feelings, however alike their words, so they are never compared."""
    fields = set(TYPE_SPECIFIC_FIELDS.get(str(record.type), ()))
    return json_text(record.model_dump(mode="json", include=fields) if fields else {})


def duplicate_merges(group: RecordGroup) -> list[dict[str, Any]]:
    """The merges of ``group``'s records that say the same thing (its rows are consumed):
    each the canonical record, its duplicates, their versions and the judge's evidence.
    Promotion counts repetitions with it too (``kit.promotion``)."""
    vectors = np.vstack(group.rows).astype(np.float32, copy=False)
    group.rows.clear()
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors /= np.where(norms == 0, 1, norms)
    parent = list(range(len(group.records)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_of: dict[str, int] = {}
    for i, record in enumerate(group.records):  # the same text: joined whatever the vectors say
        same = first_of.setdefault(record.text().normalised, i)
        if same != i:
            parent[root(i)] = root(same)
    for i, j, similarity in _candidates(vectors):
        if root(i) == root(j):
            continue
        if judge(group.records[i].text(), group.records[j].text(), similarity).duplicate:
            parent[root(i)] = root(j)
    members: dict[int, list[int]] = {}
    for i in range(len(group.records)):
        members.setdefault(root(i), []).append(i)
    out = []
    for together in members.values():
        if len(together) > 1:
            planned = _merge_of(group, vectors, together)
            if planned is not None:
                out.append(planned)
    return out


def _candidates(vectors: Vector) -> Iterator[tuple[int, int, float]]:
    """Each record's closest later records above the candidate similarity, at most
    ``NEIGHBOURS`` of them: (i, j, similarity) with i < j, a block at a time (never the whole
    list: a 100k-record group brings forward over a million)."""
    count = len(vectors)
    for start in range(0, count, BLOCK_ROWS):
        block = vectors[start : start + BLOCK_ROWS] @ vectors[start:].T
        # a record against itself and the block's records before it (their rows compared them)
        square = block[:, : len(block)]
        square[np.tril_indices(len(block))] = -np.inf
        over = block >= CANDIDATE_SIMILARITY
        for row in np.nonzero(over.any(axis=1))[0]:
            columns = np.nonzero(over[row])[0]
            if len(columns) > NEIGHBOURS:
                scores = block[row, columns]
                columns = columns[np.argpartition(-scores, NEIGHBOURS)[:NEIGHBOURS]]
            i = start + int(row)
            for column in columns:
                yield i, start + int(column), float(block[row, column])


def _merge_of(
    group: RecordGroup, vectors: Vector, together: Sequence[int]
) -> dict[str, Any] | None:
    """The group's merge: the record that says the most (then the most confident, then the
    oldest) as canonical, and each record the judge accepts against it, with the evidence."""
    records = group.records
    by_id = sorted(together, key=lambda i: records[i].id)  # max keeps the first: ties by id
    keep = max(
        by_id,
        key=lambda i: (
            len(records[i].text().content),
            records[i].confidence,
            -records[i].created_at,
        ),
    )
    canonical = records[keep]
    duplicates, evidence = [], []
    for i in by_id:
        if i == keep:
            continue
        similarity = float(vectors[keep] @ vectors[i])
        verdict = judge(canonical.text(), records[i].text(), similarity)
        if verdict.duplicate:
            duplicates.append(records[i])
            evidence.append(
                {
                    "id": records[i].id,
                    "content": records[i].content,
                    "reason": verdict.reason,
                    "similarity": round(max(-1.0, min(1.0, similarity)), 4),
                    "only_in_canonical": list(verdict.only_in_first),
                    "only_in_duplicate": list(verdict.only_in_second),
                }
            )
    if not duplicates:
        return None
    planned: dict[str, Any] = {
        "canonical": canonical.id,
        "content": canonical.content,
        "duplicates": [d.id for d in duplicates],
        "expected_versions": {r.id: r.version for r in (canonical, *duplicates)},
        "type": group.type,
        "evidence": evidence,
    }
    if group.user_id is not None:
        planned["user_id"] = group.user_id
    return planned
