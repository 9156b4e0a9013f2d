"""The vector index (``_vector_index``): none below INDEXED_FROM active records, then IVFFlat
with sqrt(rows) cells, built in the background a recall starts, rebuilt beside the old one as
the table grows, one builder per schema; the probes a search sets; the upgrade from the HNSW
graph of schema versions 1-10 (docs/adapters/pgvector.md#vector-index)."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from mnemowire.adapters.pgvector import _migrations, _vector_index
from mnemowire.adapters.pgvector._vector_index import (
    ALL_CELLS,
    GROWTH,
    INDEXED_FROM,
    LOCK,
    lists_for,
    probes_for,
)
from mnemowire.embedders import HashEmbedder

from .conftest import Database, StoreFactory, schema_version


def test_lists_grow_with_the_square_root_of_the_rows() -> None:
    assert lists_for(INDEXED_FROM - 1) is None
    assert lists_for(INDEXED_FROM) == math.ceil(math.sqrt(INDEXED_FROM))
    assert lists_for(100_000) == 317


def test_probes_widen_as_the_scope_narrows_and_never_scan_too_few_rows() -> None:
    whole = probes_for(317, 100_000, 1.0)
    assert whole == math.ceil(317 / 12)
    tenth = probes_for(317, 100_000, 0.1)
    hundredth = probes_for(317, 100_000, 0.01)
    assert whole < tenth < hundredth <= 317
    assert tenth == math.ceil(317 / 12 * 1.2)
    # a few thousand records are probed whole: the search is exact there
    assert probes_for(55, 3_000, 0.1) == 55
    # a table never analyzed has no size to go by: probe everything
    assert probes_for(40, 0.0, 1.0) == 40
    # an empty scope (share 0) is taken as a millionth, not a math error
    assert probes_for(317, 100_000, 0.0) == math.ceil(317 / 12 * 2.2)


def index(db: Database) -> tuple[str, ...]:
    """The vector index's definition, and every index whose name starts like it."""
    rows = db.rows(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = %s "
        "AND indexname LIKE 'memories_embedding%%' ORDER BY indexname",
        db.schema,
    )
    return tuple(f"{name}: {definition}" for name, definition in rows)


async def fill(store: Any, start: int, stop: int) -> None:
    await store.remember_many(
        [
            {"agent_id": f"a{i % 3}", "type": "semantic", "content": f"note {i} about {i % 17}"}
            for i in range(start, stop)
        ],
        batch_size=500,
    )


async def test_a_recall_builds_the_index_once_the_table_is_big_enough_then_rebuilds_it(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store(embedder=HashEmbedder(16))
    keeper = store.inner._index
    await fill(store, 0, INDEXED_FROM - 100)
    db.execute("ANALYZE memories")
    await store.recall({"agent_id": "a0", "query": "note 5"})
    assert await keeper.wait() is None  # nothing started, or nothing to do
    assert index(db) == ()
    await fill(store, INDEXED_FROM - 100, 1_300)
    db.execute("ANALYZE memories")
    await store.recall({"agent_id": "a0", "query": "note 5"})
    built = await keeper.wait()
    assert built is not None
    assert "lists = 37" in built
    assert "no index" in built
    [definition] = index(db)
    assert "USING ivfflat" in definition
    assert "lists='37'" in definition
    assert "WHERE (state = 'active'::text)" in definition
    # grown past GROWTH times what it was sized for: rebuilt beside the old one, renamed
    await fill(store, 1_300, GROWTH * 37 * 37 + 50)
    db.execute("ANALYZE memories")
    store.inner._sizes.expire()  # as SIZE_TTL_SECONDS passing would
    await store.recall({"agent_id": "a1", "query": "note 7"})
    rebuilt = await keeper.wait()
    assert rebuilt is not None
    assert "was 37 lists" in rebuilt
    [definition] = index(db)  # no _next or _old left behind
    assert f"lists='{lists_for(GROWTH * 37 * 37 + 50)}'" in definition
    found = await store.recall({"agent_id": "a1", "query": "note 1300 about 8", "k": 1})
    assert found.results[0].content == "note 1300 about 8"


async def test_closing_the_store_lets_a_running_build_finish(
    make_store: StoreFactory, db: Database
) -> None:
    """A one-shot process (a CLI recall) starts the build and closes right away: the build
    must not be thrown away, or such a table never gets an index."""
    store = make_store(embedder=HashEmbedder(16))
    await fill(store, 0, 1_100)
    db.execute("ANALYZE memories")
    await store.recall({"agent_id": "a0", "query": "note 5"})
    assert store.inner._index._task is not None
    await store.inner.aclose()
    [definition] = index(db)
    assert definition.startswith("memories_embedding: ")
    assert "lists='34'" in definition


async def test_one_builder_at_a_time_and_a_killed_build_is_cleaned_up(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store(embedder=HashEmbedder(16))
    await fill(store, 0, 1_100)
    keeper = store.inner._index
    [(held,)] = db.rows(f"SELECT pg_try_advisory_lock({LOCK})")
    assert held
    assert await keeper.keep() is None  # another process builds
    assert index(db) == ()
    db.execute(f"SELECT pg_advisory_unlock({LOCK})")
    # what a build killed half-way leaves: an index under the temporary name
    db.execute(
        "CREATE INDEX memories_embedding_next ON memories USING ivfflat "
        "(embedding vector_cosine_ops) WITH (lists = 2)"
    )
    assert "lists = 34" in (await store.inner.vacuum())[-1]
    [definition] = index(db)
    assert definition.startswith("memories_embedding: ")
    assert "lists='34'" in definition
    assert await keeper.keep() is None  # sized right: nothing to do


async def test_nothing_waits_for_a_build_another_process_runs(
    make_store: StoreFactory, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While another process builds (it holds the build lock, and a concurrent build waits for
    every older transaction), opening a store with the index missing and a bulk import go on
    without it instead of waiting: waiting could deadlock. Before, each waited for the lock."""
    monkeypatch.setattr(_vector_index, "INDEXED_FROM", 1)
    store = make_store(embedder=HashEmbedder(16))
    await fill(store, 0, 20)
    [(held,)] = db.rows(f"SELECT pg_try_advisory_lock({LOCK})")
    assert held
    try:
        opened = make_store(embedder=HashEmbedder(16))
        await asyncio.wait_for(opened.inner.open(), 10)  # would build: 20 records, INDEXED_FROM 1
        assert index(db) == ()
        async with asyncio.timeout(10):
            async with opened.inner.bulk_import(1_000) as deferred:
                assert not deferred
    finally:
        db.execute(f"SELECT pg_advisory_unlock({LOCK})")
    assert "CREATE INDEX CONCURRENTLY" in (await store.inner.vacuum())[-1]


async def test_a_search_sets_its_probes_on_the_connection(
    make_store: StoreFactory, db: Database
) -> None:
    """Each connection starts with the probes of a search over the whole table (what the
    duplicate check on write and a review's similar records use); a recall sets its own."""
    store = make_store(embedder=HashEmbedder(16))
    await fill(store, 0, 1_100)
    async with store.inner._db.connection("test") as conn:
        # no index yet: one built before this process reads its cells is searched whole
        cursor = await conn.execute("SELECT current_setting('ivfflat.probes')")
        assert await cursor.fetchone() == (str(ALL_CELLS),)
    await store.inner.vacuum()
    found = await store.recall({"agent_id": "a1", "query": "note 4 about 4", "k": 1})
    assert found.results[0].content == "note 4 about 4"  # all cells: PostgreSQL takes them
    opened = make_store(embedder=HashEmbedder(16))
    async with opened.inner._db.connection("test") as conn:
        cursor = await conn.execute(
            "SELECT current_setting('ivfflat.probes'), current_setting('ivfflat.max_probes')"
        )
        assert await cursor.fetchone() == ("34", "34")  # 1,100 records: searched whole
    keeper = store.inner._index
    async with store.inner._db.connection("test") as conn:
        await keeper.before_search(conn, 317, 100_000.0, 10_000)
        cursor = await conn.execute(
            "SELECT current_setting('ivfflat.probes'), current_setting('ivfflat.max_probes')"
        )
        probes = probes_for(317, 100_000, 0.1)
        assert await cursor.fetchone() == (str(probes), str(4 * probes))
    fixed = make_store(embedder=HashEmbedder(16), probes=5)
    async with fixed.inner._db.connection("test") as conn:
        cursor = await conn.execute("SELECT current_setting('ivfflat.probes')")
        assert await cursor.fetchone() == ("5",)
        await fixed.inner._index.before_search(conn, 317, 100_000.0, 10_000)
        cursor = await conn.execute("SELECT current_setting('ivfflat.probes')")
        assert await cursor.fetchone() == ("5",)


async def test_a_version_ten_store_trades_its_hnsw_graph_for_ivfflat_on_open(
    make_store: StoreFactory, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = HashEmbedder(16)
    with schema_version(monkeypatch, 10):
        old = make_store(embedder=embedder)
        await fill(old, 0, 1_200)
        await old.inner.aclose()
        [definition] = index(db)
        assert "USING hnsw" in definition
    store = make_store(embedder=embedder)
    found = await store.recall({"agent_id": "a0", "query": "note 9 about 9", "k": 1})
    assert found.results[0].content == "note 9 about 9"
    [definition] = index(db)
    assert "USING ivfflat" in definition
    assert "lists='35'" in definition
    assert db.rows("SELECT max(version) FROM mnemowire_migrations") == [
        (len(_migrations.MIGRATIONS),)
    ]


def test_the_build_memory_covers_k_means(monkeypatch: pytest.MonkeyPatch) -> None:
    """maintenance_work_mem for a build: pgvector refuses to build in less than k-means
    needs, so the store asks for it (never below PostgreSQL's default of 64 MB)."""
    assert _vector_index.build_memory_mb(35, 384) == 64
    assert 400 <= _vector_index.build_memory_mb(1_000, 384) <= 500
