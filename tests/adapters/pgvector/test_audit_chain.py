"""The pgvector store's audit log as a hash chain: writers in parallel still make one chain
(they take the schema's audit lock), a row edited by the owner behind the trigger's back is
found and named, and `mnemowire audit verify` reads it like sqlite-vec's."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from mnemowire.apps.cli import Exit, cli
from mnemowire.embedders import HashEmbedder
from mnemowire.kit.audit import as_caller, verify
from tests.adapters.pgvector.conftest import Database, StoreFactory, schema_version


async def test_writers_in_parallel_make_one_chain(make_store: StoreFactory) -> None:
    stores = [make_store() for _ in range(3)]

    async def write(store: object, n: int) -> None:
        for i in range(8):
            await store.remember(  # type: ignore[attr-defined]
                {"agent_id": f"a{n}", "type": "semantic", "content": f"note {n}.{i}"}
            )

    await asyncio.gather(*(write(store, n) for n, store in enumerate(stores)))
    ids = [h.id for h in (await stores[0].list({"agent_id": "a0"})).records]
    await stores[1].forget({"agent_id": "a0", "ids": ids[:2]})
    verdict = verify(await stores[2].audit_entries())
    assert verdict.ok, verdict.problem
    assert verdict.entries == 25


async def test_an_entry_changed_behind_the_trigger_is_named(
    make_store: StoreFactory, db: Database, pg_dsn: str, schema: str
) -> None:
    store = make_store()
    for i in range(4):
        await store.remember({"agent_id": "a", "type": "semantic", "content": f"note {i}"})
    url = "pgvector://" + pg_dsn.removeprefix("postgresql://")
    url += ("&" if "?" in url else "?") + f"schema={schema}&embedder=hash:64"

    def check() -> dict[str, object]:
        result = CliRunner().invoke(cli, ["audit", "verify", "--store", url])
        assert result.exit_code in (Exit.OK, Exit.REJECTED), result.output
        return dict(json.loads(result.output))

    assert (await asyncio.to_thread(check))["ok"] is True
    db.execute("ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only")
    db.execute("UPDATE audit_log SET agent_id = 'b' WHERE position = 3")
    found = await asyncio.to_thread(check)
    assert (found["ok"], found["first_bad"], found["entries"]) == (False, 3, 2)


@pytest.mark.parametrize(
    "rewrite",
    [
        "detail = ('{\"k\": ' || repeat('[', 3000) || repeat(']', 3000) || '}')::jsonb",
        "detail = '{\"n\": 1e400}'::jsonb",
        "at = 9223372036854775807",
    ],
    ids=["nested-past-the-loader", "number-past-json", "time-past-2^53"],
)
async def test_a_row_rewritten_into_what_json_cannot_carry_gets_a_verdict(
    make_store: StoreFactory, db: Database, rewrite: str
) -> None:
    """jsonb holds what a JSON parser or RFC 8785 cannot: the entry is named, not raised."""
    store = make_store()
    for i in range(3):
        await store.remember({"agent_id": "a", "type": "semantic", "content": f"note {i}"})
    db.execute("ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only")
    db.execute(f"UPDATE audit_log SET {rewrite} WHERE position = 2")
    verdict = verify(await store.audit_entries())
    assert (verdict.ok, verdict.first_bad, verdict.entries) == (False, 2, 1)


async def test_the_chain_starts_with_the_first_entry_after_the_migration(
    make_store: StoreFactory, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries of a schema made before version 5 keep no place in the chain (history is not
    rewritten); the first write after the migration is the chain's first entry."""
    embedder = HashEmbedder(16)
    with schema_version(monkeypatch, 4):
        old = make_store(embedder=embedder)
        await old.inner.open()
        await old.inner.aclose()
    db.execute(  # an entry as release 0.4 wrote it
        "INSERT INTO audit_log (at, operation, agent_id, ids, request_sha256) "
        "VALUES (1, 'remember', 'a', '[\"r0\"]', 'x')"
    )
    store = make_store(embedder=embedder)
    await store.remember({"agent_id": "a", "type": "semantic", "content": "after"})
    entries = await store.audit_entries()
    assert [(e["seq"], e["operation"]) for e in entries] == [(1, "remember")]
    assert verify(entries).ok
    assert db.rows("SELECT count(*) FROM audit_log WHERE position IS NULL") == [(1,)]


async def test_an_entry_names_the_caller_a_transport_let_the_write_through_by(
    make_store: StoreFactory,
) -> None:
    """``as_caller`` (what `mnemowire serve` wraps each authenticated operation in): every
    entry the operation writes carries ``detail.caller``, in the chain."""
    store = make_store()
    note = {"agent_id": "a", "type": "semantic", "content": "note"}
    kept = (await as_caller("alice-laptop", store.remember(note))).id
    await as_caller("ops", store.forget({"agent_id": "a", "ids": [kept], "reason": "asked"}))
    await store.remember(note)  # no transport: no caller
    entries = await store.audit_entries()
    assert [(e["operation"], (e["detail"] or {}).get("caller")) for e in entries] == [
        ("remember", "alice-laptop"),
        ("forget", "ops"),
        ("remember", None),
    ]
    assert entries[1]["detail"]["reason"] == "asked"
    assert verify(entries).ok
