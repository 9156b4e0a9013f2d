"""Run the conformance checks inside an adapter's own pytest suite.

In the adapter's ``conftest.py``::

    pytest_plugins = ["mnemowire.conformance.pytest_plugin"]

    @pytest.fixture
    def memorywire_store_factory():
        @contextlib.asynccontextmanager
        async def opened():
            store = MyStore(...)            # a fresh store per check
            try:
                yield store
            finally:
                await store.aclose()
        return opened

and in a test module::

    from mnemowire.conformance.pytest_plugin import conformance_tests
    test_memorywire = conformance_tests()    # one pytest test per check

Each check becomes its own test (skipped when the store lacks a capability, with the reason);
``--memorywire-examples`` and ``--memorywire-seed`` tune the generated parts.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from mnemowire.conformance import RunOptions, StoreFactory, select_checks
from mnemowire.conformance._harness import run_checks

__all__ = ["ConformanceWarning", "conformance_tests", "pytest_addoption"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("memorywire", "memorywire conformance")
    group.addoption(
        "--memorywire-examples", type=int, default=50, help="generated requests per request schema"
    )
    group.addoption("--memorywire-seed", type=int, default=0, help="seed of generated cases")
    group.addoption(
        "--memorywire-stateful-runs",
        type=int,
        default=20,
        help="operation sequences checked against the model",
    )


class ConformanceWarning(UserWarning):
    """A SHOULD or MAY of the spec that the store does not meet: reported, not failed."""


def conformance_tests(only: Sequence[str] = ()) -> Callable[..., None]:
    """A parametrised test function running every check (or those ``only`` names)."""
    selected = select_checks(only)

    @pytest.mark.parametrize("check_id", [c.id for c in selected])
    def test(
        check_id: str, memorywire_store_factory: StoreFactory, request: pytest.FixtureRequest
    ) -> None:
        item = next(c for c in selected if c.id == check_id)
        options = RunOptions(
            seed=request.config.getoption("--memorywire-seed"),
            examples=request.config.getoption("--memorywire-examples"),
            stateful_runs=request.config.getoption("--memorywire-stateful-runs"),
        )

        def factory_for(_: Any) -> StoreFactory:
            return memorywire_store_factory

        [outcome] = asyncio.run(run_checks(factory_for, [item], options))
        if outcome.status == "SKIP":
            pytest.skip(outcome.reason)
        if outcome.status != "PASS" and item.strength != "MUST":
            warnings.warn(
                f"{item.strength} not met: {item.id} [{item.section}] {outcome.reason}",
                ConformanceWarning,
                stacklevel=1,
            )
            return
        if outcome.status != "PASS":
            detail = f"\n{outcome.reproducer}" if outcome.reproducer else ""
            pytest.fail(
                f"{outcome.status} [{item.section}, {item.strength}] {outcome.reason}{detail}",
                pytrace=False,
            )

    return test
