"""The spec's rules on stored state, written once for every store: replays and id conflicts,
which records a forget reaches, merge plans, time cut-offs, how deep a recall searches, and
what a store declares."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mnemowire.errors import ConflictError, MnemowireError, NotFoundError, RequestError
from mnemowire.kit._records import searchable_text
from mnemowire.kit.periods import PERIOD_DEPTH, named_period
from mnemowire.models import (
    FIELD_FIDELITY_FIELDS,
    Capabilities,
    Capability,
    Fidelity,
    MemoryType,
    MergeRequest,
    MergeStrategy,
    RememberRequest,
    RememberResponse,
    StoreResult,
)
from mnemowire.spec import capability_names

__all__ = [
    "DAY_MS",
    "MIN_SEARCH_DEPTH",
    "MergePlan",
    "StoredWrite",
    "cutoff",
    "declare",
    "forget_states",
    "id_taken",
    "in_batch",
    "replay",
    "require_visible",
    "search_depth",
]

DAY_MS = 86_400_000
#: a recall's searches fetch at least this many candidates, whatever its k
MIN_SEARCH_DEPTH = 20


def declare(
    store: str,
    spec_version: str,
    capabilities: Iterable[str],
    fidelity: Mapping[str, str] | None = None,
    staging_policy: Mapping[str, Any] | None = None,
) -> Capabilities:
    """A store's ``capabilities`` answer: the spec version it speaks (each store names its
    own, so a new spec version changes no store's claim), what it serves, in spec order,
    ``fidelity``: how it keeps the fields it does not keep natively (docs/spec/v0.1.md#
    store.fidelity), and the ``staging_policy`` it applies, if any (declared with it:
    docs/spec/v0.2.md#review.policy)."""
    declared = {str(c) for c in capabilities}
    if staging_policy is not None:
        declared.add(Capability.STAGING_POLICY.value)
    spoken = capability_names(spec_version)
    unknown = declared - set(spoken)
    if unknown:
        raise ValueError(f"not capabilities of spec {spec_version}: {sorted(unknown)}")
    ordered = [c for c in spoken if c in declared]
    named = dict(fidelity or {})
    if set(named) - set(FIELD_FIDELITY_FIELDS):
        raise ValueError(f"not record fields: {sorted(set(named) - set(FIELD_FIDELITY_FIELDS))}")
    kept = {
        field: str(Fidelity(named[field]))
        for field in FIELD_FIDELITY_FIELDS
        if named.get(field, Fidelity.NATIVE) != Fidelity.NATIVE
    }
    answer: dict[str, Any] = {"store": store, "spec_version": spec_version, "capabilities": ordered}
    if kept:
        answer["fidelity"] = kept
    if staging_policy is not None:
        answer["staging_policy"] = dict(staging_policy)
    return Capabilities.model_validate(answer)


@contextlib.contextmanager
def in_batch(index: int | None) -> Iterator[None]:
    """Errors of request ``index`` of a batch ([batch.atomic]) name it: details point under
    ``/requests/<index>`` and the message starts with the request's number. ``None``: not a
    batch, errors pass unchanged."""
    try:
        yield
    except MnemowireError as exc:
        if index is None:
            raise
        where = f"/requests/{index}"
        details = [{**d, "path": where + str(d.get("path", ""))} for d in exc.envelope["details"]]
        if not details:
            details = [{"path": where, "rule": exc.code, "message": str(exc)}]
        envelope = {**exc.envelope, "message": f"request {index}: {exc}", "details": details}
        raise type(exc)(envelope) from exc


def search_depth(k: int, query: str = "") -> int:
    """How many candidates each of a recall's searches (vector, keyword) fetches for ``k``
    results: four times k, at least ``MIN_SEARCH_DEPTH``, so fusion and demotion can reorder
    past the first k, and at least ``PERIOD_DEPTH`` when ``query`` names a calendar period
    ([recall.named-period]) (one policy for every store: the same request, the same
    candidates)."""
    deepest = PERIOD_DEPTH if named_period(query) is not None else MIN_SEARCH_DEPTH
    return max(4 * k, deepest)


def cutoff(now: int, days: float | None) -> int | None:
    """``now`` minus ``days``, in epoch ms; 0 (the epoch) when days reach back further than that
    (the spec allows any non-negative number of days, 1e308 included)."""
    if days is None:
        return None
    return int(max(0.0, now - days * DAY_MS))


@dataclass(frozen=True)
class StoredWrite:
    """What a store knows about an id it holds, for deciding a replay ([remember.id])."""

    agent_id: str
    user_id: str | None
    type: str
    content: str
    created_at: int
    pending: bool


def replay(
    req: RememberRequest, stored: StoredWrite | None, *, erased: bool, result: StoreResult
) -> RememberResponse | None:
    """A remember with an id ([remember.id]): the first write's response when the id holds what
    ``req`` would write (same agent, user, type and content: the first write's ``stored_at`` is
    not another user's to learn); None when the id was never used; ConflictError when it holds
    anything else or was erased (ids are never reused)."""
    if req.id is None:
        return None
    if erased:
        raise id_taken(req.id)
    if stored is None:
        return None
    if (stored.agent_id, stored.user_id, stored.type, stored.content) != (
        req.agent_id,
        req.user_id,
        req.type,
        req.content,
    ):
        raise id_taken(req.id)
    return RememberResponse(
        id=req.id,
        stored_at=stored.created_at,
        stores=[result],
        pending_approval=stored.pending,
        replayed=True,
    )


def id_taken(record_id: str) -> ConflictError:
    """The conflict for an id another record holds or held (said the same way whoever holds
    it, so nothing about that record is revealed)."""
    return ConflictError(
        f"id {record_id!r} is taken: another record has or had it, and ids are never reused; "
        "choose another id, or resend the original write to retry it"
    )


def forget_states(hard: bool, *, named: bool) -> tuple[str, ...]:
    """The record states a forget reaches (docs/spec/v0.md#forget.scope): visible and archived
    records; staged (pending) ones only when the request names them in ``ids`` (a reviewer's
    rejection) or erases; a hard delete also erases what an earlier forget or merge left."""
    if hard:
        return ("active", "pending", "archived", "deleted", "merged")
    return ("active", "pending", "archived") if named else ("active", "archived")


def require_visible(agent_id: str, found: Mapping[str, Any], ids: Iterable[str]) -> None:
    """A merge names visible records only ([merge.ownership]): NotFoundError otherwise,
    without saying which id is missing or why (another agent's record looks like none)."""
    if len(found) != len(set(ids)):
        raise NotFoundError(
            "merge needs the canonical record and every duplicate to be "
            f"visible records of agent {agent_id!r}; at least one is not"
        )


#: the rule of a merge refused because one of its records moved on (another version, changed
#: while the merge was written): what a consolidation reports as a group left ``changed``
MOVED_ON = "merge.versions"


def require_versions(req: MergeRequest, found: Mapping[str, Mapping[str, Any]]) -> None:
    """A merge sent with ``expected_versions`` goes ahead only over records at those versions
    (docs/spec/v0.4.md#merge.versions): what a consolidation plan read, so its merge never
    folds away a record changed since. ``found``: the merge's records as read (id -> record
    with ``version``)."""
    expected = req.expected_versions.root if req.expected_versions is not None else {}
    named = {req.canonical, *req.duplicates}
    strangers = sorted(set(expected) - named)
    if strangers:
        raise RequestError(
            f"expected_versions names {', '.join(map(repr, strangers))}, which the merge does "
            "not: name only the canonical record and the duplicates",
            details=[{"path": f"/expected_versions/{strangers[0]}", "rule": "merge.versions",
                      "message": "not a record of this merge"}],
        )  # fmt: skip
    moved = {i: found[i]["version"] for i, v in expected.items() if found[i]["version"] != v}
    if moved:
        first = min(moved)
        raise ConflictError(
            f"record {first!r} is at version {moved[first]}, not {expected[first]}: it changed "
            "since the merge was planned; plan it again (mnemowire consolidate) or drop "
            "expected_versions to merge what the records say now",
            details=[
                {"path": f"/expected_versions/{i}", "rule": MOVED_ON, "message": f"at {v}"}
                for i, v in sorted(moved.items())
            ],
        )


class MergePlan:
    """What a merge will write, computed (and embedded) before the write transaction.

    ``versions`` holds each record's ``updated_at`` when planned: the write transaction
    compares them, so a record changed in between fails the merge instead of being clobbered.
    """

    def __init__(
        self,
        strategy: str,
        update: dict[str, Any] | None,
        new_text: str | None,
        versions: dict[str, int],
    ) -> None:
        self.strategy = strategy
        self.update = update
        self.new_text = new_text
        self.versions = versions
        #: the embedding of new_text, filled in between planning and writing
        self.vector: Any = None

    def written(self, canonical: Mapping[str, Any]) -> bool:
        """Whether ``canonical`` already holds what this plan writes to it (a merge redone
        after a crash between its writes)."""
        return all(canonical.get(k) == v for k, v in (self.update or {}).items())

    def intent(self) -> dict[str, Any]:
        """The plan as JSON, kept until it is written (``of_intent`` reads it back)."""
        return {"strategy": self.strategy, "update": self.update, "text": self.new_text}

    @classmethod
    def of_intent(cls, intent: Mapping[str, Any]) -> MergePlan:
        return cls(intent["strategy"], intent["update"], intent["text"], {})

    @staticmethod
    def written_at(canonical: Mapping[str, Any], now: int) -> int:
        """The canonical record's ``updated_at`` after the merge: ``now``, or just past its
        last write when that was this same millisecond. A merge always changes it, even when
        the strategy moves nothing into it, so the merge is a version of it
        ([history.versions]) and a plan made before it sees it changed."""
        return max(now, int(canonical["updated_at"]) + 1)

    @staticmethod
    def refuse_self_merge(req: MergeRequest) -> None:
        """Checked before any record is read: a record merged into itself would be hidden."""
        if req.canonical in req.duplicates:
            raise ConflictError(
                "a record cannot be merged into itself: remove the canonical id from duplicates"
            )

    def check_unchanged(self, records: Mapping[str, Mapping[str, Any]]) -> None:
        """Fail the merge if a record changed between planning and writing (``records`` as
        read again inside the write transaction)."""
        if {i: r["updated_at"] for i, r in records.items()} != self.versions:
            raise ConflictError(
                "records changed while merging; send the merge again",
                details=[{"path": "/canonical", "rule": MOVED_ON, "message": "changed meanwhile"}],
            )

    @classmethod
    def of(cls, req: MergeRequest, records: Mapping[str, Mapping[str, Any]]) -> MergePlan:
        """Plan ``req`` over ``records`` (id -> record with type, content, confidence,
        metadata and updated_at; every id of the request present)."""
        require_versions(req, records)
        strategy = req.strategy
        canonical = records[req.canonical]
        ordered = [canonical, *(records[d] for d in req.duplicates)]
        update = None
        types = sorted({r["type"] for r in ordered})
        if strategy != MergeStrategy.KEEP_CANONICAL.value and len(types) > 1:
            raise ConflictError(
                f"{strategy} moves content between records, and these are of different types "
                f"({', '.join(types)}): a type says what its content is (a procedural record's "
                "is a state machine); merge records of one type, or use keep_canonical"
            )
        if strategy == MergeStrategy.MERGE_CONTENT.value:
            if any(r["type"] == MemoryType.PROCEDURAL for r in ordered):
                raise ConflictError(
                    "procedural memories cannot be merged with merge_content: "
                    "two state machines do not concatenate; use keep_canonical"
                )
            update = {
                "content": "\n".join(r["content"] for r in ordered),
                "confidence": canonical["confidence"],
                "metadata": canonical["metadata"],
            }
        elif strategy == MergeStrategy.KEEP_HIGHEST_CONFIDENCE.value:
            best = max(ordered, key=lambda r: r["confidence"])  # max keeps the first: canonical
            if best is not canonical:
                update = {
                    "content": best["content"],
                    "confidence": best["confidence"],
                    "metadata": best["metadata"],
                }
        new_text = None
        if update is not None and update["content"] != canonical["content"]:
            new_text = searchable_text(canonical["type"], update["content"])
        return cls(strategy, update, new_text, {i: r["updated_at"] for i, r in records.items()})
