"""The router's review queue (spec v0.2, docs/spec/v0.2.md#review.router): functions over the
router's ``FanOut``. A write is staged on every child under one review id, the queue is the
union of the children's (merged in review id order, each review once), and a decision goes to
every child that serves ``decide``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from mnemowire.errors import ConfigError, UnsupportedError
from mnemowire.kit import elapsed_ms, new_id, to_wire
from mnemowire.kit.reviews import CALLER, same_decision, staging
from mnemowire.kit.staging import StagingRules
from mnemowire.layers._fanout import FanOut
from mnemowire.layers._routing import (
    InvalidResponse,
    Outcome,
    call_child,
    failure,
    results,
    validated,
)
from mnemowire.models import (
    DecideRequest,
    DecideResponse,
    ErrorCode,
    ForgetRequest,
    MergeRequest,
    ReviewOutcome,
    ReviewRequest,
    ReviewsRequest,
    ReviewsResponse,
)
from mnemowire.protocol import ReviewStore

__all__ = ["check_policy", "decide", "reviews", "staged_under"]


def check_policy(
    policy: StagingRules | None, promised: Mapping[str, None], declared: Mapping[str, Any]
) -> None:
    """A router's staging policy needs every child to serve the review queue (a staged copy
    no one can decide would outlive the decision), and a child's own policy would stage its
    copy alone: both are configuration errors."""
    own = sorted(name for name, caps in declared.items() if "staging_policy" in caps)
    if own:
        raise ConfigError(
            f"{', '.join(own)} stage writes by a policy of their own, so their copies would "
            "wait while the others are written; configure the policy on the router instead "
            "(MemoryRouter(policy=...)) and drop it from the stores"
        )
    if policy is not None and not {"reviews", "decide"} <= set(promised):
        raise ConfigError(
            "a staging policy on the router needs every store holding memories to serve the "
            "review queue (capabilities reviews and decide)"
        )


def staged_under(
    request: ForgetRequest | MergeRequest, policy: StagingRules | None = None
) -> tuple[Any, str | None]:
    """A forget or merge as the router sends it to every child: staged (by the request, or
    by the router's ``policy``) under one review id (the request's, or one the router mints)
    so one decision reaches every copy; unstaged requests go as they came, with no id."""
    operation = "forget" if isinstance(request, ForgetRequest) else "merge"
    if staging(policy, operation, request, to_wire(request)) is None:
        return request, None
    review_id = request.review_id or new_id()
    update = {"review_id": review_id, "approval_required": True}
    return request.model_copy(update=update, deep=True), review_id


def _queues(fan: FanOut, capability: str) -> list[Any]:
    able = [
        child
        for child in fan.children
        if capability in fan.capabilities[child.name] and isinstance(child, ReviewStore)
    ]
    if not able:
        raise UnsupportedError(f"no store of {fan.name} declares {capability}")
    return able


async def reviews(fan: FanOut, request: ReviewsRequest) -> ReviewsResponse:
    """Every child's page after the cursor, merged: the ``limit`` smallest review ids of the
    union are exactly the next page (a child's page holds its ``limit`` smallest), and a
    review several children hold is listed once, as the first of them shows it."""
    started = time.perf_counter()
    able = _queues(fan, "reviews")

    def ask(child: Any) -> Callable[[], Awaitable[Any]]:
        return lambda: child.reviews(request.model_copy(deep=True))

    def page_of(raw: Any) -> ReviewsResponse:
        return validated("reviews.response", ReviewsResponse, raw)

    outcomes = await asyncio.gather(
        *(call_child(child.name, ask(child), fan.deadline_s, page_of) for child in able)
    )
    answered = [o for o in outcomes if o.response is not None]
    if not answered:
        raise failure("reviews", outcomes, [o.result() for o in outcomes])
    union: dict[str, ReviewRequest] = {}
    for outcome in answered:
        for review in outcome.response.reviews:  # type: ignore[union-attr]
            union.setdefault(str(review.review_id), _labelled(fan, review))
    ordered = [union[i] for i in sorted(union)]
    page = ordered[: request.limit]
    more = len(ordered) > request.limit or any(
        o.response.next_cursor is not None  # type: ignore[union-attr]
        for o in answered
    )
    fields: dict[str, Any] = {
        "reviews": page,
        "latency_ms": elapsed_ms(started),
        "stores": results(outcomes, lambda r: len(r.reviews)),
    }
    if more and page:
        fields["next_cursor"] = page[-1].review_id
    return ReviewsResponse(**fields)


def _labelled(fan: FanOut, review: ReviewRequest) -> ReviewRequest:
    """A review the router's policy staged, named so: the children were asked to stage it
    (``caller``), the router knows which of its rules did ([review.policy])."""
    if fan.policy is None or review.staged_by != CALLER:
        return review
    rule = fan.policy.staged_by(str(review.operation), review.request)
    return review if rule is None else review.model_copy(update={"staged_by": rule})


async def decide(fan: FanOut, request: DecideRequest) -> DecideResponse:
    """One child decides, the others follow ([review.router], [review.once]): the first
    child (in configuration order) that holds the review is asked alone; only once it
    applied the decision is it sent to every other child that holds the review. When the
    first fails, or finds the review ended (``conflict``), that is the answer and no other
    copy changes. Sent to every child at once, a decision one child failed left that copy
    pending, and a second, opposite decision landed on it: the copies diverged."""
    started = time.perf_counter()
    able = _queues(fan, "decide")

    def send(child: Any) -> Awaitable[Outcome[DecideResponse]]:
        return call_child(
            child.name,
            lambda: child.decide(request.model_copy(deep=True)),
            fan.deadline_s,
            lambda raw: _decided(request, raw),
        )

    asked: list[Outcome[DecideResponse]] = []
    for number, child in enumerate(able):
        outcome = await send(child)
        asked.append(outcome)
        if _code(outcome) == ErrorCode.NOT_FOUND.value:
            continue  # no copy of the review there: the next child may hold it
        if outcome.response is None:  # the first holder failed, or had ended it
            if _code(outcome) == ErrorCode.CONFLICT.value and same_decision(
                request, (outcome.envelope or {}).get("decision")
            ):  # a retry of what landed: the copies a failed child left pending follow
                asked += await asyncio.gather(*(send(o) for o in able[number + 1 :]))
            raise failure("decide", [outcome], [o.result() for o in asked])
        asked += await asyncio.gather(*(send(other) for other in able[number + 1 :]))
        break
    else:
        raise failure("decide", asked, [o.result() for o in asked])
    applied = [o.response for o in asked if o.response is not None]
    first = applied[0]
    changed = dict.fromkeys(i for r in applied for i in r.changed_ids)
    # a child that does not hold the review has nothing to decide: not a failure
    reported = [_not_held_ok(o) for o in asked]
    return DecideResponse(
        review_id=first.review_id,
        outcome=first.outcome,
        decision=first.decision,
        changed_ids=list(changed),
        latency_ms=elapsed_ms(started),
        stores=results(reported, lambda r: len(r.changed_ids)),
    )


def _decided(request: DecideRequest, raw: Any) -> DecideResponse:
    """A child's decision, if it is of the review asked about: one naming another review
    (or another verdict) is not believed, and its changed ids are no copy's."""
    answer = validated("decide.response", DecideResponse, raw)
    if answer.review_id != request.review_id:
        raise InvalidResponse(
            f"decided review {answer.review_id!r}, asked about {request.review_id!r}"
        )
    if (answer.outcome == ReviewOutcome.REJECTED.value) == request.approved:
        raise InvalidResponse(f"answered {answer.outcome}, asked approved={request.approved}")
    return answer


def _code(outcome: Outcome[Any]) -> Any:
    return (outcome.envelope or {}).get("code")


def _not_held_ok(outcome: Outcome[DecideResponse]) -> Outcome[DecideResponse]:
    """A child answering not_found holds no copy of the review: reported ok with count 0."""
    if _code(outcome) == ErrorCode.NOT_FOUND.value:
        return Outcome(outcome.store, "ok", latency_ms=outcome.latency_ms)
    return outcome
