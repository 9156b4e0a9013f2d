"""The audit log of a document store (kit.documents) on the real mem0: a hash chain in the id
map's SQLite, an entry for every mutation and decision (the shared review test), kept across a
reopen, and an entry edited behind the store's back found by `mnemowire audit verify`."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mnemowire.adapters.mem0 import Mem0Store
from mnemowire.apps.cli import Exit, cli
from mnemowire.kit.audit import as_caller, read_sqlite, verify
from tests.adapters._semantics_reviews import test_every_decision_is_audited_and_chained
from tests.adapters.mem0.conftest import CheckedStore, Clock

__all__ = ["test_every_decision_is_audited_and_chained"]


@pytest.fixture
def audit(tmp_path: Path) -> Callable[[], list[dict[str, Any]]]:
    """The first store's audit log, read from its id map as anyone with the file could (a
    detail as a dict, as the shared tests read it)."""

    def read() -> list[dict[str, Any]]:
        with closing(sqlite3.connect(tmp_path / "mem0-0" / "mnemowire-ids.db")) as connection:
            return [{**e, "detail": e["detail"] or {}} for e in read_sqlite(connection)]

    return read


async def _write_some(folder: Path, clock: Clock) -> list[str]:
    """Mutations of every kind a mem0 store serves; the operations of their entries."""
    store = CheckedStore(Mem0Store(folder, clock=clock))
    try:
        ids = [
            (await store.remember({"agent_id": "a", "type": "semantic", "content": f"n {i}"})).id
            for i in range(4)
        ]
        await store.forget({"agent_id": "a", "ids": [ids[0]]})
        await store.merge({"agent_id": "a", "canonical": ids[1], "duplicates": [ids[2]]})
        [kept] = (await store.get({"agent_id": "a", "ids": [ids[1]]})).records
        change = {"id": ids[1], "expected_version": kept.version, "content": "n 1 and 2"}
        await store.update({"agent_id": "a", **change})
        await store.expire({"agent_id": "a", "policy": {"confidence_below": 0.5}})
        await store.forget({"agent_id": "a", "ids": [ids[3]], "hard_delete": True})
        entries = await store.audit_entries()
    finally:
        await store.aclose()
    verdict = verify(entries)
    assert verdict.ok, verdict.problem
    return [e["operation"] for e in entries]


def _cli(*args: str) -> Any:
    return CliRunner().invoke(cli, ["audit", *args])


async def test_every_mutation_is_chained_and_kept_across_a_reopen(
    tmp_path: Path, clock: Clock
) -> None:
    first = await _write_some(tmp_path / "m", clock)
    assert first == [*["remember"] * 4, "forget", "merge", "update", "expire", "forget"]
    assert await _write_some(tmp_path / "m", clock) == first * 2  # one chain, continued


async def test_an_edited_entry_is_found_by_audit_verify(tmp_path: Path, clock: Clock) -> None:
    await _write_some(tmp_path / "m", clock)
    url = f"mem0://{tmp_path / 'm'}"
    clean = await asyncio.to_thread(_cli, "verify", "--store", url)
    assert clean.exit_code == 0, clean.output
    with closing(sqlite3.connect(tmp_path / "m" / "mnemowire-ids.db")) as connection:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            connection.execute("UPDATE audit_log SET agent_id = 'b' WHERE seq = 3")
        connection.execute("DROP TRIGGER audit_log_append_only_update")
        connection.execute("UPDATE audit_log SET agent_id = 'b' WHERE seq = 3")
        connection.commit()
    tampered = await asyncio.to_thread(_cli, "verify", "--store", url)
    assert tampered.exit_code == Exit.REJECTED, tampered.output
    assert "entry 3 does not match its digest" in tampered.output


async def test_an_entry_names_the_caller_through_the_stores_worker_thread(
    tmp_path: Path, clock: Clock
) -> None:
    """``as_caller`` (what `mnemowire serve` wraps each authenticated operation in) reaches
    the entries the store's worker thread writes: it runs in a copy of the caller's context."""
    store = CheckedStore(Mem0Store(tmp_path / "c", clock=clock))
    try:
        note = {"agent_id": "a", "type": "semantic", "content": "note"}
        kept = (await as_caller("alice-laptop", store.remember(note))).id
        await as_caller("ops", store.forget({"agent_id": "a", "ids": [kept]}))
        await store.remember(note)
        entries = await store.audit_entries()
    finally:
        await store.aclose()
    assert [(e["detail"] or {}).get("caller") for e in entries] == ["alice-laptop", "ops", None]
    assert verify(entries).ok
