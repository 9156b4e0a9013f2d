"""Hostile procedure definitions, fuzzed: dotted callbacks, dunder and reserved names, unknown
keys, machines past the spec's bounds, cycles. Each is refused when it is written (the spec's
error envelope, nothing stored) or held inert: a run of it moves exactly as the data says (a
reference interpreter of a few lines agrees on every step) and runs nothing else."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import MnemowireError
from mnemowire.layers.memory import Memory

#: called by nothing, unless a name in a definition reached code
CALLED: list[Any] = []


def canary(*args: Any, **kwargs: Any) -> bool:
    CALLED.append((args, kwargs))
    return True


#: names an attacker would try: module paths (this module's canary among them), dunders, the
#: library's own model attributes and wildcards, empty and huge ones
HOSTILE = [
    f"{__name__}.canary", "canary", "os.system", "subprocess.run", "builtins.eval",
    "__import__", "__class__", "__init__",
    "__dict__", "trigger", "may_trigger", "to_done", "is_done", "state", "on_enter_done",
    "*", "=", "", "a" * 200, "done", "start", "x", "é", "s0", "e0",
]  # fmt: skip
#: keys pytransitions would take as code, and others the spec does not have
CALLBACK_KEYS = ["before", "after", "prepare", "on_enter", "on_exit", "callback", "__class__"]

names = st.sampled_from(HOSTILE) | st.text(min_size=0, max_size=12)
#: the hostile names a bare identifier can still be (dunders, the library's attributes)
IDENTIFIERS = [n for n in HOSTILE if n.isidentifier() and n.isascii()]
identifier = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,10}\Z") | st.sampled_from(IDENTIFIERS)


@st.composite
def definitions(draw: st.DrawFn) -> Any:
    """A machine; most are well-formed (unique states, every reference a state, no code keys)
    yet named with hostile names, so they are stored and run; the rest break a rule."""
    wellformed = draw(st.integers(0, 9)) < 7
    state_names = st.sampled_from([n for n in HOSTILE if n]) if wellformed else names
    size = draw(st.sampled_from([4, 8, 300] if not wellformed else [3, 6, 12]))
    states = draw(st.lists(state_names, min_size=int(wellformed), max_size=size, unique=wellformed))
    pick = st.sampled_from(states) if states else names
    trigger = st.sampled_from(IDENTIFIERS[:6]) if wellformed else identifier
    transitions = []
    for _ in range(
        draw(st.integers(0, draw(st.sampled_from([6, 12] if wellformed else [12, 1100]))))
    ):
        source = st.one_of(pick, st.just("*"), st.lists(pick, min_size=int(wellformed), max_size=3))
        transition: dict[str, Any] = {
            "trigger": draw(trigger),
            "source": draw(source),
            "dest": draw(pick),
        }
        for guard in ("conditions", "unless"):
            if draw(st.booleans()):
                guards = st.one_of(
                    identifier, st.lists(identifier, min_size=int(wellformed), max_size=3)
                )
                transition[guard] = draw(guards)
        if not wellformed and draw(st.integers(0, 4)) == 0:
            transition[draw(st.sampled_from(CALLBACK_KEYS))] = draw(identifier)
        if draw(st.booleans()):
            transition["intents"] = draw(
                st.lists(st.fixed_dictionaries({"name": identifier}), max_size=2)
            )
        transitions.append(transition)
    machine: dict[str, Any] = {
        "name": draw(st.sampled_from(["p", "os.system"] + ([] if wellformed else [""]))),
        "initial": draw(pick),
        "states": states,
        "transitions": transitions,
    }
    if not wellformed and draw(st.integers(0, 4)) == 0:
        machine[draw(st.sampled_from([*CALLBACK_KEYS, "model", "import"]))] = "os.system"
    return machine


def _leaves(transition: dict[str, Any], state: str) -> bool:
    """ "*" is any state, alone or in a list (the spec's stateReference rule reads it so)."""
    sources = (
        transition["source"] if isinstance(transition["source"], list) else [transition["source"]]
    )
    return "*" in sources or state in sources


def _guards(value: Any) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def expected(machine: dict[str, Any], state: str, event: str, facts: dict[str, bool]) -> Any:
    """The reference: the first transition out of ``state`` on ``event`` whose conditions are
    all true and whose unless are all false, in the definition's order."""
    for t in machine["transitions"]:
        if t["trigger"] != event or not _leaves(t, state):
            continue
        if all(facts[n] for n in _guards(t.get("conditions"))) and not any(
            facts[n] for n in _guards(t.get("unless"))
        ):
            return t
    return None


async def _outcome(call: Any) -> tuple[Any, dict[str, Any] | None]:
    """A call's answer, or its refusal's envelope."""
    try:
        return await call, None
    except MnemowireError as refused:
        return None, refused.envelope


async def _exercise(machine: dict[str, Any], choices: list[tuple[int, bool]]) -> str:
    """What became of ``machine``: refused at write, or run (and how far)."""
    async with Memory(SqliteVecStore(":memory:", embedder=HashEmbedder(16))) as memory:
        stored, refused = await _outcome(
            memory.remember({"agent_id": "a", "type": "procedural", "content": json.dumps(machine)})
        )
        if stored is None:
            assert refused is not None
            assert refused["code"] == "invalid_request"
            assert refused["details"]
            assert (await memory.list({"agent_id": "a"})).records == []
            return "refused at write"
        started, refused = await _outcome(
            memory.run_start({"agent_id": "a", "procedure_id": stored.id})
        )
        if started is None:  # a name no answer can carry: refused, the run never written
            assert refused is not None
            assert {d["rule"] for d in refused["details"]} == {"text"}
            assert [r.id for r in (await memory.list({"agent_id": "a"})).records] == [stored.id]
            return "refused at start"
        run = started.run
        assert run.state == machine["initial"]
        for pick, truth in choices:
            if run.status != "running":
                break
            event = run.events[pick % len(run.events)]
            needed = {
                n
                for t in machine["transitions"]
                if t["trigger"] == event and _leaves(t, run.state)
                for n in _guards(t.get("conditions")) + _guards(t.get("unless"))
            }
            facts = dict.fromkeys(needed, truth)
            taken = expected(machine, run.state, event, facts)
            fired, refused = await _outcome(
                memory.run_fire({"agent_id": "a", "id": run.id, "event": event, "facts": facts})
            )
            if fired is None:
                assert taken is None, (refused, taken)
                assert refused is not None
                assert refused["details"][0]["rule"] == "run.conditions"
                continue
            assert taken is not None
            assert (fired.fired.source, fired.fired.dest) == (run.state, taken["dest"])
            assert [i.name for i in fired.fired.intents] == [
                i["name"] for i in taken.get("intents", [])
            ]
            run = fired.run
        return f"ran {min(run.steps, 3)}+ steps" if run.steps >= 3 else f"ran {run.steps} steps"


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    machine=definitions(),
    choices=st.lists(st.tuples(st.integers(0, 50), st.booleans()), max_size=12),
)
def test_a_hostile_definition_is_refused_or_held_inert(
    machine: dict[str, Any], choices: list[tuple[int, bool]]
) -> None:
    event(asyncio.run(_exercise(machine, choices)))
    assert CALLED == []
