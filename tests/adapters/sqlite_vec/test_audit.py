"""The sqlite-vec store's audit log as a hash chain, and `mnemowire audit verify|export` on it:
every mutation chained in its own transaction, a file edited behind the store's back found and
the first bad entry named, an export that checks on its own and fails once edited or cut."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mnemowire.adapters.sqlite_vec._driver import connect, find_driver
from mnemowire.apps.cli import Exit, cli
from mnemowire.kit.audit import verify
from tests.adapters.sqlite_vec.conftest import StoreFactory


async def _write_some(make_store: StoreFactory) -> int:
    """Mutations of every kind; how many audit entries they make."""
    async with make_store() as store:
        ids = [
            (await store.remember({"agent_id": "a", "type": "semantic", "content": f"n {i}"})).id
            for i in range(4)
        ]
        await store.forget({"agent_id": "a", "ids": [ids[0]]})
        await store.merge({"agent_id": "a", "canonical": ids[1], "duplicates": [ids[2]]})
        await store.forget({"agent_id": "a", "ids": [ids[3]], "hard_delete": True})
        verdict = verify(await store.audit_entries())
        assert verdict.ok, verdict.problem
        return verdict.entries


def _cli(*args: str) -> Any:
    return CliRunner().invoke(cli, ["audit", *args])


async def _run(*args: str) -> Any:
    """The command from an async test: off the test's event loop, as from a shell."""
    return await asyncio.to_thread(_cli, *args)


def _tamper(path: Path, statement: str) -> None:
    """What someone with the file could do: the append-only triggers dropped, a row changed."""
    connection = connect(find_driver(), str(path))
    try:
        connection.execute("DROP TRIGGER IF EXISTS audit_log_append_only_update")
        connection.execute("DROP TRIGGER IF EXISTS audit_log_append_only_delete")
        connection.execute(statement)
        connection.commit()
    finally:
        connection.close()


async def test_every_mutation_is_one_chained_entry(make_store: StoreFactory) -> None:
    assert await _write_some(make_store) == 7


async def test_an_edited_or_removed_entry_is_found_and_named(
    make_store: StoreFactory, tmp_path: Path
) -> None:
    await _write_some(make_store)
    url = f"sqlite-vec://{tmp_path / 'memory.db'}?embedder=hash:64"
    result = await _run("verify", "--store", url)
    assert result.exit_code == Exit.OK, result.output
    _tamper(tmp_path / "memory.db", "UPDATE audit_log SET agent_id = 'b' WHERE seq = 3")
    result = await _run("verify", "--store", url)
    assert result.exit_code == Exit.REJECTED
    verdict = json.loads(result.output)
    assert (verdict["ok"], verdict["first_bad"], verdict["entries"]) == (False, 3, 2)
    _tamper(tmp_path / "memory.db", "DELETE FROM audit_log WHERE seq = 2")
    verdict = json.loads((await _run("verify", "--store", url)).output)
    assert verdict["first_bad"] == 3
    assert "entry 2 is missing" in verdict["problem"]


async def test_an_export_checks_alone_and_fails_once_edited_or_cut(
    make_store: StoreFactory, tmp_path: Path
) -> None:
    await _write_some(make_store)
    url = f"sqlite-vec://{tmp_path / 'memory.db'}?embedder=hash:64"
    export = tmp_path / "audit.jsonl"
    assert (await _run("export", "--store", url, "--out", str(export))).exit_code == Exit.OK
    lines = export.read_text().splitlines()
    head = json.loads(lines[-1])["head"]
    assert (await _run("verify", "--file", str(export))).exit_code == Exit.OK
    # later writes keep the old head on the chain
    async with make_store() as store:
        await store.remember({"agent_id": "a", "type": "semantic", "content": "later"})
    later = await _run("verify", "--store", url, "--head", head)
    assert later.exit_code == Exit.OK, later.output
    assert json.loads(later.output)["entries"] == 8
    # an edited line, a file cut short, a head that is not on the chain
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join([lines[0].replace('"a"', '"b"'), *lines[1:]]) + "\n")
    assert json.loads((await _run("verify", "--file", str(edited))).output)["first_bad"] == 1
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-2]) + "\n")
    result = await _run("verify", "--file", str(cut))
    assert result.exit_code == Exit.REJECTED
    assert "cut short" in json.loads(result.output)["problem"]
    result = await _run("verify", "--file", str(cut), "--head", head)
    assert "does not pass through the head" in json.loads(result.output)["problem"]


def test_the_command_line_says_what_it_needs(tmp_path: Path) -> None:
    assert _cli("verify").exit_code == Exit.USAGE
    both = _cli("verify", "--store", "sqlite-vec://:memory:", "--file", str(tmp_path / "x"))
    assert both.exit_code == Exit.USAGE
    assert "one of --store URL or --file EXPORT" in both.output
    missing = _cli("verify", "--file", str(tmp_path / "nothing.jsonl"))
    assert missing.exit_code == Exit.USAGE
