"""The pgvector store under concurrent writers, killed writers and reviewers, killed
connections, a server restart, and a role that must not rewrite the audit log."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from mnemowire.adapters.pgvector import PgVectorStore, _vector_index
from mnemowire.adapters.pgvector._migrations import MIGRATIONS
from mnemowire.apps.tools.postgres import stop
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import StoreError, UnavailableError
from mnemowire.kit import to_wire
from mnemowire.layers.memory import Memory

from .conftest import Database, StoreFactory, local_server

WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from mnemowire.adapters.pgvector import PgVectorStore
    from mnemowire.embedders import HashEmbedder
    from mnemowire.layers.memory import Memory

    async def main(dsn, schema, tag, count):
        async with Memory(PgVectorStore(dsn, schema=schema, embedder=HashEmbedder(64))) as store:
            for i in range(count):
                await store.remember({"agent_id": "shared", "type": "semantic",
                                      "content": f"{tag} note {i}", "metadata": {"w": tag}})
                print(i, flush=True)

    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
    """
)


def consistent(db: Database) -> dict[str, int]:
    """The invariants a crash must never break; returns the counts."""
    [(total, active)] = db.rows(
        "SELECT count(*), count(*) FILTER (WHERE state = 'active') FROM memories"
    )
    [(audited,)] = db.rows("SELECT count(*) FROM audit_log WHERE operation = 'remember'")
    [(orphans,)] = db.rows(
        "SELECT count(*) FROM memories m WHERE NOT EXISTS (SELECT 1 FROM audit_log a "
        "WHERE a.operation = 'remember' AND a.ids = jsonb_build_array(m.id))"
    )
    assert audited == total  # every record has its audit row, none without
    assert orphans == 0
    return {"active": active, "total": total}


async def test_concurrent_writer_processes_lose_nothing(
    make_store: StoreFactory, db: Database, pg_dsn: str, schema: str
) -> None:
    await make_store().inner.open()  # create the schema once
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, pg_dsn, schema, f"w{n}", "30"],
            stdout=subprocess.DEVNULL,
        )
        for n in range(3)
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    assert consistent(db) == {"active": 90, "total": 90}
    store = make_store()
    found = await store.recall({"agent_id": "shared", "query": "note", "k": 100})
    assert len(found.results) == 90


async def test_concurrent_writers_and_readers_in_one_process(
    make_store: StoreFactory, db: Database
) -> None:
    stores = [make_store(pool_max=4) for _ in range(3)]
    await asyncio.gather(*(store.inner.open() for store in stores))
    writes = [
        store.remember({"agent_id": "a", "type": "semantic", "content": f"s{n} tea {i}"})
        for n, store in enumerate(stores)
        for i in range(25)
    ]
    reads = [stores[0].recall({"agent_id": "a", "query": "tea", "k": 10}) for _ in range(10)]
    await asyncio.gather(*writes, *reads)
    assert consistent(db) == {"active": 75, "total": 75}


async def test_concurrent_opens_of_a_fresh_schema_migrate_once(
    make_store: StoreFactory, db: Database, pg_dsn: str, schema: str
) -> None:
    stores = [make_store() for _ in range(4)]
    await asyncio.gather(*(store.inner.open() for store in stores))
    process = subprocess.run(  # and another process, on the migrated schema
        [sys.executable, "-c", WRITER, pg_dsn, schema, "p", "1"], capture_output=True, check=False
    )
    assert process.returncode == 0, process.stderr
    assert db.rows("SELECT version FROM mnemowire_migrations ORDER BY version") == [
        (n,) for n in range(1, len(MIGRATIONS) + 1)
    ]
    health = await stores[0].health()
    assert health.details is not None
    assert health.details["schema_version"] == len(MIGRATIONS)


def test_a_killed_writer_leaves_no_partial_record(db: Database, pg_dsn: str, schema: str) -> None:
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, pg_dsn, schema, "k", "100000"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    for _ in range(20):  # let it commit a few, then kill it mid-stream
        writer.stdout.readline()
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    writer.stdout.close()
    counts = consistent(db)
    assert counts["active"] == counts["total"] >= 20


#: staged writes a killed reviewer approves part of (far more than it gets through)
STAGED = 1000
REVIEWER = textwrap.dedent(
    """
    import asyncio, sys
    from mnemowire.adapters.pgvector import PgVectorStore
    from mnemowire.embedders import HashEmbedder
    from mnemowire.layers.memory import Memory

    async def main(dsn, schema):
        async with Memory(PgVectorStore(dsn, schema=schema, embedder=HashEmbedder(64))) as store:
            body = {"agent_id": "a", "limit": 200, "related": 0}
            while True:
                queue = await store.reviews(body)
                if not queue.reviews:
                    break
                for review in queue.reviews:
                    await store.decide({"agent_id": "a", "review_id": review.review_id,
                                        "approved": True, "reviewer": "r"})
                    print(review.review_id, flush=True)

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


async def test_a_reviewer_killed_mid_approval_leaves_each_write_applied_or_pending(
    make_store: StoreFactory, db: Database, pg_dsn: str, schema: str
) -> None:
    """Each decision is one transaction: applied, audited and ended, or none of it."""
    store = make_store()
    for i in range(STAGED):
        await store.remember(
            {"agent_id": "a", "type": "semantic", "content": f"staged {i}",
             "approval_required": True}
        )  # fmt: skip
    reviewer = subprocess.Popen(
        [sys.executable, "-c", REVIEWER, pg_dsn, schema], stdout=subprocess.PIPE, text=True
    )
    assert reviewer.stdout is not None
    for _ in range(20):  # let it decide a few, then kill it mid-stream
        reviewer.stdout.readline()
    os.kill(reviewer.pid, signal.SIGKILL)
    reviewer.wait(timeout=30)
    reviewer.stdout.close()
    consistent(db)
    states = dict(
        db.rows(
            "SELECT m.id, m.state || '/' || r.state FROM memories m "
            "JOIN reviews r ON r.review_id = m.id"
        )
    )
    decided = {
        record_id
        for (ids,) in db.rows("SELECT ids FROM audit_log WHERE operation = 'decide'")
        for record_id in ids
    }
    assert len(states) == STAGED
    assert set(states.values()) <= {"active/approved", "pending/pending"}
    approved = {i for i, state in states.items() if state == "active/approved"}
    assert approved == decided
    assert 20 <= len(approved) < STAGED  # killed mid-stream, not after the last


@pytest.fixture
def locker(pg_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    """A second session, to hold locks the store will wait on."""
    with psycopg.connect(pg_dsn) as connection:
        yield connection


async def _kill_when_waiting(pg_dsn: str, query_prefix: str) -> None:
    """Terminate the backend that waits on a lock while running ``query_prefix``."""
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        for _ in range(200):
            killed = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE wait_event_type = 'Lock' AND query LIKE %s",
                (query_prefix + "%",),
            ).fetchall()
            if killed:
                return
            await asyncio.sleep(0.05)
    raise AssertionError("the store never waited on the lock")


@pytest.mark.parametrize("operation", ["remember", "forget", "merge"])
async def test_a_connection_killed_mid_operation_changes_nothing_and_the_pool_recovers(
    make_store: StoreFactory,
    db: Database,
    locker: psycopg.Connection[Any],
    pg_dsn: str,
    operation: str,
) -> None:
    store = make_store()
    first = (await store.remember({"agent_id": "a", "type": "semantic", "content": "one"})).id
    second = (await store.remember({"agent_id": "a", "type": "semantic", "content": "two"})).id
    requests: dict[str, dict[str, Any]] = {
        "remember": {"agent_id": "a", "type": "semantic", "content": "three"},
        "forget": {"agent_id": "a", "ids": [first]},
        "merge": {"agent_id": "a", "canonical": first, "duplicates": [second]},
    }
    request = requests[operation]
    before = db.snapshot()
    # the operation writes its record changes, then blocks on the audit log: kill it there
    locker.execute(
        sql.SQL("LOCK TABLE {}.audit_log IN EXCLUSIVE MODE").format(sql.Identifier(db.schema))
    )
    pending = asyncio.ensure_future(getattr(store, operation)(request))
    await _kill_when_waiting(pg_dsn, "INSERT INTO audit_log")
    with pytest.raises(UnavailableError) as caught:
        await pending
    locker.rollback()
    message = str(caught.value)
    assert "lost the connection" in message
    assert "nothing was changed" in message
    assert "retry" in message
    assert db.snapshot() == before  # no partial write
    again = await getattr(store, operation)(request)  # the same store, a fresh connection
    assert again is not None
    assert db.snapshot() != before


async def test_the_pool_recovers_when_the_server_comes_back() -> None:
    folder = Path(tempfile.mkdtemp(prefix="mnemowire-pg-restart-"))  # a server of its own
    server = local_server(folder)
    try:
        store = PgVectorStore(server.dsn(), embedder=HashEmbedder(64), pool_min=2, pool_timeout=2.0)
        async with store:
            stored = await Memory(store).remember(
                {"agent_id": "a", "type": "semantic", "content": "tea"}
            )
            stop(folder)
            with pytest.raises(UnavailableError) as caught:
                await Memory(store).recall({"agent_id": "a", "query": "tea"})
            assert "retry" in str(caught.value)
            assert (await store.health()).status == "down"
            local_server(folder)  # same folder, same port
            found = await Memory(store).recall({"agent_id": "a", "query": "tea"})
            assert [h.id for h in found.results] == [stored.id]
            assert (await store.health()).status == "ok"
    finally:
        stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


# -- the audit log -----------------------------------------------------------------------------


async def test_audit_log_records_every_mutation(make_store: StoreFactory, db: Database) -> None:
    store = make_store()
    first = await store.remember({"agent_id": "a", "type": "semantic", "content": "one"})
    second = await store.remember({"agent_id": "a", "type": "semantic", "content": "two"})
    await store.merge({"agent_id": "a", "canonical": first.id, "duplicates": [second.id]})
    await store.forget({"agent_id": "a", "ids": [first.id], "reason": "test"})
    await store.expire({"agent_id": "a", "policy": {"older_than_days": 1}})
    log = db.rows(
        "SELECT operation, agent_id, ids, length(request_sha256) FROM audit_log ORDER BY seq"
    )
    assert log == [
        ("remember", "a", [first.id], 64),
        ("remember", "a", [second.id], 64),
        ("merge", "a", [first.id, second.id], 64),
        ("forget", "a", [first.id], 64),
        ("expire", "a", [], 64),
    ]


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_log SET operation = 'nothing'",
        "DELETE FROM audit_log",
        "TRUNCATE audit_log",
    ],
)
async def test_audit_log_refuses_rewrites_even_from_its_owner(
    make_store: StoreFactory, db: Database, statement: str
) -> None:
    store = make_store()
    await store.remember({"agent_id": "a", "type": "semantic", "content": "one"})
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
        db.execute(statement)
    assert db.rows("SELECT count(*) FROM audit_log") == [(1,)]


@pytest.fixture
def app_role(pg_dsn: str, schema: str) -> Iterator[str]:
    """A login role without superuser or ownership: what an application should run as."""
    name = f"app_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        try:
            admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(name)))
        except psycopg.errors.InsufficientPrivilege:
            pytest.skip("the test server's role cannot create roles")
        yield name
        admin.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
        admin.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(name)))
        admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(name)))


def _as(dsn: str, role: str) -> str:
    """``dsn`` with another user name (the test server trusts loopback connections)."""
    scheme, _, rest = dsn.partition("://")
    return f"{scheme}://{role}@{rest.rpartition('@')[2]}"


async def test_the_application_role_can_run_the_store_but_never_rewrite_the_audit_log(
    make_store: StoreFactory, db: Database, pg_dsn: str, schema: str, app_role: str
) -> None:
    await make_store().inner.open()  # the owner creates the schema ...
    await make_store().inner.grant(app_role)  # ... and grants the application role
    app = make_store(dsn=_as(pg_dsn, app_role))
    one = await app.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
    two = await app.remember({"agent_id": "a", "type": "semantic", "content": "more tea"})
    assert len((await app.recall({"agent_id": "a", "query": "tea"})).results) == 2
    await app.merge({"agent_id": "a", "canonical": one.id, "duplicates": [two.id]})
    # an import carries history through the owner's function (the role cannot write history)
    copied = await app.export_records({"agent_id": "a", "include_history": True})
    lines = [to_wire(line) for line in copied.records]
    answer = await app.import_records({"agents": ["a"], "records": lines, "id_policy": "new"})
    copy = next(r.new_id for r in answer.results if r.id == one.id)
    kept = await app.history({"agent_id": "a", "id": copy})
    assert [(e.operation, e.imported) for e in kept.entries] == [
        ("remember", True), ("merge", True), ("import_records", None),
    ]  # fmt: skip
    await app.expire({"agent_id": "a", "policy": {"confidence_below": 0.5}, "action": "demote"})
    staged = await app.remember(
        {"agent_id": "a", "type": "semantic", "content": "tea?", "approval_required": True}
    )
    await app.decide({"agent_id": "a", "review_id": staged.id, "approved": True, "reviewer": "r"})
    await app.forget({"agent_id": "a", "ids": [one.id, two.id], "hard_delete": True})
    entries = db.rows("SELECT count(*) FROM audit_log")
    with psycopg.connect(_as(pg_dsn, app_role), autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path = {}, public").format(sql.Identifier(schema)))
        for statement in (
            "UPDATE audit_log SET operation = 'nothing'",
            "DELETE FROM audit_log",
            "TRUNCATE audit_log",
            "ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only",
            "DROP TRIGGER audit_log_append_only ON audit_log",
            "DROP TABLE audit_log",
            "DELETE FROM reviews",  # a decided review stays: the queue is history too
            "UPDATE history SET fields = NULL",
            # the import's function reaches only a record its own transaction wrote
            "SELECT history_carry(jsonb_build_array(jsonb_build_object('id', "
            f"'{staged.id}', 'revision', 1, 'at', 0, 'fields', '{{}}'::jsonb, 'said', "
            "'{}'::jsonb)))",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        assert conn.execute("SELECT count(*) FROM audit_log").fetchall() == entries
    assert entries == [(9,)]


async def test_the_application_role_searches_without_the_index_it_may_not_build(
    make_store: StoreFactory,
    db: Database,
    pg_dsn: str,
    app_role: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Building the vector index needs the table's owner: the application role's recall finds
    the table worth indexing, its background build fails quietly, the search stays exact, and
    its vacuum says the index is not built instead of failing; the owner's builds it."""
    monkeypatch.setattr(_vector_index, "INDEXED_FROM", 1)
    owner = make_store()
    await owner.inner.open()
    await owner.inner.grant(app_role)
    app = make_store(dsn=_as(pg_dsn, app_role))
    stored = await app.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
    found = await app.recall({"agent_id": "a", "query": "tea"})
    assert [hit.id for hit in found.results] == [stored.id]
    assert app.inner._index._task is not None
    assert await app.inner._index.wait() is None  # logged, not raised
    done = await app.inner.vacuum()
    assert "the vector index is not built" in done[-1]
    assert db.rows(
        "SELECT count(*) FROM pg_indexes WHERE indexname = 'memories_embedding' "
        "AND schemaname = %s",
        db.schema,
    ) == [(0,)]
    assert "CREATE INDEX CONCURRENTLY memories_embedding" in (await owner.inner.vacuum())[-1]


async def test_the_owners_functions_search_temporary_tables_last(
    make_store: StoreFactory, db: Database
) -> None:
    """A function that runs as the owner with the session's temporary tables first could be
    handed an application role's temporary ``history`` instead of the schema's."""
    await make_store().inner.open()
    rows = db.rows(
        "SELECT p.proname, p.proconfig FROM pg_proc p JOIN pg_namespace n "
        "ON n.oid = p.pronamespace WHERE n.nspname = current_schema() AND p.prosecdef"
    )
    assert {name for name, _ in rows} >= {"history_stored", "history_carry", "history_audited"}
    for name, config in rows:
        [path] = [c for c in config or [] if c.startswith("search_path=")]
        assert path.endswith("pg_temp"), (name, path)


async def test_an_unprivileged_role_gets_a_clear_error(
    make_store: StoreFactory, pg_dsn: str, app_role: str
) -> None:
    await make_store().inner.open()
    stranger = make_store(dsn=_as(pg_dsn, app_role))
    with pytest.raises(StoreError, match="grant"):
        await stranger.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
