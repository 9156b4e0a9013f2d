"""A tool's input schema: the spec's request schema, inlined, without the prose a host would
send with every prompt for nothing (docs/transports.md#mcp.schemas).

What goes is annotation only: the request's own title and description (the tool's title and
description carry them) and every description below the request's arguments (the filter's
operators, a seal's fields, a state machine's, a batch's remember requests, which the
``remember`` tool describes). Every assertion keyword stays, so the schema accepts exactly what
the spec's request schema accepts, and each argument keeps its description, which is what a
model reads to fill it in. Calls are still validated against the whole spec at the boundary.
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from typing import Any

from mnemowire import spec

__all__ = ["agents_phrase", "tool_input_schema"]

ANNOTATIONS = frozenset({"title", "description"})
#: keywords whose value maps names to subschemas: a property may be called "description"
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs"})
#: keywords whose value is an instance, not a schema: copied as they are
_INSTANCES = frozenset({"const", "enum", "default", "examples"})


def tool_input_schema(
    operation: str, *, version: str, agents: Set[str] | None = None
) -> dict[str, Any]:
    """``operation``'s request schema as the ``inputSchema`` of its tool; with ``agents``, every
    ``agent_id`` is narrowed to those (all a server started with ``--agent`` accepts)."""
    request = spec.inlined_schema(f"{operation}.request", version=version)
    schema = {
        key: {name: _argument(field) for name, field in value.items()}
        if key == "properties"
        else _bare(key, value)
        for key, value in request.items()
        if key not in ANNOTATIONS
    }
    if agents:
        _narrow(schema, sorted(agents))
    return schema


def agents_phrase(agents: Iterable[str]) -> str:
    """``'a'``, or ``'a' or 'b'``: the agent ids to send, as a sentence names them."""
    return " or ".join(repr(agent) for agent in sorted(agents))


def _argument(field: dict[str, Any]) -> dict[str, Any]:
    return {
        key: value if key == "description" else _bare(key, value)
        for key, value in field.items()
        if key != "title"
    }


def _bare(key: str, value: Any) -> Any:
    """``value`` (of the keyword ``key``) without annotations at any depth."""
    if key in _INSTANCES:
        return value
    if key in _SCHEMA_MAPS and isinstance(value, dict):
        return {name: _bare("", sub) for name, sub in value.items()}
    if isinstance(value, list):
        return [_bare("", item) for item in value]
    if isinstance(value, dict):
        return {k: _bare(k, v) for k, v in value.items() if k not in ANNOTATIONS}
    return value


def _narrow(node: Any, agents: list[str]) -> None:
    """Give every ``agent_id`` property under ``node``, and every item of an ``agent_ids``
    list, the enum of ``agents`` (in place)."""
    if isinstance(node, list):
        for item in node:
            _narrow(item, agents)
        return
    if not isinstance(node, dict):
        return
    properties = node.get("properties")
    if isinstance(properties, dict) and "agent_id" in properties:
        properties["agent_id"] = {
            **properties["agent_id"],
            "description": f"The agent this server acts as: {agents_phrase(agents)}.",
            "enum": agents,
        }
    if isinstance(properties, dict) and "agent_ids" in properties:  # scopes' list of agents
        listed = properties["agent_ids"]
        properties["agent_ids"] = {**listed, "items": {**listed.get("items", {}), "enum": agents}}
    for key, value in node.items():
        if key not in _INSTANCES:
            _narrow(value, agents)
