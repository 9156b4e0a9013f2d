"""Hypothesis strategies derived from the spec: valid requests, and requests that break one rule.

Valid requests come from each request schema through hypothesis-jsonschema, then procedural
content is replaced by a generated state machine (JSON Schema cannot generate the JSON text of
a schema-valid object inside a string) and every case is re-checked with the spec's own 2020-12
validator. Invalid requests start from a valid one and break exactly one rule of one top-level
field, so the error must name that field.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from mnemowire import spec

__all__ = ["REQUESTS", "Mutation", "invalid_requests", "requests", "state_machines"]

#: the request messages, one per operation
REQUESTS = ("remember.request", "recall.request", "forget.request", "merge.request",
            "expire.request")  # fmt: skip
#: the requests of operations spec v0.1 added, each fuzzed where the store declares it. Not
#: remember_batch: generating valid batches (remembers nested under if/then rules, filtered
#: to the schema) took three minutes per check; its items are fuzzed as remember requests
REQUESTS_V0_1 = ("get.request", "list.request", "restore.request", "update.request")
_STATE = st.text(st.characters(categories=("Ll", "Nd")), min_size=1, max_size=8)
_IDENTIFIER = st.from_regex(r"\A[a-z_][a-z0-9_]{0,10}\Z")


@st.composite
def state_machines(draw: st.DrawFn) -> dict[str, Any]:
    """A valid StateMachine whose every named state is declared."""
    states = draw(st.lists(_STATE, min_size=1, max_size=5, unique=True))
    state = st.sampled_from(states)
    transitions = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "trigger": _IDENTIFIER,
                    "source": st.one_of(
                        state, st.just("*"), st.lists(state, min_size=1, max_size=3)
                    ),
                    "dest": state,
                },
                optional={
                    "conditions": st.one_of(
                        _IDENTIFIER, st.lists(_IDENTIFIER, min_size=1, max_size=2)
                    ),
                    "unless": _IDENTIFIER,
                },
            ),
            max_size=4,
        )
    )
    machine: dict[str, Any] = {
        "name": draw(_IDENTIFIER),
        "initial": draw(state),
        "states": states,
        "transitions": transitions,
    }
    if draw(st.booleans()):
        machine["current"] = draw(state)
    return machine


@functools.cache
def requests(message: str, version: str = spec.LATEST) -> st.SearchStrategy[dict[str, Any]]:
    """Requests valid under ``message``'s schema in spec ``version`` (the one the store under
    test speaks) and the spec's semantic rules.

    Cached: building a strategy from a schema is the expensive part of generating."""
    base = from_schema(spec.inlined_schema(message, version=version))
    validator = spec.validator(message, version=version)

    @st.composite
    def valid(draw: st.DrawFn) -> dict[str, Any]:
        request = draw(base)
        if not isinstance(request, dict):  # the schemas are objects; this satisfies the types
            raise TypeError(f"{message} generated a non-object: {request!r}")
        if request.get("type") == "procedural":
            request["content"] = json.dumps(draw(state_machines()))
        request.pop("cursor", None)  # well formed, but no store made it ([list.cursor-binding])
        return request

    return valid().filter(validator.is_valid)


@dataclass(frozen=True)
class Mutation:
    """A request that breaks one rule, and the field the error must name."""

    request: dict[str, Any]
    path: str
    kind: str


_WRONG_TYPE = {"string": 12345, "integer": "twelve", "number": "twelve", "boolean": "yes",
               "array": {"not": "an array"}, "object": ["not", "an", "object"]}  # fmt: skip


@functools.cache
def invalid_requests(message: str, version: str = spec.LATEST) -> st.SearchStrategy[Mutation]:
    """Valid requests (of spec ``version``) with exactly one rule broken on one top-level
    field."""
    schema = spec.inlined_schema(message, version=version)
    properties: dict[str, Any] = schema["properties"]
    required: list[str] = schema.get("required", [])

    @st.composite
    def mutated(draw: st.DrawFn) -> Mutation:
        request = dict(draw(requests(message, version)))
        options = ["unknown"] + (["missing"] if required else [])
        typed = [name for name in request if properties.get(name, {}).get("type") in _WRONG_TYPE]
        bounded = [name for name in request if _out_of_bounds(properties.get(name, {}))]
        options += ["type"] * bool(typed) + ["bounds"] * bool(bounded)
        kind = draw(st.sampled_from(options))
        if kind == "unknown":
            name = draw(st.sampled_from(["approval_requried", "top_k", "hard_deleet", "x"]))
            request[name] = True
        elif kind == "missing":
            name = draw(st.sampled_from(required))
            request.pop(name, None)
        elif kind == "type":
            name = draw(st.sampled_from(typed))
            request[name] = _WRONG_TYPE[properties[name]["type"]]
        else:
            name = draw(st.sampled_from(bounded))
            request[name] = _out_of_bounds(properties[name])[0]
        return Mutation(request, f"/{name}", kind)

    return mutated()


def _out_of_bounds(schema: dict[str, Any]) -> list[Any]:
    """A value breaking one bound of a scalar or array schema (empty: the schema has none)."""
    kind = schema.get("type")
    if kind in ("integer", "number"):
        if "minimum" in schema:
            return [schema["minimum"] - 1]
        if "exclusiveMinimum" in schema:
            return [schema["exclusiveMinimum"]]
        if "maximum" in schema:
            return [schema["maximum"] + 1]
    if kind == "string":
        if schema.get("minLength", 0) > 0:
            return [""]
        if "maxLength" in schema:
            return ["x" * (schema["maxLength"] + 1)]
    if kind == "array" and schema.get("minItems", 0) > 0:
        return [[]]
    return []
