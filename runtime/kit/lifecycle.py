"""Spec v0.4's operations a store serves over its own others, as one object made over the
store (like its record operations): ``consolidate`` over its export, gets and merges
(``kit.consolidation``), ``promote`` over those and its remembers and expires
(``kit.promotion``), and procedure runs over its get, remember and update
(``kit.procedures``). The sqlite-vec and pgvector stores hand these requests to it through
``ComposedStore``; the router makes one over itself, so one plan or run spans its children."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from mnemowire.kit.consolidation import consolidate
from mnemowire.kit.procedures import RunningStore, run_fire, run_get, run_start
from mnemowire.kit.promotion import PromotingStore, promote
from mnemowire.models import (
    ConsolidateRequest,
    ConsolidateResponse,
    PromoteRequest,
    PromoteResponse,
    RunFireRequest,
    RunFireResponse,
    RunGetRequest,
    RunGetResponse,
    RunStartRequest,
    RunStartResponse,
)

__all__ = ["LifecycleOperations", "ServedStore"]


class ServedStore(PromotingStore, RunningStore, Protocol):
    """What the lifecycle operations are made of: the store's own operations."""


class LifecycleOperations:
    """consolidate, promote, run_start, run_fire and run_get over ``store``; ``clock`` (epoch
    ms) is the store's, which a promotion's ages and a run's time limit are judged by."""

    def __init__(self, store: ServedStore, clock: Callable[[], int]) -> None:
        self._store = store
        self._clock = clock

    async def consolidate(self, request: ConsolidateRequest) -> ConsolidateResponse:
        return await consolidate(self._store, request)

    async def promote(self, request: PromoteRequest) -> PromoteResponse:
        return await promote(self._store, request, clock=self._clock)

    async def run_start(self, request: RunStartRequest) -> RunStartResponse:
        return await run_start(self._store, request, clock=self._clock)

    async def run_fire(self, request: RunFireRequest) -> RunFireResponse:
        return await run_fire(self._store, request, clock=self._clock)

    async def run_get(self, request: RunGetRequest) -> RunGetResponse:
        return await run_get(self._store, request, clock=self._clock)
