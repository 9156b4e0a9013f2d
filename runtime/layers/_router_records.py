"""The router's spec v0.1 record operations (get, list, update, remember_batch), kept apart
from the five operations of ``router.py``; ``MemoryRouter`` inherits them."""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import json
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from mnemowire.errors import MnemowireError, UnsupportedError, error_for
from mnemowire.kit import elapsed_ms, in_batch, needs, to_wire
from mnemowire.layers._recall import COPY_FIELDS
from mnemowire.layers._routing import (
    InvalidResponse,
    Outcome,
    call_child,
    failure,
    results,
    validated,
)
from mnemowire.layers._sealing import sealed, unsealed_dropped
from mnemowire.models import (
    ForgetRequest,
    ForgetResponse,
    GetRequest,
    GetResponse,
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
from mnemowire.seals import SEALED_FIELDS, SealKeys

__all__ = ["RecordRouting"]

_Plan = list[tuple[MemoryStore, str | None]]


class RecordRouting:
    """get, list, update and remember_batch across the router's children."""

    _name: str
    _children: tuple[MemoryStore, ...]
    _seal_keys: SealKeys | None
    _deadline_s: float
    _plan: Callable[..., _Plan]
    _run: Callable[..., Awaitable[builtins.list[Outcome[Any]]]]
    _extra: Callable[..., Awaitable[builtins.list[str]]]
    _promised: dict[str, None]

    if TYPE_CHECKING:  # MemoryRouter's own

        async def remember(self, request: RememberRequest) -> RememberResponse: ...

        async def forget(self, request: ForgetRequest) -> ForgetResponse: ...

    async def get(self, request: GetRequest) -> GetResponse:
        """Every child declaring get is asked; per id, the copy most children hold (a tie to
        the child first in the configuration, [router.copies]); records whose seal does not
        verify are dropped and counted against their child."""
        started = time.perf_counter()
        payload = to_wire(request)
        plan = self._plan(needs("get", payload), primary_only=False)
        rejected: dict[str, int] = {}

        def answer(child: MemoryStore, raw: Any) -> GetResponse:
            response = validated("get.response", GetResponse, raw)
            asked = set(request.ids)
            if any(r.id not in asked or r.agent_id != request.agent_id for r in response.records):
                raise InvalidResponse("answered with a record it was not asked for")
            kept, dropped = unsealed_dropped(self._seal_keys, request.agent_id, response.records)
            if dropped:
                rejected[child.name] = dropped
            return response.model_copy(update={"records": kept})

        outcomes = await self._run(
            "get", plan, lambda c: c.get(request.model_copy(deep=True)), answer
        )
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

    async def list(self, request: ListRequest) -> ListResponse:
        """The first child (in configuration order) that declares list and answers: every
        child holds every record the router wrote, so one child's listing is the listing, and
        its cursor (bound to that child) continues it. A child that fails hands the page to
        the next; records whose seal does not verify are dropped and counted."""
        started = time.perf_counter()
        payload = to_wire(request)
        plan = self._plan(needs("list", payload), primary_only=False)
        tried: list[Outcome[Any]] = []
        for child, reason in plan:
            if reason is not None:
                tried.append(Outcome(child.name, "skipped", error=reason))
                continue
            outcome = await call_child(
                child.name,
                lambda c=child: c.list(request.model_copy(deep=True)),  # type: ignore[misc]
                self._deadline_s,
                lambda raw: validated("list.response", ListResponse, raw),
            )
            tried.append(outcome)
            if outcome.response is None:
                continue
            page: ListResponse = outcome.response
            kept, dropped = unsealed_dropped(self._seal_keys, request.agent_id, page.records)
            notes = {child.name: {"rejected_seals": dropped}} if dropped else {}
            fields: dict[str, Any] = {
                "records": kept,
                "latency_ms": elapsed_ms(started),
                "stores": results(tried, lambda r: len(r.records), notes),
            }
            if page.next_cursor is not None:
                fields["next_cursor"] = page.next_cursor
            return ListResponse(**fields)
        if all(o.status == "skipped" for o in tried):
            raise UnsupportedError(f"no store of {self._name} declares list")
        raise failure("list", tried, [o.result() for o in tried])

    async def update(self, request: UpdateRequest) -> UpdateResponse:
        """The first child (in configuration order) that declares update and answers decides:
        its version check is the update's. Only then do the other children follow, at once.
        So of two updates racing from one version, through one router or through several
        sharing the configuration, exactly one wins, and the loser changed no copy. A
        follower answering conflict had a copy that had moved apart: it is reported in
        stores[], like any child failure. With seal keys the router seals the changed record
        itself (it reads the record first, with get)."""
        started = time.perf_counter()
        payload = to_wire(request)
        if self._seal_keys is not None and ({"content", "metadata"} & set(payload)):
            payload = {**payload, "seal": await self._reseal(request, payload)}
        plan = self._plan(needs("update", payload), primary_only=False)
        capable = [child for child, reason in plan if reason is None]
        if not capable:
            raise UnsupportedError(f"no store of {self._name} declares update")
        outcomes: dict[str, Outcome[UpdateResponse]] = {
            child.name: Outcome(child.name, "skipped", error=reason)
            for child, reason in plan
            if reason is not None
        }

        def send(child: MemoryStore) -> Awaitable[Outcome[UpdateResponse]]:
            return call_child(
                child.name,
                lambda: child.update(UpdateRequest.model_validate(payload)),  # type: ignore[attr-defined]
                self._deadline_s,
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

    async def restore(self, request: RestoreRequest) -> RestoreResponse:
        """Every child declaring ``restore`` restores the archived copies it holds; the ids
        restored anywhere, in request order ([restore.archived])."""
        started = time.perf_counter()
        asked = builtins.list(dict.fromkeys(request.ids))

        async def send(child: Any) -> builtins.list[str]:
            answer = await child.restore(request.model_copy(deep=True))
            return builtins.list(validated("restore.response", RestoreResponse, answer).restored)

        restored = await self._extra("restore", "restore", asked, send)
        return RestoreResponse(restored=restored, latency_ms=elapsed_ms(started))

    async def remember_batch(self, request: RememberBatchRequest) -> RememberBatchResponse:
        """Each remember through the router in order (one id, every child); when one fails,
        the records this batch created are erased again from every child (hard delete), so
        the batch is all or nothing ([batch.atomic]); records that were already there
        (replayed) stay. Without hard_delete in every child it cannot be undone: refused."""
        if "remember_batch" not in self._promised:
            raise UnsupportedError(
                f"{self._name} does not serve remember_batch: it makes a batch all or nothing "
                "by erasing what a failed one wrote, and not every store holding the records "
                "can erase (hard_delete); send the remembers one by one"
            )
        started = time.perf_counter()
        done: list[RememberResponse] = []
        try:
            for number, item in enumerate(request.requests):
                with in_batch(number):
                    done.append(await self.remember(item))
        except MnemowireError:
            await self._undo_batch(request, done)
            raise
        counted: Counter[str] = Counter()
        status: dict[str, str] = {}
        for result in (r for response in done for r in response.stores):
            counted[result.store] += result.count
            if status.get(result.store, "ok") == "ok":
                status[result.store] = str(result.status)
        return RememberBatchResponse.model_validate(
            {
                "results": [to_wire(r) for r in done],
                "latency_ms": elapsed_ms(started),
                "stores": [
                    {"store": name, "status": status[name], "count": count}
                    for name, count in counted.items()
                ],
            }
        )

    async def _undo_batch(
        self, request: RememberBatchRequest, done: Sequence[RememberResponse]
    ) -> None:
        created: dict[str, list[str]] = {}
        for item, response in zip(request.requests, done, strict=False):
            if not response.replayed:
                created.setdefault(item.agent_id, []).append(response.id)
        for agent_id, ids in created.items():
            undo = ForgetRequest(agent_id=agent_id, ids=ids, hard_delete=True)
            with contextlib.suppress(MnemowireError):  # the batch's own error is what is raised
                await self.forget(undo)

    async def _reseal(self, request: UpdateRequest, payload: dict[str, Any]) -> Any:
        """A seal over the record as the update leaves it: the router reads it (get) for the
        sealed fields the update does not send."""
        read = {"agent_id": request.agent_id, "user_id": request.user_id, "ids": [request.id]}
        read["states"] = ["active", "pending", "expired"]
        current = await self.get(
            GetRequest.model_validate({k: v for k, v in read.items() if v is not None})
        )
        if not current.records:
            return None  # the update itself answers not_found
        record = {**to_wire(current.records[0]), **payload}
        return sealed(self._seal_keys, {k: record.get(k) for k in SEALED_FIELDS})["seal"]


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
