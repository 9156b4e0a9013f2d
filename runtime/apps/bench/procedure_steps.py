"""A procedure run's step (spec v0.4's run_fire, through the validating boundary as a caller
would): the p50 and p95 of one event on a run of a small approval machine (a loop of four
states, a guarded transition with its fact, two intents), in a store that holds ``held`` other
records, on whichever store it is given."""

from __future__ import annotations

import json
import time
from typing import Any

from mnemowire.apps.bench._corpus import load_numbered
from mnemowire.apps.bench._timing import percentiles
from mnemowire.layers.memory import Memory
from mnemowire.protocol import MemoryStore

__all__ = ["time_steps"]

AGENT = "bench-agent"
#: submitted -> reviewed -> approved -> submitted ..., one event per step, forever
MACHINE = {
    "name": "expense approval",
    "initial": "submitted",
    "states": ["submitted", "reviewed", "approved", "rejected"],
    "transitions": [
        {"trigger": "review", "source": "submitted", "dest": "reviewed"},
        {
            "trigger": "approve",
            "source": "reviewed",
            "dest": "approved",
            "conditions": "within_budget",
            "intents": [{"name": "pay", "args": {"currency": "EUR"}}, {"name": "notify"}],
        },
        {"trigger": "reject", "source": "reviewed", "dest": "rejected"},
        {"trigger": "resubmit", "source": ["approved", "rejected"], "dest": "submitted"},
    ],
}
CYCLE = ("review", "approve", "resubmit")


async def time_steps(store: MemoryStore, rounds: int, held: int) -> dict[str, Any]:
    """p50/p95 of ``rounds`` events, each on the run as the previous one left it."""
    async with Memory(store) as memory:
        await load_numbered(memory, AGENT, held, 64)
        procedure = await memory.remember(
            {"agent_id": AGENT, "type": "procedural", "content": json.dumps(MACHINE)}
        )
        run = await memory.run_start(
            {"agent_id": AGENT, "procedure_id": procedure.id, "step_limit": rounds}
        )
        samples = []
        for n in range(rounds):
            request = {"agent_id": AGENT, "id": run.run.id, "event": CYCLE[n % len(CYCLE)],
                       "facts": {"within_budget": True}}  # fmt: skip
            started = time.perf_counter()
            fired = await memory.run_fire(request)
            samples.append((time.perf_counter() - started) * 1000)
            assert fired.run.steps == n + 1
    return {"machine_states": len(MACHINE["states"]), "store_records": held,
            **percentiles(samples)}  # fmt: skip
