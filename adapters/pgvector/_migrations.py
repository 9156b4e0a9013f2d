"""The database layout, as an append-only list of migrations, applied under an advisory lock.

Migration n (1-based) brings a schema from version n-1 to n and is recorded in
``mnemowire_migrations``; a published migration is never edited, a change is a new one. The
whole upgrade runs in one transaction holding a database-wide advisory lock, so two processes
opening a fresh database at once do not both create it: the second waits, then finds the work
done.

Layout (version 1):

- ``memories``: one row per record, every field a native column. ``state`` is active, pending,
  deleted (soft-forgotten), archived or merged. The HNSW (cosine) and full-text (GIN) indexes
  are partial, over active rows only, so a hidden record never occupies a place in a top-k and
  hiding one costs no index work.
- ``recalls``: when each record was last returned. Kept apart from ``memories`` because a row
  update there is not HOT when the page is full, and every non-HOT update re-inserts the row
  into the HNSW graph (milliseconds each): recall tracking must not do that on every read.
- ``audit_log``: append-only. A statement trigger rejects UPDATE, DELETE and TRUNCATE for
  everyone, the owner included; roles given access with ``grant_statements`` get SELECT and
  INSERT only, so they cannot drop or disable the trigger either.
- ``mnemowire_meta``: the embedder (name and dimension) the vectors were made with.

Version 2: the keyword index's lexemes are the agent's (``_sql.lexemes_of``), so word counts
are per agent; ``erased`` keeps the ids of hard-deleted records (ids are never reused, and
nothing else of such a record is kept but, since version 7, its agent).

Version 11: the vector index is IVFFlat, built by the store once the active records are enough
to index and rebuilt as they grow (``_vector_index``); versions 1-10 had an HNSW graph.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from typing import Any

from psycopg import sql

from mnemowire.adapters.pgvector._history_migrations import (
    Statement,
    v8_history,
    v10_carried_history,
    v12_audited_by_statement,
)
from mnemowire.adapters.pgvector._vector_index import DEFERRED_KEY, build_missing
from mnemowire.adapters.pgvector._vector_index import NAME as VECTOR_INDEX

__all__ = [
    "DEFERRED",
    "LOCK_KEY",
    "MIGRATIONS",
    "current_version",
    "grant_statements",
    "keyword_index",
    "migrate",
    "restore_indexes",
    "search_path",
]

#: the advisory lock every migration run holds (one per database: CREATE EXTENSION is too)
LOCK_KEY = int.from_bytes(
    hashlib.blake2b(b"mnemowire.adapters.pgvector:migrate", digest_size=8).digest(),
    "big",
    signed=True,
)


def _hnsw_index() -> sql.SQL:
    """The vector index of versions 1-10 (pgvector's default build parameters), which version
    11 replaced with IVFFlat (``_vector_index``)."""
    return sql.SQL(
        "CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops) "
        "WITH (m = 16, ef_construction = 64) WHERE state = 'active'"
    )


def keyword_index() -> sql.SQL:
    """The keyword index as the latest migration defines it (``load_fresh`` and a bulk import
    rebuild it): the visible records' words, written through (``fastupdate = off``;
    ``_sql.VISIBLE_WORDS`` says why)."""
    return sql.SQL(
        "CREATE INDEX memories_search ON memories USING gin "
        "((CASE WHEN state = 'active' THEN search END)) WITH (fastupdate = off)"
    )


#: the indexes a bulk import defers (``restore_indexes`` brings back any that is missing)
DEFERRED = ("memories_embedding", "memories_search")


async def restore_indexes(conn: Any, dimension: int) -> list[str]:
    """Build the deferred indexes that are missing (a bulk import killed before it rebuilt
    them, or an upgrade to version 11), in the caller's transaction with the store's
    search_path; the names built. The vector index is built only once the active records are
    enough to index (``_vector_index.build_missing``)."""
    built = [VECTOR_INDEX] if await build_missing(conn, dimension) else []
    cursor = await conn.execute("SELECT to_regclass('memories_search') IS NULL")
    if (await cursor.fetchone())[0]:
        await conn.execute(keyword_index())
        built.append("memories_search")
    await conn.execute("DELETE FROM mnemowire_meta WHERE key = %s", (DEFERRED_KEY,))
    return built


def _v1(dimension: int) -> list[Statement]:
    memories = sql.SQL(
        """CREATE TABLE memories (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id text NOT NULL UNIQUE,
            agent_id text NOT NULL,
            user_id text,
            type text NOT NULL,
            content text NOT NULL,
            metadata jsonb NOT NULL,
            confidence double precision NOT NULL,
            source text,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            expires_at bigint,
            event_time bigint,
            location text,
            participants jsonb,
            sentiment text,
            valence double precision,
            arousal double precision,
            emotion text,
            target text,
            state text NOT NULL
                CHECK (state IN ('active', 'pending', 'deleted', 'archived', 'merged')),
            merged_into text,
            demote double precision NOT NULL DEFAULT 1.0,
            embedding vector({}) NOT NULL,
            search tsvector NOT NULL
        )"""
    ).format(sql.Literal(dimension))
    statements: list[Statement] = [
        memories,
        sql.SQL(
            "CREATE INDEX memories_scope ON memories (agent_id, state, user_id, type, created_at)"
        ),
        _hnsw_index(),
        sql.SQL(
            "CREATE INDEX memories_search ON memories USING gin (search) WHERE state = 'active'"
        ),
        sql.SQL("CREATE TABLE recalls (memory bigint PRIMARY KEY, at bigint NOT NULL)"),
        sql.SQL(
            """CREATE TABLE audit_log (
                seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                at bigint NOT NULL,
                operation text NOT NULL,
                agent_id text NOT NULL,
                ids jsonb NOT NULL,
                request_sha256 text NOT NULL,
                detail jsonb
            )"""
        ),
        sql.SQL(
            """CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'audit_log is append-only: % is not allowed', TG_OP
                    USING ERRCODE = 'insufficient_privilege';
            END $$"""
        ),
        sql.SQL(
            "CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE OR TRUNCATE "
            "ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()"
        ),
        sql.SQL("REVOKE ALL ON audit_log FROM PUBLIC"),
    ]
    return statements


def _v2(dimension: int) -> list[Statement]:
    """The keyword index keyed by agent (``_sql.lexemes_of``), and the ids erased records had.

    Every lexeme is rewritten behind its agent's key (the same key ``_sql.agent_key`` computes)
    and loses its positions; the HNSW index is dropped for the rewrite and built again once,
    since every row update would otherwise re-insert its vector into the graph.
    """
    key = "left(encode(sha256(convert_to(agent_id, 'UTF8')), 'hex'), 16)"
    return [
        sql.SQL("CREATE TABLE erased (id text PRIMARY KEY)"),
        sql.SQL("DROP INDEX memories_embedding"),
        sql.SQL(
            "UPDATE memories SET search = array_to_tsvector(ARRAY(SELECT DISTINCT "
            + key
            + " || '/' || w.lexeme FROM unnest(search) AS w))"
        ),
        _hnsw_index(),
    ]


def _v3(dimension: int) -> list[Statement]:
    """The keyword index as an expression index over visible records' words, written
    through (``fastupdate = off``), replacing the partial index of v1 (``_sql.VISIBLE_WORDS``
    says why)."""
    return [
        sql.SQL("DROP INDEX memories_search"),
        keyword_index(),
    ]


def _v4(dimension: int) -> list[Statement]:
    """Spec v0.1: a record's version (update's optimistic concurrency) and seal, the orders a
    list pages in per agent (ids compared byte by byte, whatever the database's collation),
    and the key list cursors are authenticated with (kept here, so cursors outlive a process
    and work across every process serving the schema)."""
    return [
        sql.SQL("ALTER TABLE memories ADD COLUMN version bigint NOT NULL DEFAULT 1"),
        sql.SQL("ALTER TABLE memories ADD COLUMN seal jsonb"),
        sql.SQL('CREATE INDEX memories_newest ON memories (agent_id, created_at, id COLLATE "C")'),
        sql.SQL('CREATE INDEX memories_agent_ids ON memories (agent_id, id COLLATE "C")'),
        sql.SQL("CREATE TABLE store_keys (name text PRIMARY KEY, key bytea NOT NULL)"),
        sql.SQL("INSERT INTO store_keys (name, key) VALUES ('cursor', {})").format(
            sql.Literal(secrets.token_bytes(32))
        ),
    ]


def _v5(dimension: int) -> list[Statement]:
    """The audit log as a hash chain (kit.audit): each new entry's place in the chain and its
    digest. Entries written before keep neither: the chain starts with the first entry after
    this migration (the log is append-only, and its history is not rewritten)."""
    return [
        sql.SQL("ALTER TABLE audit_log ADD COLUMN position bigint, ADD COLUMN digest text"),
        sql.SQL("CREATE UNIQUE INDEX audit_log_position ON audit_log (position)"),
    ]


def _v6(dimension: int) -> list[Statement]:
    """Spec v0.2's review queue: one row per staged write (a remember's review id is its
    record's id), pending until decided or withdrawn, with the decision once made; review ids
    compare byte by byte (the queue's order). Records staged before get their reviews, their
    request rebuilt from the record."""
    scalars = ", ".join(f"'{name}', {name}" for name in _STAGED_SCALARS)
    return [
        sql.SQL(
            """CREATE TABLE reviews (
                review_id text COLLATE "C" PRIMARY KEY,
                agent_id text NOT NULL,
                user_id text,
                operation text NOT NULL CHECK (operation IN ('remember', 'forget', 'merge')),
                request jsonb NOT NULL,
                staged_by text NOT NULL,
                requested_at bigint NOT NULL,
                state text NOT NULL CHECK (state IN
                    ('pending', 'approved', 'merged', 'rejected', 'withdrawn')),
                decision jsonb
            )"""
        ),
        sql.SQL("CREATE INDEX reviews_queue ON reviews (agent_id, state, review_id)"),
        sql.SQL(
            "INSERT INTO reviews (review_id, agent_id, user_id, operation, request, staged_by, "
            "requested_at, state) SELECT id, agent_id, user_id, 'remember', "
            f"jsonb_strip_nulls(jsonb_build_object({scalars})) "
            "|| jsonb_build_object('metadata', metadata) "
            "|| CASE WHEN participants IS NULL THEN '{}'::jsonb "
            "ELSE jsonb_build_object('participants', participants) END "
            """|| '{"approval_required": true}'::jsonb, """
            "'caller', created_at, 'pending' FROM memories WHERE state = 'pending'"
        ),
    ]


def _v7(dimension: int) -> list[Statement]:
    """Spec v0.3: an export carries an agent's erased ids as tombstones, so each erased id
    names its agent. Ids erased before are found in the audit log, whose entries name the
    agent of every id they touched (its remember's, at least): the earliest entry naming
    the id gives it."""
    return [
        sql.SQL("ALTER TABLE erased ADD COLUMN agent_id text"),
        sql.SQL(
            "UPDATE erased e SET agent_id = f.agent_id FROM (SELECT DISTINCT ON (i.id) i.id, "
            "a.agent_id FROM audit_log a CROSS JOIN LATERAL jsonb_array_elements_text(a.ids) "
            "AS i(id) ORDER BY i.id, a.seq) f WHERE f.id = e.id"
        ),
        sql.SQL('CREATE INDEX erased_agent ON erased (agent_id, id COLLATE "C")'),
    ]


def _v9(dimension: int) -> list[Statement]:
    """Spec v0.4's recall count (docs/spec/v0.4.md#recall.count), beside the recall time it
    grows with: a record with a recall time was recalled at least once."""
    return [sql.SQL("ALTER TABLE recalls ADD COLUMN times bigint NOT NULL DEFAULT 1")]


def _v11(dimension: int) -> list[Statement]:
    """The vector index becomes IVFFlat (``_vector_index`` says why): the HNSW graph goes
    here; the store builds the new index when it opens (``restore_indexes``) if the active
    records are enough to index, and keeps it sized as they grow."""
    return [sql.SQL("DROP INDEX IF EXISTS memories_embedding")]


def _v13(dimension: int) -> list[Statement]:
    """The scope index ends with the write order (created_at, then seq): a recalled question
    finds its reply, the next record of its agent, user and type, in one index step
    ([recall.replies]) instead of sorting every later record of the agent."""
    return [
        sql.SQL("DROP INDEX IF EXISTS memories_scope"),
        sql.SQL(
            "CREATE INDEX memories_scope ON memories "
            "(agent_id, state, user_id, type, created_at, seq)"
        ),
    ]


#: a remember's scalar fields a record keeps as they were sent
_STAGED_SCALARS = (
    "agent_id", "user_id", "type", "content", "confidence", "source", "expires_at",
    "event_time", "location", "sentiment", "valence", "arousal", "emotion", "target",
)  # fmt: skip


#: (description, statements for a vector dimension); append only, never edit a published one
MIGRATIONS: list[tuple[str, Callable[[int], list[Statement]]]] = [
    ("memories, recalls, audit log, HNSW and full-text indexes", _v1),
    ("keyword index keyed by agent; erased ids", _v2),
    ("keyword index over the visible records' words, usable without statistics", _v3),
    ("record versions and seals, list orders, the cursor key", _v4),
    ("the audit log's hash chain: each entry's position and digest", _v5),
    ("the review queue of spec v0.2", _v6),
    ("erased ids name their agent (spec v0.3's tombstones)", _v7),
    ("every version of each record (spec v0.4's history)", v8_history),
    ("how many times each record was recalled (spec v0.4's recall count)", _v9),
    (
        "versions an import brought from an archive (spec v0.4's carried history)",
        v10_carried_history,
    ),
    ("the vector index becomes IVFFlat, built by the store once worth it", _v11),
    ("one history update per statement of audit entries, not per entry", v12_audited_by_statement),
    ("the scope index ends with the write order, where a question finds its reply", _v13),
]


async def current_version(conn: Any, schema: str) -> int | None:
    """The schema's version, or None when it has never been migrated."""
    cursor = await conn.execute(
        "SELECT to_regclass(format('%%I.mnemowire_migrations', %s::text)) IS NOT NULL", (schema,)
    )
    row = await cursor.fetchone()
    if not row[0]:
        return None
    cursor = await conn.execute(
        sql.SQL("SELECT coalesce(max(version), 0) FROM {}.mnemowire_migrations").format(
            sql.Identifier(schema)
        )
    )
    version = await cursor.fetchone()
    return int(version[0])


async def migrate(
    conn: Any, *, schema: str, extension_schema: str, dimension: int, embedder: str
) -> int:
    """Create the vector extension and the schema if needed, apply the missing migrations and
    record the embedder, in one transaction under the advisory lock; return the version.

    ``conn`` is an autocommit connection; its search_path is set for the transaction only.
    """
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        cursor = await conn.execute(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
            "WHERE e.extname = 'vector'"
        )
        found = await cursor.fetchone()
        if found is None:
            await conn.execute(
                sql.SQL("CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA {}").format(
                    sql.Identifier(extension_schema)
                )
            )
            found = (extension_schema,)
        cursor = await conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,))
        if await cursor.fetchone() is None:  # CREATE SCHEMA needs CREATE on the database,
            # even with IF NOT EXISTS: ask only when the schema is really missing
            await conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        await conn.execute(
            "SELECT set_config('search_path', %s, true)", (search_path(schema, found[0]),)
        )
        await conn.execute(
            """CREATE TABLE IF NOT EXISTS mnemowire_migrations (
                version integer PRIMARY KEY,
                description text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )"""
        )
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS mnemowire_meta (key text PRIMARY KEY, value text NOT NULL)"
        )
        cursor = await conn.execute("SELECT coalesce(max(version), 0) FROM mnemowire_migrations")
        version = int((await cursor.fetchone())[0])
        for number, (description, step) in enumerate(MIGRATIONS[version:], start=version + 1):
            for statement in step(dimension):
                await conn.execute(statement)
            await conn.execute(
                "INSERT INTO mnemowire_migrations (version, description) VALUES (%s, %s)",
                (number, description),
            )
        await conn.execute(
            "INSERT INTO mnemowire_meta (key, value) VALUES ('embedder', %s), ('dimension', %s) "
            "ON CONFLICT (key) DO NOTHING",
            (embedder, str(dimension)),
        )
    return len(MIGRATIONS)


def search_path(schema: str, extension_schema: str) -> str:
    """The search_path value naming the store's schema, then the one holding pgvector."""
    names = [schema] if schema == extension_schema else [schema, extension_schema]
    return ", ".join('"' + name.replace('"', '""') + '"' for name in names)


def grant_statements(schema: str, role: str) -> list[Statement]:
    """What an application role needs to run the store, and no more: the audit log gets SELECT
    and INSERT only, so that role can neither rewrite history nor disable the trigger."""
    s, r = sql.Identifier(schema), sql.Identifier(role)
    return [
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(s, r),
        sql.SQL("GRANT SELECT ON {}.mnemowire_migrations, {}.mnemowire_meta TO {}").format(s, s, r),
        # the key cursors are signed with: a list, an export or a history page needs it
        sql.SQL("GRANT SELECT ON {}.store_keys TO {}").format(s, r),
        sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {}.memories, {}.recalls TO {}").format(
            s, s, r
        ),
        sql.SQL("GRANT SELECT, INSERT ON {}.audit_log, {}.erased TO {}").format(s, s, r),
        sql.SQL("GRANT SELECT, INSERT, UPDATE ON {}.reviews TO {}").format(s, r),
        sql.SQL("GRANT SELECT ON {}.history TO {}").format(s, r),
    ]
