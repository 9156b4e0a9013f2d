"""The sqlite-vec store under concurrent writers, killed processes and reopening."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import CAPABILITIES, SqliteVecStore
from mnemowire.adapters.sqlite_vec._keywords import rows_of
from mnemowire.adapters.sqlite_vec._schema import MIGRATIONS
from mnemowire.embedders import HashEmbedder
from mnemowire.kit import searchable_text, to_wire
from tests.adapters._support import CheckedStore

from .conftest import StoreFactory

WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from mnemowire.adapters.sqlite_vec import SqliteVecStore
    from mnemowire.embedders import HashEmbedder
    from mnemowire.layers.memory import Memory

    async def main(path, tag, count):
        async with Memory(SqliteVecStore(path, embedder=HashEmbedder(64))) as store:
            for i in range(count):
                await store.remember({"agent_id": "shared", "type": "semantic",
                                      "content": f"{tag} note {i}", "metadata": {"w": tag}})
                print(i, flush=True)

    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
    """
)


def consistent(path: Path) -> dict[str, int]:
    """Check the invariants a crash must never break, and return the per-table counts."""
    store = SqliteVecStore(str(path), embedder=HashEmbedder(64))
    try:
        db = store._db.connection
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        active = db.execute("SELECT count(*) FROM memories WHERE state = 'active'").fetchone()[0]
        vec = db.execute("SELECT count(*) FROM memories_vec").fetchone()[0]
        indexed = db.execute("SELECT count(DISTINCT record) FROM keywords").fetchone()[0]
        stats = db.execute("SELECT coalesce(sum(visible), 0) FROM agent_stats").fetchone()[0]
        # the keyword index holds exactly the active records' words, under their own agent
        expected = {
            row
            for rowid, agent, kind, content in db.execute(
                "SELECT rowid, agent_id, type, content FROM memories WHERE state = 'active'"
            )
            for row in rows_of(agent, rowid, searchable_text(kind, content))
        }
        held = set(db.execute("SELECT token, record FROM keywords"))
        audited = db.execute(
            "SELECT count(*) FROM audit_log WHERE operation = 'remember'"
        ).fetchone()[0]
        total = db.execute("SELECT count(*) FROM memories").fetchone()[0]
        assert active == vec == indexed == stats  # every test record has an indexed word
        assert held == expected
        assert audited == total  # every record has its audit row, none without
        return {"active": active, "total": total}
    finally:
        db.close()


def test_concurrent_writer_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    SqliteVecStore(str(path), embedder=HashEmbedder(64))._db.close()  # create it once
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), f"w{n}", "40"], stdout=subprocess.DEVNULL
        )
        for n in range(3)
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    assert consistent(path) == {"active": 120, "total": 120}


async def test_concurrent_writers_in_one_process(tmp_path: Path) -> None:
    path = str(tmp_path / "threads.db")
    stores = [CheckedStore(SqliteVecStore(path, embedder=HashEmbedder(64))) for _ in range(3)]
    try:
        await asyncio.gather(
            *(
                store.remember({"agent_id": "a", "type": "semantic", "content": f"s{n} {i}"})
                for n, store in enumerate(stores)
                for i in range(30)
            )
        )
    finally:
        for store in stores:
            await store.aclose()
    assert consistent(tmp_path / "threads.db") == {"active": 90, "total": 90}


def test_a_killed_writer_leaves_no_partial_record(tmp_path: Path) -> None:
    path = tmp_path / "killed.db"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), "k", "100000"], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    for _ in range(30):  # let it commit a few, then kill it mid-stream
        writer.stdout.readline()
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    writer.stdout.close()
    counts = consistent(path)
    assert counts["active"] == counts["total"] >= 30


#: staged writes a killed reviewer approves part of (far more than it gets through)
STAGED = 1000
REVIEWER = textwrap.dedent(
    """
    import asyncio, sys
    from mnemowire.adapters.sqlite_vec import SqliteVecStore
    from mnemowire.embedders import HashEmbedder
    from mnemowire.layers.memory import Memory

    async def main(path):
        async with Memory(SqliteVecStore(path, embedder=HashEmbedder(64))) as store:
            body = {"agent_id": "a", "limit": 200, "related": 0}
            while True:
                queue = await store.reviews(body)
                if not queue.reviews:
                    break
                for review in queue.reviews:
                    await store.decide({"agent_id": "a", "review_id": review.review_id,
                                        "approved": True, "reviewer": "r"})
                    print(review.review_id, flush=True)

    asyncio.run(main(sys.argv[1]))
    """
)


async def test_a_reviewer_killed_mid_approval_leaves_each_write_applied_or_pending(
    tmp_path: Path,
) -> None:
    """Each decision is one transaction: applied, audited and ended, or none of it."""
    path = tmp_path / "reviewed.db"
    async with CheckedStore(SqliteVecStore(str(path), embedder=HashEmbedder(64))) as store:
        for i in range(STAGED):
            await store.remember(
                {"agent_id": "a", "type": "semantic", "content": f"staged {i}",
                 "approval_required": True}
            )  # fmt: skip
    reviewer = subprocess.Popen(
        [sys.executable, "-c", REVIEWER, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert reviewer.stdout is not None
    for _ in range(20):  # let it decide a few, then kill it mid-stream
        reviewer.stdout.readline()
    os.kill(reviewer.pid, signal.SIGKILL)
    reviewer.wait(timeout=30)
    reviewer.stdout.close()
    consistent(path)
    db = sqlite3.connect(path)
    try:
        states = dict(db.execute("SELECT m.id, m.state || '/' || r.state FROM memories m "
                                 "JOIN reviews r ON r.review_id = m.id"))  # fmt: skip
        decided = {
            record_id
            for (ids,) in db.execute("SELECT ids FROM audit_log WHERE operation = 'decide'")
            for record_id in json.loads(ids)
        }
    finally:
        db.close()
    assert set(states.values()) <= {"active/approved", "pending/pending"}
    approved = {i for i, state in states.items() if state == "active/approved"}
    assert approved == decided
    assert 20 <= len(approved) < STAGED  # killed mid-stream, not after the last


async def test_reopening_keeps_everything_and_migrations_run_once(tmp_path: Path) -> None:
    path = str(tmp_path / "reopen.db")
    async with CheckedStore(SqliteVecStore(path, embedder=HashEmbedder(64))) as store:
        stored = await store.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
    async with CheckedStore(SqliteVecStore(path, embedder=HashEmbedder(64))) as store:
        found = await store.recall({"agent_id": "a", "query": "tea"})
        assert [h.id for h in found.results] == [stored.id]
        health = await store.health()
        assert health.details is not None
        assert health.details["schema_version"] == len(MIGRATIONS)
    connection = sqlite3.connect(path)
    versions = connection.execute(
        "SELECT value FROM mnemowire_meta WHERE key = 'schema_version'"
    ).fetchall()
    connection.close()
    assert versions == [(str(len(MIGRATIONS)),)]


async def test_audit_log_records_every_mutation_and_is_append_only(
    make_store: StoreFactory, tmp_path: Path
) -> None:
    store = make_store()
    first = await store.remember({"agent_id": "a", "type": "semantic", "content": "one"})
    second = await store.remember({"agent_id": "a", "type": "semantic", "content": "two"})
    await store.merge({"agent_id": "a", "canonical": first.id, "duplicates": [second.id]})
    await store.forget({"agent_id": "a", "ids": [first.id], "reason": "test"})
    await store.expire({"agent_id": "a", "policy": {"older_than_days": 1}})
    connection = sqlite3.connect(tmp_path / "memory.db")
    log = connection.execute(
        "SELECT operation, agent_id, length(request_sha256) FROM audit_log ORDER BY seq"
    ).fetchall()
    assert log == [
        ("remember", "a", 64),
        ("remember", "a", 64),
        ("merge", "a", 64),
        ("forget", "a", 64),
        ("expire", "a", 64),
    ]
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        connection.execute("UPDATE audit_log SET operation = 'nothing'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        connection.execute("DELETE FROM audit_log")
    connection.close()


async def test_bulk_import_is_all_or_nothing_on_bad_input(make_store: StoreFactory) -> None:
    store = make_store()
    good = [{"agent_id": "a", "type": "semantic", "content": f"fact {i}"} for i in range(10)]
    bad = {"agent_id": "a", "type": "semantic", "content": ""}
    with pytest.raises(Exception, match="content"):
        await store.remember_many([*good, bad])
    assert (await store.recall({"agent_id": "a", "query": "fact"})).results == []
    responses = await store.remember_many(good, batch_size=3)
    assert len({r.id for r in responses}) == 10
    found = await store.recall({"agent_id": "a", "query": "fact", "k": 20})
    assert len(found.results) == 10


async def test_health_and_capabilities_are_spec_messages(make_store: StoreFactory) -> None:
    store = make_store()
    health = await store.health()
    assert health.status == "ok"
    assert health.details is not None
    assert health.details["sqlite_vec"].startswith("v0.1")
    assert "(" in health.details["sqlite"]  # names the SQLite module in use
    capabilities = store.capabilities()
    assert spec.validate("capabilities", to_wire(capabilities)) is None
    assert set(capabilities.capabilities) == set(CAPABILITIES)


async def test_closed_store_reports_down_and_refuses_work(make_store: StoreFactory) -> None:
    store = make_store()
    await store.aclose()
    assert (await store.health()).status == "down"
    with pytest.raises(Exception, match="closed"):
        await store.recall({"agent_id": "a", "query": "x"})


def test_urls(tmp_path: Path) -> None:
    store = SqliteVecStore.from_url(
        f"sqlite-vec://{tmp_path}/u.db?embedder=hash:16&name=mine", embedder=HashEmbedder(16)
    )
    assert (store.path, store.name) == (f"{tmp_path}/u.db", "mine")
    store._db.close()
    memory = SqliteVecStore.from_url("sqlite-vec://:memory:", embedder=HashEmbedder(16))
    assert memory.path == ":memory:"
    memory._db.close()


def test_wall_clock_is_the_default(tmp_path: Path) -> None:
    store = SqliteVecStore(str(tmp_path / "c.db"), embedder=HashEmbedder(16))
    assert abs(store._clock() - time.time() * 1000) < 5000
    store._db.close()
