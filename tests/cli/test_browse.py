"""``mnemowire get|list|restore|update`` and ``expire --dry-run`` through click's runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mnemowire import spec
from mnemowire.apps.cli import Exit, cli
from mnemowire.apps.cli._browse import PROGRESS_EVERY
from tests.cli._support import remember_all


@pytest.fixture
def store(tmp_path: Path) -> list[str]:
    return ["--store", f"sqlite-vec://{tmp_path / 'cli.db'}?embedder=hash:32"]


def run(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    result = CliRunner().invoke(cli, list(args))
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return result.exit_code, lines, result.stderr


def test_list_pages_through_everything_one_record_per_line(store: list[str]) -> None:
    ids = remember_all(store, *(f"note {n}" for n in range(2 * PROGRESS_EVERY + 3)))
    code, records, err = run("list", *store, "--agent", "a", "--page-size", "2")
    assert code == Exit.OK
    assert sorted(r["id"] for r in records) == sorted(ids)
    assert all(spec.validate("list.response", {"records": [r], "latency_ms": 0}) is None
               for r in records)  # fmt: skip
    assert f"listed {len(ids)} records ({len(ids) // 2 + 1} pages)" in err
    code, some, err = run("list", *store, "--agent", "a", "--max", "3", "--page-size", "2")
    assert (code, len(some)) == (Exit.OK, 3)
    cursor = err.split("--cursor ")[1].split()[0]
    code, rest, _ = run("list", *store, "--agent", "a", "--cursor", cursor, "--page-size", "2")
    assert sorted(r["id"] for r in some + rest) == sorted(ids)


def test_list_pretty_is_a_table_and_a_foreign_cursor_a_usage_error(store: list[str]) -> None:
    remember_all(store, "Alice likes tea", "Bob likes coffee")
    result = CliRunner().invoke(cli, ["list", *store, "--agent", "a", "--pretty"])
    assert result.exit_code == Exit.OK
    assert result.stdout.splitlines()[0].split() == ["id", "type", "state", "v", "content"]
    assert "Bob likes coffee" in result.stdout
    code, _, err = run("list", *store, "--agent", "b", "--cursor", "WzFd" + "A" * 30)
    assert code == Exit.USAGE
    assert "--cursor" in err


def test_get_update_restore_and_a_previewed_expire(store: list[str]) -> None:
    [tea, coffee] = remember_all(store, "Alice likes tea", "Bob likes coffee")
    code, [found], _ = run("get", *store, "--agent", "a", tea, "nope")
    assert code == Exit.OK
    assert ([r["id"] for r in found["records"]], found["missing"]) == ([tea], ["nope"])
    change = ["update", *store, "--agent", "a", tea, "--expected-version", "1"]
    code, [done], _ = run(*change, "--content", "Alice likes green tea")
    assert (code, done["version"], done["updated"]) == (Exit.OK, 2, ["content"])
    code, [stale], _ = run(*change, "--content", "again")
    assert (code, stale["code"]) == (Exit.REJECTED, "conflict")
    code, _, err = run("update", *store, "--agent", "a", tea, "--content", "x")
    assert code == Exit.USAGE
    assert "--expected-version is required" in err
    expire = ["expire", *store, "--agent", "a", "--older-than-days", "0", "--action", "archive"]
    code, [preview], _ = run(*expire, "--dry-run")
    assert (code, sorted(preview["matched_ids"]), preview["dry_run"]) == (
        Exit.OK, sorted([tea, coffee]), True
    )  # fmt: skip
    code, [listed], _ = run("get", *store, "--agent", "a", tea, coffee)
    assert listed["missing"] == []  # the preview archived nothing
    code, [archived], _ = run(*expire)
    assert sorted(archived["matched_ids"]) == sorted([tea, coffee])
    code, [restored], _ = run("restore", *store, "--agent", "a", coffee, tea)
    assert restored["restored"] == [coffee, tea]


@pytest.mark.parametrize("command", ["get", "restore"])
def test_an_id_command_reads_its_request_from_json_without_flags(
    store: list[str], command: str
) -> None:
    """Its ids argument, left empty, is not a flag given (it was: --json was refused)."""
    [record_id] = remember_all(store, "tea")
    asked = json.dumps({"agent_id": "a", "ids": [record_id]})
    result = CliRunner().invoke(cli, [command, *store, "--json", "-"], input=asked)
    assert result.exit_code == Exit.OK, result.output


def test_history_prints_each_version_and_pretty_shows_each_change(store: list[str]) -> None:
    [tea, cake] = remember_all(store, "Alice likes tea", "Alice likes tea\x1b]52;c;cGF3bg==\x07")
    run("update", *store, tea, "--agent", "a", "--expected-version", "1", "--reason", "asked her",
        "--content", "Alice likes green tea", "--metadata", '{"topic": "drinks"}')  # fmt: skip
    run("merge", *store, tea, cake, "--agent", "a", "--strategy", "merge_content")
    code, [answer], _ = run("history", *store, tea, "--agent", "a")
    assert code == Exit.OK
    assert spec.validate("history.response", answer) is None
    assert [e["operation"] for e in answer["entries"]] == ["remember", "update", "merge"]
    assert answer["entries"][2]["merged_from"] == [cake]
    result = CliRunner().invoke(cli, ["history", *store, tea, "--agent", "a", "--pretty"])
    assert result.exit_code == Exit.OK
    out = result.stdout
    flat = " ".join(out.split())  # lines wrap at the terminal's width
    assert "after: Alice likes {+green+} tea" in flat
    assert 'metadata: {} -> {"topic": "drinks"}' in flat
    assert f"merged from {cake}" in flat
    assert "reason: asked her" in flat
    assert "\x1b" not in out
    assert "\\x1b]52" in out
    pretty = CliRunner().invoke(cli, ["history", *store, cake, "--agent", "a", "--pretty"])
    assert f"merged into {tea}" in " ".join(pretty.stdout.split())
    assert "words the change removed" not in pretty.stdout  # nothing is marked


def test_history_errors_name_the_flag_and_what_to_do(store: list[str]) -> None:
    [tea] = remember_all(store, "Alice likes tea")
    code, _, err = run("history", *store, tea)
    assert code == Exit.USAGE
    assert "--agent is required" in err
    code, _, err = run("history", *store, tea, "--agent", "a", "--limit", "0")
    assert code == Exit.USAGE
    assert "--limit" in err
    code, [envelope], _ = run("history", *store, "nope", "--agent", "a")
    assert code == Exit.REJECTED
    assert envelope["code"] == "not_found"
    assert "mnemowire list" in envelope["message"]
    code, _, err = run("history", *store, tea, "--agent", "a", "--cursor", "WzFd" + "A" * 30)
    assert code == Exit.USAGE
    assert "--cursor" in err
