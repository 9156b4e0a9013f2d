"""The router's spec v0.1 record operations (get, list, update, restore, remember_batch) and
v0.4's history: functions over the router's ``FanOut``, which ``MemoryRouter`` calls."""

from __future__ import annotations

import asyncio
import builtins
import json
import time
from collections import Counter
from collections.abc import Awaitable, Sequence
from typing import Any

from mnemowire.errors import MnemowireError, UnsupportedError, error_for
from mnemowire.kit import UPDATABLE_FIELDS, elapsed_ms, in_batch, needs, to_wire
from mnemowire.layers._fanout import FanOut
from mnemowire.layers._recall import COPY_FIELDS
from mnemowire.layers._router_archive import first_answer
from mnemowire.layers._routing import (
    InvalidResponse,
    Outcome,
    answering,
    call_child,
    check_list,
    check_remember,
    failure,
    responses,
    results,
    validated,
)
from mnemowire.layers._sealing import sealed, unsealed_dropped
from mnemowire.models import (
    ForgetRequest,
    GetRequest,
    GetResponse,
    HistoryRequest,
    HistoryResponse,
    ListRequest,
    ListResponse,
    MemoryRecord,
    RememberBatchRequest,
    RememberBatchResponse,
    RememberRequest,
    RememberResponse,
    RestoreRequest,
    RestoreResponse,
    UpdateRequest,
    UpdateResponse,
)
from mnemowire.protocol import MemoryStore
from mnemowire.seals import SEALED_FIELDS

__all__ = ["get", "history", "list_page", "remember_batch", "restore", "update", "weighed"]

_Plan = list[tuple[MemoryStore, str | None]]


async def get(fan: FanOut, request: GetRequest) -> GetResponse:
    """Every child declaring get is asked; per id, the copy most children hold (a tie to
    the child first in the configuration, [router.copies]); records whose seal does not
    verify are dropped and counted against their child."""
    started = time.perf_counter()
    payload = to_wire(request)
    plan = fan.plan(needs("get", payload), primary_only=False)
    rejected: dict[str, int] = {}

    def answer(child: MemoryStore, raw: Any) -> GetResponse:
        response = validated("get.response", GetResponse, raw)
        asked = set(request.ids)
        if any(r.id not in asked or r.agent_id != request.agent_id for r in response.records):
            raise InvalidResponse("answered with a record it was not asked for")
        kept, dropped = unsealed_dropped(fan.seal_keys, request.agent_id, response.records)
        if dropped:
            rejected[child.name] = dropped
        return response.model_copy(update={"records": kept})

    outcomes = await fan.run("get", plan, lambda c: c.get(request.model_copy(deep=True)), answer)
    copies: dict[str, list[MemoryRecord]] = {}
    for outcome in outcomes:
        if outcome.response is not None:
            for record in outcome.response.records:
                copies.setdefault(record.id, []).append(record)
    records = [_most_held(copies[i]) for i in request.ids if i in copies]
    notes = {store: {"rejected_seals": n} for store, n in rejected.items()}
    return GetResponse(
        records=records,
        missing=[i for i in request.ids if i not in copies],
        latency_ms=elapsed_ms(started),
        stores=results(outcomes, lambda r: len(r.records), notes),
    )


async def list_page(fan: FanOut, request: ListRequest) -> ListResponse:
    """The first child (in configuration order) that declares list and answers: every
    child holds every record the router wrote, so one child's listing is the listing, and
    its cursor (bound to that child) continues it. A child that fails hands the page to
    the next; records whose seal does not verify are dropped and counted."""
    started = time.perf_counter()
    payload = to_wire(request)

    def page_of(raw: Any) -> ListResponse:
        page = validated("list.response", ListResponse, raw)
        check_list(page, payload)  # [router.verify]: only what the request asks for
        return page

    page, tried = await first_answer(
        fan, "list", lambda c: c.list(request.model_copy(deep=True)), page_of,
        needs("list", payload),
    )  # fmt: skip
    kept, dropped = unsealed_dropped(fan.seal_keys, request.agent_id, page.records)
    child = next(o.store for o in tried if o.response is not None)
    notes = {child: {"rejected_seals": dropped}} if dropped else {}
    fields: dict[str, Any] = {
        "records": kept,
        "latency_ms": elapsed_ms(started),
        "stores": results(tried, lambda r: len(r.records), notes),
    }
    if page.next_cursor is not None:
        fields["next_cursor"] = page.next_cursor
    return ListResponse(**fields)


async def history(fan: FanOut, request: HistoryRequest) -> HistoryResponse:
    """The first child (in configuration order) that declares history and answers: every
    copy of a record took the same writes, so one child's history is the history, and its
    cursor (bound to that child) continues it. A child that lacks the record or fails hands
    the request to the next; not_found when none holds it."""
    started = time.perf_counter()

    def parse(raw: Any) -> HistoryResponse:
        page = validated("history.response", HistoryResponse, raw)
        if page.id != request.id or any(
            e.record.id != request.id or e.record.agent_id != request.agent_id for e in page.entries
        ):
            raise InvalidResponse("answered with another record's history")
        return page

    page, tried = await first_answer(
        fan, "history", lambda c: c.history(request.model_copy(deep=True)), parse,
        needs("history", to_wire(request)),
    )  # fmt: skip
    fields = to_wire(page)
    fields.update(latency_ms=elapsed_ms(started), stores=results(tried, lambda r: len(r.entries)))
    return HistoryResponse.model_validate(fields)


async def update(fan: FanOut, request: UpdateRequest) -> UpdateResponse:
    """The first child (in configuration order) that declares update and answers decides:
    its version check is the update's. Only then do the other children follow, at once.
    So of two updates racing from one version, through one router or through several
    sharing the configuration, exactly one wins, and the loser changed no copy. A
    follower answering conflict had a copy that had moved apart: it is reported in
    stores[], like any child failure. With seal keys the router seals the changed record
    itself (it reads the record first, with get)."""
    started = time.perf_counter()
    payload = to_wire(request)
    current = None
    if fan.policy is not None or fan.seal_keys is not None:
        current = await _current(fan, request)
    if fan.policy is not None and current is not None:  # [review.policy]
        changes = {
            k: payload[k] for k in UPDATABLE_FIELDS if k in payload and payload[k] != current.get(k)
        }
        fan.policy.refuse_update(current, changes)
    if fan.seal_keys is not None and ({"content", "metadata"} & set(payload)):
        payload = {**payload, "seal": _reseal(fan, current, payload)}
    plan = fan.plan(needs("update", payload), primary_only=False)
    capable = [child for child, reason in plan if reason is None]
    if not capable:
        raise UnsupportedError(f"no store of {fan.name} declares update")
    outcomes: dict[str, Outcome[UpdateResponse]] = {
        child.name: Outcome(child.name, "skipped", error=reason)
        for child, reason in plan
        if reason is not None
    }

    def send(child: MemoryStore) -> Awaitable[Outcome[UpdateResponse]]:
        return call_child(
            child.name,
            lambda: child.update(UpdateRequest.model_validate(payload)),  # type: ignore[attr-defined]
            fan.deadline_s,
            lambda raw: validated("update.response", UpdateResponse, raw),
        )

    followers: list[MemoryStore] = []
    for number, child in enumerate(capable):
        outcome = outcomes[child.name] = await send(child)
        if outcome.response is not None:
            followers = capable[number + 1 :]
            break
        if (outcome.envelope or {}).get("code") in ("conflict", "not_found"):
            seen = [outcomes[c.name] for c, _ in plan if c.name in outcomes]
            error = dict(outcome.envelope or {})
            error["stores"] = [to_wire(o.result()) for o in seen]
            raise error_for(error)
    else:
        ordered = [outcomes[c.name] for c, _ in plan if c.name in outcomes]
        raise failure("update", ordered, [o.result() for o in ordered])
    for child, outcome in zip(
        followers, await asyncio.gather(*(send(c) for c in followers)), strict=True
    ):
        outcomes[child.name] = outcome
    ordered = [outcomes[c.name] for c, _ in plan if c.name in outcomes]
    done = [o.response for o in ordered if o.response is not None]
    return UpdateResponse(
        id=request.id,
        version=max(r.version for r in done),
        updated=list(dict.fromkeys(f for r in done for f in r.updated)),
        updated_at=max(r.updated_at for r in done),
        latency_ms=elapsed_ms(started),
        stores=results(ordered, lambda r: 1 if r.updated else 0),
    )


async def restore(fan: FanOut, request: RestoreRequest) -> RestoreResponse:
    """Every child declaring ``restore`` restores the archived copies it holds; the ids
    restored anywhere, in request order ([restore.archived])."""
    started = time.perf_counter()
    asked = builtins.list(dict.fromkeys(request.ids))

    async def send(child: Any) -> builtins.list[str]:
        answer = await child.restore(request.model_copy(deep=True))
        return builtins.list(validated("restore.response", RestoreResponse, answer).restored)

    restored = await fan.extra("restore", "restore", asked, send)
    return RestoreResponse(restored=restored, latency_ms=elapsed_ms(started))


async def remember_batch(fan: FanOut, request: RememberBatchRequest) -> RememberBatchResponse:
    """The batch as one message to every child (each item with its one id, sealed and
    staged as a remember would be), so each child stores it in one transaction: a router
    killed mid-batch leaves every child with the whole batch or none of it
    ([batch.atomic]); sent as single remembers, a kill -9 left 60-160 of 300 items. When
    a child refuses the batch as ``conflict``, what the others created is erased again
    (hard delete) and the batch fails whole; records already there (replayed) stay."""
    if "remember_batch" not in fan.promised:
        raise UnsupportedError(
            f"{fan.name} does not serve remember_batch: not every store holding the "
            "records stores a batch in one transaction (remember_batch) and can erase what "
            "a failed one wrote (hard_delete); send the remembers one by one"
        )
    started = time.perf_counter()
    items = []
    for number, item in enumerate(request.requests):
        with in_batch(number):
            items.append(fan.outgoing(item))
    batch = RememberBatchRequest.model_validate({"requests": items})
    ids = [str(item["id"]) for item in items]
    plan = fan.plan(needs("remember_batch", to_wire(batch)), primary_only=fan.primary_only)

    def answer(child: MemoryStore, raw: Any) -> RememberBatchResponse:
        response = validated("remember_batch.response", RememberBatchResponse, raw)
        if [str(r.id) for r in response.results] != ids:
            raise InvalidResponse("answered for other ids than the batch's, or out of order")
        return response

    outcomes = await fan.run(
        "remember_batch",
        plan,
        lambda c: c.remember_batch(batch.model_copy(deep=True)),
        answer,
    )
    if any((o.envelope or {}).get("code") == "conflict" for o in outcomes):
        raise await _undo_batch(fan, request, ids, outcomes)
    return _batch_answer(ids, outcomes, elapsed_ms(started))


async def _undo_batch(
    fan: FanOut,
    request: RememberBatchRequest,
    ids: Sequence[str],
    outcomes: Sequence[Outcome[RememberBatchResponse]],
) -> MnemowireError:
    """The batch's conflict, once every child that stored it has erased what it created
    (the ids it did not replay), so no id has one content here and another there."""
    children = {child.name: child for child in fan.children}
    undos: list[tuple[MemoryStore, ForgetRequest]] = []
    for outcome in outcomes:
        if outcome.response is None:
            continue
        created: dict[str, list[str]] = {}
        for item, record_id, done in zip(
            request.requests, ids, outcome.response.results, strict=True
        ):
            if not done.replayed:
                created.setdefault(item.agent_id, []).append(record_id)
        undos += [
            (children[outcome.store], ForgetRequest(agent_id=a, ids=i, hard_delete=True))
            for a, i in created.items()
        ]

    def erase(child: MemoryStore, undo: ForgetRequest) -> Awaitable[Outcome[Any]]:
        return call_child(child.name, lambda: child.forget(undo), fan.deadline_s, _as_is)

    await asyncio.gather(*(erase(child, undo) for child, undo in undos))
    refused = [o for o in outcomes if (o.envelope or {}).get("code") == "conflict"]
    return failure("remember_batch", refused, [o.result() for o in outcomes])


async def _current(fan: FanOut, request: UpdateRequest) -> dict[str, Any] | None:
    """The record an update names, as the router reads it (get), None when it reads none
    (the update itself then answers not_found)."""
    read = {"agent_id": request.agent_id, "user_id": request.user_id, "ids": [request.id]}
    read["states"] = ["active", "pending", "expired"]
    current = await get(
        fan, GetRequest.model_validate({k: v for k, v in read.items() if v is not None})
    )
    return to_wire(current.records[0]) if current.records else None


def _reseal(fan: FanOut, current: dict[str, Any] | None, payload: dict[str, Any]) -> Any:
    """A seal over the record as the update leaves it: the sealed fields the update does
    not send are the record's as read."""
    if current is None:
        return None  # the update itself answers not_found
    record = {**current, **payload}
    return sealed(fan.seal_keys, {k: record.get(k) for k in SEALED_FIELDS})["seal"]


def _as_is(raw: Any) -> Any:
    return raw


def _batch_answer(
    ids: Sequence[str], outcomes: Sequence[Outcome[RememberBatchResponse]], latency_ms: float
) -> RememberBatchResponse:
    """Each item's answer over the children that stored the batch (its earliest
    ``stored_at``; pending or replayed as they say), and each child's count of new records."""
    done = [o for o in outcomes if o.response is not None]
    per_item = []
    for number, record_id in enumerate(ids):
        answers = [o.response.results[number] for o in done if o.response is not None]
        fields: dict[str, Any] = {
            "id": record_id,
            "stored_at": min(a.stored_at for a in answers),
            "stores": [
                o.result(0 if a.replayed else 1) for o, a in zip(done, answers, strict=True)
            ],
            "pending_approval": any(a.pending_approval for a in answers),
        }
        if all(a.replayed for a in answers):
            fields["replayed"] = True
        per_item.append(fields)
    return RememberBatchResponse.model_validate(
        {
            "results": per_item,
            "latency_ms": latency_ms,
            "stores": results(outcomes, lambda r: sum(0 if a.replayed else 1 for a in r.results)),
        }
    )


def _most_held(copies: list[MemoryRecord]) -> MemoryRecord:
    """The copy most children hold (what a remember writes: [remember.fields]); a tie goes to
    the child first in the configuration, whose copy comes first."""
    keys = [
        json.dumps({k: getattr(c, k, None) for k in COPY_FIELDS}, sort_keys=True, default=str)
        for c in copies
    ]
    counts = Counter(keys)
    best = max(counts.values())
    return next(c for c, k in zip(copies, keys, strict=True) if counts[k] == best)


async def weighed(
    fan: FanOut, plan: _Plan, sent: dict[str, Any], record_id: str
) -> tuple[dict[str, Any], RememberResponse | None]:
    """A remember with ``dedupe`` ([remember.dedupe]) weighed on its first planned child
    alone, so every copy is the same record: that child's answer (the one child that may
    answer with the record it repeats), and the remember the children then get (that one
    replays it), without dedupe and staged when that child staged it for review. Without
    dedupe: ``sent`` as it is, and no answer."""
    if "dedupe" not in sent:
        return sent, None
    first = [next(((child, None) for child, reason in plan if reason is None), plan[0])]
    request = RememberRequest.model_validate(sent)
    answer = answering(
        "remember.response",
        RememberResponse,
        lambda r: check_remember(r, record_id, weighing=True),
    )
    [response] = responses(await fan.run("remember", first, lambda c: c.remember(request), answer))
    rest = {k: v for k, v in sent.items() if k != "dedupe"}
    if response.duplicate_of is not None and response.pending_approval:
        rest["approval_required"] = True
    return rest, response
