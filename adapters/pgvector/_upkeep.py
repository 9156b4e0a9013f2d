"""The pgvector store's upkeep, kept apart from ``store.py``; ``PgVectorStore`` holds it:
grants for an application role, VACUUM (and what a hard delete leaves behind), prewarming the
cache, deferring the indexes during a bulk import, dropping a throwaway schema."""

from __future__ import annotations

import psycopg
from psycopg import sql

from mnemowire.adapters.pgvector._database import one
from mnemowire.adapters.pgvector._host import StoreHost
from mnemowire.adapters.pgvector._migrations import DEFERRED, grant_statements, restore_indexes
from mnemowire.adapters.pgvector._vector_index import DEFERRED_KEY, LOCK
from mnemowire.errors import ConfigError, StoreError

__all__ = ["Upkeep"]


class Upkeep:
    """grant, vacuum, prewarm and drop on the store's schema."""

    def __init__(self, host: StoreHost) -> None:
        self._host = host

    async def grant(self, role: str) -> None:
        """Give ``role`` what it needs to run this store and no more (run as the schema's
        owner, after the first open). The audit log gets SELECT and INSERT only: that role can
        neither change history nor disable the trigger that guards it."""
        async with self._host._db.transaction("grant") as conn:
            for statement in grant_statements(self._host.schema, role):
                await conn.execute(statement)

    async def vacuum(self, *, erase: bool = False) -> list[str]:
        """VACUUM (ANALYZE) the store's tables, what autovacuum would do soon anyway: after a
        bulk import, so the visibility map and statistics are current before traffic arrives
        (instead of an autovacuum of the indexes competing with it), or after hard deletes,
        to reclaim the space of erased records at once; then the vector index is built or
        resized if the table calls for it (``IndexKeeper.keep``, which recalls otherwise start
        in the background). Needs the table owner (or MAINTAIN).

        ``erase=True`` also removes what a hard delete leaves in the database files until then
        (docs/adapters/pgvector.md, "Erasure", has the measurements): the deleted row versions
        stay in the table's pages until VACUUM; the full-text (GIN) index keeps a deleted
        record's words as keys even after VACUUM, until it is rebuilt, and the vector (IVFFlat)
        index was seen to keep its vector's bytes after VACUUM, so both are rebuilt
        (``REINDEX CONCURRENTLY``: reads and writes go on meanwhile); then a CHECKPOINT writes
        the cleaned pages to the data files (skipped, and said so, without the privilege).
        Returns the statements run. The write-ahead log keeps its copies until its segments
        are recycled and overwritten, and backups and replicas keep theirs: outside the store.
        """
        self._host._sizes.expire()
        done: list[str] = []
        async with self._host._db.connection("vacuum") as conn:
            for table in ("memories", "recalls", "reviews", "history"):
                statement = sql.SQL("VACUUM (ANALYZE) {}").format(sql.Identifier(table))
                await conn.execute(statement)
                done.append(f"VACUUM (ANALYZE) {table}")
            if erase:
                cursor = await conn.execute("SELECT to_regclass('memories_embedding') IS NOT NULL")
                indexed = (await one(cursor))[0]
                for index in ("memories_search", *(["memories_embedding"] if indexed else [])):
                    await conn.execute(
                        sql.SQL("REINDEX INDEX CONCURRENTLY {}").format(sql.Identifier(index))
                    )
                    done.append(f"REINDEX INDEX CONCURRENTLY {index}")
                try:
                    await conn.execute("CHECKPOINT")
                    done.append("CHECKPOINT")
                except psycopg.errors.InsufficientPrivilege:
                    done.append("CHECKPOINT skipped: needs the pg_checkpoint role or superuser")
        try:
            resized = await self._host._index.keep()
        except StoreError as exc:  # not the owner: VACUUM skipped its tables too, and said so
            if not isinstance(exc.__cause__, psycopg.errors.InsufficientPrivilege):
                raise
            resized = f"the vector index is not built: {exc}"
        if resized is not None:
            done.append(resized)
        return done

    async def prewarm(self) -> dict[str, int]:
        """Load the store's table and indexes into PostgreSQL's buffer cache (pg_prewarm), so
        the first recalls after a restart or a bulk import (whose pages bypass the cache) do not
        each pay for reading hundreds of index pages. Returns the pages loaded per relation.
        Creates the pg_prewarm extension (PostgreSQL contrib) if missing, which needs a role
        allowed to; otherwise ask an administrator for ``CREATE EXTENSION pg_prewarm``. A
        store too small for a vector index has none to load."""
        relations = ("memories", "memories_embedding", "memories_search", "memories_scope")
        async with self._host._db.connection("prewarm") as conn:
            cursor = await conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'pg_prewarm'")
            if await cursor.fetchone() is None:
                await conn.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
            loaded = {}
            for relation in relations:
                cursor = await conn.execute(
                    "SELECT pg_prewarm(r) FROM to_regclass(format('%%I.%%I', %s::text, %s::text)) "
                    "AS r WHERE r IS NOT NULL",
                    (self._host.schema, relation),
                )
                row = await cursor.fetchone()
                if row is not None:
                    loaded[relation] = int(row[0])
        return loaded

    async def defer_indexes(self, incoming: int) -> bool:
        """Drop the vector and keyword indexes for a bulk import of ``incoming`` records, when the
        store holds fewer active records than that (building them once over all of them is then
        cheaper than record by record, and trains the vector index's cells on all of them); whether
        they were dropped. Recall stays exact meanwhile (a scan instead of the index)."""
        async with self._host._db.transaction("bulk_import") as conn:
            cursor = await conn.execute("SELECT count(*) FROM memories WHERE state = 'active'")
            if int((await one(cursor))[0]) >= incoming:
                return False
            # not during a background build (waiting for it could deadlock: it waits for every
            # older transaction); the import then writes with the indexes live
            cursor = await conn.execute(f"SELECT pg_try_advisory_xact_lock({LOCK})")
            if not (await one(cursor))[0]:
                return False
            for index in DEFERRED:
                await conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(index)))
            await conn.execute(
                "INSERT INTO mnemowire_meta (key, value) VALUES (%s, now()::text) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (DEFERRED_KEY,),
            )
        return True

    async def build_indexes(self) -> list[str]:
        """The deferred indexes built again (those missing), in one transaction."""
        async with self._host._db.transaction("bulk_import") as conn:
            return await restore_indexes(conn, self._host.embedder.dimension)

    async def drop(self) -> None:
        """Delete this store's schema with every record and the audit log in it, then close
        the store (throwaway stores: tests, benchmarks). Refused for the public schema."""
        if self._host.schema == "public":
            raise ConfigError(
                f"{self._host._name}: drop() deletes a whole schema and refuses public; drop the "
                "tables yourself"
            )
        async with self._host._db.transaction("drop") as conn:
            await conn.execute(
                sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(self._host.schema))
            )
        await self._host.aclose()
