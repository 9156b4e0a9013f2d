"""The exceptions mnemowire raises.

One root, :class:`MnemowireError`, so a caller can catch everything we raise in one clause. Each
error carries the spec's error envelope (``code``, ``message``, ``details``), which is what
crosses the wire; the Python classes only add a way to ``except`` by kind. By lifecycle step::

    MnemowireError            every error; .envelope is the spec's error JSON
    ├── SpecError             load/lint: the spec files are broken          (internal)
    ├── ConfigError           connect: bad store URL, wrong embedder        (unavailable)
    ├── RequestError          operate: the request breaks the spec          (invalid_request)
    ├── NotFoundError         operate: a named record is not this agent's   (not_found)
    ├── ConflictError         operate: contradicts stored state             (conflict)
    ├── UnsupportedError      operate: no capable store for the operation   (unsupported)
    ├── UnauthorizedError     transport: no credentials the server knows     (unauthorized)
    ├── ForbiddenError        transport: credentials not for this agent      (forbidden)
    └── StoreError            operate: the backend failed                   (store_error)
        └── UnavailableError  operate: the backend cannot be reached        (unavailable)

(``mnemowire.layers.memory.RunningLoopError``, a MnemowireError and a RuntimeError: SyncMemory
called inside a running event loop, where the async ``Memory`` belongs.)
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

__all__ = [
    "ConfigError",
    "ConflictError",
    "ForbiddenError",
    "MnemowireError",
    "NotFoundError",
    "RequestError",
    "SpecError",
    "StoreError",
    "UnauthorizedError",
    "UnavailableError",
    "UnsupportedError",
    "error_for",
    "reworded",
]


class MnemowireError(Exception):
    """Root of every mnemowire error; ``envelope`` is the spec error message as a dict."""

    default_code: ClassVar[str] = "internal"

    def __init__(self, envelope: dict[str, Any] | str, **fields: Any) -> None:
        if isinstance(envelope, str):
            envelope = {"code": self.default_code, "message": envelope, "details": [], **fields}
        self.envelope = envelope
        super().__init__(envelope["message"])

    @property
    def code(self) -> str:
        return str(self.envelope["code"])

    @property
    def details(self) -> list[dict[str, Any]]:
        return list(self.envelope.get("details", []))

    def to_json(self) -> str:
        return json.dumps(self.envelope, ensure_ascii=False)


class SpecError(MnemowireError):
    """The spec files cannot be loaded or break the spec lint: a packaging or authoring bug."""

    def __init__(self, message: str, details: list[dict[str, Any]] | None = None) -> None:
        super().__init__({"code": "internal", "message": message, "details": details or []})


class ConfigError(MnemowireError):
    """A store cannot be opened as configured (bad URL, an embedder the database was not made
    with, a missing optional dependency); the message says what to change."""

    default_code = "unavailable"


class RequestError(MnemowireError):
    """A message breaks the spec; ``details`` names every offending field and rule."""

    default_code = "invalid_request"


class NotFoundError(MnemowireError):
    """A record named by the request is not a visible record of the request's agent."""

    default_code = "not_found"


class ConflictError(MnemowireError):
    """The request contradicts stored state (an id reused with other content, ...)."""

    default_code = "conflict"


class UnsupportedError(MnemowireError):
    """The store (or every store of a router) lacks a capability the request needs."""

    default_code = "unsupported"


class UnauthorizedError(MnemowireError):
    """A transport that authenticates its callers got no credentials it knows
    (docs/spec/v0.1.md#errors.access); nothing was changed."""

    default_code = "unauthorized"


class ForbiddenError(MnemowireError):
    """The caller's credentials may not act as the request's agent; nothing was changed."""

    default_code = "forbidden"


class StoreError(MnemowireError):
    """The backend failed while serving a valid request; nothing was changed."""

    default_code = "store_error"


class UnavailableError(StoreError):
    """The backend cannot be reached (connection refused, server gone)."""

    default_code = "unavailable"


_BY_CODE: dict[str, type[MnemowireError]] = {
    cls.default_code: cls
    for cls in (RequestError, NotFoundError, ConflictError, UnsupportedError, StoreError,
                UnavailableError, UnauthorizedError, ForbiddenError)
}  # fmt: skip


def error_for(envelope: dict[str, Any]) -> MnemowireError:
    """The exception for an error envelope received from elsewhere (another process, a server)."""
    return _BY_CODE.get(str(envelope.get("code")), MnemowireError)(envelope)


def reworded(envelope: dict[str, Any], names: dict[str, str], *, key: str) -> dict[str, Any]:
    """An invalid-request envelope in the words of whoever built the request: a request made
    from CLI flags or Python keywords names those (``--agent is required``, ``agent= is
    required``), not wire paths. ``names`` maps each top-level field (``""``: the request as
    a whole) to the caller's word for it; each detail gains it under ``key`` (an extension
    field), and the message lists them. A nested field may have a word of its own, under its
    path without the leading slash (``rules/min_age_ms``); the longest named prefix wins."""
    details = []
    said = []
    for detail in envelope.get("details", []):
        parts = str(detail.get("path", "")).split("/")[1:]
        prefixes = ("/".join(parts[:n]) for n in range(len(parts), 0, -1))
        name = next((names[p] for p in prefixes if p in names), names.get("", "the request"))
        details.append({**detail, key: name})
        text = str(detail.get("message", ""))
        if detail.get("rule") == "required":
            text = "is required"
        said.append(f"{name} {text}")
    message = "; ".join(dict.fromkeys(said)) or str(envelope.get("message", ""))
    return {**envelope, "message": message, "details": details}
