"""Test helpers every adapter's tests share: a fake clock and a store wrapper that checks
every response against the spec's response schema."""

from __future__ import annotations

from typing import Any

from mnemowire import spec
from mnemowire.kit import to_wire

__all__ = ["RESPONSES", "CheckedStore", "Clock"]

#: the response message of each operation (and health)
RESPONSES = {
    "remember": "remember.response",
    "recall": "recall.response",
    "forget": "forget.response",
    "merge": "merge.response",
    "expire": "expire.response",
    "health": "health",
}


class Clock:
    """Epoch milliseconds that only move when a test says so."""

    def __init__(self, now: int = 1_780_000_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, *, days: float = 0, ms: int = 0) -> None:
        self.now += int(days * 86_400_000) + ms


class CheckedStore:
    """A store whose every response is validated against the spec before the test sees it;
    ``inner`` is the store itself, for extras and internals."""

    def __init__(self, store: Any) -> None:
        self.inner = store

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)
        message = RESPONSES.get(name)
        if message is None:
            return attribute

        async def call(*args: Any, **kwargs: Any) -> Any:
            response = await attribute(*args, **kwargs)
            envelope = spec.validate(message, to_wire(response))
            assert envelope is None, envelope
            return response

        return call
