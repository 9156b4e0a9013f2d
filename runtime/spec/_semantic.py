"""Rules of the spec that JSON Schema cannot express, checked after the schema passes.

Each is named in docs/spec/v0.md and reported in the error envelope like a schema rule, with its
own ``rule`` name. Keep this list short: a rule belongs here only if no schema keyword can say it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["SEMANTIC_RULES", "SEMANTIC_RULE_NAMES", "state_machine_problems"]

Detail = dict[str, str]


def state_machine_problems(machine: dict[str, Any]) -> Iterator[str]:
    """[types.procedural-references]: every state a machine names must be one of its states."""
    states = set(machine["states"])
    named: list[tuple[str, str]] = [("initial", machine["initial"])]
    if "current" in machine:
        named.append(("current", machine["current"]))
    for i, transition in enumerate(machine["transitions"]):
        named.append((f"transitions/{i}/dest", transition["dest"]))
        sources = transition["source"]
        for j, source in enumerate(sources if isinstance(sources, list) else [sources]):
            where = f"transitions/{i}/source" + (f"/{j}" if isinstance(sources, list) else "")
            if source != "*":
                named.append((where, source))
    for where, state in named:
        if state not in states:
            yield f"/{where}: {state!r} is not one of the machine's states"


def _procedural_content(payload: Any, path: str) -> Iterator[Detail]:
    if isinstance(payload, dict) and payload.get("type") == "procedural":
        problems = list(state_machine_problems(json.loads(payload["content"])))
        if problems:
            yield {
                "path": f"{path}/content",
                "rule": "stateReference",
                "message": "names a state it does not declare: " + "; ".join(problems),
            }


def _remember(payload: Any) -> Iterator[Detail]:
    return _procedural_content(payload, "")


def _review(payload: Any) -> Iterator[Detail]:
    if payload.get("operation") == "remember":
        yield from _procedural_content(payload["request"], "/request")


#: message name -> checks run on schema-valid payloads of that message
SEMANTIC_RULES: dict[str, Callable[[Any], Iterator[Detail]]] = {
    "remember.request": _remember,
    "review-request": _review,
}
#: message name -> the rule names its checks report (bindings in other languages implement them)
SEMANTIC_RULE_NAMES: dict[str, tuple[str, ...]] = {
    "remember.request": ("stateReference",),
    "review-request": ("stateReference",),
}
