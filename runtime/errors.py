"""The exceptions mnemowire raises.

One root, :class:`MnemowireError`, so a caller can catch everything we raise in one clause.
Each error carries the spec's error envelope (``code``, ``message``, ``details``), which is what
crosses the wire; the Python class only adds a way to ``except`` by kind::

    MnemowireError                  every error; .envelope is the spec's error JSON
    ├── SpecError                   the spec files themselves are broken (load / lint)
    └── RequestError                a message breaks the spec (code invalid_request)
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MnemowireError", "RequestError", "SpecError"]


class MnemowireError(Exception):
    """Root of every mnemowire error; ``envelope`` is the spec error message as a dict."""

    def __init__(self, envelope: dict[str, Any]) -> None:
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


class RequestError(MnemowireError):
    """A message breaks the spec; ``details`` names every offending field and rule."""
