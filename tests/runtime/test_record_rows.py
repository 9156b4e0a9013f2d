"""``kit.RecordRows``: store rows as the records get and list return, a page's JSON columns
decoded together; each decoded value must land on its own row however the NULLs fall."""

from __future__ import annotations

import json

from mnemowire.kit import RecordRows
from mnemowire.models import MemoryRecord

COLUMNS: tuple[str, ...] = ("rowid", "id", "agent_id", "type", "content", "metadata")
COLUMNS += ("participants", "seal", "created_at", "expires_at", "state", "demote")
NOW = 2_000


def _row(
    n: int, *, participants: list[str] | None, seal: dict[str, str] | None, **over: object
) -> tuple[object, ...]:
    values = {
        "rowid": n,
        "id": f"m{n}",
        "agent_id": "a",
        "type": "semantic",
        "content": f"memory {n}",
        "metadata": json.dumps({"n": n}),
        "participants": None if participants is None else json.dumps(participants),
        "seal": None if seal is None else json.dumps(seal),
        "created_at": 1_000 + n,
        "expires_at": None,
        "state": "active",
        "demote": 0,
    }
    values.update(over)
    return tuple(values[c] for c in COLUMNS)


def test_json_columns_follow_their_rows_whatever_the_nulls() -> None:
    rows = [
        _row(1, participants=None, seal={"key_id": "k1"}),
        _row(2, participants=["bob"], seal=None),
        _row(3, participants=None, seal=None),
        _row(4, participants=["ann", "cy"], seal={"key_id": "k4"}),
    ]
    records = RecordRows(COLUMNS, json_text=("metadata", "participants", "seal")).records(rows, NOW)
    assert [r["id"] for r in records] == ["m1", "m2", "m3", "m4"]
    assert [r["metadata"] for r in records] == [{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}]
    assert [r.get("participants") for r in records] == [None, ["bob"], None, ["ann", "cy"]]
    assert [r.get("seal") for r in records] == [{"key_id": "k1"}, None, None, {"key_id": "k4"}]


def test_records_carry_wire_fields_only_and_the_state_a_caller_sees() -> None:
    rows = [
        _row(1, participants=None, seal=None, expires_at=NOW),  # expired at this instant
        _row(2, participants=None, seal=None, expires_at=NOW + 1),
        _row(3, participants=None, seal=None, state="archived", expires_at=NOW - 1),
    ]
    records = RecordRows(COLUMNS, json_text=("metadata", "participants", "seal")).records(rows, NOW)
    assert [r["state"] for r in records] == ["expired", "active", "archived"]
    first = records[0]
    assert set(first).isdisjoint({"rowid", "demote"})  # store columns, not record fields
    assert set(first).isdisjoint({"participants", "seal"})  # NULL: a field not set
    MemoryRecord.model_validate(first)


def test_an_empty_page_and_decoded_columns() -> None:
    reader = RecordRows(COLUMNS)
    assert reader.records([], NOW) == []
    decoded = _row(1, participants=None, seal=None, metadata={"already": "decoded"})
    assert reader.records([decoded], NOW)[0]["metadata"] == {"already": "decoded"}
