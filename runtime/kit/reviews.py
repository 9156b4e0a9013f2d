"""The review queue's rules that do not depend on the database (docs/spec/v0.2.md#review.list):
what a staged request is kept as, what a review and a decision look like on the wire, and
which records a decision changed. A store keeps the rows; these say what they mean, so every
store that serves ``reviews`` and ``decide`` answers alike."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from mnemowire.errors import ConflictError, NotFoundError, RequestError
from mnemowire.kit._basics import new_id
from mnemowire.kit._rules import MergePlan
from mnemowire.kit.staging import StagingRules
from mnemowire.models import (
    DecideRequest,
    DecideResponse,
    ForgetRequest,
    ForgetResponse,
    MergeRequest,
    MergeResponse,
    MergeStrategy,
    RememberRequest,
    ReviewDecision,
    ReviewOutcome,
    ReviewRequest,
    ReviewsResponse,
    StoreResult,
)

__all__ = [
    "CALLER",
    "MAX_NAMED",
    "decide_answer",
    "decided_merge",
    "decision_detail",
    "decision_record",
    "ended_conflict",
    "forget_prelude",
    "kept_request",
    "merge_diff",
    "outcome_of",
    "refuse_merge_into",
    "refuse_unreviewed_version",
    "review_answer",
    "review_id_for",
    "review_of_row",
    "reviews_answer",
    "same_decision",
    "staged_detail",
    "staged_forget_answer",
    "staged_merge_answer",
    "staged_remember",
    "staging",
    "unknown_review",
]

#: ``staged_by`` of a write whose request asked for review
CALLER = "caller"
#: the fields a staged forget or merge is kept without ([compat.lifted]): the review says the
#: first two, and a staged forget is never a preview (``dry_run``, spec v0.4, false if sent)
_LIFTED = ("approval_required", "review_id", "dry_run", "expected_versions")


def kept_request(operation: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The request a review shows, as the agent sent it but for what the review carries
    itself: a remember's ``seal`` (the review's own ``seal``), a forget's or merge's
    ``approval_required`` and ``review_id``, and what was checked when it was staged (a
    remember's ``dedupe``, a forget's ``dry_run``, a merge's ``expected_versions``)
    ([compat.lifted])."""
    lifted = ("seal", "dedupe") if operation == "remember" else _LIFTED
    return {k: v for k, v in payload.items() if k not in lifted}


def staged_remember(record: Mapping[str, Any]) -> dict[str, Any]:
    """A pending record's staged remember, rebuilt from the record's own fields (a queue that
    never kept it, or an import that carries only the record: docs/spec/v0.3.md#archive.record)."""
    sent = {
        k: record[k]
        for k in RememberRequest.model_fields
        if k != "dedupe" and record.get(k) is not None
    }
    return {**sent, "approval_required": True}


def review_id_for(request_review_id: str | None) -> str:
    """A staged forget's or merge's review id: the one the request names (a router's), or a
    fresh ULID, so reviews list in the order they were staged."""
    return request_review_id or new_id()


def review_answer(
    *,
    review_id: str,
    operation: str,
    agent_id: str,
    request: Mapping[str, Any],
    requested_at: int,
    staged_by: str,
    diff: Mapping[str, Any],
    seal: Mapping[str, Any] | None = None,
) -> ReviewRequest:
    """One pending review as ``reviews`` lists it."""
    fields: dict[str, Any] = {
        "review_id": review_id,
        "operation": operation,
        "agent_id": agent_id,
        "request": dict(request),
        "diff": {"added": [], "removed": [], "modified": [], **diff},
        "requested_at": requested_at,
        "staged_by": staged_by,
    }
    if seal is not None:
        fields["seal"] = dict(seal)
    return ReviewRequest.model_validate(fields)


def review_of_row(
    row: Sequence[Any],
    request: Mapping[str, Any],
    diff: Mapping[str, Any],
    seal: Mapping[str, Any] | None = None,
) -> ReviewRequest:
    """:func:`review_answer` of a queue row (``kit.sql.REVIEW_COLUMNS``: review id,
    operation, agent, user, request, staged by, requested at), its request parsed."""
    review_id, operation, agent_id, _user, _request, staged_by, requested_at = row
    return review_answer(
        review_id=review_id,
        operation=operation,
        agent_id=agent_id,
        request=request,
        requested_at=requested_at,
        staged_by=staged_by,
        diff=diff,
        seal=seal,
    )


def reviews_answer(
    reviews: Sequence[ReviewRequest], limit: int, result: StoreResult
) -> ReviewsResponse:
    """A page of reviews; ``reviews`` holds one more than ``limit`` when another page follows
    (the cursor is the last listed review's id: [review.list])."""
    page = list(reviews[:limit])
    more = len(reviews) > limit
    answer: dict[str, Any] = {"reviews": page, "latency_ms": result.latency_ms, "stores": [result]}
    if more and page:
        answer["next_cursor"] = page[-1].review_id
    return ReviewsResponse.model_validate(answer)


def decision_record(req: DecideRequest, outcome: ReviewOutcome, now: int) -> ReviewDecision:
    """The decision as recorded and answered: who, when, why, what it did."""
    optional = {"reason": req.reason, "merge_into": req.merge_into}
    return ReviewDecision.model_validate(
        {
            "review_id": req.review_id,
            "approved": req.approved,
            "reviewer": req.reviewer,
            "reviewed_at": now,
            "outcome": outcome.value,
            **{k: v for k, v in optional.items() if v is not None},
        }
    )


def decide_answer(
    decision: ReviewDecision, changed: Sequence[str], result: StoreResult
) -> DecideResponse:
    """A decision's response: what it did (the recorded decision's outcome) and the records it
    changed, each once."""
    return DecideResponse.model_validate(
        {
            "review_id": decision.review_id,
            "outcome": decision.outcome,
            "decision": decision,
            "changed_ids": list(dict.fromkeys(changed)),
            "latency_ms": result.latency_ms,
            "stores": [result],
        }
    )


def outcome_of(req: DecideRequest) -> ReviewOutcome:
    """What a decision does, by what it says."""
    if not req.approved:
        return ReviewOutcome.REJECTED
    return ReviewOutcome.MERGED if req.merge_into is not None else ReviewOutcome.APPROVED


def unknown_review(req: DecideRequest) -> NotFoundError:
    """A review id that is not the agent's: the same answer whether it exists elsewhere or
    not, so a decision reveals nothing of another agent's queue ([review.list])."""
    return NotFoundError(
        f"no review {req.review_id!r} of agent {req.agent_id!r}; list the agent's pending "
        "reviews with `mnemowire review list --agent AGENT`"
    )


#: the states of a review a decision ended, as its recorded decision's outcome says
_DECIDED = frozenset(outcome.value for outcome in ReviewOutcome)


def ended_conflict(review_id: str, state: str, decision: Any = None) -> ConflictError:
    """A decision on a review that already ended ([review.once]). When a decision ended it,
    the envelope carries that decision as recorded (``decision``, an extension field), so a
    router can tell a retry of the same decision, which completes the copies a failed child
    left pending, from an opposite one, which must land nowhere."""
    why = {
        "withdrawn": "its staged record was forgotten",
        "deciding": "another decision of it is being written",
    }.get(state, f"it was {state}")
    conflict = ConflictError(f"review {review_id!r} is no longer pending: {why}")
    if state in _DECIDED and isinstance(decision, Mapping) and "approved" in decision:
        conflict.envelope["decision"] = dict(decision)
    return conflict


def same_decision(req: DecideRequest, recorded: Any) -> bool:
    """Whether ``recorded`` (a conflict's ``decision``) decided what ``req`` asks: the same
    verdict, into the same record."""
    return (
        isinstance(recorded, Mapping)
        and recorded.get("approved") == req.approved
        and recorded.get("merge_into") == req.merge_into
    )


def refuse_unreviewed_version(req: DecideRequest, version: int) -> None:
    """A decision applies what its reviewer saw ([review.decide]): the staged write at the
    decision's ``expected_version``, or, when it names none, as it was staged (version 1).
    ``version``: the staged write's version now (a staged remember's record's; a forget or
    merge never changes while pending). ConflictError otherwise, so an agent that changes its
    staged record between a reviewer's listing and the click on Approve gets nothing
    approved that nobody saw."""
    expected = 1 if req.expected_version is None else req.expected_version
    if version == expected:
        return
    show = f"`mnemowire review show --agent {req.agent_id} {req.review_id}`"
    if req.expected_version is None:
        message = (
            f"review {req.review_id!r}: its staged record was updated after it was staged "
            f"(it is at version {version}); read it again ({show}) and decide with "
            f"--expected-version {version} (expected_version) if it is still what you approve"
        )
    else:
        message = (
            f"review {req.review_id!r}: the staged write is at version {version}, not "
            f"{req.expected_version}: it changed after it was reviewed; read it again ({show}) "
            f"and decide with --expected-version {version} (expected_version)"
        )
    raise ConflictError(
        message,
        details=[
            {
                "path": "/expected_version",
                "rule": "conflict",
                "message": f"the staged write is at version {version}",
            }
        ],
    )


def refuse_merge_into(operation: str) -> None:
    """``merge_into`` approves a staged remember only: a forget or merge has no record to
    merge."""
    if operation != "remember":
        raise RequestError(
            f"merge_into approves a staged remember, and this review is a {operation}; "
            "approve it without --merge-into",
            details=[{"path": "/merge_into", "rule": "operation", "message": "remember only"}],
        )


def decided_merge(
    req: DecideRequest, operation: str, sent: Mapping[str, Any]
) -> MergeRequest | None:
    """The merge an approval applies: a staged merge's own, or a staged remember merged into
    ``merge_into`` (its content joined to the record's, as merge_content does); None when the
    decision applies no merge."""
    if not req.approved:
        return None
    if operation == "merge":
        return MergeRequest.model_validate(sent)
    if req.merge_into is None:
        return None
    return MergeRequest(
        agent_id=req.agent_id,
        canonical=req.merge_into,
        duplicates=[req.review_id],
        strategy=MergeStrategy.MERGE_CONTENT.value,
    )


def staged_forget_answer(
    req: ForgetRequest, ids: list[str], review_id: str, result: StoreResult
) -> ForgetResponse:
    """A staged forget's answer: the ids it would reach now, nothing forgotten yet
    ([review.staging])."""
    return ForgetResponse(
        forgotten_ids=ids,
        stores=[result],
        hard_delete=req.hard_delete,
        pending_approval=True,
        review_id=review_id,
    )


def staged_merge_answer(req: MergeRequest, review_id: str, result: StoreResult) -> MergeResponse:
    """A staged merge's answer: nothing merged yet ([review.staging])."""
    return MergeResponse(
        canonical=req.canonical,
        merged_count=0,
        strategy_used=req.strategy,
        stores=[result],
        pending_approval=True,
        review_id=review_id,
    )


def staged_detail(review_id: str) -> dict[str, Any]:
    """A staged write's audit detail."""
    return {"pending": True, "review_id": review_id}


def decision_detail(req: DecideRequest, outcome: ReviewOutcome) -> dict[str, Any]:
    """A decision's audit detail: the review, what it did, who decided and why
    ([review.audit])."""
    detail: dict[str, Any] = {
        "review_id": req.review_id,
        "outcome": outcome.value,
        "reviewer": req.reviewer,
    }
    if req.reason is not None:
        detail["reason"] = req.reason
    return detail


def staging(
    policy: StagingRules | None, operation: str, req: Any, payload: Mapping[str, Any]
) -> str | None:
    """Who stages a write ([review.staging], [review.policy]): ``caller`` when the request
    asks (``approval_required``, or a forget's or merge's ``review_id``), else the policy's
    first matching rule; None when the write is not staged."""
    if req.approval_required or getattr(req, "review_id", None) is not None:
        return CALLER
    return None if policy is None else policy.staged_by(operation, payload)


#: the most records a staged forget of a whole scope may name (forget.request's ids)
MAX_NAMED = 10_000


async def forget_prelude(
    req: ForgetRequest,
    payload: dict[str, Any],
    staged_by: str | None,
    reach: Callable[[], Awaitable[Sequence[str]]],
    result: Callable[[int], StoreResult],
) -> ForgetResponse | tuple[ForgetRequest, dict[str, Any]]:
    """What a store does with a forget before it stages or applies it, written once: a dry
    run's answer ([forget.dry-run]: the ids ``reach`` finds now, and whether the forget would
    wait for a reviewer, ``staged_by`` being :func:`staging`'s answer; nothing changed), or the
    forget to go on with. A forget of a whole scope about to be staged goes on as the forget
    of the records it reaches now ([forget.all]: a review names what its reviewer approves,
    and a v0.3 reviewer reads it); a scope holding none is answered empty, one past
    :data:`MAX_NAMED` records refused naming what to do instead. ``result(count)`` is the
    store's ``stores[]`` entry."""
    if not req.dry_run and (staged_by is None or not req.all):
        return req, payload
    ids = list(await reach())
    if req.dry_run:
        return ForgetResponse(
            forgotten_ids=ids,
            stores=[result(len(ids))],
            hard_delete=req.hard_delete,
            pending_approval=staged_by is not None,
            dry_run=True,
        )
    if not ids:
        return ForgetResponse(
            forgotten_ids=[], stores=[result(0)], hard_delete=req.hard_delete,
            pending_approval=False,
        )  # fmt: skip
    if len(ids) > MAX_NAMED:
        raise RequestError(
            f"a staged forget of a whole scope names each record it reaches, at most "
            f"{MAX_NAMED:,}; this one reaches {len(ids):,}: forget by --filter in parts, or "
            "preview it with --dry-run and forget without review if the policy allows",
            details=[{"path": "/all", "rule": "maxItems", "message": f"reaches {len(ids)}"}],
        )
    sent = {k: v for k, v in payload.items() if k != "all"}
    sent["ids"] = ids
    return ForgetRequest.model_validate(sent), sent


def merge_diff(
    req: MergeRequest,
    stored: Mapping[str, Mapping[str, Any]],
    records: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """A staged merge's diff ([review.diff]): the canonical before and after, and the
    duplicates it would hide. ``stored``: the visible records it names, as the store keeps them
    (what MergePlan reads); ``records``: the same as MemoryRecord wire fields. What no longer
    exists, or a merge that could no longer apply, changes nothing and shows no ``modified``."""
    removed = [dict(records[d]) for d in req.duplicates if d in records]
    if req.canonical not in stored or len(removed) != len(req.duplicates):
        return {"removed": removed}
    try:
        plan = MergePlan.of(req, stored)
    except ConflictError:
        return {"removed": removed}
    before = dict(records[req.canonical])
    after = {**before, **(plan.update or {})}
    return {
        "removed": removed,
        "modified": [{"id": req.canonical, "before": before, "after": after}],
    }
