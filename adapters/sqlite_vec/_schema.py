"""The database layout, as an append-only list of migrations applied in order at open.

Only visible records (state ``active``) have rows in the vector and keyword indexes, so a
pending, forgotten, archived or merged record can never take a place in a top-k. The vector
index partitions by agent and carries every other recall filter as a metadata column, so those
filters apply inside the KNN, before the k nearest are chosen.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any

from mnemowire.adapters.sqlite_vec._keywords import add_record
from mnemowire.kit import searchable_text
from mnemowire.kit.audit import GENESIS, chain_digest, read_sqlite
from mnemowire.kit.history import DEFAULT_HISTORY_LIMIT, VERSION_FIELDS

__all__ = [
    "MIGRATIONS",
    "NEVER",
    "NO_USER",
    "cursor_key",
    "migrate",
    "user_key",
]

#: expires_at stored for records that never expire (vec0 metadata columns cannot hold NULL)
NEVER = 2**62
#: user key stored for records without user_id (user keys are "u:" + user_id otherwise)
NO_USER = "-"


def user_key(user_id: str | None) -> str:
    """The vector index's user column: vec0 metadata cannot be NULL, and "" is a valid user."""
    return NO_USER if user_id is None else f"u:{user_id}"


def _v1(connection: Any, dimension: int) -> None:
    for statement in (
        """CREATE TABLE memories(
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            agent_id TEXT NOT NULL,
            user_id TEXT,
            type TEXT NOT NULL,
            content TEXT NOT NULL,
            metadata TEXT NOT NULL,
            confidence REAL NOT NULL,
            source TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            expires_at INTEGER,
            event_time INTEGER,
            location TEXT,
            participants TEXT,
            sentiment TEXT,
            valence REAL,
            arousal REAL,
            emotion TEXT,
            target TEXT,
            state TEXT NOT NULL
                CHECK (state IN ('active', 'pending', 'deleted', 'archived', 'merged')),
            merged_into TEXT,
            demote REAL NOT NULL DEFAULT 1.0,
            last_recalled_at INTEGER,
            embedding BLOB NOT NULL
        )""",
        "CREATE INDEX memories_scope ON memories(agent_id, state, user_id, type, created_at)",
        f"""CREATE VIRTUAL TABLE memories_vec USING vec0(
            agent_id TEXT PARTITION KEY,
            embedding float[{dimension}] distance_metric=cosine,
            user_key TEXT,
            type TEXT,
            created_at INTEGER,
            expires_at INTEGER
        )""",
        # scope: earlier builds wrote an agent token here for keyword search to match; it is
        # left empty now (_keywords.py) and stays only so existing files need no migration
        """CREATE VIRTUAL TABLE memories_fts USING fts5(
            content, scope, tokenize = 'unicode61 remove_diacritics 2'
        )""",
        # What changed in the vector index, so an in-process accelerator catches up cheaply.
        """CREATE TABLE vec_changes(
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            agent_id TEXT NOT NULL,
            record INTEGER NOT NULL,
            added INTEGER NOT NULL
        )""",
        "CREATE INDEX vec_changes_agent ON vec_changes(agent_id, seq)",
        """CREATE TABLE agent_stats(agent_id TEXT PRIMARY KEY, visible INTEGER NOT NULL)
            WITHOUT ROWID""",
        """CREATE TABLE audit_log(
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            at INTEGER NOT NULL,
            operation TEXT NOT NULL,
            agent_id TEXT NOT NULL,
            ids TEXT NOT NULL,
            request_sha256 TEXT NOT NULL,
            detail TEXT
        )""",
        """CREATE TRIGGER audit_log_append_only_update BEFORE UPDATE ON audit_log
            BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END""",
        """CREATE TRIGGER audit_log_append_only_delete BEFORE DELETE ON audit_log
            BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END""",
    ):
        connection.execute(statement)


def _v2(connection: Any, dimension: int) -> None:
    # The ids of erased records: ids are never reused (docs/spec/v0.md#types.id), and a hard
    # delete leaves no row to say an id was taken. Only the id, which the audit log keeps too.
    connection.execute("CREATE TABLE erased(id TEXT PRIMARY KEY) WITHOUT ROWID")


def _v3(connection: Any, dimension: int) -> None:
    # The keyword index moves from FTS5 to a table of the agents' word tokens (_keywords.py says
    # why): built from every visible record, then the FTS5 table goes, its pages zeroed.
    connection.execute(
        """CREATE TABLE keywords(
            token INTEGER NOT NULL,
            record INTEGER NOT NULL,
            PRIMARY KEY (token, record)
        ) WITHOUT ROWID"""
    )
    connection.execute("CREATE INDEX keywords_record ON keywords(record)")
    rows = connection.execute(
        "SELECT rowid, agent_id, type, content FROM memories WHERE state = 'active'"
    ).fetchall()
    for rowid, agent_id, kind, content in rows:
        add_record(connection, agent_id, rowid, searchable_text(kind, content))
    connection.execute("DROP TABLE memories_fts")


def _v4(connection: Any, dimension: int) -> None:
    # spec v0.1: a record's version (update's optimistic concurrency) and seal; the orders a
    # list pages in, per agent; the key list cursors are authenticated with (kept here, so a
    # cursor outlives the process that made it)
    connection.execute("ALTER TABLE memories ADD COLUMN version INTEGER NOT NULL DEFAULT 1")
    connection.execute("ALTER TABLE memories ADD COLUMN seal TEXT")
    connection.execute("CREATE INDEX memories_newest ON memories(agent_id, created_at, id)")
    connection.execute("CREATE INDEX memories_agent_ids ON memories(agent_id, id)")
    connection.execute(
        "INSERT INTO mnemowire_meta(key, value) VALUES ('cursor_key', ?)",
        (secrets.token_hex(32),),
    )


def _v5(connection: Any, dimension: int) -> None:
    # the audit log becomes a hash chain (kit.audit): each entry's digest covers it and the one
    # before, so `mnemowire audit verify` finds a changed, missing or moved entry. Entries
    # written before get their digests now, in order (the one UPDATE the log ever allows).
    connection.execute("ALTER TABLE audit_log ADD COLUMN digest TEXT")
    connection.execute("DROP TRIGGER audit_log_append_only_update")
    previous = GENESIS
    for entry in read_sqlite(connection):
        previous = chain_digest(previous, entry)
        connection.execute(
            "UPDATE audit_log SET digest = ? WHERE seq = ?", (previous, entry["seq"])
        )
    connection.execute(
        """CREATE TRIGGER audit_log_append_only_update BEFORE UPDATE ON audit_log
            BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END"""
    )


def _v6(connection: Any, dimension: int) -> None:
    # spec v0.2's review queue: one row per staged write (a remember's review id is its
    # record's id), pending until decided or withdrawn, with the decision once made. Records
    # staged before get their reviews now, their request rebuilt from the record.
    connection.execute(
        """CREATE TABLE reviews(
            review_id TEXT PRIMARY KEY,
            agent_id TEXT NOT NULL,
            user_id TEXT,
            operation TEXT NOT NULL CHECK (operation IN ('remember', 'forget', 'merge')),
            request TEXT NOT NULL,
            staged_by TEXT NOT NULL,
            requested_at INTEGER NOT NULL,
            state TEXT NOT NULL CHECK (state IN
                ('pending', 'approved', 'merged', 'rejected', 'withdrawn')),
            decision TEXT
        ) WITHOUT ROWID"""
    )
    connection.execute("CREATE INDEX reviews_queue ON reviews(agent_id, state, review_id)")
    columns = ", ".join(_STAGED_FIELDS)
    rows = connection.execute(
        f"SELECT id, created_at, {columns} FROM memories WHERE state = 'pending'"
    ).fetchall()
    for record_id, created_at, *values in rows:
        sent = {k: v for k, v in zip(_STAGED_FIELDS, values, strict=True) if v is not None}
        for name in ("metadata", "participants"):
            if name in sent:
                sent[name] = json.loads(sent[name])
        connection.execute(
            "INSERT INTO reviews(review_id, agent_id, user_id, operation, request, staged_by, "
            "requested_at, state) VALUES (?, ?, ?, 'remember', ?, 'caller', ?, 'pending')",
            (
                record_id,
                sent["agent_id"],
                sent.get("user_id"),
                json.dumps({**sent, "approval_required": True}),
                created_at,
            ),
        )


def _v7(connection: Any, dimension: int) -> None:
    # spec v0.3: an export carries an agent's erased ids as tombstones, so each erased id
    # names its agent; ids erased before are found in the audit log, whose entries name the
    # agent of every id they touched (its remember's, at least)
    connection.execute("ALTER TABLE erased ADD COLUMN agent_id TEXT")
    connection.execute(
        """UPDATE erased SET agent_id = (
            SELECT a.agent_id FROM audit_log a, json_each(a.ids) j
            WHERE j.value = erased.id ORDER BY a.seq LIMIT 1)"""
    )
    connection.execute("CREATE INDEX erased_agent ON erased(agent_id, id)")


def _v8(connection: Any, dimension: int) -> None:
    # spec v0.4's history (docs/spec/v0.4.md#history.versions), kept by triggers so no write
    # path can skip it: a row per version of a record, the version's fields kept only once a
    # later one replaces it (the newest is the record itself, so a record never changed costs
    # a row of ids and numbers, not a second copy of its content). A change drops what is
    # past the operator's bound (mnemowire_meta.history_limit). The audit entry a write appends
    # names its ids; the trigger on audit_log gives their new versions its seq and time. A
    # hard delete takes the record's history with it.
    watched = " OR ".join(f"old.{c} IS NOT new.{c}" for c in VERSION_FIELDS)
    snapshot = ", ".join(
        f"'{c}', json(old.{c})" if c in _JSON_FIELDS else f"'{c}', old.{c}" for c in VERSION_FIELDS
    )
    for statement in (
        """CREATE TABLE history(
            record_id TEXT NOT NULL,
            revision INTEGER NOT NULL,
            at INTEGER NOT NULL,
            audit_seq INTEGER,
            fields TEXT,
            PRIMARY KEY (record_id, revision)
        ) WITHOUT ROWID""",
        # every record stored before has one version: the one it holds now
        """INSERT INTO history(record_id, revision, at)
            SELECT id, 1, updated_at FROM memories""",
        """CREATE TRIGGER history_stored AFTER INSERT ON memories BEGIN
            INSERT INTO history(record_id, revision, at) VALUES (new.id, 1, new.updated_at);
        END""",
        f"""CREATE TRIGGER history_changed AFTER UPDATE ON memories WHEN {watched} BEGIN
            UPDATE history SET fields = json_object({snapshot})
                WHERE record_id = old.id AND revision =
                    (SELECT max(revision) FROM history WHERE record_id = old.id);
            INSERT INTO history(record_id, revision, at)
                SELECT new.id, coalesce(max(revision), 0) + 1, new.updated_at
                FROM history WHERE record_id = new.id;
            DELETE FROM history WHERE record_id = new.id AND revision <=
                (SELECT max(revision) FROM history WHERE record_id = new.id)
                - (SELECT CAST(value AS INTEGER) FROM mnemowire_meta
                   WHERE key = 'history_limit');
        END""",
        """CREATE TRIGGER history_erased AFTER DELETE ON memories BEGIN
            DELETE FROM history WHERE record_id = old.id;
        END""",
        """CREATE TRIGGER history_audited AFTER INSERT ON audit_log BEGIN
            UPDATE history SET audit_seq = new.seq, at = new.at
                WHERE audit_seq IS NULL
                AND record_id IN (SELECT value FROM json_each(new.ids));
        END""",
    ):
        connection.execute(statement)
    # versions written before: the entry that last touched each record made its newest
    connection.execute(
        """CREATE TEMP TABLE last_audited AS SELECT j.value AS id, max(a.seq) AS seq
            FROM audit_log a, json_each(a.ids) j GROUP BY j.value"""
    )
    connection.execute(
        """UPDATE history SET
            audit_seq = (SELECT seq FROM temp.last_audited l WHERE l.id = history.record_id),
            at = coalesce((SELECT a.at FROM temp.last_audited l JOIN audit_log a ON a.seq = l.seq
                           WHERE l.id = history.record_id), at)"""
    )
    connection.execute("DROP TABLE temp.last_audited")
    connection.execute(
        "INSERT OR IGNORE INTO mnemowire_meta(key, value) VALUES ('history_limit', ?)",
        (str(DEFAULT_HISTORY_LIMIT),),
    )


_JSON_FIELDS = ("metadata", "participants", "seal")

#: a remember's fields a record keeps as they were sent
_STAGED_FIELDS = (
    "agent_id", "user_id", "type", "content", "metadata", "confidence", "source", "expires_at",
    "event_time", "location", "participants", "sentiment", "valence", "arousal", "emotion",
    "target",
)  # fmt: skip


#: migration n (1-based) brings the schema from version n-1 to n; never edit a published one
def _v9(connection: Any, dimension: int) -> None:
    # spec v0.4's recall count (docs/spec/v0.4.md#recall.count), which promotion's rules read:
    # a record with a recall time was recalled at least once
    connection.execute("ALTER TABLE memories ADD COLUMN recall_count INTEGER NOT NULL DEFAULT 0")
    connection.execute("UPDATE memories SET recall_count = 1 WHERE last_recalled_at IS NOT NULL")


def _v10(connection: Any, dimension: int) -> None:
    # spec v0.4's history carried by an archive (docs/spec/v0.4.md#import.history): a version
    # an import brought keeps what its source's entry said (``carried``), since no audit
    # entry of this file made it, and the import's own audit entry must not claim it
    connection.execute("ALTER TABLE history ADD COLUMN carried TEXT")
    connection.execute("DROP TRIGGER history_audited")
    connection.execute(
        """CREATE TRIGGER history_audited AFTER INSERT ON audit_log BEGIN
            UPDATE history SET audit_seq = new.seq, at = new.at
                WHERE audit_seq IS NULL AND carried IS NULL
                AND record_id IN (SELECT value FROM json_each(new.ids));
        END"""
    )


MIGRATIONS: list[Callable[[Any, int], None]] = [
    _v1, _v2, _v3, _v4, _v5, _v6, _v7, _v8, _v9, _v10,
]  # fmt: skip


def cursor_key(connection: Any) -> bytes:
    """The key this database's list cursors are authenticated with."""
    row = connection.execute("SELECT value FROM mnemowire_meta WHERE key = 'cursor_key'").fetchone()
    return bytes.fromhex(row[0])


def migrate(connection: Any, dimension: int) -> int:
    """Apply the missing migrations inside the caller's transaction; return the new version."""
    connection.execute(
        "CREATE TABLE IF NOT EXISTS mnemowire_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)"
    )
    row = connection.execute(
        "SELECT value FROM mnemowire_meta WHERE key = 'schema_version'"
    ).fetchone()
    version = int(row[0]) if row else 0
    for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
        step(connection, dimension)
        connection.execute(
            "INSERT OR REPLACE INTO mnemowire_meta(key, value) VALUES ('schema_version', ?)",
            (str(number),),
        )
    return len(MIGRATIONS)
