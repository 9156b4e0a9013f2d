"""The sqlite-vec store's own side of the review queue (the shared side is
tests/adapters/_semantics.py): a file written before the queue existed lists its staged
records, and `mnemowire review` lists, shows, approves and rejects."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mnemowire.adapters.sqlite_vec import SqliteVecStore, _schema
from mnemowire.adapters.sqlite_vec._driver import connect, find_driver
from mnemowire.apps.cli import cli
from mnemowire.embedders import HashEmbedder
from tests.adapters._support import CheckedStore


def test_a_file_with_staged_records_from_before_the_queue_lists_them(tmp_path: Path) -> None:
    """Migration 6 gives every pending record of a version-5 file its review."""
    path = tmp_path / "v5.db"
    embedder = HashEmbedder(16)
    connection = connect(find_driver(), str(path))
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("CREATE TABLE mnemowire_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    for step in _schema.MIGRATIONS[:5]:
        step(connection, embedder.dimension)
    connection.executemany(
        "INSERT INTO mnemowire_meta(key, value) VALUES (?, ?)",
        [("schema_version", "5"), ("embedder", embedder.name), ("dimension", "16")],
    )
    connection.execute(
        "INSERT INTO memories(id, agent_id, user_id, type, content, metadata, confidence, "
        "created_at, updated_at, state, embedding) VALUES ('p1', 'a', 'u', 'semantic', "
        "'old staged', '{\"k\": 1}', 0.5, 7, 7, 'pending', ?)",
        (bytes(4 * 16),),
    )
    connection.execute("COMMIT")
    connection.close()

    async def listed() -> Any:
        async with CheckedStore(SqliteVecStore(str(path), embedder=embedder)) as store:
            return await store.reviews({"agent_id": "a", "related": 0})

    [review] = asyncio.run(listed()).reviews
    assert (review.review_id, review.requested_at, review.staged_by) == ("p1", 7, "caller")
    assert review.request == {
        "agent_id": "a",
        "user_id": "u",
        "type": "semantic",
        "content": "old staged",
        "metadata": {"k": 1},
        "confidence": 0.5,
        "approval_required": True,
    }


def test_the_review_commands_list_approve_and_reject(tmp_path: Path) -> None:
    store = f"sqlite-vec://{tmp_path / 'cli.db'}?embedder=hash:32"
    runner = CliRunner()

    def run(*args: str, env: dict[str, str] | None = None) -> Any:
        return runner.invoke(cli, [*args, "--store", store], env=env)

    for text in ("first staged", "second staged"):
        result = run("remember", "--agent", "a", "--type", "semantic", "--approval-required", text)
        assert result.exit_code == 0, result.output
    listed = json.loads(run("review", "list", "--agent", "a", "--limit", "1").output)
    first = listed["reviews"][0]["review_id"]
    assert listed["next_cursor"] == first
    rest = json.loads(run("review", "list", "--agent", "a", "--cursor", first).output)
    second = rest["reviews"][0]["review_id"]
    shown = json.loads(run("review", "show", "--agent", "a", second).output)
    assert [r["review_id"] for r in shown["reviews"]] == [second]

    missing = run("review", "approve", "--agent", "a", first)
    assert missing.exit_code == 2
    assert "--reviewer" in missing.output
    approved = run("review", "approve", "--agent", "a", "--reason", "ok", first,
                   env={"MNEMOWIRE_REVIEWER": "dana"})  # fmt: skip
    assert approved.exit_code == 0, approved.output
    assert json.loads(approved.output)["decision"]["reviewer"] == "dana"
    rejected = run("review", "reject", "--agent", "a", "--reviewer", "eve", second)
    assert json.loads(rejected.output)["outcome"] == "rejected"
    again = run("review", "reject", "--agent", "a", "--reviewer", "eve", second)
    assert again.exit_code == 1
    assert json.loads(again.output)["code"] == "conflict"
