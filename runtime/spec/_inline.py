"""One self-contained schema per message, every ``$ref`` replaced by what it points to.

Tools that cannot follow references across files (hypothesis-jsonschema, some code generators,
a downstream port reading one file) get the same contract as the run-time validator. Inlining
terminates because the spec lint forbids recursive references.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from mnemowire.spec._loader import LATEST, SpecFiles, read_spec
from mnemowire.spec._refs import absolute, lookup

__all__ = ["inline", "inlined_schema"]

_DROP = frozenset({"$defs", "$id", "$schema"})


def inline(files: SpecFiles, message: str) -> dict[str, Any]:
    """``message``'s schema from ``files`` with every reference resolved in place."""
    by_id = {doc["$id"]: doc for doc in files.documents.values()}
    root = files.documents[message]
    out: dict[str, Any] = _inline_node(root, root["$id"], by_id)
    out["$schema"] = root["$schema"]
    return out


@functools.cache
def _cached(version: str, message: str) -> dict[str, Any]:
    return inline(read_spec(version), message)


def inlined_schema(message: str, *, version: str = LATEST) -> dict[str, Any]:
    """A fresh copy of the installed spec's inlined schema for ``message``."""
    return copy.deepcopy(_cached(version, message))


def _inline_node(node: Any, base: str, by_id: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline_node(item, base, by_id) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = absolute(base, node["$ref"])
        resolved = dict(_inline_node(lookup(by_id, target), target, by_id))
        for key, value in node.items():  # annotations beside the $ref win (description, ...)
            if key == "properties":  # the target without some of its fields: {f: false}
                merged = {**resolved.get(key, {}), **value}
                if resolved.get("additionalProperties") is False:  # closed: absent is refused
                    merged = {name: sub for name, sub in merged.items() if sub is not False}
                resolved[key] = merged
            elif key != "$ref":
                resolved[key] = _inline_node(value, base, by_id)
        return resolved
    return {k: _inline_node(v, base, by_id) for k, v in node.items() if k not in _DROP}
