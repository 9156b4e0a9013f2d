"""Procedure runs (spec v0.4, docs/spec/v0.4.md#run.start), written once over a store's own
``get``, ``remember`` and ``update``: a store that serves those (and keeps versions) serves
``run_start``, ``run_fire`` and ``run_get`` by calling these functions on itself, and so does
the router, whose get and update reach the record wherever it lives.

A run is a record: an episodic memory of following the procedure, whose metadata holds the
machine it copied at its start and where it stands. So ``get`` returns it, ``history`` shows
each step with its caller, and the record's version guards every event: two hosts firing on one
run both read version n, both write "if still n", and exactly one moves it.

The machine steps on the ``transitions`` library, sandboxed twice over. The library only ever
sees names the runner made (``s0``, ``s1``, ... for states, ``e0``, ... for events), never the
stored ones, so no stored name can meet a model attribute, a wildcard or a dotted path; and its
callbacks are the runner's own closures: a condition reads the host's fact of that name, and
the only callback records which transition fired. The model is an object with one slot, and
the machine binds nothing to it. Nothing a definition says is ever executed: a transition's
``intents`` come back to the caller as data.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import ValidationError
from transitions import Machine

from mnemowire import spec
from mnemowire.errors import ConflictError, NotFoundError, RequestError
from mnemowire.kit._basics import json_text, new_id, to_wire
from mnemowire.kit._browse import machine_problems
from mnemowire.kit.staging import StagingRules
from mnemowire.models import (
    Capabilities,
    FiredTransition,
    GetRequest,
    GetResponse,
    MemoryRecord,
    ProcedureRun,
    RememberRequest,
    RememberResponse,
    RunFireRequest,
    RunFireResponse,
    RunGetRequest,
    RunGetResponse,
    RunStartRequest,
    RunStartResponse,
    RunStatus,
    UpdateRequest,
    UpdateResponse,
)

__all__ = ["RUN_KEY", "Conditions", "RunningStore", "run_fire", "run_get", "run_start"]

#: the metadata key of a run record that holds the run
RUN_KEY = "procedure_run"
#: the wildcard source of the spec's Transition ("*": any state)
ANY_STATE = "*"


class RunningStore(Protocol):
    """What runs are made of: records read by id (get), the run written once (remember) and
    moved on if still at the version read (update), where the store's staging policy (from
    its capabilities) lets them be."""

    async def get(self, request: GetRequest) -> GetResponse: ...
    async def remember(self, request: RememberRequest) -> RememberResponse: ...
    async def update(self, request: UpdateRequest) -> UpdateResponse: ...
    def capabilities(self) -> Capabilities: ...


class Conditions:
    """A host's registry of named conditions: the only way a name in a definition reaches
    code, and it runs in the host, never in the store. ``facts`` evaluates each for a run, as
    run_fire's ``facts``; a condition an event reads that the registry lacks is left out, so
    the runner refuses the event naming it."""

    def __init__(self, checks: Mapping[str, Callable[[ProcedureRun], bool]]) -> None:
        self._checks = dict(checks)

    def facts(self, run: ProcedureRun) -> dict[str, bool]:
        """Every registered condition, evaluated for ``run`` where it stands."""
        return {name: bool(check(run)) for name, check in self._checks.items()}


# -- the machine --------------------------------------------------------------------------------


def _names(value: str | list[str] | None) -> list[str]:
    """A Transition's source, conditions or unless as a list (a name or a list of names)."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


class _Position:
    """The model the machine moves: one slot, and nothing for the machine to bind to."""

    __slots__ = ("state",)

    def __init__(self, state: str) -> None:
        self.state = state


class _Sandboxed(Machine):
    """A Machine that binds nothing to its model (no trigger methods, no ``is_`` checks):
    the model stays one slot whatever the definition names."""

    def _checked_assignment(self, model: Any, name: str, func: Any) -> None:
        return None


@dataclass(frozen=True)
class _Transition:
    trigger: str
    sources: tuple[str, ...]  # stored names; ANY_STATE for any
    dest: str
    conditions: tuple[str, ...]
    unless: tuple[str, ...]
    intents: tuple[dict[str, Any], ...]

    def leaves(self, state: str) -> bool:
        return ANY_STATE in self.sources or state in self.sources


class _Compiled:
    """A stored machine with the runner's names for its states and events."""

    def __init__(self, machine: Mapping[str, Any]) -> None:
        """``machine``: a StateMachine as JSON, one ``_broken`` finds nothing wrong with."""
        self.states = {name: f"s{i}" for i, name in enumerate(machine["states"])}
        triggers = dict.fromkeys(t["trigger"] for t in machine["transitions"])
        self.events = {name: f"e{i}" for i, name in enumerate(triggers)}
        self.transitions = [
            _Transition(
                t["trigger"],
                tuple(_names(t["source"])),
                t["dest"],
                tuple(_names(t.get("conditions"))),
                tuple(_names(t.get("unless"))),
                tuple(t.get("intents", ())),
            )
            for t in machine["transitions"]
        ]

    def out_of(self, state: str) -> list[_Transition]:
        return [t for t in self.transitions if t.leaves(state)]

    def events_from(self, state: str) -> list[str]:
        return list(dict.fromkeys(t.trigger for t in self.out_of(state)))

    def names_for(self, state: str, event: str) -> list[str]:
        """The condition names the transitions of ``event`` out of ``state`` read."""
        named = (
            n for t in self.out_of(state) if t.trigger == event for n in t.conditions + t.unless
        )
        return list(dict.fromkeys(named))

    def fire(self, state: str, event: str, facts: Mapping[str, bool]) -> _Transition | None:
        """The transition ``event`` takes out of ``state`` given ``facts`` (transitions picks the
        first whose guards hold, in the definition's order), or None when none holds. The
        library is handed only what this step can reach: the event's transitions out of
        ``state`` and the states they enter, so a step costs the same in a machine of 1,024
        transitions as in one of four."""
        fired: list[_Transition] = []
        here = self.states[state]
        candidates = [t for t in self.out_of(state) if t.trigger == event]
        specs = [
            {
                "trigger": self.events[event],
                "source": here,
                "dest": self.states[t.dest],
                "conditions": [_fact(facts, n) for n in t.conditions],
                "unless": [_fact(facts, n) for n in t.unless],
                "after": [_record(fired, t)],
            }
            for t in candidates
        ]
        reached = list(dict.fromkeys([here, *(self.states[t.dest] for t in candidates)]))
        position = _Position(here)
        machine = _Sandboxed(
            model=position, states=reached, transitions=specs, initial=here,
            auto_transitions=False,
        )  # fmt: skip
        machine.events[self.events[event]].trigger(position)
        return fired[0] if fired else None


def _fact(facts: Mapping[str, bool], name: str) -> Callable[..., bool]:
    return lambda *_args, **_kwargs: facts[name]


def _record(fired: list[_Transition], transition: _Transition) -> Callable[..., None]:
    return lambda *_args, **_kwargs: fired.append(transition)


# -- runs as records ----------------------------------------------------------------------------


def _status(compiled: _Compiled, held: Mapping[str, Any], now: int) -> RunStatus:
    if not compiled.out_of(held["state"]):
        return RunStatus.FINISHED
    deadline = held.get("deadline")
    if deadline is not None and now >= deadline:
        return RunStatus.EXPIRED
    if held["steps"] >= held["step_limit"]:
        return RunStatus.EXHAUSTED
    return RunStatus.RUNNING


def _run_of(
    record_id: str, version: int, held: Mapping[str, Any], compiled: _Compiled, now: int
) -> ProcedureRun:
    status = _status(compiled, held, now)
    events = compiled.events_from(held["state"]) if status is RunStatus.RUNNING else []
    wire = {k: held[k] for k in ProcedureRun.model_fields if k in held}
    return ProcedureRun.model_validate(
        {**wire, "id": record_id, "version": version, "status": status, "events": events}
    )


@dataclass(frozen=True)
class _Run:
    """A run as its record holds it: the record, the run, the run's machine compiled, and
    the run as it stood when it was read (``now``)."""

    record: MemoryRecord
    held: dict[str, Any]
    compiled: _Compiled
    answer: ProcedureRun

    @classmethod
    def of(cls, record: MemoryRecord, now: int) -> _Run | None:
        """The run ``record`` holds; None for a record that is not a run. A run record whose
        run an update has broken (its metadata is anyone's to change) is refused, never run."""
        held = (record.metadata or {}).get(RUN_KEY)
        if record.type != "episodic" or not isinstance(held, dict):
            return None
        problem = _broken(held)
        if not problem:
            compiled = _Compiled(held["machine"])
            try:
                answer = _run_of(record.id, record.version or 1, held, compiled, now)
                return cls(record, held, compiled, answer)
            except ValidationError as exc:
                where = exc.errors()[0]["loc"]
                problem = f"its {where[0] if where else 'form'} is not a run's"
        raise ConflictError(
            f"record {record.id!r} no longer holds a run that can go on ({problem}): an "
            "update changed its metadata; start a new run (mnemowire run start)",
            details=[{"path": "/id", "rule": "run.record", "message": problem}],
        )


def _broken(held: Mapping[str, Any]) -> str:
    """What is wrong with a run's stored form, or "" when nothing is."""
    machine = held.get("machine")
    if not isinstance(machine, dict):
        return "it holds no machine"
    if machine_problems("run", json_text(machine)) is not None:
        return "its machine is not a valid state machine"
    if held.get("state") not in machine["states"]:
        return "its state is not one of its machine's"
    counts = ("procedure_version", "steps", "step_limit", "started_at")
    if not all(type(held.get(k)) is int for k in counts) or held["step_limit"] < 1:
        return "its counts are not whole numbers"
    if held.get("deadline") is not None and type(held["deadline"]) is not int:
        return "its deadline is not a time"
    return ""


async def _read(
    store: RunningStore, agent_id: str, user_id: str | None, record_id: str
) -> MemoryRecord | None:
    scope: dict[str, Any] = {"agent_id": agent_id, "ids": [record_id]}
    if user_id is not None:
        scope["user_id"] = user_id
    found = await store.get(GetRequest.model_validate(scope))
    return found.records[0] if found.records else None


async def _read_run(
    store: RunningStore, agent_id: str, user_id: str | None, run_id: str, now: int
) -> _Run:
    record = await _read(store, agent_id, user_id, run_id)
    run = None if record is None else _Run.of(record, now)
    if run is None:
        raise NotFoundError(
            f"no run {run_id!r} in this scope: start one with run_start "
            "(mnemowire run start --procedure ID) and use the id it answers",
            details=[{"path": "/id", "rule": "run.start", "message": "no such run"}],
        )
    return run


async def _procedure(store: RunningStore, request: RunStartRequest) -> MemoryRecord:
    """The procedural record a run follows. It is read in the agent's scope, so a procedure
    every user of the agent shares serves a user's run; another user's procedure is missing."""
    record = await _read(store, request.agent_id, None, request.procedure_id)
    mine = record is not None and record.user_id in (None, request.user_id)
    if record is None or not mine:
        raise NotFoundError(
            f"no procedure {request.procedure_id!r} in this scope (an active procedural record "
            "of this agent, and of this user when it has one)",
            details=[{"path": "/procedure_id", "rule": "run.start", "message": "not found"}],
        )
    if record.type != "procedural":
        raise RequestError(
            f"{request.procedure_id!r} is a {record.type} memory, not a procedure: --procedure "
            "names a procedural record (its content a state machine)",
            details=[{"path": "/procedure_id", "rule": "run.start", "message": "not a procedure"}],
        )
    return record


# -- the operations -----------------------------------------------------------------------------


async def run_start(
    store: RunningStore, request: RunStartRequest, *, clock: Callable[[], int]
) -> RunStartResponse:
    """A new run of a stored procedure in its initial state, or, for a client id already
    used for a run of that procedure, that run (``replayed``)."""
    if request.id is not None:
        existing = await _read(store, request.agent_id, request.user_id, request.id)
        if existing is not None:
            return _replayed(existing, request, clock())
    procedure = await _procedure(store, request)
    machine = json.loads(procedure.content)  # a procedural record's content is a valid machine
    now = clock()
    held: dict[str, Any] = {
        "procedure_id": procedure.id,
        "procedure_version": procedure.version or 1,
        "name": machine["name"],
        "machine": machine,
        "state": machine["initial"],
        "steps": 0,
        "step_limit": request.step_limit,
        "started_at": now,
    }
    if request.time_limit_ms is not None:
        held["deadline"] = now + request.time_limit_ms
    run_id = request.id or new_id()
    wire: dict[str, Any] = {
        "agent_id": request.agent_id,
        "id": run_id,
        "type": "episodic",
        # the run's id in its words: two runs never read as one memory said twice
        "content": f"Ran the procedure {machine['name']!r} (run {run_id})",
        "metadata": {RUN_KEY: held},
        "event_time": now,
        "source": f"procedure {procedure.id}",
        "approval_required": False,
    }
    for key in ("user_id", "reason"):
        if getattr(request, key) is not None:
            wire[key] = getattr(request, key)
    _refuse_unwritable(request.procedure_id, wire)
    _refuse_staged(store, wire)
    stored = await store.remember(RememberRequest.model_validate(wire))
    if stored.replayed:  # another host started it with this id between our read and write
        record = await _read(store, request.agent_id, request.user_id, stored.id)
        if record is not None:
            return _replayed(record, request, clock())
    return RunStartResponse(run=_run_of(stored.id, 1, held, _Compiled(machine), now))


def _refuse_unwritable(procedure_id: str, wire: Mapping[str, Any]) -> None:
    """The run record is written past the boundary, so it is held to the boundary's rules
    here: a procedure whose JSON text escapes what no store keeps as text (a NUL in a state's
    name) stores fine as text, but its copy in the run's metadata could never be answered."""
    envelope = spec.validate("remember.request", wire)
    if envelope is not None:
        raise RequestError(
            f"procedure {procedure_id!r} cannot be run: "
            + "; ".join(dict.fromkeys(d["message"] for d in envelope["details"]))
            + "; update the procedure (mnemowire update --content)",
            details=[{**d, "path": "/procedure_id"} for d in envelope["details"]],
        )


def _refuse_staged(store: RunningStore, wire: Mapping[str, Any]) -> None:
    """A run cannot live where the operator's staging policy stages its record: its start
    would wait for a reviewer and every event, an update of a record the policy stages, is
    refused ([review.policy]). Refused before anything is written."""
    document = store.capabilities().staging_policy
    if document is None:
        return
    rule = StagingRules.of(to_wire(document)).staged_by("remember", wire)
    if rule is not None:
        raise ConflictError(
            f"the store's staging policy ({rule}) stages a run's record (an episodic memory "
            f"with source {wire['source']!r}), so the run could never take an event; nothing "
            "was written: ask the operator to narrow the rule (docs/governance.md#policy)",
            details=[{"path": "/procedure_id", "rule": "run.start", "message": rule}],
        )


def _replayed(record: MemoryRecord, request: RunStartRequest, now: int) -> RunStartResponse:
    run = _Run.of(record, now)
    if run is None or run.held["procedure_id"] != request.procedure_id:
        raise ConflictError(
            f"id {record.id!r} is taken by another record: send another --id, or none to "
            "have one made",
            details=[{"path": "/id", "rule": "run.start", "message": "id taken"}],
        )
    return RunStartResponse(run=run.answer, replayed=True)


async def run_get(
    store: RunningStore, request: RunGetRequest, *, clock: Callable[[], int]
) -> RunGetResponse:
    """A run as it stands."""
    run = await _read_run(store, request.agent_id, request.user_id, request.id, clock())
    return RunGetResponse(run=run.answer)


async def run_fire(
    store: RunningStore, request: RunFireRequest, *, clock: Callable[[], int]
) -> RunFireResponse:
    """One event on a run: checked against its state, limits and the host's facts, stepped,
    and written only if the run is still at the version read (else conflict, nothing
    changed)."""
    now = clock()
    run = await _read_run(store, request.agent_id, request.user_id, request.id, now)
    compiled, held, version = run.compiled, run.held, run.answer.version
    if request.expected_version is not None and request.expected_version != version:
        raise _moved_on(request.id, version)
    state = held["state"]
    _check_runnable(compiled, held, now, request.event)
    facts = request.facts.root if request.facts is not None else {}
    missing = [n for n in compiled.names_for(state, request.event) if n not in facts]
    if missing:
        raise RequestError(
            f"event {request.event!r} in state {state!r} reads the conditions {missing}: send "
            "each one's truth in facts (mnemowire run fire --fact NAME=true|false)",
            details=[
                {
                    "path": "/facts",
                    "rule": "run.conditions",
                    "message": f"{name}=true|false is not given",
                }
                for name in missing
            ],
        )
    taken = compiled.fire(state, request.event, facts)
    if taken is None:
        raise RequestError(
            f"no transition on {request.event!r} out of {state!r} holds with these facts "
            f"({_guards(compiled, state, request.event, facts)}); nothing changed",
            details=[
                {
                    "path": "/facts",
                    "rule": "run.conditions",
                    "message": "no transition's guards hold",
                }
            ],
        )
    fired = {
        "event": request.event,
        "source": state,
        "dest": taken.dest,
        "intents": list(taken.intents),
        "at": now,
    }
    moved = {**held, "state": taken.dest, "steps": held["steps"] + 1, "last": fired}
    update: dict[str, Any] = {
        "agent_id": request.agent_id,
        "id": request.id,
        "expected_version": version,
        "metadata": {**(run.record.metadata or {}), RUN_KEY: moved},
        "reason": request.reason or f"{request.event}: {state} -> {taken.dest}",
    }
    if request.user_id is not None:
        update["user_id"] = request.user_id
    answer = await store.update(UpdateRequest.model_validate(update))
    return RunFireResponse(
        run=_run_of(request.id, answer.version, moved, compiled, now),
        fired=FiredTransition.model_validate(fired),
    )


def _check_runnable(compiled: _Compiled, held: Mapping[str, Any], now: int, event: str) -> None:
    """Refuse an event a run cannot take: past its limits (conflict: the run is spent) or
    one no transition out of its state answers (invalid_request)."""
    state = held["state"]
    status = _status(compiled, held, now)
    if status is RunStatus.EXPIRED or status is RunStatus.EXHAUSTED:
        spent = (
            f"took its {held['step_limit']} steps"
            if status is RunStatus.EXHAUSTED
            else "passed its time limit"
        )
        raise ConflictError(
            f"the run {spent} in state {state!r} ({status}); nothing changed: start a new run "
            "(mnemowire run start, with a larger --step-limit or --time-limit-ms)",
            details=[{"path": "/id", "rule": "run.limits", "message": str(status)}],
        )
    events = compiled.events_from(state)
    if event not in events:
        why = (
            f"is not one the run takes: it finished in {state!r}"
            if not events
            else f"is not one the run takes in {state!r}, which takes {events}"
        )
        raise RequestError(
            f"event {event!r} {why}; nothing changed",
            details=[{"path": "/event", "rule": "run.event", "message": why}],
        )


def _guards(compiled: _Compiled, state: str, event: str, facts: Mapping[str, bool]) -> str:
    """Which guard held each of ``event``'s transitions out of ``state`` back."""
    said = []
    for t in compiled.out_of(state):
        if t.trigger != event:
            continue
        held_back = [f"{n} is false" for n in t.conditions if not facts[n]]
        held_back += [f"{n} is true (unless)" for n in t.unless if facts[n]]
        said.append(f"to {t.dest!r}: " + ", ".join(held_back))
    return "; ".join(said)


def _moved_on(run_id: str, version: int) -> ConflictError:
    """expected_version names another version than the run's: update's own refusal."""
    return ConflictError(
        f"run {run_id!r} is at version {version}, not the one expected: read it again "
        "(mnemowire run get) and fire from where it stands",
        details=[{"path": "/expected_version", "rule": "conflict", "message": f"now at {version}"}],
    )
