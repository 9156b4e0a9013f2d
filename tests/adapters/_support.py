"""Test helpers every adapter's tests share: a fake clock, and store wrappers that let a test
write its requests as spec JSON (parsed by the validating boundary's parser, as every client's
are) and that check every response against the spec's response schema."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mnemowire import spec
from mnemowire.kit import to_wire
from mnemowire.layers.validating import ValidatingStore, parse_request
from mnemowire.models.operations import BY_NAME

__all__ = ["RESPONSES", "CheckedStore", "Clock", "Parsing"]

#: the response message of each operation (and health)
RESPONSES = {**{o.name: o.response_message for o in BY_NAME.values()}, "health": "health"}


class Clock:
    """Epoch milliseconds that only move when a test says so."""

    def __init__(self, now: int = 1_780_000_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, *, days: float = 0, ms: int = 0) -> None:
        self.now += int(days * 86_400_000) + ms


class Parsing:
    """A store that takes requests as spec JSON: the operations' requests are parsed into
    models first (``remember_many``, the facade's bulk import, goes through the facade), a
    bad one refused with the spec's envelope before the store sees it; answers come back raw.
    Everything else is the store's own (``inner``), so it can stand as a router's child, extras
    and internals (read and set) included."""

    def __init__(self, store: Any) -> None:
        object.__setattr__(self, "inner", store)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.inner, name, value)  # a test configuring the store configures the store

    async def __aenter__(self) -> Any:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.inner.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:
        if name == "remember_many":  # the facade's bulk import: remember_batch in chunks
            importing = ValidatingStore(self.inner).remember_many

            async def bulk(requests: Any, **kwargs: Any) -> Any:
                return self._answer(name, await importing(requests, **kwargs))

            return bulk
        attribute = getattr(self.inner, name)
        if name in BY_NAME:
            model = BY_NAME[name].request

            async def call(request: Any, *args: Any, **kwargs: Any) -> Any:
                return self._answer(
                    name, await attribute(parse_request(model, request), *args, **kwargs)
                )

            return call
        if name == "health":
            return self._checked(name, attribute)
        return attribute

    def _checked(self, name: str, method: Callable[..., Awaitable[Any]]) -> Any:
        async def call(*args: Any, **kwargs: Any) -> Any:
            return self._answer(name, await method(*args, **kwargs))

        return call

    def _answer(self, operation: str, response: Any) -> Any:
        return response


class CheckedStore(Parsing):
    """:class:`Parsing`, and every response validated against the spec before the test sees
    it (an invalid one fails the test)."""

    def _answer(self, operation: str, response: Any) -> Any:
        message = RESPONSES["remember" if operation == "remember_many" else operation]
        for each in response if isinstance(response, list) else [response]:
            envelope = spec.validate(message, to_wire(each))
            assert envelope is None, envelope
        return response
