"""Promotion of short-term memories (spec v0.4, docs/spec/v0.4.md#promote.rules), written once
over a store's own ``export_records``, ``get``, ``remember``, ``merge`` and ``expire``: a store
that serves them (and keeps versions and recall counts) serves ``promote`` by calling
:func:`promote` on itself, and so does the router, so one plan spans its children.

Short-term memories are the agent's recent events and feelings (and, by default, any record
carrying an expiry: a working note). The plan reads them page by page with their vectors,
counts repetitions with the duplicate judge (``kit.consolidation.duplicate_merges``: the same
fact said on several occasions), and weighs each group by its age, confidence, recalls and
repetitions. A group that proved itself is *promoted*: one long-term (semantic) record is
written with its words, under an id derived from the group's first record and its version, and
the group is merged into it (so history and the audit log say where it came from, and a rerun
after a stop writes it once). A cold record is *archived* (hidden, restorable), a weak one
*demoted* (expire's actions, on exactly the records planned, at the versions read). Nothing is
decided by a clock the caller cannot set: ``clock`` is the store's, injectable.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from mnemowire.errors import ConflictError, NotFoundError
from mnemowire.kit._basics import max_items
from mnemowire.kit._rules import MOVED_ON
from mnemowire.kit.consolidation import (
    ConsolidatingStore,
    RecordGroup,
    active_lines,
    confidence_of,
    duplicate_merges,
    plan_refused,
    still_current,
)
from mnemowire.models import (
    ExpireRequest,
    ExpireResponse,
    ForgetRequest,
    ForgetResponse,
    GetRequest,
    MemoryRecord,
    MemoryType,
    MergeRequest,
    PlannedAction,
    PromoteRequest,
    PromoteResponse,
    PromotionAction,
    PromotionRules,
    RememberRequest,
    RememberResponse,
)

__all__ = ["PromotingStore", "long_term_id", "promote"]

#: the type a promotion writes: a fact
LONG_TERM = MemoryType.SEMANTIC
#: the most records one action names (a plan sent back must fit the spec's PlannedAction)
MOST_IDS = max_items(PlannedAction, "ids")
_DAY_MS = 86_400_000


class PromotingStore(ConsolidatingStore, Protocol):
    """What a promotion is made of: the scope read with its vectors (export_records), the
    records' current versions (get), the long-term record's write (remember), the merge into
    it (merge, honouring expected_versions), archivals and demotions (expire's ``records``),
    and the withdrawal of a long-term record whose group changed before it was merged."""

    async def remember(self, request: RememberRequest) -> RememberResponse: ...

    async def expire(self, request: ExpireRequest) -> ExpireResponse: ...

    async def forget(self, request: ForgetRequest) -> ForgetResponse: ...


def long_term_id(agent_id: str, first: str, version: int) -> str:
    """The id a group's long-term record is written under: the same for the same group read
    at the same version, so a promotion stopped after the write and run again writes it once,
    and another for a group whose record changed since."""
    digest = hashlib.sha256(f"{agent_id}\0{first}\0{version}".encode()).hexdigest()
    return f"ltm-{digest[:32]}"


@dataclass(slots=True)
class _Facts:
    """What the rules weigh of one short-term record, beside what the judge compares."""

    record: MemoryRecord
    recalls: int
    last_used: int
    demote: float


async def promote(
    store: PromotingStore, request: PromoteRequest, *, clock: Callable[[], int]
) -> PromoteResponse:
    """Plan the promotions, archivals and demotions of ``request``'s scope (or take the plan
    it sends), and with ``dry_run`` false apply them, each at the versions it was planned at."""
    rules = request.rules or PromotionRules()
    if request.plan is not None:
        _check_plan(request)
        actions: list[dict[str, Any]] = [
            {
                "action": str(planned.action),
                "ids": list(planned.ids),
                "expected_versions": dict(planned.expected_versions.root),
            }
            for planned in request.plan
        ]
        for action in actions:
            if action["action"] == PromotionAction.PROMOTE:
                first = action["ids"][0]
                version = action["expected_versions"][first]
                action["into"] = long_term_id(request.agent_id, first, version)
        scanned, more = 0, False
    else:
        actions, scanned = await _plan(store, request, rules, clock())
        more = len(actions) > request.limit
        actions = actions[: request.limit]
    if request.dry_run:
        await still_current(store, request.agent_id, actions, planned=request.plan is None)
    else:
        for action in actions:
            if action["action"] == PromotionAction.PROMOTE:
                await _promote(store, request, action)
        for kind in (PromotionAction.ARCHIVE, PromotionAction.DEMOTE):
            await _expire(store, request, rules, kind, [a for a in actions if a["action"] == kind])
    return PromoteResponse.model_validate(
        {"dry_run": request.dry_run, "scanned": scanned, "actions": actions, "more": more}
    )


def _check_plan(request: PromoteRequest) -> None:
    """A sent plan is refused whole before any of it is applied when one of its actions could
    never be made: versions of other records than its own, a demotion or archival of more than
    one record, or a record in two actions."""
    seen: set[str] = set()
    for n, planned in enumerate(request.plan or ()):
        named = set(planned.ids)
        problem = ""
        if set(planned.expected_versions.root) != named:
            problem = "expected_versions must name exactly its ids"
        elif planned.action != PromotionAction.PROMOTE.value and len(named) != 1:
            problem = f"a {planned.action} names one record"
        elif named & seen:
            problem = f"it names {sorted(named & seen)[0]!r}, which an earlier action names too"
        if problem:
            raise plan_refused(n, problem, "promote", "action", "actions")
        seen |= named


# -- the plan ----------------------------------------------------------------------------------


async def _plan(
    store: PromotingStore, request: PromoteRequest, rules: PromotionRules, now: int
) -> tuple[list[dict[str, Any]], int]:
    """Every action the rules take in the scope, promotions first (largest groups first), then
    archivals, then demotions; and how many short-term records were read."""
    groups, loose, facts = await _read(store, request, rules, now)
    sets: list[list[str]] = [[record.id] for record in loose]
    for group in groups.values():
        ids = [record.id for record in group.records]
        merged: set[str] = set()
        for merge in duplicate_merges(group) if len(ids) > 1 else []:
            # a larger group is promoted a part at a time: the rest wait for the next run
            members = [merge["canonical"], *merge["duplicates"]]
            sets.append(members[:MOST_IDS])
            merged.update(members)
        sets.extend([i] for i in ids if i not in merged)
    promoted: list[dict[str, Any]] = []
    archived: list[dict[str, Any]] = []
    demoted: list[dict[str, Any]] = []
    for together in sets:
        members = [facts[i] for i in together]
        action = _promotion(request, rules, members, now)
        if action is not None:
            promoted.append(action)
            continue
        for member in members:
            action = _retirement(rules, member, now)
            if action is not None:
                (archived if action["action"] == "archive" else demoted).append(action)
    promoted.sort(key=lambda a: (-len(a["ids"]), a["ids"][0]))
    archived.sort(key=lambda a: a["ids"][0])
    demoted.sort(key=lambda a: a["ids"][0])
    return [*promoted, *archived, *demoted], len(facts)


async def _read(
    store: PromotingStore, request: PromoteRequest, rules: PromotionRules, now: int
) -> tuple[dict[tuple[str | None, str], RecordGroup], list[MemoryRecord], dict[str, _Facts]]:
    """The scope's short-term records: those with a vector by user and type (repetitions are
    counted within one user and one type, whatever the occasion), those without apart (never
    a repetition of another), and what the rules weigh of each, by id."""
    short_term = {str(t) for t in rules.short_term_types}
    types = None if rules.expiring else sorted(short_term)
    groups: dict[tuple[str | None, str], RecordGroup] = {}
    loose: list[MemoryRecord] = []
    facts: dict[str, _Facts] = {}
    async for line in active_lines(store, request.agent_id, request.user_id, types):
        record = line.record
        kind, expires = str(record.type), record.expires_at
        if expires is not None and expires <= now:
            continue  # expired: no longer a memory anyone recalls
        expiring = rules.expiring and expires is not None and kind != MemoryType.PROCEDURAL
        if kind not in short_term and not expiring:
            continue
        facts[record.id] = _Facts(
            record,
            int(line.recall_count or 0),
            int(line.last_recalled_at or record.created_at),
            float(1.0 if line.demote is None else line.demote),
        )
        if line.vector_base64 is None:
            loose.append(record)
            continue
        group = groups.setdefault((record.user_id, kind), RecordGroup(record.user_id, kind))
        group.add(record, line.vector_base64)
    return groups, loose, facts


def _promotion(
    request: PromoteRequest, rules: PromotionRules, members: list[_Facts], now: int
) -> dict[str, Any] | None:
    """The promotion of one set of records that say the same thing (the first is the one whose
    words it keeps), when it is old enough, confident enough, and recalled or repeated enough."""
    age = now - min(m.record.created_at for m in members)
    confidence = max(confidence_of(m.record) for m in members)
    recalls = sum(m.recalls for m in members)
    repetitions = len(members)
    if age < rules.min_age_ms or confidence < rules.min_confidence:
        return None
    because = []
    if repetitions >= rules.min_repetitions:
        because.append(f"said {repetitions} times, at least {rules.min_repetitions}")
    if recalls >= rules.min_recalls:
        because.append(f"recalled {recalls} times, at least {rules.min_recalls}")
    if not because:
        return None
    first = members[0].record
    version = int(first.version or 1)
    action = _described(
        "promote", members, age=age, confidence=confidence, recalls=recalls, because=because
    )
    action["into"] = long_term_id(request.agent_id, first.id, version)
    action["content"] = first.content
    return action


def _retirement(rules: PromotionRules, member: _Facts, now: int) -> dict[str, Any] | None:
    """A record not promoted, archived when it is old and unused for ``archive_after_ms``,
    else demoted when it is old enough to judge and less confident than promotion asks (once:
    a record already at the factor is left as it is)."""
    record = member.record
    age, unused = now - record.created_at, now - member.last_used
    confidence = confidence_of(record)
    if age >= rules.archive_after_ms and unused >= rules.archive_after_ms:
        limit = _span(rules.archive_after_ms)
        because = [f"{_span(age)} old, not recalled for {_span(unused)}, at least {limit}"]
        return _described(
            "archive", [member], age=age, confidence=confidence, recalls=member.recalls,
            because=because,
        )  # fmt: skip
    if (
        age >= rules.min_age_ms
        and confidence < rules.min_confidence
        and member.demote != rules.demote_factor
    ):
        because = [f"confidence {confidence:.4g}, below {rules.min_confidence:.4g}"]
        return _described(
            "demote", [member], age=age, confidence=confidence, recalls=member.recalls,
            because=because,
        )  # fmt: skip
    return None


def _described(
    kind: str,
    members: list[_Facts],
    *,
    age: int,
    confidence: float,
    recalls: int,
    because: list[str],
) -> dict[str, Any]:
    first = members[0].record
    action: dict[str, Any] = {
        "action": kind,
        "ids": [m.record.id for m in members],
        "expected_versions": {m.record.id: int(m.record.version or 1) for m in members},
        "type": str(first.type),
        "age_ms": age,
        "confidence": confidence,
        "recalls": recalls,
        "repetitions": len(members),
        "because": because,
    }
    if first.user_id is not None:
        action["user_id"] = first.user_id
    return action


def _span(ms: int) -> str:
    """A duration in the largest unit it fills, for the words of ``because``."""
    for unit, size in (("day", _DAY_MS), ("hour", 3_600_000), ("minute", 60_000)):
        if ms >= size:
            count = ms / size
            return f"{count:.3g} {unit}" + ("" if count == 1 else "s")
    return f"{ms / 1000:.3g} seconds"


# -- applying it -------------------------------------------------------------------------------


async def _promote(store: PromotingStore, request: PromoteRequest, action: dict[str, Any]) -> None:
    """One promotion: the long-term record written (unless a stopped run wrote it), then the
    group merged into it at the versions planned. A group that moved on is left untouched,
    and a long-term record this call wrote for it is withdrawn."""
    ids, expected = action["ids"], action["expected_versions"]
    got = await store.get(GetRequest.model_validate({"agent_id": request.agent_id, "ids": ids}))
    records = {r.id: r for r in got.records if r.state == "active"}
    if any(i not in records or int(records[i].version or 1) != v for i, v in expected.items()):
        action["status"] = "changed"
        return
    into = action["into"]
    asked = {"agent_id": request.agent_id, "ids": [into], "states": ["active", "pending"]}
    held = await store.get(GetRequest.model_validate(asked))
    state = held.records[0].state if held.records else None
    wrote = False
    if state is None:
        try:
            answer = await store.remember(_long_term(request, [records[i] for i in ids], into))
        except ConflictError:  # its id was taken: a reviewer rejected it, or it was erased
            action["status"] = "changed"
            return
        if answer.pending_approval:  # reviewed under its own id ([review.staging])
            action["status"] = "pending_approval"
            action["review_id"] = into
            return
        wrote = True
    elif state == "pending":  # staged, still waiting for its reviewer
        action["status"] = "pending_approval"
        action["review_id"] = into
        return
    wire = {"agent_id": request.agent_id, "canonical": into, "duplicates": ids}
    merge = MergeRequest.model_validate({**wire, "expected_versions": expected})
    try:
        merged = await store.merge(merge)
    except (NotFoundError, ConflictError) as exc:
        moved = isinstance(exc, NotFoundError) or any(
            d.get("rule") == MOVED_ON for d in exc.envelope.get("details", [])
        )
        if not moved:
            raise
        if wrote:
            reason = "promotion withdrawn: its group changed before the merge"
            withdrawal = {"agent_id": request.agent_id, "ids": [into], "reason": reason}
            await store.forget(ForgetRequest.model_validate(withdrawal))
        action["status"] = "changed"
        return
    if merged.pending_approval:  # the operator's policy stages merges
        action["status"] = "pending_approval"
        action["review_id"] = merged.review_id
        return
    action["status"] = "promoted"


def _long_term(request: PromoteRequest, group: list[MemoryRecord], into: str) -> RememberRequest:
    """The long-term record of a group: the first record's words, metadata and source, the
    group's highest confidence, no expiry (it is long-term) and none of the type-specific fields
    of an event or a feeling (those stay in the merged records' history)."""
    first = group[0]
    wire: dict[str, Any] = {
        "agent_id": request.agent_id,
        "id": into,
        "type": str(LONG_TERM),
        "content": first.content,
        "confidence": max(confidence_of(r) for r in group),
        "metadata": dict(first.metadata or {}),
    }
    if first.user_id is not None:
        wire["user_id"] = first.user_id
    if first.source is not None:
        wire["source"] = first.source
    if request.approval_required:
        wire["approval_required"] = True
    return RememberRequest.model_validate(wire)


async def _expire(
    store: PromotingStore,
    request: PromoteRequest,
    rules: PromotionRules,
    kind: str,
    actions: list[dict[str, Any]],
) -> None:
    """The archivals (or demotions) as one expire over exactly the records planned, each at
    the version read: a record changed since is not matched, and reported changed."""
    if not actions:
        return
    named = {a["ids"][0]: a["expected_versions"][a["ids"][0]] for a in actions}
    wire: dict[str, Any] = {
        "agent_id": request.agent_id,
        "policy": {"records": named},
        "action": kind,
    }
    if kind == PromotionAction.DEMOTE:
        wire["demote_factor"] = rules.demote_factor
    answer = await store.expire(ExpireRequest.model_validate(wire))
    matched = set(answer.matched_ids or ())
    done = "archived" if kind == PromotionAction.ARCHIVE else "demoted"
    for action in actions:
        action["status"] = done if action["ids"][0] in matched else "changed"
