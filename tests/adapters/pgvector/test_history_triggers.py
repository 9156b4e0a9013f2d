"""The trigger that gives new versions their audit entry (schema version 12): one UPDATE per
statement of audit entries. Per entry (versions 8-11) it rescanned the history a transaction
had grown for each record of a batch, so loading n records in one transaction took time in
n squared (10,000 records: 15.8 s, 0.8 s without it); tests do not time, so this checks the
trigger fires per statement, and that each version still gets the entry that wrote it."""

from __future__ import annotations

from mnemowire.embedders import HashEmbedder
from mnemowire.layers.validating import parse_requests
from mnemowire.models import RememberRequest

from .conftest import Database, StoreFactory


async def test_a_batch_gives_each_version_its_own_entry_in_one_statement(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store(embedder=HashEmbedder(16))
    requests = [{"agent_id": "a", "type": "semantic", "content": f"fact {i}"} for i in range(300)]
    await store.inner.load_fresh(parse_requests(RememberRequest, requests), batch_size=120)
    await store.remember_many(
        [{"agent_id": "a", "type": "semantic", "content": f"more {i}"} for i in range(50)]
    )
    changed = {"agent_id": "a", "id": await first_id(db), "expected_version": 1, "content": "new"}
    updated = await store.update(changed)
    assert updated.version == 2
    # every version has the position of the first entry naming its record at or after it
    rows = db.rows(
        "SELECT h.record_id, h.revision, h.audit_seq, (SELECT min(l.position) FROM audit_log l "
        "WHERE l.ids ? h.record_id AND l.position >= coalesce(("
        "  SELECT max(p.audit_seq) FROM history p "
        "  WHERE p.record_id = h.record_id AND p.revision < h.revision), 0) + 1) "
        "FROM history h ORDER BY h.record_id, h.revision"
    )
    assert len(rows) == 351
    assert all(audit_seq is not None for _, _, audit_seq, _ in rows)
    assert [(r, v, a) for r, v, a, _ in rows] == [(r, v, first) for r, v, _, first in rows]
    [(statement_level,)] = db.rows(
        "SELECT t.tgtype & 1 = 0 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE t.tgname = 'history_audited' AND n.nspname = %s",
        db.schema,
    )
    assert statement_level


async def first_id(db: Database) -> str:
    [(record_id,)] = db.rows("SELECT id FROM memories ORDER BY seq LIMIT 1")
    return str(record_id)
