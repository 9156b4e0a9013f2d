"""The router's plumbing: one child call under a deadline, checking what a child answered (the
response schema, then honesty), and the fan-outs that are not one of the five operations
(undoing a conflicting remember, the neighbours of the hop boost, restore).

Kept apart from ``router.py`` so the router reads as the five operations; nothing here does
fusion (``fusion.py``), and which children can serve a request is the kit's capability table
(``mnemowire.kit.needs``). ``failure`` turns every child's outcome into the one error the
caller sees.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from mnemowire import spec
from mnemowire.errors import (
    ConfigError,
    ConflictError,
    MnemowireError,
    StoreError,
    UnsupportedError,
    error_for,
)
from mnemowire.filters import matches
from mnemowire.kit import to_wire
from mnemowire.models import (
    EXPIRE_REQUEST_DEFAULTS,
    LIST_REQUEST_DEFAULTS,
    RECALL_REQUEST_DEFAULTS,
    Capabilities,
    ErrorCode,
    ExpireResponse,
    ForgetRequest,
    ForgetResponse,
    Health,
    ListResponse,
    MemoryType,
    MergeResponse,
    RecallHit,
    RecallResponse,
    RememberResponse,
    StoreHealth,
    StoreResult,
)
from mnemowire.protocol import MemoryStore

__all__ = [
    "MEMORY_TYPES",
    "InvalidResponse",
    "Outcome",
    "answering",
    "call_child",
    "check_expire",
    "check_forget",
    "check_merge",
    "check_neighbours",
    "check_recall",
    "check_remember",
    "child_health",
    "declared",
    "failure",
    "fan_out_ids",
    "id_subset",
    "neighbour_answers",
    "overall",
    "responses",
    "results",
    "served_types",
    "undo_remember",
    "unsupported",
    "untracked",
    "validated",
]

R = TypeVar("R")
M = TypeVar("M", bound=BaseModel)
MEMORY_TYPES: tuple[str, ...] = tuple(MemoryType)
#: failures that are about the request, not the store: when every failed child agrees on one,
#: the caller gets that code (a conflicting id is a conflict, not a store outage)
_REQUEST_CODES = frozenset(
    {ErrorCode.INVALID_REQUEST, ErrorCode.NOT_FOUND, ErrorCode.CONFLICT, ErrorCode.UNSUPPORTED}
)


# -- capability routing --------------------------------------------------------------------


def served_types(capabilities: frozenset[str], requested: Sequence[str]) -> list[str]:
    """The requested memory types a child holds (every type it holds when none is requested)."""
    return [kind for kind in (requested or MEMORY_TYPES) if kind in capabilities]


# -- one child call ------------------------------------------------------------------------


class InvalidResponse(Exception):
    """A child's answer breaks the response schema or contradicts the request it was sent."""


@dataclass
class Outcome(Generic[R]):
    """What one child did for one operation: a response, or why there is none."""

    store: str
    status: str
    response: R | None = None
    error: str | None = None
    latency_ms: float | None = None
    #: the child's own error envelope, when it raised a MnemowireError
    envelope: dict[str, Any] | None = None

    def result(self, count: int = 0, **extra: Any) -> StoreResult:
        """This outcome as the spec's StoreResult (``extra`` adds extension fields)."""
        fields: dict[str, Any] = {"store": self.store, "status": self.status, "count": count}
        if self.latency_ms is not None:
            fields["latency_ms"] = self.latency_ms
        if self.error is not None:
            fields["error"] = self.error
        return StoreResult.model_validate({**fields, **extra})


async def call_child(
    store: str,
    call: Callable[[], Awaitable[Any]],
    deadline_s: float,
    check: Callable[[Any], R],
) -> Outcome[R]:
    """Run one child call under a deadline; every way it can go wrong becomes an Outcome.

    ``call`` is a thunk so that a child failing while the call is being made (a sync method, a
    missing attribute) is caught here like any other failure. Anything a child raises is caught:
    a store's bug must not take the router down with it.
    """
    started = time.perf_counter()

    def elapsed() -> float:
        return round((time.perf_counter() - started) * 1000, 3)

    deadline = asyncio.timeout(deadline_s)  # unlike wait_for, no extra task per child
    try:
        async with deadline:
            raw = await call()
    except TimeoutError as exc:
        if not deadline.expired():  # the child's own TimeoutError is a failure like any other
            return Outcome(store, "error", error=f"TimeoutError: {exc}", latency_ms=elapsed())
        return Outcome(
            store, "timeout", error=f"no answer within {deadline_s:g} s", latency_ms=elapsed()
        )
    except MnemowireError as exc:
        return Outcome(
            store, "error", error=f"{exc.code}: {exc}", latency_ms=elapsed(), envelope=exc.envelope
        )
    except Exception as exc:
        return Outcome(store, "error", error=f"{type(exc).__name__}: {exc}", latency_ms=elapsed())
    answered = elapsed()  # the store's time; checking its answer is the router's
    try:
        response = check(raw)
    except InvalidResponse as exc:
        return Outcome(store, "invalid_response", error=str(exc), latency_ms=answered)
    return Outcome(store, "ok", response=response, latency_ms=answered)


def validated(message: str, model: type[M], raw: Any) -> M:
    """``raw`` as a ``model`` once its wire form is valid under the spec's ``message`` schema."""
    if isinstance(raw, BaseModel):
        try:
            wire = to_wire(raw)
        except Exception as exc:
            raise InvalidResponse(f"answer cannot be serialised: {exc}") from exc
    elif isinstance(raw, Mapping):
        wire = dict(raw)
    else:
        raise InvalidResponse(f"answered a {type(raw).__name__}, not a {message} message")
    envelope = spec.validate(message, wire)
    if envelope is not None:
        broken = "; ".join(f"{d['path'] or '/'}: {d['message']}" for d in envelope["details"])
        raise InvalidResponse(f"breaks {message}: {broken}")
    if type(raw) is model:  # already the generated type, and its wire form is valid
        return raw
    return model.model_validate(wire)


# -- honesty: a valid answer must also be an answer to the question asked ------------------


def answering(message: str, model: type[M], honest: Callable[[M], None]) -> Callable[[Any, Any], M]:
    """A child's answer as ``model``: valid under ``message``, then ``honest`` about the request
    (one of the ``check_*`` below, bound to what was asked)."""

    def answer(child: Any, raw: Any) -> M:
        response = validated(message, model, raw)
        honest(response)
        return response

    return answer


def check_remember(response: RememberResponse, record_id: str, *, weighing: bool = False) -> None:
    """The record kept under the id asked for, or, from the child a router weighs a dedupe
    on (``weighing``: [remember.dedupe]), the record it repeats. Any other child answering
    with a record it repeats deduped on its own (its operator's default): its copy would not
    be the router's record."""
    if response.duplicate_of is not None and not weighing:
        raise InvalidResponse(
            f"answered with the record it repeats ({response.duplicate_of!r}) instead of "
            f"keeping {record_id!r}: the store dedupes on its own (a ?dedupe= default), so "
            "the router's copies would differ; open the router's stores without ?dedupe and "
            "ask the router for it (dedupe on the remember)"
        )
    if response.id not in (record_id, response.duplicate_of):
        raise InvalidResponse(f"stored the record as {response.id!r}, asked to keep {record_id!r}")


def check_recall(
    response: RecallResponse,
    sent: Mapping[str, Any],
    *,
    reports_relevance: bool = False,
    verify: Callable[[RecallHit, Mapping[str, Any]], str | None] | None = None,
) -> None:
    """A recall answer may only hold what the request allows: at most k hits, best first, of the
    request's agent, user, types and filter (docs/spec/v0.md#recall.scope); from a store that
    declares ``relevance``, every hit with its relevance, none below ``min_relevance``; and
    every hit ``verify`` (the router's, if any) has no reason to refuse."""
    hits = response.results
    floor = sent.get("min_relevance")
    limit = int(sent.get("k", RECALL_REQUEST_DEFAULTS["k"]))
    if len(hits) > limit:
        raise InvalidResponse(f"returned {len(hits)} hits, asked for at most {limit}")
    agent, user, types, spec_filter = (
        sent["agent_id"],
        sent.get("user_id"),
        sent.get("types") or None,
        sent.get("filter") or None,
    )
    previous = math.inf
    for position, hit in enumerate(hits):
        problem = None
        extra = hit.model_extra
        if extra and "agent_id" in extra and extra["agent_id"] != agent:
            problem = "belongs to another agent"
        elif user is not None and hit.user_id != user:
            problem = "belongs to another user"
        elif types is not None and hit.type not in types:
            problem = f"is {hit.type}, asked for {', '.join(types)}"
        elif spec_filter is not None and not matches(hit.metadata, spec_filter):
            problem = "does not match the filter"
        elif hit.score > previous:
            problem = "scores above the hit before it: not sorted"
        elif reports_relevance and hit.relevance is None:
            problem = "has no relevance, though the store declares it"
        elif floor is not None and hit.relevance is not None and hit.relevance < floor:
            problem = f"has relevance {hit.relevance}, below {floor}"
        elif verify is not None:
            problem = verify(hit, sent)
        if problem is not None:
            raise InvalidResponse(f"hit {position} ({hit.id}) {problem}")
        previous = hit.score


def check_list(response: ListResponse, sent: Mapping[str, Any]) -> None:
    """A list page may only hold what the request asks for ([router.verify]): at most
    ``limit`` records, each of the request's agent, user, types, states and filter, in the
    request's order. A child answering a listing for one user with another user's records
    (or another agent's) is not believed, sealed or not: a seal says who wrote a record, not
    that it is in the request's scope."""
    records = response.records
    limit = int(sent.get("limit", LIST_REQUEST_DEFAULTS["limit"]))
    if len(records) > limit:
        raise InvalidResponse(f"returned {len(records)} records, asked for at most {limit}")
    agent, user = sent["agent_id"], sent.get("user_id")
    types, spec_filter = sent.get("types") or None, sent.get("filter") or None
    states = sent.get("states") or LIST_REQUEST_DEFAULTS["states"]
    newest = sent.get("order", LIST_REQUEST_DEFAULTS["order"]) == "newest"
    previous: tuple[Any, ...] | None = None
    for position, record in enumerate(records):
        problem = None
        key = (record.created_at, record.id) if newest else (record.id,)
        if record.agent_id != agent:
            problem = "belongs to another agent"
        elif user is not None and record.user_id != user:
            problem = "belongs to another user"
        elif types is not None and record.type not in types:
            problem = f"is {record.type}, asked for {', '.join(types)}"
        elif record.state not in states:
            problem = f"is {record.state}, asked for {', '.join(states)}"
        elif spec_filter is not None and not matches(record.metadata or {}, spec_filter):
            problem = "does not match the filter"
        elif previous is not None and (key >= previous if newest else key <= previous):
            problem = "is out of the request's order"
        if problem is not None:
            raise InvalidResponse(f"record {position} ({record.id}) {problem}")
        previous = key


def check_forget(response: ForgetResponse, sent: Mapping[str, Any]) -> None:
    asked = sent.get("ids")
    if asked is not None:
        foreign = sorted(set(response.forgotten_ids) - set(asked))
        if foreign:
            raise InvalidResponse(f"reports forgetting ids it was not asked about: {foreign}")
    if response.hard_delete != bool(sent.get("hard_delete", False)):
        raise InvalidResponse("hard_delete in the answer differs from the request")
    if sent.get("all") and not response.forgotten_ids and not response.pending_approval:
        return  # a whole scope found empty: nothing to stage ([forget.all])
    _check_staged(response, sent)


def _check_staged(response: ForgetResponse | MergeResponse, sent: Mapping[str, Any]) -> None:
    """A write the router staged must come back staged, under the router's review id."""
    if "review_id" in sent and (
        response.pending_approval is not True or response.review_id != sent["review_id"]
    ):
        raise InvalidResponse(
            f"was asked to stage the write under review {sent['review_id']!r} and answered "
            f"pending_approval {response.pending_approval}, review_id {response.review_id!r}"
        )


def check_merge(response: MergeResponse, sent: Mapping[str, Any]) -> None:
    if response.canonical != sent["canonical"]:
        raise InvalidResponse(f"merged into {response.canonical!r}, not {sent['canonical']!r}")
    if response.merged_count > len(sent["duplicates"]):
        raise InvalidResponse(
            f"merged {response.merged_count} records, only {len(sent['duplicates'])} were named"
        )
    _check_staged(response, sent)


def check_expire(response: ExpireResponse, sent: Mapping[str, Any]) -> None:
    action = sent.get("action", EXPIRE_REQUEST_DEFAULTS["action"])
    if response.action_taken != action:
        raise InvalidResponse(f"applied {response.action_taken!r}, asked for {action!r}")
    if response.matched_ids is not None and len(set(response.matched_ids)) > response.matched_count:
        raise InvalidResponse("lists more matched ids than its matched_count")


def id_subset(raw: Any, asked: Sequence[str]) -> list[str]:
    """An id operation's answer (restore): a list of ids, each one asked about."""
    if not isinstance(raw, list) or not all(isinstance(i, str) for i in raw):
        raise InvalidResponse(f"answered a {type(raw).__name__}, not a list of ids")
    unknown = set(raw) - set(asked)
    if unknown:
        raise InvalidResponse(f"names ids it was not asked about: {sorted(unknown)}")
    return raw


def check_neighbours(raw: Any, asked: Sequence[str], hops: int) -> dict[str, dict[str, int]]:
    """A graph store's answer as plain dicts, if it only speaks of the ids asked about, with
    distances 1..hops (see protocol.GraphStore)."""
    if not isinstance(raw, Mapping):
        raise InvalidResponse(f"neighbours answered a {type(raw).__name__}, not a mapping")
    known = set(asked)
    out: dict[str, dict[str, int]] = {}
    for item, near in raw.items():
        if item not in known:
            raise InvalidResponse(f"neighbours names {item!r}, which was not asked about")
        if not isinstance(near, Mapping):
            raise InvalidResponse(f"neighbours of {item!r} are not a mapping")
        for other, distance in near.items():
            if not isinstance(other, str) or type(distance) is not int or not 1 <= distance <= hops:
                raise InvalidResponse(
                    f"neighbour {other!r} of {item!r} has distance {distance!r}, not 1..{hops}"
                )
        out[item] = dict(near)
    return out


# -- failure -------------------------------------------------------------------------------


def unsupported(operation: str, results: Sequence[StoreResult]) -> UnsupportedError:
    """No child can serve the operation; ``stores`` says what each one lacks."""
    return UnsupportedError(
        {
            "code": "unsupported",
            "message": f"no store of this router can serve this {operation}: "
            + "; ".join(f"{r.store} {r.error}" for r in results),
            "details": [],
            "operation": operation,
            "stores": [to_wire(r) for r in results],
        }
    )


def untracked(router: str) -> UnsupportedError:
    """A router cannot evaluate ``no_recall_in_days`` (see MemoryRouter._tracks_exactly)."""
    return UnsupportedError(
        {
            "code": "unsupported",
            "message": f"{router} cannot evaluate no_recall_in_days: its stores count every "
            "record they return to the router as recalled, including the over-fetched ones it "
            "does not return, so the policy would spare records nobody was shown; run this "
            "expire on each store directly",
            "details": [],
            "operation": "expire",
        }
    )


def failure(
    operation: str, outcomes: Sequence[Outcome[Any]], results: Sequence[StoreResult]
) -> MnemowireError:
    """The error for an operation no capable child served; its envelope lists every child.

    When every failed child refused the request for the same reason about the request itself
    (``not_found``, ``conflict``, ...), that is the answer, with the first child's message and
    details; when every one timed out, the code is ``timeout``; otherwise ``store_error``.
    """
    failed = [o for o in outcomes if o.status not in ("ok", "skipped")]
    codes = {(o.envelope or {}).get("code") for o in failed}
    stores = [to_wire(r) for r in results]
    first = failed[0].envelope if failed else None
    if first is not None and len(codes) == 1 and first.get("code") in _REQUEST_CODES:
        envelope = {**first, "operation": operation, "stores": stores}
        return error_for(envelope)
    code = "timeout" if all(o.status == "timeout" for o in failed) else "store_error"
    summary = "; ".join(f"{o.store}: {o.status} ({o.error})" for o in failed)
    return StoreError(
        {
            "code": code,
            "message": f"every capable store failed to {operation}: {summary}; "
            "see stores for each one",
            "details": [],
            "operation": operation,
            "stores": stores,
        }
    )


# -- what the router reports ---------------------------------------------------------------


def declared(child: Any) -> Capabilities:
    """A child's declaration, checked against the spec when the router is built."""
    try:
        return validated("capabilities", Capabilities, child.capabilities())
    except Exception as exc:  # a store that cannot say what it does cannot be routed to
        raise ConfigError(f"store {child.name} has no valid capabilities: {exc}") from exc


def responses(outcomes: Sequence[Outcome[R]]) -> list[R]:
    """The answers of the children that succeeded, in child order."""
    return [o.response for o in outcomes if o.response is not None]


def results(
    outcomes: Sequence[Outcome[R]],
    count: Callable[[R], int],
    notes: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[StoreResult]:
    """One StoreResult per child (``notes`` adds extension fields); a child that is itself a
    router keeps its own ``stores``, so a nested failure stays visible."""
    out = []
    for outcome in outcomes:
        extra: dict[str, Any] = dict((notes or {}).get(outcome.store, {}))
        response = outcome.response
        if response is None:
            out.append(outcome.result(**extra))
            continue
        inner: list[StoreResult] = getattr(response, "stores", None) or []
        if [r.store for r in inner] not in ([], [outcome.store]):
            extra["stores"] = [to_wire(r) for r in inner]
        out.append(outcome.result(count(response), **extra))
    return out


def child_health(outcome: Outcome[Health]) -> StoreHealth:
    """One child's health as the router reports it: a child that cannot answer is down."""
    if outcome.response is not None:
        wire = to_wire(outcome.response)
        wire.pop("stores", None)
        return StoreHealth.model_validate({**wire, "store": outcome.store})
    return StoreHealth(
        store=outcome.store,
        status="down",
        latency_ms=outcome.latency_ms,
        details={"error": f"{outcome.status}: {outcome.error}"},
    )


def overall(statuses: Sequence[str]) -> str:
    """``ok`` when every child is, ``down`` when every one is, ``degraded`` in between."""
    if all(status == "ok" for status in statuses):
        return "ok"
    if all(status == "down" for status in statuses):
        return "down"
    return "degraded"


async def neighbour_answers(
    graph: Sequence[Any], agent_id: str, ids: list[str], hops: int, deadline_s: float
) -> list[Outcome[dict[str, dict[str, int]]]]:
    """Each graph child's neighbours of ``ids`` (the router's hop boost; ``graph``: stores that
    are GraphStores), each answer checked (``check_neighbours``) and under the deadline."""

    def ask(child: Any) -> Callable[[], Awaitable[Any]]:
        return lambda: child.neighbours(agent_id, list(ids), hops=hops)

    return list(
        await asyncio.gather(
            *(
                call_child(
                    child.name, ask(child), deadline_s, lambda raw: check_neighbours(raw, ids, hops)
                )
                for child in graph
            )
        )
    )


async def fan_out_ids(
    operation: str,
    able: Sequence[Any],
    asked: list[str],
    send: Callable[[Any], Awaitable[Any]],
    deadline_s: float,
) -> list[str]:
    """An id operation of an optional protocol (restore) sent to every child in
    ``able`` under the deadline: the ids any child answered, in ``asked`` order; the
    operation's failure when no child answered."""

    def call(child: Any) -> Callable[[], Awaitable[Any]]:
        return lambda: send(child)

    outcomes = await asyncio.gather(
        *(
            call_child(child.name, call(child), deadline_s, lambda raw: id_subset(raw, asked))
            for child in able
        )
    )
    if not any(o.response is not None for o in outcomes):
        raise failure(operation, outcomes, [o.result() for o in outcomes])
    done = {i for o in outcomes if o.response is not None for i in o.response}
    return [i for i in asked if i in done]


async def undo_remember(
    children: Sequence[MemoryStore],
    record_id: str,
    agent_id: str,
    outcomes: list[Outcome[RememberResponse]],
    deadline_s: float,
) -> ConflictError:
    """A child refused the id as taken ([remember.id]): the remember fails, and the copies
    other children wrote for it are erased again, so the id has one content everywhere
    (on those children the id stays spent, as it is on the child that holds it). Children
    that replayed held the same record already and keep it."""
    fresh = {
        child.name: child
        for child, outcome in zip(children, outcomes, strict=True)
        if outcome.response is not None and not outcome.response.replayed
    }
    undo = ForgetRequest(agent_id=agent_id, ids=[record_id], hard_delete=True)

    def erase(child: MemoryStore) -> Callable[[], Awaitable[Any]]:
        return lambda: child.forget(undo)

    undone = await asyncio.gather(
        *(
            call_child(
                name,
                erase(child),
                deadline_s,
                lambda raw: validated("forget.response", ForgetResponse, raw),
            )
            for name, child in fresh.items()
        )
    )
    erased = {o.store for o in undone if o.status == "ok"}
    stores = [
        to_wire(o.result(0, **({"undone": o.store in erased} if o.store in fresh else {})))
        for o in outcomes
    ]
    holders = [o.store for o in outcomes if (o.envelope or {}).get("code") == "conflict"]
    left = sorted(set(fresh) - erased)
    message = f"id {record_id!r} is taken on {', '.join(holders)}; nothing was written"
    if left:
        message += f" (the copies written to {', '.join(left)} could not be erased: forget "
        message += "the id there with hard_delete)"
    message += "; choose another id, or resend the original write to retry it"
    return ConflictError(
        {
            "code": "conflict",
            "message": message,
            "details": [],
            "operation": "remember",
            "stores": stores,
        }
    )
