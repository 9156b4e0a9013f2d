"""The store's side of PostgreSQL: a pool opened on first use (after migrating), one
transaction per operation, and every backend error translated in one place.

Pooled connections are configured once: pgvector's and the tsvector's adapters, the store's schema
on the search path, filtered IVFFlat scans that probe further cells while the filters reject too
many rows (``ivfflat.iterative_scan = relaxed_order``, the only iterative mode IVFFlat has; every
statement orders the index's candidates by exact distance itself; the probes are set per search,
``_vector_index.IndexKeeper.before_search``), plans made for each query's own values (a tiny tenant
and a huge one need different plans), and no parallel workers (starting them costs more than a
recall's whole budget).

After a connection failure the next operation first checks the server with one direct
connection (failing fast while it is down) and, once it answers, starts a fresh pool:
psycopg_pool's own reconnection backs off exponentially, which after a long outage would keep a
recovered server waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import psycopg
from pgvector.psycopg import register_vector_async
from psycopg import sql
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from mnemowire.adapters.pgvector._migrations import (
    MIGRATIONS,
    current_version,
    migrate,
    restore_indexes,
    search_path,
)
from mnemowire.adapters.pgvector._sql import Lexemes, LexemesDumper
from mnemowire.adapters.pgvector._vector_index import configure as configure_probes
from mnemowire.embedders import Embedder
from mnemowire.errors import ConfigError, MnemowireError, StoreError, UnavailableError

__all__ = ["Database", "one"]

Connection = psycopg.AsyncConnection[Any]
#: iterative index scans (ivfflat.iterative_scan) arrived in pgvector 0.8.0
MIN_PGVECTOR = (0, 8)


async def one(cursor: Any) -> tuple[Any, ...]:
    """The single row a query always returns."""
    row = await cursor.fetchone()
    if row is None:
        raise StoreError("PostgreSQL returned no row where one is always expected")
    return tuple(row)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


class Database:
    """Connections to one schema of one PostgreSQL database, for one store."""

    def __init__(
        self,
        dsn: str,
        *,
        name: str,
        schema: str,
        extension_schema: str,
        embedder: Embedder,
        pool_sizes: tuple[int, int],
        pool_timeout: float,
        probes: int | None = None,
        read_only: bool = False,
        history_limit: int | None = None,
    ) -> None:
        self.dsn = dsn
        self.name = name
        self.schema = schema
        self.pool_timeout = pool_timeout
        self._extension_schema = extension_schema
        self._embedder = embedder
        self._pool_sizes = pool_sizes
        #: the store's fixed probe count (the ``probes`` option), if any
        self._probes = probes
        self._pool: AsyncConnectionPool[Any] | None = None
        self._opening = asyncio.Lock()
        #: set when the connection failed: the next operation checks the server first
        self._suspect = False
        self._search_path = ""
        #: a replica: never migrated from here, only checked to be current
        self.read_only = read_only
        #: the operator's bound on each record's history, written to the schema on open
        self._history_limit = history_limit
        self.closed = False

    async def pool(self) -> AsyncConnectionPool[Any]:
        """The pool, opened (and the schema migrated) on first use."""
        if self.closed:
            raise UnavailableError(f"store {self.name} is closed")
        pool = self._pool
        if pool is not None and not self._suspect:
            return pool
        async with self._opening:
            if self.closed:
                raise UnavailableError(f"store {self.name} is closed")
            current = self._pool
            if current is None or self._suspect:
                with self.errors("connect"):
                    if current is None:
                        await self._setup()
                    else:
                        probe = await psycopg.AsyncConnection.connect(self.dsn)
                        await probe.close()
                    fresh = AsyncConnectionPool(
                        self.dsn,
                        min_size=self._pool_sizes[0],
                        max_size=self._pool_sizes[1],
                        timeout=self.pool_timeout,
                        kwargs={"autocommit": True},
                        configure=self._configure,
                        check=AsyncConnectionPool.check_connection,
                        name=self.name,
                        open=False,
                    )
                    await fresh.open(wait=True, timeout=self.pool_timeout)
                self._pool, self._suspect = fresh, False
                if current is not None:
                    await current.close(timeout=1.0)
                current = fresh
            return current

    async def close(self) -> None:
        self.closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    def stats(self) -> dict[str, int]:
        """Pool size and idle connections, for health reports."""
        stats = self._pool.get_stats() if self._pool is not None else {}
        return {k: stats[k] for k in ("pool_size", "pool_available") if k in stats}

    async def facts(self) -> dict[str, Any]:
        """Versions, record counts by state and sizes, for health reports."""
        async with self.transaction("health") as conn:
            cursor = await conn.execute(
                "SELECT current_setting('server_version'), "
                "(SELECT extversion FROM pg_extension WHERE extname = 'vector'), "
                "(SELECT max(version) FROM mnemowire_migrations), current_database()"
            )
            server, pgvector, schema_version, database = await one(cursor)
            cursor = await conn.execute("SELECT state, count(*) FROM memories GROUP BY state")
            counts = dict(await cursor.fetchall())
            cursor = await conn.execute(
                "SELECT c.relname, pg_size_pretty(pg_total_relation_size(c.oid)) "
                "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s "
                "AND c.relname IN ('memories', 'memories_embedding', 'memories_search')",
                (self.schema,),
            )
            sizes = dict(await cursor.fetchall())
        return {
            "postgres": server,
            "pgvector": pgvector,
            "schema_version": schema_version,
            "database": database,
            "schema": self.schema,
            "records": counts,
            "sizes": sizes,
        }

    async def standby(self) -> dict[str, Any]:
        """This server's name, whether it answers, is a standby in recovery, and how far its
        replay lags (a replica's health)."""
        try:
            async with self.connection("health") as conn:
                cursor = await conn.execute(
                    "SELECT pg_is_in_recovery(), "
                    "extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8"
                )
                in_recovery, lag = await one(cursor)
        except MnemowireError as exc:
            return {"name": self.name, "error": str(exc)}
        return {"name": self.name, "in_recovery": in_recovery, "replay_lag_s": lag}

    @contextlib.asynccontextmanager
    async def transaction(self, what: str) -> AsyncIterator[Connection]:
        """One transaction on a pooled connection; any failure rolls it back whole."""
        pool = await self.pool()
        with self.errors(what):
            async with pool.connection() as conn, conn.transaction():
                yield conn

    @contextlib.asynccontextmanager
    async def connection(self, what: str) -> AsyncIterator[Connection]:
        """A pooled connection in autocommit mode (each statement its own transaction)."""
        pool = await self.pool()
        with self.errors(what):
            async with pool.connection() as conn:
                yield conn

    @contextlib.contextmanager
    def errors(self, what: str) -> Iterator[None]:
        """Backend exceptions become mnemowire errors here, and only here."""
        try:
            yield
        except MnemowireError:
            raise
        except PoolTimeout as exc:
            self._suspect = True
            raise UnavailableError(
                f"{self.name}: no connection to PostgreSQL within {self.pool_timeout} s for "
                f"{what}; nothing was changed. Check that the server is running and reachable, "
                "then retry"
            ) from exc
        except (
            psycopg.errors.TransactionRollback,
            psycopg.errors.SerializationFailure,
            psycopg.errors.DeadlockDetected,
        ) as exc:
            raise UnavailableError(
                f"{self.name}: {what} collided with a concurrent transaction and was rolled "
                f"back; nothing was changed, retry ({exc})"
            ) from exc
        except psycopg.errors.QueryCanceled as exc:
            raise StoreError(
                f"{self.name}: {what} was cancelled by the server (statement timeout?) and "
                f"rolled back; nothing was changed ({exc})"
            ) from exc
        except psycopg.OperationalError as exc:
            self._suspect = True
            if what == "connect":
                raise UnavailableError(
                    f"{self.name}: cannot reach PostgreSQL ({exc}). Check that the server is "
                    "running and the URL is right, then retry"
                ) from exc
            raise UnavailableError(
                f"{self.name}: lost the connection to PostgreSQL during {what} ({exc}). The "
                "transaction was rolled back, so nothing was changed (if it broke while "
                "committing, a retried remember with the same id is answered as a replay). "
                "Check that the server is up, then retry: the store reconnects by itself"
            ) from exc
        except psycopg.errors.InsufficientPrivilege as exc:
            raise StoreError(
                f"{self.name}: the database role may not do this ({exc}); nothing was changed. "
                "Grant it the store's privileges (PgVectorStore.grant, run as the owner)"
            ) from exc
        except psycopg.errors.UniqueViolation as exc:
            raise StoreError(
                f"{self.name}: a record id was written concurrently by another writer during "
                f"{what}; nothing was changed. Retry: records already stored are answered as "
                "replays"
            ) from exc
        except psycopg.DataError as exc:
            raise StoreError(
                f"{self.name}: PostgreSQL cannot store this value ({exc}); note that text and "
                "JSON in PostgreSQL cannot hold the NUL character (\\u0000). Nothing was changed"
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"{self.name}: {what} failed: {exc}") from exc

    async def _restore_indexes(self, conn: Any, path: str) -> None:
        """Indexes a bulk import deferred and did not get to rebuild (killed meanwhile) are
        built here, on the next open. A role that may not create them (an application role)
        leaves them to the owner's next open: recall is exact without them, only slower."""
        try:
            async with conn.transaction():
                await conn.execute("SELECT set_config('search_path', %s, true)", (path,))
                await restore_indexes(conn, self._embedder.dimension)
        except psycopg.errors.InsufficientPrivilege:
            return

    async def _setup(self) -> None:
        """Migrate if needed (under the advisory lock) and check the embedder matches."""
        conn = await psycopg.AsyncConnection.connect(self.dsn, autocommit=True)
        try:
            version = await current_version(conn, self.schema)
            if version is not None and version > len(MIGRATIONS):
                raise ConfigError(
                    f"{self.name}: the schema is at version {version}, made by a newer mnemowire "
                    f"than this one (which knows {len(MIGRATIONS)}); upgrade mnemowire to open it"
                )
            meta = await self._meta(conn) if version is not None else {}
            if self.read_only and (version or 0) < len(MIGRATIONS):
                raise ConfigError(
                    f"{self.name}: the replica's schema is at version {version or 0}, the store "
                    f"needs {len(MIGRATIONS)}; open the store on the primary first (it migrates) "
                    "and let the replica catch up"
                )
            if version is None or version < len(MIGRATIONS) or "embedder" not in meta:
                await migrate(
                    conn,
                    schema=self.schema,
                    extension_schema=self._extension_schema,
                    dimension=self._embedder.dimension,
                    embedder=self._embedder.name,
                )
                meta = await self._meta(conn)
            cursor = await conn.execute(
                "SELECT n.nspname, e.extversion FROM pg_extension e JOIN pg_namespace n "
                "ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
            )
            extension = await cursor.fetchone()
            if extension is None:
                raise ConfigError(f"{self.name}: the vector extension is missing")
            if not self.read_only:
                await self._restore_indexes(conn, search_path(self.schema, extension[0]))
                if self._history_limit is not None:
                    await self._keep_versions(conn, meta, self._history_limit)
        finally:
            await conn.close()
        if _version(extension[1]) < MIN_PGVECTOR:
            raise ConfigError(
                f"{self.name}: pgvector {extension[1]} is too old; the store needs 0.8 or newer "
                "(iterative index scans keep filtered recalls complete). Upgrade the package, "
                "then run ALTER EXTENSION vector UPDATE"
            )
        self._search_path = search_path(self.schema, extension[0])
        made_with = (meta["embedder"], int(meta["dimension"]))
        embedder = self._embedder
        if made_with != (embedder.name, embedder.dimension):
            raise ConfigError(
                f"{self.name} was made with embedder {made_with[0]} ({made_with[1]}-d); this "
                f"store was opened with {embedder.name} ({embedder.dimension}-d). Open it with "
                "the same embedder, or use another schema or database."
            )

    async def _keep_versions(self, conn: Connection, meta: dict[str, str], limit: int) -> None:
        """The operator's bound on each record's history ([history.bound]), kept in the
        schema where the trigger that trims it reads it, so every process writing the schema
        keeps the same bound; written only when it changes."""
        if meta.get("history_limit") == str(limit):
            return
        await conn.execute(
            sql.SQL(
                "INSERT INTO {}.mnemowire_meta (key, value) VALUES ('history_limit', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ).format(sql.Identifier(self.schema)),
            (str(limit),),
        )

    async def _meta(self, conn: Connection) -> dict[str, str]:
        cursor = await conn.execute(
            sql.SQL("SELECT key, value FROM {}.mnemowire_meta").format(sql.Identifier(self.schema))
        )
        return dict(await cursor.fetchall())

    async def _configure(self, conn: Connection) -> None:
        await register_vector_async(conn)
        conn.adapters.register_dumper(Lexemes, LexemesDumper)
        await conn.execute(
            "SELECT set_config('search_path', %s, false), "
            "set_config('ivfflat.iterative_scan', 'relaxed_order', false), "
            "set_config('plan_cache_mode', 'force_custom_plan', false), "
            "set_config('max_parallel_workers_per_gather', '0', false)",
            (self._search_path,),
        )
        await configure_probes(conn, self._probes)
