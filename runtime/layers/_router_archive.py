"""The router's spec v0.3 operations (docs/spec/v0.3.md, docs/portability.md#router): an export
and a scope listing are one child's, as a list is (every child holds every record the router
wrote, so one child's pages are the router's, their cursors bound to that child, each copy once);
an import writes every child that holds memories, under the one id each record has everywhere
([router.identity]).

``id_policy`` new is the router's to apply: it mints each record's new id once and sends the page
to every child with ``keep``, so all copies share it. ``remap`` is refused: whether an id is
taken differs from child to child, so each would give the record an id of its own."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from mnemowire.errors import UnsupportedError
from mnemowire.kit import elapsed_ms, needs, new_id, to_wire
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
    ExportRecordsRequest,
    ExportRecordsResponse,
    ImportRecordsRequest,
    ImportRecordsResponse,
    ScopesRequest,
    ScopesResponse,
)
from mnemowire.protocol import MemoryStore

__all__ = ["export_page", "first_answer", "import_page", "scopes_page"]

M = TypeVar("M", bound=BaseModel)

#: an import's outcome for a record over its copies: the strongest any child reports (a
#: record one child imported and another already held was imported by this page)
_OUTCOME_RANK = {"overwritten": 3, "imported": 2, "skipped": 1, "erased": 0}


async def first_answer(
    fan: FanOut,
    operation: str,
    call: Callable[[Any], Any],
    parse: Callable[[Any], M],
    required: list[str],
) -> tuple[M, list[Outcome[Any]]]:
    """The answer of the first child (in configuration order) that declares what ``required``
    names and answers; a child that fails hands the request to the next. With the outcomes
    of every child tried, for the answer's ``stores[]``."""
    plan = fan.plan(required, primary_only=False)
    tried: list[Outcome[Any]] = []
    for child, reason in plan:
        if reason is not None:
            tried.append(Outcome(child.name, "skipped", error=reason))
            continue
        outcome = await call_child(
            child.name, functools.partial(call, child), fan.deadline_s, parse
        )
        tried.append(outcome)
        if outcome.response is not None:
            return outcome.response, tried
    if all(o.status == "skipped" for o in tried):
        raise UnsupportedError(f"no store of {fan.name} declares {operation}")
    raise failure(operation, tried, [o.result() for o in tried])


async def export_page(fan: FanOut, request: ExportRecordsRequest) -> ExportRecordsResponse:
    """One child's export page, as the child gave it (seals travel unverified: the target
    verifies them when it reads them)."""

    def parse(raw: Any) -> ExportRecordsResponse:
        page = validated("export_records.response", ExportRecordsResponse, raw)
        if any(line.record.agent_id != request.agent_id for line in page.records):
            raise InvalidResponse("exported another agent's records")
        return page

    return await _one_child(fan, "export_records", request, parse, lambda r: len(r.records))


async def scopes_page(fan: FanOut, request: ScopesRequest) -> ScopesResponse:
    """One child's scope listing (its counts are its copies': the router's records)."""

    def parse(raw: Any) -> ScopesResponse:
        return validated("scopes.response", ScopesResponse, raw)

    return await _one_child(fan, "scopes", request, parse, lambda r: len(r.agents))


async def _one_child(
    fan: FanOut,
    operation: str,
    request: BaseModel,
    parse: Callable[[Any], M],
    count: Callable[[M], int],
) -> M:
    """``first_answer`` for ``operation``, its answer timed and with the ``stores[]`` of
    every child tried (``count``: what a child's answer holds)."""
    started = time.perf_counter()
    page, tried = await first_answer(
        fan,
        operation,
        lambda child: getattr(child, operation)(request.model_copy(deep=True)),
        parse,
        needs(operation, to_wire(request)),
    )
    stores = results(tried, count)
    return page.model_copy(update={"latency_ms": elapsed_ms(started), "stores": stores})


async def import_page(fan: FanOut, request: ImportRecordsRequest) -> ImportRecordsResponse:
    """The page written to every child that holds memories, each record under one id; a child
    that fails fails the page (those that wrote keep it: the same import again skips what they
    hold and writes the rest, ids kept)."""
    if request.id_policy == "remap":
        raise UnsupportedError(
            f"{fan.name} imports with id_policy keep or new, not remap: which ids are taken "
            "differs from store to store, so each would give a record an id of its own; "
            "import with --ids new (or keep)"
        )
    started = time.perf_counter()
    minted = _minted(request)
    sent = _with_ids(request, minted)
    plan = fan.plan(needs("import_records", to_wire(sent)), primary_only=fan.primary_only)
    lines = sent.records or []

    def answer(child: MemoryStore, raw: Any) -> ImportRecordsResponse:
        response = validated("import_records.response", ImportRecordsResponse, raw)
        if [r.id for r in response.results] != [line.record.id for line in lines]:
            raise InvalidResponse("answered for other records than the page's, or out of order")
        return response

    outcomes = await fan.run(
        "import_records",
        plan,
        lambda child: child.import_records(sent.model_copy(deep=True)),
        answer,
    )
    if any(o.status not in ("ok", "skipped") for o in outcomes):
        raise failure("import_records", outcomes, [o.result() for o in outcomes])
    done = [o.response for o in outcomes if o.response is not None]
    per_record = []
    for number, line in enumerate(request.records or []):
        outcome = max((d.results[number].outcome for d in done), key=_OUTCOME_RANK.__getitem__)
        item: dict[str, Any] = {"id": line.record.id, "outcome": outcome}
        if line.record.id in minted:
            item["new_id"] = minted[line.record.id]
        per_record.append(item)
    kept: dict[str, Any] = {}
    for response in done:
        for name, how in (response.kept or {}).items():
            kept.setdefault(name, to_wire(how))
    answer_fields: dict[str, Any] = {
        "results": per_record,
        "tombstones": to_wire(done[0].tombstones),
        "latency_ms": elapsed_ms(started),
        "stores": results(
            outcomes, lambda r: sum(x.outcome in ("imported", "overwritten") for x in r.results)
        ),
    }
    if kept:
        answer_fields["kept"] = kept
    return ImportRecordsResponse.model_validate(answer_fields)


def _minted(request: ImportRecordsRequest) -> dict[str, str]:
    """Each record's new id, minted once for every copy, when the page asks for new ids."""
    if request.id_policy != "new":
        return {}
    return {line.record.id: new_id() for line in request.records or []}


def _with_ids(request: ImportRecordsRequest, minted: dict[str, str]) -> ImportRecordsRequest:
    """The page as every child gets it: the router's new ids (a merged record following its
    canonical record of the same page, the versions a line carries following their record),
    sent with ``keep``."""
    if not minted:
        return request
    lines = []
    for line in request.records or []:
        wire = to_wire(line)
        wire["record"]["id"] = minted[line.record.id]
        for version in wire.get("history", []):  # one of another record is still refused
            if version["record"]["id"] == line.record.id:
                version["record"]["id"] = minted[line.record.id]
        if line.merged_into is not None:
            wire["merged_into"] = minted.get(line.merged_into, line.merged_into)
        lines.append(wire)
    return ImportRecordsRequest.model_validate(
        {**to_wire(request), "records": lines, "id_policy": "keep"}
    )
