"""What a hard delete leaves in PostgreSQL's files, and what ``vacuum(erase=True)`` removes:
the bytes of the data files, read as the server wrote them (not a view through SQL).

Measured here (PostgreSQL 18, pgvector 0.8): right after the delete, the row's old version is
still in the table's pages, its words in the full-text (GIN) index and its vector in the
vector (IVFFlat) index. VACUUM clears the table; the GIN index keeps the words as keys until it
is rebuilt, and the IVFFlat index still held the vector's bytes after VACUUM in one run of
three, so both are rebuilt. The write-ahead log keeps copies until its segments are
overwritten. The vector index is built from a handful of records here (it waits for
``INDEXED_FROM`` otherwise).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import psycopg
import pytest

from mnemowire.adapters.pgvector import _vector_index
from mnemowire.embedders import HashEmbedder

from .conftest import StoreFactory


def holding(folder: Path, needle: bytes, dsn: str, schema: str) -> set[str]:
    """The store's relations (by name) whose data files hold ``needle`` after a checkpoint."""
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute("CHECKPOINT")
        files: dict[str, str] = dict(
            connection.execute(
                "SELECT pg_relation_filepath(c.oid), c.relname FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
                "AND pg_relation_filepath(c.oid) IS NOT NULL",
                (schema,),
            ).fetchall()
        )
    data = folder / "data"
    found = set()
    for relative, name in files.items():
        for segment in sorted(data.glob(relative + "*")):
            if needle in segment.read_bytes():
                found.add(name)
    return found


async def test_vacuum_with_erase_leaves_no_byte_of_an_erased_record(
    make_store: StoreFactory,
    pg_server: tuple[str, Path | None],
    schema: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dsn, folder = pg_server
    if folder is None:
        pytest.skip("the server given by MNEMOWIRE_PG_DSN is not this machine's to read")
    assert os.access(folder / "data", os.R_OK)
    embedder = HashEmbedder(16)
    store = make_store(embedder=embedder)
    text = "qqzpassport jxvnumber 4471"
    secret = (await store.remember({"agent_id": "a", "type": "semantic", "content": text})).id
    for i in range(40):
        await store.remember({"agent_id": "a", "type": "semantic", "content": f"filler {i}"})
    monkeypatch.setattr(_vector_index, "INDEXED_FROM", 1)
    assert "CREATE INDEX CONCURRENTLY memories_embedding" in " ".join(await store.inner.vacuum())
    vector = np.asarray(embedder.embed([text])[0], np.float32).tobytes()
    # the vector index holds it in half precision (_vector_index.nearest)
    half = np.asarray(embedder.embed([text])[0], np.float16).tobytes()
    word = b"qqzpassport"
    assert holding(folder, word, dsn, schema) == {"memories", "memories_search"}
    assert holding(folder, vector, dsn, schema) == {"memories"}
    assert holding(folder, half, dsn, schema) == {"memories_embedding"}
    await store.forget({"agent_id": "a", "ids": [secret], "hard_delete": True})
    assert holding(folder, word, dsn, schema) == {"memories", "memories_search"}  # dead tuples
    done = await store.inner.vacuum(erase=True)
    assert "REINDEX INDEX CONCURRENTLY memories_search" in done
    assert "REINDEX INDEX CONCURRENTLY memories_embedding" in done
    assert holding(folder, word, dsn, schema) == set()
    assert holding(folder, vector, dsn, schema) == set()
    assert holding(folder, half, dsn, schema) == set()
    assert holding(folder, text.encode(), dsn, schema) == set()


async def test_vacuum_with_erase_leaves_no_byte_of_a_past_version(
    make_store: StoreFactory, pg_server: tuple[str, Path | None], schema: str
) -> None:
    """What history kept of an erased record (its content before an update) leaves the
    history table's files too (docs/spec/v0.4.md#history.erase)."""
    dsn, folder = pg_server
    if folder is None:
        pytest.skip("the server given by MNEMOWIRE_PG_DSN is not this machine's to read")
    store = make_store(embedder=HashEmbedder(16))
    old = b"qqzoldvisa jxvold 9913"
    secret = (
        await store.remember({"agent_id": "a", "type": "semantic", "content": old.decode()})
    ).id
    await store.update(
        {"agent_id": "a", "id": secret, "expected_version": 1, "content": "qqznewvisa 9914"}
    )
    assert "history" in holding(folder, old, dsn, schema)
    await store.forget({"agent_id": "a", "ids": [secret], "hard_delete": True})
    await store.inner.vacuum(erase=True)
    assert holding(folder, old, dsn, schema) == set()
    assert holding(folder, b"qqznewvisa", dsn, schema) == set()
