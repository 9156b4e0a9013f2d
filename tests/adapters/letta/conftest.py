"""The Letta store against a real Letta 0.16.8 server, in the `nox -s letta` virtualenv: the
session starts the server (``mnemowire.apps.tools.letta``: PostgreSQL, the project's embedding
endpoint, ``letta server`` from its own virtualenv) and names it in ``MNEMOWIRE_LETTA_URL``;
the main suite ignores this folder. Each test's store is a throwaway one (``ids=:memory:``):
agents of its own on the shared server, deleted on close."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mnemowire.adapters.letta import LettaStore
from tests.adapters._support import CheckedStore, Clock

__all__ = ["CheckedStore", "Clock", "letta_database", "server_url"]


def server_url() -> str:
    """The running server's store URL (``letta://HOST:PORT?embedding=...``)."""
    url = os.environ.get("MNEMOWIRE_LETTA_URL")
    if not url:
        pytest.fail(
            "MNEMOWIRE_LETTA_URL is not set: run these tests with `nox -s letta`, or start a "
            "server with `python -m mnemowire.apps.tools.letta start --dir DIR --venv VENV` "
            "and set MNEMOWIRE_LETTA_URL to the URL it prints"
        )
    return url


def letta_database() -> str:
    """The DSN of the server's own database, when the tool's folder is named
    (``MNEMOWIRE_LETTA_DIR``): a test reads what Letta keeps."""
    from mnemowire.apps.tools import postgres

    folder = os.environ.get("MNEMOWIRE_LETTA_DIR")
    running = None if folder is None else postgres.status(Path(folder) / "pg")
    if running is None:
        pytest.fail("MNEMOWIRE_LETTA_DIR names no running local Letta (`nox -s letta` sets it)")
    return running.dsn("letta")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The dev corpus through Letta first (245 s of the suite on CI), the certifications'
    shards next, the short tests last: xdist's two workers take the tests in this order, so
    the longest does not start when the other worker is nearly done."""
    first = ("test_quality.py", "test_conformance.py")
    items.sort(key=lambda item: first.index(item.path.name) if item.path.name in first else 2)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def raw(clock: Clock) -> AsyncIterator[LettaStore]:
    store = LettaStore.from_url(f"{server_url()}&ids=:memory:", clock=clock)
    try:
        yield store
    finally:
        await store.aclose()


@pytest.fixture
def store(raw: LettaStore) -> CheckedStore:
    """The store with requests parsed and answers held to the spec, as the boundary would."""
    return CheckedStore(raw)
