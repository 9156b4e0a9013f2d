"""The checks of spec v0.4's procedure runs (docs/spec/v0.4.md#run.start): a run starts in its
procedure's initial state, steps as the machine and the host's facts say, hands back its
transitions' intents, shows each step in history, refuses what it cannot take with nothing
changed, stops at its limits, and of two events fired on it at once exactly one moves it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mnemowire.conformance._harness import Harness, check, expect
from mnemowire.errors import MnemowireError

__all__: list[str] = []

_RUNS = ["run_start", "run_fire", "run_get"]

_TICKET = {
    "name": "ticket",
    "initial": "open",
    "states": ["open", "triaged", "closed"],
    "transitions": [
        {
            "trigger": "triage",
            "source": "open",
            "dest": "triaged",
            "conditions": "has_owner",
            "intents": [{"name": "notify", "args": {"who": "owner"}}],
        },
        {"trigger": "close", "source": ["open", "triaged"], "dest": "closed"},
        {"trigger": "reopen", "source": "*", "dest": "open", "unless": "locked"},
    ],
}


async def _started(h: Harness, agent: str, **fields: Any) -> Any:
    procedure = await h.call(
        "remember", {"agent_id": agent, "type": "procedural", "content": json.dumps(_TICKET)}
    )
    request = {"agent_id": agent, "procedure_id": procedure.id, **fields}
    return (await h.call("run_start", request)).run


async def _read(h: Harness, agent: str, run_id: str) -> Any:
    return (await h.call("run_get", {"agent_id": agent, "id": run_id})).run


@check("run.steps", section="run.fire", needs=_RUNS, spec="v0.4")
async def steps(h: Harness) -> None:
    """A run starts in the initial state, takes the transition whose guards hold, answers its
    intents, reads back as it was answered, and (with history) shows each step."""
    agent = h.agent()
    run = await _started(h, agent)
    expect(
        (run.state, str(run.status), run.steps, run.version) == ("open", "running", 0, 1),
        f"a new run is {run.state}/{run.status}, {run.steps} steps, version {run.version}",
    )
    expect(run.events == ["triage", "close", "reopen"], f"a new run takes {run.events}")
    fire = {"agent_id": agent, "id": run.id, "event": "triage"}
    moved = await h.call("run_fire", {**fire, "facts": {"has_owner": True}})
    expect(moved.run.state == "triaged", f"triage moved the run to {moved.run.state}")
    expect(
        [(i.name, i.args) for i in moved.fired.intents] == [("notify", {"who": "owner"})],
        f"the intents came back as {moved.fired.intents}",
    )
    expect(moved.run.version == 2, f"a step left the run at version {moved.run.version}")
    expect(await _read(h, agent, run.id) == moved.run, "run_get differs from run_fire's answer")
    closed = await h.call("run_fire", {**fire, "event": "reopen", "facts": {"locked": False}})
    expect(closed.run.state == "open", "a '*' source did not match the run's state")
    if "history" in h.capabilities:
        history = await h.call("history", {"agent_id": agent, "id": run.id})
        expect(len(history.entries) == 3, f"history shows {len(history.entries)} of 3 versions")


@check("run.refused", section="run.conditions", needs=_RUNS, spec="v0.4")
async def refused(h: Harness) -> None:
    """An event the state does not take, a condition without its fact, guards that do not
    hold, a stale expected_version: each refused, the run unchanged."""
    agent = h.agent()
    run = await _started(h, agent)
    fire = {"agent_id": agent, "id": run.id}
    for request, code, rule in (
        ({"event": "escalate"}, "invalid_request", "run.event"),
        ({"event": "triage"}, "invalid_request", "run.conditions"),
        ({"event": "triage", "facts": {"has_owner": False}}, "invalid_request", "run.conditions"),
        ({"event": "close", "expected_version": 2}, "conflict", None),
    ):
        error = await h.rejected("run_fire", {**fire, **request})
        expect(error.code == code, f"{request} failed with {error.code}, not {code}")
        rules = {d.get("rule") for d in error.details}
        expect(rule is None or rule in rules, f"{request} names the rules {rules}, not {rule}")
        expect(await _read(h, agent, run.id) == run, f"a refused {request} changed the run")
    closed = await h.call("run_fire", {**fire, "event": "close"})
    expect(closed.run.events == ["reopen"], f"a closed ticket takes {closed.run.events}")
    after = await h.rejected("run_fire", {**fire, "event": "close"})
    expect(after.code == "invalid_request", f"closing a closed ticket failed with {after.code}")


@check("run.limits", section="run.limits", needs=_RUNS, spec="v0.4")
async def limits(h: Harness) -> None:
    """A run that took step_limit steps is exhausted: its next event is refused with
    conflict and changes nothing."""
    agent = h.agent()
    run = await _started(h, agent, step_limit=1)
    fire = {"agent_id": agent, "id": run.id, "event": "reopen", "facts": {"locked": False}}
    spent = (await h.call("run_fire", fire)).run
    expect(str(spent.status) == "exhausted", f"a run past its steps is {spent.status}")
    expect(spent.events == [], f"an exhausted run still offers {spent.events}")
    error = await h.rejected("run_fire", fire)
    expect(error.code == "conflict", f"an event past step_limit failed with {error.code}")
    expect(await _read(h, agent, run.id) == spent, "a refused event changed an exhausted run")


@check("run.start", section="run.start", needs=_RUNS, spec="v0.4")
async def start(h: Harness) -> None:
    """A run follows a procedural record of the caller's scope; a retry with the run's id
    starts nothing new; a record that is not a run is not one to read."""
    agent = h.agent()
    run = await _started(h, agent, id=f"{agent}-run")
    expect(run.id == f"{agent}-run", f"the run's id is {run.id}, not the one sent")
    again = await h.call("run_start", {"agent_id": agent, "procedure_id": run.procedure_id,
                                       "id": run.id})  # fmt: skip
    expect(again.replayed is True and again.run == run, "a retried run_start started another")
    fact = await h.remember(agent, "Tickets close within a week.")
    error = await h.rejected("run_start", {"agent_id": agent, "procedure_id": fact})
    expect(error.code == "invalid_request", f"a run of a semantic record failed with {error.code}")
    elsewhere = await h.rejected("run_start", {"agent_id": h.agent("other"),
                                               "procedure_id": run.procedure_id})  # fmt: skip
    expect(elsewhere.code == "not_found", f"another agent's procedure failed with {elsewhere.code}")
    not_a_run = await h.rejected("run_get", {"agent_id": agent, "id": fact})
    expect(not_a_run.code == "not_found", f"run_get of a fact failed with {not_a_run.code}")


@check("run.race", section="run.fire", needs=_RUNS, spec="v0.4")
async def race(h: Harness) -> None:
    """Two events fired on one run at once: exactly one moves it, the other is refused (the
    run moved on, or its state no longer takes the event) and the run took one step."""
    agent = h.agent()
    run = await _started(h, agent)
    fire = {"agent_id": agent, "id": run.id, "event": "close"}
    outcomes = await asyncio.gather(
        h.call("run_fire", fire), h.call("run_fire", fire), return_exceptions=True
    )
    moved = [o for o in outcomes if not isinstance(o, BaseException)]
    failed = [o for o in outcomes if isinstance(o, MnemowireError)]
    expect(len(moved) == 1, f"{len(moved)} of two concurrent events moved the run")
    expect(
        len(failed) == 1 and failed[0].code in ("conflict", "invalid_request"),
        f"the losing event failed with {[f.code for f in failed]}",
    )
    now = await _read(h, agent, run.id)
    expect((now.steps, now.version) == (1, 2), f"the run took {now.steps} steps, not one")
