"""kill -9 during ``mnemowire import`` or ``migrate``, then the same command again: the target
ends as if the command had run once (docs/portability.md#resume): the same records, states,
vectors and tombstones as a target written in one run, and one audit entry per page as one
run writes them (the killed run's committed pages are skipped, not written twice)."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from mnemowire.adapters.pgvector._migrations import DEFERRED
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import HashEmbedder
from mnemowire.layers.memory import Memory
from mnemowire.registry import open_store
from tests.adapters._archive import export_all

RECORDS = 4_000
CLI = [sys.executable, "-c", "from mnemowire.apps.cli import main; main()"]


async def make_source(path: Path) -> None:
    async with Memory(SqliteVecStore(str(path), embedder=HashEmbedder(32))) as memory:
        requests = [
            {"agent_id": f"agent-{n % 2}", "type": "semantic", "content": f"fact {n}",
             "confidence": 0.1 if n % 7 == 0 else 0.9}
            for n in range(RECORDS)
        ]  # fmt: skip
        done = await memory.remember_many(requests)
        for agent in ("agent-0", "agent-1"):
            await memory.expire(
                {"agent_id": agent, "policy": {"confidence_below": 0.2}, "action": "archive"}
            )
        erased = [d.id for d in done[:40:2]]  # agent-0's
        await memory.forget({"agent_id": "agent-0", "ids": erased, "hard_delete": True})


@pytest.fixture
def source(tmp_path: Path) -> str:
    path = tmp_path / "source.db"
    asyncio.run(make_source(path))
    return f"sqlite-vec://{path}?embedder=hash:32"


@pytest.fixture
def targets(tmp_path: Path, pg_dsn: str) -> Iterator[dict[str, Any]]:
    """Two fresh targets of each kind (the killed one, the one written in one run), with
    how to count the records the killed one holds while the command runs."""
    schemas = [f"t_{uuid.uuid4().hex[:12]}" for _ in range(2)]
    base = "pgvector://" + pg_dsn.split("://", 1)[1]
    sep = "&" if "?" in base else "?"
    yield {
        "sqlite-vec": [f"sqlite-vec://{tmp_path / name}?embedder=hash:32"
                       for name in ("killed.db", "once.db")],
        "pgvector": [f"{base}{sep}schema={schema}&embedder=hash:32" for schema in schemas],
        "count": {"sqlite-vec": lambda: _count_sqlite(tmp_path / "killed.db"),
                  "pgvector": lambda: _count_pg(pg_dsn, schemas[0])},
        "indexes": lambda: _indexes(pg_dsn, schemas[0]),
    }  # fmt: skip
    with psycopg.connect(pg_dsn, autocommit=True) as connection:
        for schema in schemas:
            connection.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
            )


def _count_sqlite(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.1) as db:
            return int(db.execute("SELECT count(*) FROM memories").fetchone()[0])
    except sqlite3.Error:
        return 0


def _count_pg(dsn: str, schema: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as db:
        try:
            table = sql.Identifier(schema, "memories")
            row = db.execute(sql.SQL("SELECT count(*) FROM {}").format(table)).fetchone()
        except psycopg.Error:
            return 0
        return int(row[0]) if row else 0


def _indexes(dsn: str, schema: str) -> set[str]:
    with psycopg.connect(dsn, autocommit=True) as db:
        rows = db.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (schema,)
        ).fetchall()
    return {row[0] for row in rows}


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, check=False, timeout=600)


def kill_midway(args: list[str], count: Any) -> int:
    """Start the command, SIGKILL it once the target holds some records but not all; how
    many it held then."""
    started = subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and started.poll() is None:
            if count() > 0:
                break
            time.sleep(0.005)
        os.kill(started.pid, signal.SIGKILL)
    finally:
        started.wait(timeout=60)
    held = int(count())
    assert 0 < held < RECORDS - 20, f"not killed midway: {held} records ({started.returncode})"
    return held


async def contents(url: str) -> dict[str, Any]:
    """Every agent's export and the audit log as one run writes it (no times)."""
    memory = Memory(open_store(url))
    async with memory:
        audit = await memory.store.audit_entries()  # type: ignore[attr-defined]
        return {
            "exports": [await export_all(memory, agent) for agent in ("agent-0", "agent-1")],
            "audit": sorted((e["operation"], e["agent_id"], sorted(e["ids"])) for e in audit),
        }


@pytest.mark.parametrize("kind", ["sqlite-vec", "pgvector"])
@pytest.mark.parametrize("command", ["import", "migrate"])
def test_a_killed_move_run_again_ends_as_one_run(
    source: str, targets: dict[str, Any], tmp_path: Path, kind: str, command: str
) -> None:
    killed, once = targets[kind]
    archive = tmp_path / "archive.jsonl"
    assert run(["export", "--store", source, "--out", str(archive)]).returncode == 0

    def args(target: str) -> list[str]:
        if command == "import":
            return ["import", "--store", target, str(archive)]
        return ["migrate", source, target]

    kill_midway(args(killed), targets["count"][kind])
    again = run(args(killed))
    assert again.returncode == 0, again.stderr
    assert run(args(once)).returncode == 0
    assert asyncio.run(contents(killed)) == asyncio.run(contents(once))
    if kind == "pgvector":  # the indexes the killed run deferred are back
        assert set(DEFERRED) <= targets["indexes"]()
