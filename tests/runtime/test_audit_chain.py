"""The audit log's hash chain (mnemowire.kit.audit): an honest chain verifies, and a changed,
removed, added or moved entry is found and named, as is a history cut short behind a head
someone kept."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mnemowire.kit.audit import GENESIS, chain_digest, export_lines, verify


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
    import json

    rows = _chain(3)
    lines = [json.loads(line) for line in export_lines(rows)]
    assert lines[:-1] == rows
    assert lines[-1] == {"head": rows[-1]["digest"], "entries": 3}
    assert verify(lines[:-1]).ok
