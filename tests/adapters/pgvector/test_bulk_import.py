"""A bulk import (``PgVectorStore.bulk_import``, what ``mnemowire import`` and ``migrate`` hold
around their pages) builds the vector and keyword indexes once, at the end, when the store
holds fewer active records than are coming; recall stays exact meanwhile; a store whose import
was killed before the end builds them when it is next opened; a store holding more is left as
it is (docs/adapters/pgvector.md#bulk). The vector index is built from a handful of records
here (it waits for ``INDEXED_FROM`` otherwise)."""

from __future__ import annotations

from typing import Any

import pytest

from mnemowire.adapters.pgvector import _vector_index
from mnemowire.adapters.pgvector._migrations import DEFERRED

from .conftest import Database, StoreFactory


@pytest.fixture(autouse=True)
def index_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_vector_index, "INDEXED_FROM", 1)


def indexes(db: Database) -> set[str]:
    rows = db.rows(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
        "AND indexname = ANY(%s)",
        list(DEFERRED),
    )
    return {row[0] for row in rows}


async def remember(store: Any, n: int) -> None:
    await store.remember({"agent_id": "a", "type": "semantic", "content": f"zebra fact {n}"})


async def test_indexes_are_built_once_at_the_end_and_recall_is_exact_meanwhile(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store()
    await remember(store, 0)
    async with store.inner.bulk_import(10) as deferred:
        assert deferred
        assert indexes(db) == set()
        for n in range(1, 6):
            await remember(store, n)
        found = await store.recall({"agent_id": "a", "query": "zebra fact", "k": 10})
        assert len(found.results) == 6
        # the recall found the table unindexed; the background build keeps off meanwhile
        assert store.inner._index._task is not None
        assert await store.inner._index.wait() is None
        assert indexes(db) == set()
    assert indexes(db) == set(DEFERRED)
    found = await store.recall({"agent_id": "a", "query": "zebra fact 3", "k": 1})
    assert found.results[0].content == "zebra fact 3"


async def test_a_store_holding_more_than_is_coming_keeps_its_indexes(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store()
    for n in range(3):
        await remember(store, n)
    await store.inner.vacuum()  # builds the vector index
    async with store.inner.bulk_import(3) as deferred:
        assert not deferred
        assert indexes(db) == set(DEFERRED)


async def test_indexes_a_killed_import_left_out_are_built_on_the_next_open(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store()
    await remember(store, 0)
    assert await store.inner._upkeep.defer_indexes(100)  # then the process dies
    assert indexes(db) == set()
    reopened = make_store()
    await reopened.recall({"agent_id": "a", "query": "zebra"})
    assert indexes(db) == set(DEFERRED)
