"""The pgvector store as a whole: bulk import, health and capabilities, URLs and the registry."""

from __future__ import annotations

import numpy as np
import pytest

from mnemowire import spec
from mnemowire.adapters.pgvector import CAPABILITIES, PgVectorStore, _vector_index
from mnemowire.adapters.sqlite_vec import CAPABILITIES as SQLITE_CAPABILITIES
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConfigError, ConflictError, RequestError, UnavailableError
from mnemowire.kit import to_wire
from mnemowire.layers.memory import Memory
from mnemowire.layers.validating import parse_requests
from mnemowire.models import RememberRequest
from mnemowire.protocol import MaintainedStore
from mnemowire.registry import open_store

from .conftest import Database, StoreFactory


async def test_bulk_import_is_all_or_nothing_on_bad_input(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store()
    good = [{"agent_id": "a", "type": "semantic", "content": f"fact {i}"} for i in range(10)]
    bad = {"agent_id": "a", "type": "semantic", "content": ""}
    with pytest.raises(RequestError, match="content"):
        await store.remember_many([*good, bad])
    assert (await store.recall({"agent_id": "a", "query": "fact"})).results == []
    responses = await store.remember_many(good, batch_size=3)
    assert len({r.id for r in responses}) == 10
    found = await store.recall({"agent_id": "a", "query": "fact", "k": 20})
    assert len(found.results) == 10
    assert db.rows("SELECT count(*) FROM audit_log WHERE operation = 'remember'") == [(10,)]


async def test_bulk_import_replays_known_ids_and_keeps_every_field(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store()
    await store.remember({"agent_id": "a", "id": "known", "type": "semantic", "content": "tea"})
    requests = [
        {"agent_id": "a", "id": "known", "type": "semantic", "content": "tea"},
        {"agent_id": "a", "id": "twice", "type": "semantic", "content": "cake"},
        {"agent_id": "a", "id": "twice", "type": "semantic", "content": "cake"},
        {
            "agent_id": "a",
            "type": "emotional",
            "content": "dreads dentists",
            "user_id": "u",
            "sentiment": "negative",
            "valence": -0.5,
            "metadata": {"k": [1, {"x": None}]},
            "approval_required": True,
        },
    ]
    responses = await store.remember_many(requests, batch_size=10)
    assert [(r.id, bool(r.replayed)) for r in responses[:3]] == [
        ("known", True),
        ("twice", False),
        ("twice", True),
    ]
    assert responses[3].pending_approval is True
    assert db.rows("SELECT count(*) FROM memories") == [(3,)]
    row = db.rows(
        "SELECT user_id, sentiment, valence, metadata, state FROM memories WHERE type = 'emotional'"
    )
    assert row == [("u", "negative", -0.5, {"k": [1, {"x": None}]}, "pending")]
    with pytest.raises(ConflictError):
        await store.remember_many(
            [{"agent_id": "a", "id": "known", "type": "semantic", "content": "coffee"}]
        )


async def test_bulk_import_with_vectors_and_a_fresh_load(
    make_store: StoreFactory, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The facade's import takes precomputed vectors; ``load_fresh`` (outside the protocol)
    loads a fresh store with both indexes built once at the end (the vector index from 300
    records here: it waits for ``INDEXED_FROM`` otherwise)."""
    monkeypatch.setattr(_vector_index, "INDEXED_FROM", 1)
    store = make_store()
    raw = store.inner
    texts = [f"report number {i} about topic {i % 7}" for i in range(300)]
    requests = [{"agent_id": "a", "type": "semantic", "content": t} for t in texts]
    with pytest.raises(ValueError, match="shape"):
        await store.remember_many(requests, vectors=np.zeros((3, 64), np.float32))
    typed = parse_requests(RememberRequest, requests)
    with pytest.raises(ValueError, match="shape"):
        await raw.load_fresh(typed, vectors=np.zeros((3, 64), np.float32))
    with pytest.raises(ValueError, match="batch_size"):
        await raw.load_fresh(typed, batch_size=0)
    stored = await raw.load_fresh(
        typed[:200], vectors=raw.embedder.embed(texts[:200]), batch_size=128
    )
    stored += await raw.load_fresh(typed[200:])  # embedded by the store
    assert len(stored) == 300
    # the refused loads wrote nothing
    assert db.rows("SELECT count(*) FROM audit_log WHERE operation = 'remember'") == [(300,)]
    [(definition,)] = db.rows(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'memories_embedding' "
        "AND schemaname = %s",
        db.schema,
    )
    assert "ivfflat" in definition
    assert "lists='18'" in definition  # sqrt(300), rounded up
    assert "WHERE (state = 'active'::text)" in definition
    found = await store.recall({"agent_id": "a", "query": texts[42], "k": 1})
    assert [h.id for h in found.results] == [stored[42].id]


async def test_health_and_capabilities_are_spec_messages(make_store: StoreFactory) -> None:
    store = make_store()
    await store.remember({"agent_id": "a", "type": "semantic", "content": "one"})
    health = await store.health()
    assert health.status == "ok"
    assert health.details is not None
    assert health.details["postgres"].startswith(("1", "2"))
    assert health.details["pgvector"] >= "0.8"  # iterative index scans
    assert health.details["records"] == {"active": 1}
    capabilities = store.capabilities()
    assert spec.validate("capabilities", to_wire(capabilities)) is None
    assert set(capabilities.capabilities) == set(CAPABILITIES)
    assert set(CAPABILITIES) == set(SQLITE_CAPABILITIES)


async def test_closed_store_reports_down_and_refuses_work(make_store: StoreFactory) -> None:
    store = make_store()
    await store.inner.open()
    await store.inner.aclose()
    assert (await store.health()).status == "down"
    with pytest.raises(UnavailableError, match="closed"):
        await store.recall({"agent_id": "a", "query": "x"})


async def test_a_store_opened_by_url_takes_a_clock_like_every_store(
    pg_dsn: str, schema: str
) -> None:
    """open_store(url, clock=...) reaches the constructor (it raised TypeError, so benchmarks
    could not backdate pgvector's records)."""
    url = "pgvector://" + pg_dsn.removeprefix("postgresql://")
    url += ("&" if "?" in url else "?") + f"schema={schema}"
    store = open_store(url, embedder=HashEmbedder(16), clock=lambda: 1_700_000_000_000)
    assert isinstance(store, PgVectorStore)
    async with store:
        stored = await Memory(store).remember(
            {"agent_id": "a", "type": "semantic", "content": "tea"}
        )
    assert stored.stored_at == 1_700_000_000_000


async def test_an_unreachable_server_is_a_clear_error() -> None:
    store = PgVectorStore.from_url(
        "pgvector://nobody@127.0.0.1:1/none?connect_timeout=2", embedder=HashEmbedder(16)
    )
    with pytest.raises(UnavailableError, match="server"):
        await Memory(store).recall({"agent_id": "a", "query": "x"})
    assert (await store.health()).status == "down"
    await store.aclose()


def test_urls_split_store_options_from_libpq_options() -> None:
    store = PgVectorStore.from_url(
        "pgvector://app:s3cret@db.example:6543/memory?sslmode=require&schema=team_a"
        "&pool_max=3&probes=12&application_name=mw",
        embedder=HashEmbedder(16),
    )
    assert store.name == "pgvector://db.example:6543/memory?schema=team_a"
    assert "s3cret" not in store.name
    assert store.schema == "team_a"
    assert store.dsn == (
        "postgresql://app:s3cret@db.example:6543/memory?sslmode=require"
        "&application_name=mw&connect_timeout=10"
    )
    replicated = PgVectorStore.from_url(
        "pgvector://app:pw@primary/db?replica=standby:5433&sslmode=require",
        embedder=HashEmbedder(16),
    )
    assert replicated._replica is not None
    assert replicated._replica.dsn == (
        "postgresql://app:pw@standby:5433/db?sslmode=require&connect_timeout=10"
    )
    named = PgVectorStore.from_url("pgvector://h/db?name=mine", embedder=HashEmbedder(16))
    assert named.name == "mine"
    with pytest.raises(ConfigError, match="pgvector://"):
        PgVectorStore.from_url("postgres://h/db", embedder=HashEmbedder(16))
    with pytest.raises(ConfigError, match="pool_max='many' must be a whole number"):
        PgVectorStore.from_url("pgvector://h/db?pool_max=many", embedder=HashEmbedder(16))
    for bad in (
        "pool_min=5&pool_max=2",
        "pool_max=0",
        "probes=0",
        "ef_search=100",  # HNSW's, gone with the graph (schema version 11)
        "pool_timeout=0",
        "pool_timeout=nan",
        "schema=",
        "sslmod=require",
    ):
        with pytest.raises(ConfigError):
            PgVectorStore.from_url(f"pgvector://h/db?{bad}", embedder=HashEmbedder(16))


async def test_the_registry_opens_pgvector_urls(pg_dsn: str, schema: str) -> None:
    url = "pgvector://" + pg_dsn.removeprefix("postgresql://")
    url += ("&" if "?" in url else "?") + f"schema={schema}&embedder=hash:16"
    store = open_store(url)
    assert isinstance(store, PgVectorStore)
    async with store:
        stored = await Memory(store).remember(
            {"agent_id": "a", "type": "semantic", "content": "tea"}
        )
        found = await Memory(store).recall({"agent_id": "a", "query": "tea"})
        assert [h.id for h in found.results] == [stored.id]


async def test_vacuum_prewarm_and_drop(
    make_store: StoreFactory, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store()
    maintained = isinstance(store.inner, MaintainedStore)  # how the bench reaches it
    assert maintained
    async with SqliteVecStore(":memory:", embedder=HashEmbedder(16)) as other:
        assert not isinstance(other, MaintainedStore)
    await store.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
    assert not any("INDEX" in done for done in await store.inner.vacuum())  # too few to index
    assert db.rows("SELECT count(*) FROM pg_stats WHERE schemaname = %s", db.schema) != [(0,)]
    assert set(await store.inner.prewarm()) == {"memories", "memories_search", "memories_scope"}
    monkeypatch.setattr(_vector_index, "INDEXED_FROM", 1)
    assert any("memories_embedding" in done for done in await store.inner.vacuum())
    loaded = await store.inner.prewarm()
    assert set(loaded) == {"memories", "memories_embedding", "memories_search", "memories_scope"}
    assert all(pages >= 1 for pages in loaded.values())
    await store.inner.drop()
    assert db.rows("SELECT count(*) FROM pg_namespace WHERE nspname = %s", db.schema) == [(0,)]
    with pytest.raises(UnavailableError, match="closed"):
        await store.recall({"agent_id": "a", "query": "tea"})
    public = PgVectorStore("postgresql://nobody@127.0.0.1:1/none", embedder=HashEmbedder(16))
    with pytest.raises(ConfigError, match="public"):
        await public.drop()


async def test_the_demo_runs_on_postgresql(pg_dsn: str, schema: str) -> None:
    from mnemowire.apps.demo import run_demo

    url = "pgvector://" + pg_dsn.removeprefix("postgresql://")
    url += ("&" if "?" in url else "?") + f"schema={schema}"
    lines: list[str] = []
    summary = await run_demo(HashEmbedder(64), echo=lines.append, store=url)
    assert summary["memories"] == 33
    assert any(line.startswith("remembered 33 memories into pgvector://") for line in lines)


def test_pgvector_older_than_0_8_is_refused() -> None:
    from mnemowire.adapters.pgvector._database import MIN_PGVECTOR, _version

    assert _version("0.7.4") < MIN_PGVECTOR <= _version("0.8.0") < _version("0.10.1")


async def test_bulk_import_on_several_connections_keeps_the_order(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store(pool_max=4)
    requests = [
        {"agent_id": "a", "id": f"r{i:03}", "type": "semantic", "content": f"fact {i}"}
        for i in range(200)
    ]
    responses = await store.remember_many(requests, batch_size=30, concurrency=3)
    assert [r.id for r in responses] == [r["id"] for r in requests]
    assert db.rows("SELECT count(*), count(DISTINCT id) FROM memories") == [(200, 200)]
    with pytest.raises(ConflictError):  # a failing batch: the error comes out as itself
        await store.remember_many(
            [{"agent_id": "a", "id": "r007", "type": "semantic", "content": "changed"}],
            concurrency=3,
        )
