"""Property-based fuzzing from the spec: for every request schema, generated valid requests
must get a valid response or a spec error (never a crash, never "invalid_request"), and
generated invalid ones must be refused naming the broken field, changing nothing."""

from __future__ import annotations

import asyncio
import json
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from mnemowire import spec
from mnemowire.conformance._harness import CheckFailed, Harness, Skip, check
from mnemowire.conformance.strategies import (
    REQUESTS,
    REQUESTS_V0_1,
    Mutation,
    invalid_requests,
    requests,
)
from mnemowire.errors import MnemowireError
from mnemowire.kit import to_wire

__all__ = ["sample"]

T = TypeVar("T")
_RESPONSE = {m: m.replace(".request", ".response") for m in (*REQUESTS, *REQUESTS_V0_1)}


def sample(strategy: st.SearchStrategy[T], count: int, random_seed: int) -> list[T]:
    """``count`` values drawn by hypothesis, reproducibly for a seed (blocking: run in a thread)."""
    drawn: list[T] = []

    @seed(random_seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: T) -> None:
        drawn.append(value)

    collect()
    return drawn


def _operation(message: str) -> str:
    return message.split(".", 1)[0]


async def _valid(h: Harness, message: str) -> None:
    _require(h, message)
    cases = await asyncio.to_thread(sample, requests(message, h.version), h.examples, h.seed)
    operation = _operation(message)
    for request in cases:
        try:
            response = await getattr(h.store, operation)(request)
        except MnemowireError as exc:
            if exc.code == "invalid_request" or spec.validate("error", exc.envelope) is not None:
                raise CheckFailed(
                    f"a valid {message} was refused: {exc}", reproducer=json.dumps(request)
                ) from exc
            continue
        except Exception as exc:
            raise CheckFailed(
                f"{type(exc).__name__} on a valid {message}: {exc}", reproducer=json.dumps(request)
            ) from exc
        envelope = spec.validate(_RESPONSE[message], to_wire(response))
        if envelope is not None:
            raise CheckFailed(
                f"invalid {_RESPONSE[message]}: {envelope['details'][:3]}",
                reproducer=json.dumps(request),
            )
    if len(cases) < h.examples // 2:
        raise CheckFailed(f"only {len(cases)} {message} cases could be generated")


async def _invalid(h: Harness, message: str) -> None:
    _require(h, message)
    strategy = invalid_requests(message, h.version)
    cases = await asyncio.to_thread(sample, strategy, h.examples, h.seed)
    witness, before = await _witness(h)
    for mutation in cases:
        await _refused(h, message, _aimed(mutation, witness), mutation)
    if await _snapshot(h, witness) == before:
        return
    # one recall after all of them, not one after each (a recall costs seconds on some
    # backends): only a failing store pays for finding which request changed it
    witness, before = await _witness(h)
    for mutation in cases:
        request = _aimed(mutation, witness)
        await _refused(h, message, request, mutation)
        if await _snapshot(h, witness) != before:
            raise CheckFailed(
                f"a refused {message} changed the store", reproducer=json.dumps(request)
            )
    raise CheckFailed(
        f"refused {message}s changed the store, though none did when sent again one by one",
        reproducer="\n".join(json.dumps(_aimed(m, witness)) for m in cases),
    )


async def _witness(h: Harness) -> tuple[str, list[tuple[str, str, float]]]:
    """An agent holding known records, and what a recall of them returns."""
    witness = h.agent("witness")
    for text in ("Alice likes tea", "Bob fixes bikes", "the sky is blue"):
        await h.remember(witness, text)
    return witness, await _snapshot(h, witness)


async def _refused(h: Harness, message: str, request: dict[str, Any], mutation: Mutation) -> None:
    """Send a request breaking one rule: it must be refused, naming the broken field."""
    try:
        await getattr(h.store, _operation(message))(request)
    except MnemowireError as exc:
        paths = [d.get("path", "") for d in exc.details]
        named = any(p == mutation.path or p.startswith(mutation.path + "/") for p in paths)
        if exc.code != "invalid_request" or not named:
            raise CheckFailed(
                f"breaking {mutation.path} ({mutation.kind}) gave {exc.code} naming {paths}",
                reproducer=json.dumps(request),
            ) from exc
    except Exception as exc:
        raise CheckFailed(
            f"{type(exc).__name__} on an invalid {message}: {exc}",
            reproducer=json.dumps(request),
        ) from exc
    else:
        raise CheckFailed(
            f"an invalid {message} ({mutation.kind} {mutation.path}) was accepted",
            reproducer=json.dumps(request),
        )


def _require(h: Harness, message: str) -> None:
    if message not in spec.read_spec(h.version).messages:
        raise Skip(f"{message} is not in spec {h.version}, which the store speaks")


def _aimed(mutation: Mutation, witness: str) -> dict[str, Any]:
    """Point the broken request at the witness agent, so a partial write would show."""
    request = dict(mutation.request)
    if mutation.path != "/agent_id":
        request["agent_id"] = witness
    return request


async def _snapshot(h: Harness, agent: str) -> list[tuple[str, str, float]]:
    hits = await h.recall(agent, "tea bikes sky")
    return sorted((hit.id, hit.content, round(hit.score, 12)) for hit in hits)


def _register(message: str) -> None:
    operation = _operation(message)

    async def valid(h: Harness) -> None:
        await _valid(h, message)

    async def invalid(h: Harness) -> None:
        await _invalid(h, message)

    valid.__doc__ = f"Generated valid {message}s get a valid response or a spec error."
    invalid.__doc__ = f"Generated {message}s breaking one rule are refused, naming the field."
    needs = [operation] if message in REQUESTS_V0_1 else []
    check(f"fuzz.{operation}.valid", section="validation.responses", needs=needs)(valid)
    check(f"fuzz.{operation}.invalid", section="validation.requests", needs=needs)(invalid)


for _message in (*REQUESTS, *REQUESTS_V0_1):
    _register(_message)
