"""The check registry and the runner: one generic loop, each check an async function.

A check gets a :class:`Harness` around a fresh store. Requests reach the store the way every
client's do: parsed at the validating boundary (``mnemowire.layers.validating``), so the store is
handed generated models. Its answers are the harness's to judge, raw: it validates every
response against the spec (a store that answers with an invalid message fails whatever check
was running), mints agent ids no other check uses, and turns the outcome into PASS, FAIL, SKIP
(a capability the store does not declare) or ERROR (the store raised something that is not a
spec error: a crash).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import time
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Literal

from mnemowire import spec
from mnemowire.errors import MnemowireError
from mnemowire.kit import now_ms, to_wire
from mnemowire.layers.validating import parse_request, spoken_version
from mnemowire.models import (
    Capabilities,
    Health,
    RecallRequest,
    RecallResponse,
)
from mnemowire.models.operations import OPERATIONS, ClientOperations, Operation, Req, Resp
from mnemowire.protocol import MemoryStore, QueryEmbedding

__all__ = [
    "CHECKS",
    "Check",
    "CheckFailed",
    "Harness",
    "Outcome",
    "RunOptions",
    "Skip",
    "StoreFactory",
    "check",
    "expect",
    "run_checks",
]

Status = Literal["PASS", "FAIL", "SKIP", "ERROR"]
#: a store's status in an answer's stores[] that means it failed (a timeout may be the
#: machine's load; a skip is a capability the store does not declare)
_FAILED = frozenset({"error", "invalid_response"})
Strength = Literal["MUST", "SHOULD", "MAY"]
#: opens a fresh store for one check and closes it afterwards
StoreFactory = Callable[[], AbstractAsyncContextManager[MemoryStore]]
_RESPONSES = {o.name: o.response_message for o in OPERATIONS}


class CheckFailed(AssertionError):
    """The store broke the rule the check tests; ``reproducer`` shows how, when there is one."""

    def __init__(self, message: str, reproducer: str | None = None) -> None:
        super().__init__(message)
        self.reproducer = reproducer


class Skip(Exception):
    """The check needs something the store does not declare."""


#: the windows, in seconds, a check about time tries in turn. A store too slow to finish the
#: probe inside a window makes it inconclusive, not failed: the next, wider window is tried
#: on fresh records, and only a store slower than the widest fails (docs/conformance.md#time)
TIME_WINDOWS_S = (1.5, 6.0, 24.0)


def too_slow(what: str) -> CheckFailed:
    """The failure of a check about time whose every window was too short for the store."""
    widest = TIME_WINDOWS_S[-1]
    return CheckFailed(f"{what} took longer than {widest:g} s, so the check could not tell")


def expect(condition: object, message: str) -> None:
    """Fail the running check unless ``condition`` holds (an explicit raise, unlike assert)."""
    if not condition:
        raise CheckFailed(message)


@dataclass(frozen=True)
class Check:
    """One named invariant of the spec, the section it comes from and how strong it is."""

    id: str
    section: str
    strength: Strength
    needs: frozenset[str]
    summary: str
    run: Callable[[Harness], Awaitable[None]]
    #: the spec version whose prose holds the section (docs/spec/<spec>.md)
    spec: str = "v0"

    @property
    def document(self) -> str:
        return f"{self.spec}.md"


@dataclass(frozen=True)
class RunOptions:
    """How hard to try: the seed, generated cases per request schema, stateful sequences."""

    seed: int = 0
    examples: int = 200
    stateful_runs: int = 50


@dataclass(frozen=True)
class Outcome:
    """What happened when a check ran against a store."""

    check: Check
    status: Status
    reason: str = ""
    reproducer: str | None = None
    duration_ms: float = 0.0
    #: what a passing check observed, for tables made from reports (``Harness.found``)
    found: Mapping[str, Any] | None = None


CHECKS: list[Check] = []


def select_checks(only: Sequence[str] = ()) -> list[Check]:
    """The checks ``only`` names, in run order: each entry is a check's id, or else a prefix
    of ids (``recall.``); ``review.merge`` is that check, not ``review.merge-into`` too. No
    entries: every check."""
    if not only:
        return list(CHECKS)
    ids = {c.id for c in CHECKS}
    exact = {entry for entry in only if entry in ids}
    prefixes = tuple(entry for entry in only if entry not in ids)
    return [c for c in CHECKS if c.id in exact or (prefixes and c.id.startswith(prefixes))]


def check(
    check_id: str,
    *,
    section: str,
    strength: Strength = "MUST",
    needs: Iterable[str] = (),
    spec: str = "v0",
) -> Callable[[Callable[[Harness], Awaitable[None]]], Callable[[Harness], Awaitable[None]]]:
    """Register a check. ``section`` is an id in docs/spec/<spec>.md (``spec``: the version
    that added the rule); ``needs`` are capabilities."""

    def register(run: Callable[[Harness], Awaitable[None]]) -> Callable[[Harness], Awaitable[None]]:
        if any(c.id == check_id for c in CHECKS):
            raise ValueError(f"duplicate check id {check_id!r}")
        summary = (run.__doc__ or check_id).strip().splitlines()[0]
        CHECKS.append(Check(check_id, section, strength, frozenset(needs), summary, run, spec))
        return run

    return register


class Parsed(ClientOperations):
    """The store under test behind the boundary's request parser: checks send spec JSON, the
    store gets generated models, and a refused request never reaches it. Unlike the facade,
    answers and crashes pass through raw, for the harness to judge and report; ``inner`` is
    the store itself."""

    def __init__(self, inner: MemoryStore) -> None:
        self.inner = inner
        #: requests are held to the version the store speaks, as at the boundary
        self.version = spoken_version(inner)

    @property
    def name(self) -> str:
        return self.inner.name

    def capabilities(self) -> Capabilities:
        return self.inner.capabilities()

    async def health(self) -> Health:
        return await self.inner.health()

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def _operate(self, operation: Operation[Req, Resp], request: Any) -> Resp:
        """Every operation but recall (``ClientOperations``, generated): the request parsed as
        at the boundary, then the store's own method (a check needing an optional one is
        skipped unless the store declares its capability)."""
        call = getattr(self.inner, operation.name)
        answer: Resp = await call(parse_request(operation.request, request, version=self.version))
        return answer

    async def recall(
        self, request: Any, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        return await self.inner.recall(
            parse_request(RecallRequest, request, version=self.version), query_vector=query_vector
        )


class Harness:
    """What a check sees: the store (every response validated), fresh ids, and helpers."""

    _serial = itertools.count()

    def __init__(
        self,
        store: MemoryStore,
        check_id: str,
        *,
        factory: StoreFactory,
        options: RunOptions,
    ) -> None:
        self.store = store
        self.check_id = check_id
        #: opens further fresh stores (the stateful check runs one per sequence)
        self.factory = factory
        self.seed = options.seed
        self.examples = options.examples
        self.stateful_runs = options.stateful_runs
        self.capabilities = set(store.capabilities().capabilities)
        #: the spec version the store speaks: what generated requests are drawn from
        self.version = spoken_version(store)
        #: every request the check sent, in order: the reproducer of a scenario that fails
        self.trail: list[tuple[str, dict[str, Any]]] = []
        #: what the check observed of the store, kept in the report when it passes (e.g. how
        #: an import keeps each part of an archive line: docs/portability.md#fidelity)
        self.found: dict[str, Any] = {}

    def agent(self, label: str = "agent") -> str:
        """An agent id no other check (or earlier run on a persistent store) uses."""
        return f"cf-{self.check_id}-{label}-{now_ms()}-{next(self._serial)}"[:256]

    def require(self, *capabilities: str) -> None:
        missing = sorted(set(capabilities) - self.capabilities)
        if missing:
            raise Skip(f"the store does not declare {', '.join(missing)}")

    async def call(self, operation: str, request: dict[str, Any], **kwargs: Any) -> Any:
        """Send a request (as spec JSON) and hold the response to its schema."""
        self.trail.append((operation, request))
        response = await getattr(self.store, operation)(request, **kwargs)
        envelope = spec.validate(_RESPONSES[operation], to_wire(response))
        if envelope is not None:
            raise CheckFailed(
                f"{operation} answered with an invalid {_RESPONSES[operation]}: "
                + "; ".join(f"{d['path']} {d['message']}" for d in envelope["details"])
            )
        # a router answers without a child that failed, and says so in stores[]; no fault is
        # injected here, so a failed child is a defect the answer would otherwise hide
        for result in getattr(response, "stores", None) or ():
            if result.status in _FAILED:
                raise CheckFailed(
                    f"{operation} answered, but store {result.store!r} in it did not: "
                    f"{result.status}: {result.error}"
                )
        return response

    async def rejected(self, operation: str, request: dict[str, Any]) -> MnemowireError:
        """Send a request that must be refused; return the error (its envelope is checked)."""
        try:
            await self.call(operation, request)
        except MnemowireError as exc:
            envelope = spec.validate("error", exc.envelope)
            expect(envelope is None, f"the error is not a valid spec error envelope: {envelope}")
            return exc
        raise CheckFailed(f"{operation} accepted a request it must refuse: {request}")

    async def remember(self, agent_id: str, content: str, **fields: Any) -> str:
        request = {"agent_id": agent_id, "type": "semantic", "content": content, **fields}
        return str((await self.call("remember", request)).id)

    async def recall(self, agent_id: str, query: str, **request: Any) -> list[Any]:
        body = {"agent_id": agent_id, "query": query, "k": 1000, **request}
        return list((await self.call("recall", body)).results)

    async def recall_ids(self, agent_id: str, query: str, **request: Any) -> list[str]:
        return [hit.id for hit in await self.recall(agent_id, query, **request)]


async def run_checks(
    factory_for: Callable[[Check], StoreFactory],
    checks: Sequence[Check],
    options: RunOptions,
    progress: Callable[[Check], None] | None = None,
) -> list[Outcome]:
    """Run every check on its own fresh store (from ``factory_for(check)``), in order."""
    outcomes = []
    for item in checks:
        if progress is not None:
            progress(item)
        outcomes.append(await _run_one(factory_for(item), item, options))
    return outcomes


async def _run_one(factory: StoreFactory, item: Check, options: RunOptions) -> Outcome:
    started = time.perf_counter()

    def done(status: Status, reason: str = "", reproducer: str | None = None) -> Outcome:
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        found = harness.found if harness is not None and status == "PASS" else None
        return Outcome(item, status, reason, reproducer, elapsed, found or None)

    harness: Harness | None = None
    factory = _parsed(factory)
    try:
        async with factory() as store:
            harness = Harness(store, item.id, factory=factory, options=options)
            missing = sorted(item.needs - harness.capabilities)
            if missing:
                return done("SKIP", f"the store does not declare {', '.join(missing)}")
            await item.run(harness)
    except Skip as skip:
        return done("SKIP", str(skip))
    except CheckFailed as failure:
        return done("FAIL", str(failure), failure.reproducer or _trail(harness))
    except MnemowireError as error:
        reason = f"the store refused a valid request: {error.code}: {error}"
        return done("FAIL", reason, _trail(harness))
    except Exception as exc:  # a crash is reported, never allowed to stop certification
        where = traceback.format_exception(type(exc), exc, exc.__traceback__)[-3:]
        return done("ERROR", f"{type(exc).__name__}: {exc}", "".join(where))
    return done("PASS")


def _trail(harness: Harness | None) -> str | None:
    """The requests a scenario sent, one JSON line each (``{"operation", "request"}``): replay
    them in order, e.g. ``mnemowire <operation> --json -`` per line, to see the failure."""
    if harness is None or not harness.trail:
        return None
    return "\n".join(
        json.dumps({"operation": op, "request": request}, ensure_ascii=False, default=repr)
        for op, request in harness.trail
    )


def _parsed(factory: StoreFactory) -> StoreFactory:
    """``factory``'s stores behind the request parser (:class:`Parsed`)."""

    @contextlib.asynccontextmanager
    async def opened() -> AsyncIterator[MemoryStore]:
        async with factory() as store:
            yield Parsed(store)

    return opened


@dataclass
class Tally:
    """Counts per status, for summaries and badges."""

    counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, outcomes: Iterable[Outcome]) -> Tally:
        counts = {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0}
        for outcome in outcomes:
            counts[outcome.status] += 1
        return cls(counts)
