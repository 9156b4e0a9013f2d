"""The audit log's hash chain (mnemowire.kit.audit): an honest chain verifies, and a changed,
removed, added or moved entry is found and named, as is a history cut short behind a head
someone kept."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from mnemowire.kit.audit import (
    GENESIS,
    append_sqlite,
    chain_digest,
    create_sqlite,
    export_lines,
    read_sqlite,
    verify,
)


def _chain(n: int) -> list[dict[str, Any]]:
    rows, previous = [], GENESIS
    for seq in range(1, n + 1):
        entry = {
            "seq": seq, "at": 1_780_000_000_000 + seq, "operation": "remember",
            "agent_id": f"agent {seq % 3}", "ids": [f"r{seq}"], "request_sha256": "ab" * 32,
            "detail": {"state": "pending"} if seq % 4 == 0 else None,
        }  # fmt: skip
        previous = chain_digest(previous, entry)
        rows.append({**entry, "digest": previous})
    return rows


def test_an_honest_chain_verifies_and_ends_in_its_head() -> None:
    rows = _chain(10)
    verdict = verify(rows)
    assert verdict.ok
    assert verdict.entries == 10
    assert verdict.head == rows[-1]["digest"]
    assert verify([]).ok
    assert verify(rows, head=rows[4]["digest"]).ok


@pytest.mark.parametrize(
    ("tamper", "first_bad", "words"),
    [
        (lambda rows: rows[3].update(agent_id="someone else"), 4, "does not match"),
        (lambda rows: rows[3]["ids"].append("r99"), 4, "does not match"),
        (lambda rows: rows.pop(5), 7, "entry 6 is missing"),
        (lambda rows: rows.insert(5, {**rows[5]}), 6, "out of order or repeated"),
        (
            lambda rows: rows.__setitem__(slice(2, 4), [rows[3], rows[2]]),
            4,
            "3 is missing or moved",
        ),
        # the attacker renumbers the swap: the digests still give it away
        (
            lambda rows: rows.__setitem__(
                slice(2, 4), [{**rows[3], "seq": 3}, {**rows[2], "seq": 4}]
            ),
            3,
            "does not match",
        ),
        (lambda rows: rows[6].update(digest="0" * 64), 7, "does not match"),
    ],
)
def test_a_tampered_chain_names_the_first_bad_entry(
    tamper: Any, first_bad: int, words: str
) -> None:
    rows = copy.deepcopy(_chain(10))
    tamper(rows)
    verdict = verify(rows)
    assert not verdict.ok
    assert verdict.first_bad == first_bad
    assert words in str(verdict.problem)


def test_a_history_cut_short_or_rewritten_misses_the_head_kept_earlier() -> None:
    rows = _chain(10)
    kept = rows[-1]["digest"]
    assert not verify(rows[:8], head=kept).ok  # the last two removed
    rewritten, previous = [], GENESIS  # every entry recomputed by someone who could
    for row in rows[:9]:
        changed = {**row, "agent_id": "rewritten"}
        previous = chain_digest(previous, changed)
        rewritten.append({**changed, "digest": previous})
    assert verify(rewritten).ok
    verdict = verify(rewritten, head=kept)
    assert not verdict.ok
    assert "does not pass through the head" in str(verdict.problem)


def test_an_export_is_every_entry_then_the_head() -> None:
    rows = _chain(3)
    lines = [json.loads(line) for line in export_lines(rows)]
    assert lines[:-1] == rows
    assert lines[-1] == {"head": rows[-1]["digest"], "entries": 3}
    assert verify(lines[:-1]).ok


@pytest.mark.parametrize(
    ("tamper", "words"),
    [
        # what PostgreSQL's bigint and jsonb hold and RFC 8785 cannot: past 2**53, infinity
        (lambda row: row.update(at=2**62), "cannot be digested"),
        (lambda row: row.update(detail={"n": 10**30}), "cannot be digested"),
        (lambda row: row.update(ids=[float("inf")]), "cannot be digested"),
        (lambda row: row.update(operation=b"\x00\xff"), "cannot be digested"),  # a SQLite BLOB
        # what an edited export holds
        (lambda row: row.update(seq="4"), "has no whole-number seq"),
        (lambda row: row.pop("seq"), "has no whole-number seq"),
        (lambda row: row.update(unreadable="its detail is not JSON"), "its detail is not JSON"),
    ],
)
def test_an_entry_that_cannot_be_digested_is_named_not_raised(tamper: Any, words: str) -> None:
    rows = copy.deepcopy(_chain(6))
    tamper(rows[3])
    verdict = verify(rows)
    assert (verdict.ok, verdict.first_bad, verdict.entries) == (False, 4, 3)
    assert words in str(verdict.problem)


@pytest.mark.parametrize("line", [None, 4, "entry", ["seq", 4]])
def test_an_export_line_that_is_not_an_entry_is_named(line: Any) -> None:
    rows: list[Any] = copy.deepcopy(_chain(6))
    rows[3] = line
    verdict = verify(rows)
    assert (verdict.ok, verdict.first_bad) == (False, 4)
    assert "is not an entry" in str(verdict.problem)


@pytest.mark.parametrize(
    ("column", "stored", "words"),
    [
        ("detail", "{not json", "its detail is not JSON"),
        ("ids", "[1, 2", "its ids are not JSON"),
        ("ids", b"\x00\xff", "its ids are not JSON"),
        ("detail", "[" * 100_000 + "]" * 100_000, "its detail is not JSON"),  # too deep
        ("agent_id", b"a\xff", "its agent_id is not UTF-8 text"),  # CAST(X'61ff' AS TEXT)
    ],
)
def test_a_sqlite_row_that_is_not_json_is_read_and_named(
    column: str, stored: Any, words: str
) -> None:
    """``read_sqlite`` (sqlite-vec, and the document stores' id maps) reads a row rewritten
    behind the triggers' back as it is, for ``verify`` to name; it never raises on one."""
    import sqlite3

    connection = sqlite3.connect(":memory:")
    create_sqlite(connection)
    for n in range(3):
        append_sqlite(connection, 1_780_000_000_000 + n, "remember", "a", [f"r{n}"], {}, None)
    assert verify(read_sqlite(connection)).ok
    connection.execute("DROP TRIGGER audit_log_append_only_update")
    rewrite = "CAST(? AS TEXT)" if column == "agent_id" else "?"
    connection.execute(f"UPDATE audit_log SET {column} = {rewrite} WHERE seq = 2", (stored,))
    entries = read_sqlite(connection)
    verdict = verify(entries)
    assert (verdict.ok, verdict.first_bad, verdict.entries) == (False, 2, 1)
    assert f"entry 2 cannot be read: {words}" in str(verdict.problem)
    assert [json.loads(line)["seq"] for line in list(export_lines(entries))[:-1]] == [1, 2, 3]


def test_a_chain_checks_on_from_an_entry_verified_before() -> None:
    rows = _chain(10)
    verdict = verify(rows[6:], since=(6, rows[5]["digest"]))
    assert (verdict.ok, verdict.entries, verdict.head) == (True, 10, rows[-1]["digest"])
    assert verify(rows[6:], since=(6, rows[5]["digest"]), head=rows[3]["digest"]).ok is False
    assert verify(rows[6:], since=(6, rows[5]["digest"]), head=rows[5]["digest"]).ok
    assert verify(rows[6:], since=(6, rows[8]["digest"])).first_bad == 7
    assert verify(rows[7:], since=(6, rows[5]["digest"])).first_bad == 8
