"""Resolving ``$ref`` URIs between the spec's documents: the one place that knows how."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["absolute", "lookup", "pointer"]


def absolute(base: str, ref: str) -> str:
    """The absolute ``uri#fragment`` a ``$ref`` written in the document ``base`` points to."""
    location, _, fragment = ref.partition("#")
    document = base.partition("#")[0]
    uri = document if not location else document.rsplit("/", 1)[0] + "/" + location
    return f"{uri}#{fragment}"


def lookup(by_id: dict[str, Any], target: str) -> Any:
    """The schema node at ``uri#/json/pointer`` among documents keyed by ``$id``; None if absent."""
    uri, _, fragment = target.partition("#")
    node = by_id.get(uri)
    for raw in [p for p in fragment.split("/") if p]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def pointer(parts: Iterable[str | int]) -> str:
    """JSON Pointer (RFC 6901) for a path of keys and indexes; ``""`` is the whole document."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
