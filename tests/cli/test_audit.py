"""``mnemowire audit verify|export`` on what a hostile owner of the file can write: a row that
is not JSON or holds what the digest cannot take gets a verdict naming it, never a traceback;
and a server's URL is a usage error that says which URL the command needs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.adapters.sqlite_vec._driver import connect, find_driver
from mnemowire.apps.cli import Exit, cli
from mnemowire.apps.server import MemoryServer
from mnemowire.embedders import HashEmbedder
from mnemowire.layers.memory import Memory
from tests.server._serving import serving


def _audit(*args: str) -> Result:
    result = CliRunner().invoke(cli, ["audit", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _store(path: Path) -> str:
    """A sqlite-vec store at ``path`` with three audited remembers; its URL."""

    async def write() -> None:
        async with Memory(SqliteVecStore(str(path), embedder=HashEmbedder(64))) as memory:
            for n in range(3):
                await memory.remember({"agent_id": "a", "type": "semantic", "content": f"n {n}"})

    asyncio.run(write())
    return f"sqlite-vec://{path}?embedder=hash:64"


def _tamper(path: Path, statement: str, *args: Any) -> None:
    """What someone with the file can do: the append-only trigger dropped, a row rewritten
    (through the store's own SQLite: two copies of SQLite in one process break each other's
    locks)."""
    connection = connect(find_driver(), str(path))
    try:
        connection.execute("DROP TRIGGER IF EXISTS audit_log_append_only_update")
        connection.execute(statement, args)
        connection.commit()
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("statement", "value", "said"),
    [
        ("UPDATE audit_log SET detail = ? WHERE seq = 2", "{not json", "its detail is not JSON"),
        ("UPDATE audit_log SET ids = ? WHERE seq = 2", b"\x00\xff", "its ids are not JSON"),
        ("UPDATE audit_log SET at = ? WHERE seq = 2", 2**63 - 1, "cannot be digested"),
        ("UPDATE audit_log SET operation = ? WHERE seq = 2", b"\x00", "cannot be digested"),
        (
            "UPDATE audit_log SET agent_id = CAST(? AS TEXT) WHERE seq = 2",
            b"a\xff",
            "its agent_id is not UTF-8 text",
        ),
    ],
)
def test_a_row_rewritten_into_what_is_not_json_gets_a_verdict(
    tmp_path: Path, statement: str, value: Any, said: str
) -> None:
    url = _store(tmp_path / "memory.db")
    _tamper(tmp_path / "memory.db", statement, value)
    result = _audit("verify", "--store", url)
    assert result.exit_code == Exit.REJECTED
    verdict = json.loads(result.stdout)
    assert (verdict["ok"], verdict["first_bad"], verdict["entries"]) == (False, 2, 1)
    assert said in verdict["problem"]
    # its export writes it as it is, and verifying the export names the same entry
    export = tmp_path / "audit.jsonl"
    assert _audit("export", "--store", url, "--out", str(export)).exit_code == Exit.OK
    result = _audit("verify", "--file", str(export))
    assert result.exit_code == Exit.REJECTED
    assert json.loads(result.stdout)["first_bad"] == 2


@pytest.mark.parametrize("last", ["5", '"head"', "[1, 2]", "null"])
def test_an_export_ending_in_what_is_not_an_entry_gets_a_verdict(tmp_path: Path, last: str) -> None:
    url = _store(tmp_path / "memory.db")
    export = tmp_path / "audit.jsonl"
    _audit("export", "--store", url, "--out", str(export))
    lines = export.read_text().splitlines()
    export.write_text("\n".join([*lines[:-1], last]) + "\n")
    result = _audit("verify", "--file", str(export))
    assert result.exit_code == Exit.REJECTED
    verdict = json.loads(result.stdout)
    assert (verdict["ok"], verdict["first_bad"]) == (False, 4)
    assert "entry 4 is not an entry" in verdict["problem"]


@pytest.mark.parametrize("command", ["verify", "export"])
def test_a_servers_url_is_a_usage_error_asking_for_the_stores_own(
    tmp_path: Path, command: str
) -> None:
    """The audit log is read where it is kept: the server's own store URL, not the server."""
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    with serving(MemoryServer(store)) as url:
        result = _audit(command, "--store", url)
    assert result.exit_code == Exit.USAGE
    said = " ".join(result.stderr.split())
    assert "--store" in said
    assert f"{url} is a mnemowire server, not a store" in said
    assert "the store URL the server was started with (its serve --store" in said
    assert "keeps no audit log" not in said  # the server's sqlite-vec store does
