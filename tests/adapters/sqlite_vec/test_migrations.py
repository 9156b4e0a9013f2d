"""A file made by an earlier release opens with everything in it: the migrations bring it to
the current layout in one transaction, and what was searchable stays searchable."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore, _schema
from mnemowire.adapters.sqlite_vec._driver import connect, find_driver
from mnemowire.adapters.sqlite_vec._keywords import token
from mnemowire.embedders import HashEmbedder
from mnemowire.kit.audit import verify
from tests.adapters._support import CheckedStore


def _version_one_file(path: Path, embedder: HashEmbedder) -> None:
    """A file exactly as release 0.1 (schema version 1) left it: one record, written the way
    that release wrote it (row, vector, FTS5 document, counts, audit)."""
    connection = connect(find_driver(), str(path))
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("CREATE TABLE mnemowire_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    _schema.MIGRATIONS[0](connection, embedder.dimension)
    connection.executemany(
        "INSERT INTO mnemowire_meta(key, value) VALUES (?, ?)",
        [("schema_version", "1"), ("embedder", embedder.name), ("dimension", "16")],
    )
    text = "the zebracorn invoice ZX-4471"
    [vector] = embedder.embed([text])
    connection.execute(
        "INSERT INTO memories(rowid, id, agent_id, type, content, metadata, confidence, "
        "created_at, updated_at, state, embedding) VALUES "
        "(1, 'r1', 'a', 'semantic', ?, '{}', 1.0, 1, 1, 'active', ?)",
        (text, np.asarray(vector, np.float32).tobytes()),
    )
    connection.execute(
        "INSERT INTO memories_vec(rowid, agent_id, embedding, user_key, type, created_at, "
        "expires_at) VALUES (1, 'a', ?, '-', 'semantic', 1, ?)",
        (np.asarray(vector, np.float32).tobytes(), _schema.NEVER),
    )
    connection.execute("INSERT INTO memories_fts(rowid, content) VALUES (1, ?)", (text,))
    connection.execute("INSERT INTO agent_stats(agent_id, visible) VALUES ('a', 1)")
    connection.execute(
        "INSERT INTO audit_log(at, operation, agent_id, ids, request_sha256) "
        "VALUES (1, 'remember', 'a', ?, 'x')",
        (json.dumps(["r1"]),),
    )
    connection.execute("COMMIT")
    connection.close()


async def test_a_version_one_file_is_migrated_and_stays_searchable(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    embedder = HashEmbedder(16)
    _version_one_file(path, embedder)
    async with CheckedStore(SqliteVecStore(str(path), embedder=embedder)) as store:
        health = await store.health()
        assert health.details is not None
        assert health.details["schema_version"] == len(_schema.MIGRATIONS)
        # a keyword-only hit: the query's vector is unrelated, the rare word is not
        found = await store.recall({"agent_id": "a", "query": "zebracorn", "k": 5})
        assert [h.id for h in found.results] == ["r1"]
        with store._db.transaction(write=False) as tx:
            tables = {n for (n,) in tx.execute("SELECT name FROM sqlite_master")}
            assert "memories_fts" not in tables
            assert {"keywords", "erased"} <= tables
            indexed = {t for (t,) in tx.execute("SELECT token FROM keywords")}
            assert indexed == {token("a", w) for w in ("4471", "invoice", "zebracorn", "zx")}
        # its one version, made by the audit entry that stored it (spec v0.4's history)
        [version] = (await store.history({"agent_id": "a", "id": "r1"})).entries
        assert (version.revision, version.operation, version.at, version.audit_seq) == (
            1,
            "remember",
            1,
            1,
        )
        assert version.record.content == "the zebracorn invoice ZX-4471"
        stored = await store.remember({"agent_id": "a", "type": "semantic", "content": "new"})
        assert stored.id
        # the old entry got its digest in the migration; the new one chains to it
        verdict = verify(await store.audit_entries())
        assert verdict.ok, verdict.problem
        assert verdict.entries == 2


def test_a_failing_migration_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    embedder = HashEmbedder(16)
    _version_one_file(path, embedder)

    def broken(connection: object, dimension: int) -> None:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(_schema, "MIGRATIONS", [*_schema.MIGRATIONS, broken])
    with pytest.raises(RuntimeError):
        SqliteVecStore(str(path), embedder=embedder)
    connection = connect(find_driver(), str(path))
    try:
        assert connection.execute(
            "SELECT value FROM mnemowire_meta WHERE key = 'schema_version'"
        ).fetchone() == ("1",)
        assert connection.execute("SELECT count(*) FROM memories_fts").fetchone() == (1,)
    finally:
        connection.close()


async def test_version_nine_counts_a_recall_time_as_one_recall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, embedder = str(tmp_path / "v8.db"), HashEmbedder(16)
    with monkeypatch.context() as patch:
        patch.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:8])
        async with CheckedStore(SqliteVecStore(path, embedder=embedder)) as old:
            recalled = await old.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
            await old.remember({"agent_id": "a", "type": "semantic", "content": "never asked"})
    connection = connect(find_driver(), path)  # a recall time as version 8 kept it
    connection.execute("UPDATE memories SET last_recalled_at = 5 WHERE id = ?", (recalled.id,))
    connection.commit()
    connection.close()
    async with CheckedStore(SqliteVecStore(path, embedder=embedder)) as store:
        lines = (await store.export_records({"agent_id": "a"})).records
        counts = {line.record.id: line.recall_count for line in lines}
        assert counts.pop(recalled.id) == 1
        assert list(counts.values()) == [None]  # never recalled: no count on its line
