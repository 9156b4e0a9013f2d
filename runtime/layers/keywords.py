"""The short path into an operation: its request written as arguments instead of a dict.

``memory.remember("Alice likes tea", agent="assistant", user="alice")`` is the request
``{"agent_id": "assistant", "user_id": "alice", "type": "semantic", "content": "Alice likes
tea"}``: the operation's lead field may come first (a remember's content, a recall's query, the
ids a get or forget names, the id an update changes), ``agent`` and ``user`` stand for
``agent_id`` and ``user_id``, every other keyword is the spec's field name, and a keyword left
``None`` is unsaid. The result is an ordinary request: it crosses the one validating boundary
like a dict does, and a refusal names the keyword the caller wrote (``agent= is required``)
rather than a wire path. What the wire requires and a person would rather not say has a short
path default (:data:`UNSAID`: a remember is ``semantic`` unless told otherwise, as in the CLI).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any, Final

from pydantic import BaseModel

from mnemowire.errors import RequestError, reworded
from mnemowire.models import MemoryType

__all__ = ["ALIASES", "LEADS", "UNSAID", "keyword_request", "speaking_keywords"]

#: the short names a caller may use for a field, by field
ALIASES: Final[Mapping[str, str]] = MappingProxyType({"agent_id": "agent", "user_id": "user"})
#: the field an operation's first argument fills, when it is not a request
LEADS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "remember": "content",
        "recall": "query",
        "get": "ids",
        "forget": "ids",
        "update": "id",
        "history": "id",
    }
)
#: what the short path says when the caller does not: a remember is a fact (``semantic``)
UNSAID: Final[Mapping[str, Mapping[str, Any]]] = MappingProxyType(
    {"remember": MappingProxyType({"type": MemoryType.SEMANTIC.value})}
)
_FIELDS_BY_ALIAS: Final = {alias: field for field, alias in ALIASES.items()}


def keyword_request(
    operation: str, request: Any, keywords: Mapping[str, Any]
) -> tuple[Any, dict[str, str] | None]:
    """The request for ``operation`` from a call's first argument and keywords, and the names
    the caller used for its fields (``None``: the caller sent a request, which stays as sent).

    Raises TypeError for a call that mixes a request with keywords or names one field twice:
    that is the program's mistake, not the request's."""
    said = {key: value for key, value in keywords.items() if value is not None}
    if isinstance(request, (BaseModel, Mapping)):
        if said:
            raise TypeError(
                f"{operation}() takes a request (a dict or model) or keyword arguments, not "
                f"both; put {', '.join(sorted(said))} into the request"
            )
        return request, None
    payload: dict[str, Any] = {}
    names: dict[str, str] = {}
    lead = LEADS.get(operation)
    if request is not None:
        if lead is None:
            raise TypeError(
                f"{operation}() takes its request as a dict or as keyword arguments, not a "
                f"{type(request).__name__} first"
            )
        payload[lead] = [request] if lead == "ids" and isinstance(request, str) else request
        names[lead] = f"{lead} (the first argument)"
    for key, value in said.items():
        field = _FIELDS_BY_ALIAS.get(key, key)
        if field in payload:
            raise TypeError(f"{operation}() got {field!r} twice (as {names[field]} and {key}=)")
        payload[field] = value.value if isinstance(value, enum.Enum) else value
        names[field] = f"{key}="
    for field, value in UNSAID.get(operation, {}).items():
        payload.setdefault(field, value)
    return payload, names


@contextmanager
def speaking_keywords(operation: str, names: dict[str, str] | None) -> Iterator[None]:
    """A refusal of a request built from keywords, reworded in the caller's terms: each
    detail names the keyword (``keyword``, an extension field) and the message says
    ``agent= is required`` rather than ``/agent_id``. A request sent as one is left alone."""
    try:
        yield
    except RequestError as exc:
        if names is None:
            raise
        spoken = {
            **{field: f"{field}=" for field in _fields(exc)},
            **{field: f"{alias}=" for field, alias in ALIASES.items()},
            **{lead: f"{lead} (the first argument)" for lead in [LEADS.get(operation)] if lead},
            **names,
            "": f"the {operation} request",
        }
        raise RequestError(reworded(exc.envelope, spoken, key="keyword")) from None


def _fields(exc: RequestError) -> list[str]:
    return [str(d.get("path", "")).split("/")[1] for d in exc.details if d.get("path")]
