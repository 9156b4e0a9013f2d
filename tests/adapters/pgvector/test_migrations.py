"""A schema made by an earlier release opens with everything in it, migrated in one
transaction: version 2 re-keys the keyword index by agent and adds the erased ids."""

from __future__ import annotations

import pytest

from mnemowire.adapters.pgvector import _migrations
from mnemowire.adapters.pgvector._sql import agent_key
from mnemowire.embedders import HashEmbedder

from .conftest import Database, StoreFactory, schema_version


async def test_a_version_one_schema_is_migrated_and_stays_searchable(
    make_store: StoreFactory, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = HashEmbedder(16)
    with schema_version(monkeypatch, 1):
        old = make_store(embedder=embedder)
        await old.inner.open()
        await old.inner.aclose()
    [vector] = embedder.embed(["the zebracorn invoice"])
    for agent, record in (("a", "r1"), ("b", "r2")):  # as release 0.1 wrote them
        db.execute(
            "INSERT INTO memories (id, agent_id, type, content, metadata, confidence, created_at, "
            "updated_at, state, embedding, search) VALUES (%s, %s, 'semantic', "
            "'the zebracorn invoice', '{}', 1.0, 1, 1, 'active', %s::vector, "
            "'zebracorn:2 invoice:3'::tsvector)",
            record,
            agent,
            str([float(x) for x in vector]),
        )
    store = make_store(embedder=embedder)
    found = await store.recall({"agent_id": "a", "query": "zebracorn", "k": 5})
    assert [h.id for h in found.results] == ["r1"]
    assert db.rows("SELECT max(version) FROM mnemowire_migrations") == [
        (len(_migrations.MIGRATIONS),)
    ]
    rows = dict(db.rows("SELECT id, search::text FROM memories ORDER BY id"))
    assert rows == {
        "r1": f"'{agent_key('a')}/invoice' '{agent_key('a')}/zebracorn'",
        "r2": f"'{agent_key('b')}/invoice' '{agent_key('b')}/zebracorn'",
    }
    assert db.rows("SELECT count(*) FROM erased") == [(0,)]
    # version 11 drops the HNSW graph; two records are too few for the IVFFlat index
    assert db.rows("SELECT count(*) FROM pg_indexes WHERE indexname = 'memories_embedding'") == [
        (0,)
    ]


async def test_version_seven_gives_each_erased_id_the_agent_the_audit_log_names(
    make_store: StoreFactory, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    with schema_version(monkeypatch, 6):
        old = make_store()
        await old.inner.open()
        await old.inner.aclose()
    for at, agent, ids in ((1, "a", '["r1", "r2"]'), (2, "b", '["r3"]'), (3, "b", '["r1"]')):
        db.execute(
            "INSERT INTO audit_log (at, operation, agent_id, ids, request_sha256) "
            "VALUES (%s, 'remember', %s, %s, 'x')",
            at,
            agent,
            ids,
        )
    db.execute("INSERT INTO erased (id) VALUES ('r1'), ('r3'), ('r4')")
    store = make_store()
    exported = await store.export_records({"agent_id": "a"})
    assert [t.id for t in exported.tombstones] == ["r1"]  # the earliest entry naming it
    assert dict(db.rows("SELECT id, agent_id FROM erased")) == {"r1": "a", "r3": "b", "r4": None}


async def test_version_nine_counts_a_recall_time_as_one_recall(
    make_store: StoreFactory, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    with schema_version(monkeypatch, 8):
        old = make_store()
        recalled = await old.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
        await old.remember({"agent_id": "a", "type": "semantic", "content": "never asked"})
        await old.inner.aclose()
    # a recall time as version 8 kept it
    db.execute(
        "INSERT INTO recalls (memory, at) SELECT seq, 5 FROM memories WHERE id = %s", recalled.id
    )
    store = make_store()
    lines = (await store.export_records({"agent_id": "a"})).records
    counts = {line.record.id: line.recall_count for line in lines}
    assert counts.pop(recalled.id) == 1
    assert list(counts.values()) == [None]  # never recalled: no count on its line
