"""Procedure runs (spec v0.4's run_start / run_fire / run_get, kit.procedures) on real sqlite-vec
stores: a run steps through its stored machine, hands back intents, shows each step in history,
refuses what it cannot take with nothing changed, and of two hosts firing at once exactly one
moves it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConflictError, MnemowireError, NotFoundError, RequestError
from mnemowire.kit.procedures import Conditions
from mnemowire.kit.staging import StagingRules
from mnemowire.layers.memory import Memory
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import ProcedureRun

REFUND = {
    "name": "refund",
    "initial": "requested",
    "states": ["requested", "verified", "refunded", "rejected"],
    "transitions": [
        {
            "trigger": "verify",
            "source": "requested",
            "dest": "verified",
            "intents": [{"name": "send_email", "args": {"template": "verified"}}],
        },
        {
            "trigger": "approve",
            "source": "verified",
            "dest": "refunded",
            "conditions": "amount_small",
            "unless": ["flagged"],
            "intents": [{"name": "issue_refund"}, {"name": "notify_user"}],
        },
        {"trigger": "approve", "source": "verified", "dest": "rejected", "conditions": "flagged"},
        {"trigger": "reject", "source": ["requested", "verified"], "dest": "rejected"},
    ],
}


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def memory(tmp_path: Path, clock: Clock) -> AsyncIterator[Memory]:
    store = SqliteVecStore(str(tmp_path / "m.db"), embedder=HashEmbedder(64), clock=clock)
    async with Memory(store) as opened:
        yield opened


async def _procedure(memory: Memory, machine: dict[str, Any] = REFUND, **fields: Any) -> str:
    request = {"agent_id": "a", "type": "procedural", "content": json.dumps(machine), **fields}
    return str((await memory.remember(request)).id)


async def _start(memory: Memory, procedure: str, **fields: Any) -> ProcedureRun:
    request = {"agent_id": "a", "procedure_id": procedure, **fields}
    return (await memory.run_start(request)).run


async def _fire(memory: Memory, run: str, event: str, **fields: Any) -> Any:
    return await memory.run_fire({"agent_id": "a", "id": run, "event": event, **fields})


async def test_a_run_steps_through_its_machine_and_hands_back_intents(memory: Memory) -> None:
    run = await _start(memory, await _procedure(memory), user_id="u")
    assert (run.state, run.status, run.events, run.steps, run.version) == (
        "requested", "running", ["verify", "reject"], 0, 1,
    )  # fmt: skip
    verified = await _fire(memory, run.id, "verify", user_id="u")
    assert verified.fired.intents[0].model_dump(exclude_none=True) == {
        "name": "send_email",
        "args": {"template": "verified"},
    }
    assert (verified.run.state, verified.run.events, verified.run.version) == (
        "verified", ["approve", "reject"], 2,
    )  # fmt: skip
    facts = {"amount_small": True, "flagged": False}
    done = await _fire(memory, run.id, "approve", facts=facts, expected_version=2)
    assert [i.name for i in done.fired.intents] == ["issue_refund", "notify_user"]
    assert (done.run.state, done.run.status, done.run.events, done.run.steps) == (
        "refunded", "finished", [], 2,
    )  # fmt: skip
    read = (await memory.run_get({"agent_id": "a", "id": run.id})).run
    assert read == done.run
    history = await memory.history({"agent_id": "a", "id": run.id})
    assert [e.operation for e in history.entries] == ["remember", "update", "update"]
    steps = [(e.record.metadata or {})["procedure_run"]["state"] for e in history.entries]
    assert steps == ["requested", "verified", "refunded"]


async def test_the_first_transition_whose_guards_hold_is_taken(memory: Memory) -> None:
    procedure = await _procedure(memory)
    flagged = await _start(memory, procedure)
    await _fire(memory, flagged.id, "verify")
    moved = await _fire(
        memory, flagged.id, "approve", facts={"amount_small": True, "flagged": True}
    )
    assert (moved.fired.dest, moved.fired.intents) == ("rejected", [])


async def _unchanged(
    memory: Memory, run: ProcedureRun, call: Any, error: type[MnemowireError]
) -> Any:
    with pytest.raises(error) as refused:
        await call
    assert (await memory.run_get({"agent_id": "a", "id": run.id})).run == run
    return refused.value.envelope


async def test_an_event_the_run_cannot_take_is_refused_and_changes_nothing(
    memory: Memory,
) -> None:
    run = await _start(memory, await _procedure(memory))
    unknown = await _unchanged(memory, run, _fire(memory, run.id, "approve"), RequestError)
    assert unknown["details"][0]["rule"] == "run.event"
    assert "['verify', 'reject']" in unknown["message"]
    run = (await _fire(memory, run.id, "verify")).run
    missing = await _unchanged(memory, run, _fire(memory, run.id, "approve"), RequestError)
    assert [d["message"] for d in missing["details"]] == [
        "amount_small=true|false is not given",
        "flagged=true|false is not given",
    ]
    assert "--fact NAME=true|false" in missing["message"]
    facts = {"amount_small": False, "flagged": False}
    held = await _unchanged(
        memory, run, _fire(memory, run.id, "approve", facts=facts), RequestError
    )
    assert held["details"][0]["rule"] == "run.conditions"
    assert "amount_small is false" in held["message"]
    stale = await _unchanged(
        memory, run, _fire(memory, run.id, "reject", expected_version=1), ConflictError
    )
    assert stale["details"][0]["path"] == "/expected_version"
    run = (await _fire(memory, run.id, "reject")).run
    finished = await _unchanged(memory, run, _fire(memory, run.id, "reject"), RequestError)
    assert "finished in 'rejected'" in finished["message"]


async def test_a_run_past_its_limits_is_refused(memory: Memory, clock: Clock) -> None:
    loop = {
        "name": "poll",
        "initial": "waiting",
        "states": ["waiting", "done"],
        "transitions": [
            {"trigger": "tick", "source": "*", "dest": "waiting"},
            {"trigger": "finish", "source": "waiting", "dest": "done"},
        ],
    }
    procedure = await _procedure(memory, loop)
    counted = await _start(memory, procedure, step_limit=2)
    for _ in range(2):
        counted = (await _fire(memory, counted.id, "tick")).run
    assert (counted.status, counted.events) == ("exhausted", [])
    spent = await _unchanged(memory, counted, _fire(memory, counted.id, "tick"), ConflictError)
    assert spent["details"][0]["rule"] == "run.limits"
    assert "--step-limit" in spent["message"]
    timed = await _start(memory, procedure, time_limit_ms=1000)
    assert timed.deadline == clock.now + 1000
    clock.now += 1000
    timed = (await memory.run_get({"agent_id": "a", "id": timed.id})).run
    assert timed.status == "expired"
    await _unchanged(memory, timed, _fire(memory, timed.id, "tick"), ConflictError)


async def test_what_a_run_follows_and_where_it_lives(memory: Memory) -> None:
    fact = str((await memory.remember({"agent_id": "a", "type": "semantic", "content": "tea"})).id)
    with pytest.raises(RequestError, match="semantic memory, not a procedure"):
        await _start(memory, fact)
    theirs = await _procedure(memory, user_id="bob")
    with pytest.raises(NotFoundError):
        await _start(memory, theirs, user_id="alice")
    with pytest.raises(NotFoundError):
        await memory.run_start({"agent_id": "b", "procedure_id": theirs})
    shared = await _procedure(memory)
    run = await _start(memory, shared, user_id="alice", id="run-1")
    assert run.id == "run-1"
    again = await memory.run_start(
        {"agent_id": "a", "procedure_id": shared, "user_id": "alice", "id": "run-1"}
    )
    assert again.replayed
    assert again.run == run
    with pytest.raises(ConflictError, match="taken by another record"):
        await _start(memory, shared, id=fact)
    with pytest.raises(ConflictError):  # the store's own [remember.id] rule
        await _start(memory, shared, user_id="alice", id=fact)
    with pytest.raises(NotFoundError, match="no run"):
        await memory.run_get({"agent_id": "a", "id": fact})
    with pytest.raises(NotFoundError):
        await memory.run_get({"agent_id": "a", "user_id": "bob", "id": "run-1"})


async def test_a_started_run_keeps_the_machine_it_copied(memory: Memory) -> None:
    procedure = await _procedure(memory)
    run = await _start(memory, procedure)
    changed = {
        **REFUND,
        "transitions": [{"trigger": "skip", "source": "requested", "dest": "refunded"}],
    }
    await memory.update(
        {"agent_id": "a", "id": procedure, "expected_version": 1, "content": json.dumps(changed)}
    )
    assert (await memory.run_get({"agent_id": "a", "id": run.id})).run.events == [
        "verify",
        "reject",
    ]
    assert (await _start(memory, procedure)).procedure_version == 2


async def test_of_two_hosts_firing_at_once_exactly_one_moves_the_run(
    tmp_path: Path, clock: Clock
) -> None:
    path = str(tmp_path / "shared.db")
    hosts = [SqliteVecStore(path, embedder=HashEmbedder(64), clock=clock) for _ in range(2)]
    async with Memory(hosts[0]) as first, Memory(hosts[1]) as second:
        run = await _start(first, await _procedure(first))
        for round_ in range(5):
            outcomes = await asyncio.gather(
                _fire(first, run.id, "verify" if round_ == 0 else "reject"),
                _fire(second, run.id, "verify" if round_ == 0 else "reject"),
                return_exceptions=True,
            )
            won = [o for o in outcomes if not isinstance(o, BaseException)]
            lost = [o for o in outcomes if isinstance(o, MnemowireError)]
            assert len(won) == 1, outcomes
            assert lost[0].code in ("conflict", "invalid_request"), lost[0].envelope
            run = won[0].run
            if run.status == "finished":
                break
        history = await second.history({"agent_id": "a", "id": run.id})
        assert len(history.entries) == 1 + run.steps


async def test_runs_through_a_router(tmp_path: Path) -> None:
    children = [
        SqliteVecStore(str(tmp_path / f"{n}.db"), embedder=HashEmbedder(64), name=n)
        for n in ("one", "two")
    ]
    async with Memory(MemoryRouter(children)) as routed:
        run = await _start(routed, await _procedure(routed))
        moved = await _fire(routed, run.id, "verify")
        assert moved.run.state == "verified"
        for child in children:
            async with Memory(child) as alone:
                assert (await alone.run_get({"agent_id": "a", "id": run.id})).run == moved.run


async def test_a_hosts_registry_gives_the_facts_an_event_reads(memory: Memory) -> None:
    run = await _start(memory, await _procedure(memory))
    run = (await _fire(memory, run.id, "verify")).run
    seen: list[str] = []

    def small(at: ProcedureRun) -> bool:
        seen.append(at.state)
        return True

    facts = Conditions({"amount_small": small, "flagged": lambda _run: False}).facts(run)
    assert facts == {"amount_small": True, "flagged": False}
    assert seen == ["verified"]
    moved = await _fire(memory, run.id, "approve", facts=facts)
    assert moved.run.state == "refunded"
    other = (await _fire(memory, (await _start(memory, run.procedure_id)).id, "verify")).run
    lacking = Conditions({"amount_small": small}).facts(other)
    with pytest.raises(RequestError, match="reads the conditions \\['flagged'\\]"):
        await _fire(memory, other.id, "approve", facts=lacking)


async def test_a_run_an_update_broke_is_refused_never_run(memory: Memory) -> None:
    run = await _start(memory, await _procedure(memory))
    record = (await memory.get({"agent_id": "a", "ids": [run.id]})).records[0]
    held = dict((record.metadata or {})["procedure_run"])
    for broken, problem in (
        ({**held, "state": "nowhere"}, "its state is not one of its machine's"),
        (
            {
                **held,
                "machine": {
                    **REFUND,
                    "transitions": [{"trigger": "go", "source": "*", "dest": "x"}],
                },
            },
            "not a valid state machine",
        ),
        (
            {
                **held,
                "machine": {
                    **REFUND,
                    "transitions": [
                        {"trigger": "go", "source": "*", "dest": "verified", "after": "os.system"}
                    ],
                },
            },
            "not a valid state machine",
        ),
        ({**held, "steps": "1"}, "whole numbers"),
        ({k: v for k, v in held.items() if k != "name"}, "its name is not a run's"),
        ({**held, "last": {"event": "os.system"}}, "its last is not a run's"),
    ):
        version = (await memory.get({"agent_id": "a", "ids": [run.id]})).records[0].version
        await memory.update(
            {"agent_id": "a", "id": run.id, "expected_version": version,
             "metadata": {"procedure_run": broken}}
        )  # fmt: skip
        for call in (
            memory.run_get({"agent_id": "a", "id": run.id}),
            _fire(memory, run.id, "verify"),
        ):
            with pytest.raises(ConflictError, match=problem):
                await call


async def test_a_run_a_staging_policy_would_stage_is_refused_before_any_write(
    tmp_path: Path,
) -> None:
    """Its start would wait for a reviewer and each event, an update of a record the policy
    stages, would be refused: the start is refused, with nothing written or staged."""
    policy = StagingRules.of({"rules": [{"name": "episodes", "types": ["episodic"]}]})
    store = SqliteVecStore(str(tmp_path / "p.db"), embedder=HashEmbedder(64), policy=policy)
    async with Memory(store) as memory:
        procedure = await _procedure(memory)
        with pytest.raises(ConflictError, match=r"staging policy \(policy:episodes\)") as no:
            await _start(memory, procedure, id="run-9")
        assert no.value.details[0]["rule"] == "run.start"
        assert (await memory.reviews({"agent_id": "a"})).reviews == []
        assert [r.id for r in (await memory.list({"agent_id": "a"})).records] == [procedure]
    facts_only = StagingRules.of({"rules": [{"name": "facts", "types": ["semantic"]}]})
    store = SqliteVecStore(str(tmp_path / "q.db"), embedder=HashEmbedder(64), policy=facts_only)
    async with Memory(store) as memory:
        run = await _start(memory, await _procedure(memory))
        assert (await _fire(memory, run.id, "verify")).run.state == "verified"


async def test_a_procedure_naming_text_no_store_can_keep_is_not_run(memory: Memory) -> None:
    """A NUL escaped in a procedure's JSON text is a name no answer can carry (found by the
    fuzzer): the start is refused, with nothing written."""
    machine = {**REFUND, "states": [*REFUND["states"], "\x00"]}
    procedure = await _procedure(memory, machine)
    with pytest.raises(RequestError, match="update the procedure") as refused:
        await _start(memory, procedure, id="run-nul")
    assert refused.value.details[0]["rule"] == "text"
    assert [r.id for r in (await memory.list({"agent_id": "a"})).records] == [procedure]
