"""The cognee store on the real cognee 1.6.5 (LanceDB, SQLite, the graph DB in process; the
project's all-MiniLM-L6-v2 as its embedding engine), in the `nox -s cognee` virtualenv: the
main suite does not install cognee (~2.8 GB, and it holds transformers below 5) and ignores
this folder. The first store of a session imports cognee and loads the model (~15 s)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mnemowire.adapters.cognee import CogneeStore
from tests.adapters._support import CheckedStore, Clock

__all__ = ["CheckedStore", "Clock"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """cognee and the libraries under it (alembic, pydantic v1-style fields, litellm) warn
    about their own deprecations while they run; the suite turns warnings into errors for
    this project's code, not for theirs."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning"))


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def raw(clock: Clock) -> AsyncIterator[CogneeStore]:
    store = CogneeStore(":memory:", clock=clock)
    try:
        yield store
    finally:
        await store.aclose()


@pytest.fixture
def store(raw: CogneeStore) -> CheckedStore:
    """The store with requests parsed and answers held to the spec, as the boundary would."""
    return CheckedStore(raw)
