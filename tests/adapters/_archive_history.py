"""Spec v0.4's history carried by an archive (docs/spec/v0.4.md#archive.history,
#import.history), tested once and run against every store that keeps history
(tests/adapters/<adapter>/test_archive_ops.py imports these, with its ``archive_store``
fixture): an export with ``include_history`` carries each record's versions, an import keeps
them before a version of its own, and a line whose history does not hold together changes
nothing."""

from __future__ import annotations

from typing import Any

import pytest

from mnemowire.errors import RequestError
from mnemowire.kit import to_wire
from mnemowire.kit.audit import as_caller
from mnemowire.layers.memory import Memory
from tests.adapters._archive import ArchiveStore, export_all, import_request


async def versions(m: Memory, record_id: str) -> dict[str, Any]:
    """A record's whole history (agent a), as wire JSON: its entries and ``dropped``."""
    body: dict[str, Any] = {"agent_id": "a", "id": record_id, "limit": 3}
    entries: list[dict[str, Any]] = []
    while True:
        page = to_wire(await m.history(body))
        entries += page["entries"]
        if "next_cursor" not in page:
            return {"entries": entries, "dropped": page["dropped"]}
        body["cursor"] = page["next_cursor"]


async def lived(m: Memory) -> dict[str, str]:
    """Agent a's records with a past: a fact updated by a named caller with a reason, and one
    merged into it; a note never changed."""
    w: dict[str, Any] = {"agent_id": "a", "type": "semantic"}
    phone = (await m.remember({**w, "content": "Alice's phone is 555-0100"})).id
    again = (await m.remember({**w, "content": "Alice's phone number is 555-0100"})).id
    note = (await m.remember({**w, "content": "Bob plays chess"})).id
    await as_caller("ops-token", m.update({"agent_id": "a", "id": phone, "expected_version": 1,
                                           "content": "Alice's phone is 555-0199",
                                           "reason": "she changed her number"}))  # fmt: skip
    await m.merge({"agent_id": "a", "canonical": phone, "duplicates": [again]})
    return {"phone": phone, "again": again, "note": note}


def without_audit(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries as a target that did not make them shows them: imported, no audit entry."""
    return [{**{k: v for k, v in e.items() if k != "audit_seq"}, "imported": True} for e in entries]


async def test_an_import_keeps_each_version_before_a_version_of_its_own(
    archive_store: ArchiveStore,
) -> None:
    async with archive_store() as source, archive_store() as target:
        ids = await lived(source)
        exported = await export_all(source, include_history=True)
        lines = {r["record"]["id"]: r for r in exported["records"]}
        before = {name: await versions(source, i) for name, i in ids.items()}
        for name, record_id in ids.items():
            assert lines[record_id]["history"] == before[name]["entries"]
        assert [e["operation"] for e in before["phone"]["entries"]] == [
            "remember", "update", "merge",
        ]  # fmt: skip
        await target.import_records(import_request(exported))
        for name, record_id in ids.items():
            after = await versions(target, record_id)
            carried, own = after["entries"][:-1], after["entries"][-1]
            assert carried == without_audit(before[name]["entries"])
            assert own["operation"] == "import_records"
            assert own["revision"] == len(carried) + 1
            assert "imported" not in own
            assert own["audit_seq"] >= 1
            assert own["record"] == before[name]["entries"][-1]["record"]
        phone = (await versions(target, ids["phone"]))["entries"]
        assert (phone[1]["caller"], phone[1]["reason"]) == ("ops-token", "she changed her number")
        assert phone[2]["merged_from"] == [ids["again"]]
        assert (await versions(target, ids["again"]))["entries"][1]["merged_into"] == ids["phone"]
        # the target's audit log names the import once; it never claims the carried versions
        [entry] = await target.store.audit_entries()  # type: ignore[attr-defined]
        assert entry["operation"] == "import_records"
        # what the target made after the import follows on
        await target.update({"agent_id": "a", "id": ids["note"], "expected_version": 1,
                             "content": "Bob plays chess on Sundays"})  # fmt: skip
        note = (await versions(target, ids["note"]))["entries"]
        assert [(e["revision"], e["operation"]) for e in note] == [
            (1, "remember"), (2, "import_records"), (3, "update"),
        ]  # fmt: skip
        # and an export of the target carries the whole of it again, imported marks and all
        again = await export_all(target, include_history=True)
        line = next(r for r in again["records"] if r["record"]["id"] == ids["phone"])
        assert line["history"] == (await versions(target, ids["phone"]))["entries"]


async def test_without_include_history_a_record_starts_at_the_import(
    archive_store: ArchiveStore,
) -> None:
    async with archive_store() as source, archive_store() as target:
        ids = await lived(source)
        exported = await export_all(source)
        assert not any("history" in r for r in exported["records"])
        await target.import_records(import_request(exported))
        got = await versions(target, ids["phone"])
        assert [(e["revision"], e["operation"]) for e in got["entries"]] == [(1, "import_records")]


async def test_new_ids_carry_the_history_under_the_new_id_and_the_bound_holds(
    archive_store: ArchiveStore,
) -> None:
    async with archive_store() as source, archive_store(history_limit=2) as target:
        ids = await lived(source)
        exported = await export_all(source, include_history=True)
        answer = await target.import_records(import_request(exported, id_policy="new"))
        new = {r.id: r.new_id for r in answer.results}
        got = await versions(target, new[ids["phone"]])  # type: ignore[arg-type]
        assert got["dropped"] == 2  # four versions (three carried, the import's), two kept
        assert [(e["revision"], e["operation"]) for e in got["entries"]] == [
            (3, "merge"), (4, "import_records"),
        ]  # fmt: skip
        assert {e["record"]["id"] for e in got["entries"]} == {new[ids["phone"]]}
        again = await export_all(target, include_history=True)
        line = next(r for r in again["records"] if r["record"]["id"] == new[ids["phone"]])
        assert (line["history_dropped"], len(line["history"])) == (2, 2)


async def test_an_overwrite_replaces_the_target_history_with_the_archive_one(
    archive_store: ArchiveStore,
) -> None:
    async with archive_store() as source, archive_store() as target:
        ids = await lived(source)
        exported = await export_all(source, include_history=True)
        await target.import_records(import_request(exported))
        await target.update({"agent_id": "a", "id": ids["note"], "expected_version": 1,
                             "content": "changed on the target"})  # fmt: skip
        await target.import_records(import_request(exported, on_conflict="overwrite"))
        got = (await versions(target, ids["note"]))["entries"]
        assert [(e["operation"], e.get("imported")) for e in got] == [
            ("remember", True), ("import_records", None),
        ]  # fmt: skip
        assert got[-1]["record"]["content"] == "Bob plays chess"


def _gap(request: dict[str, Any]) -> dict[str, Any]:
    line = next(r for r in request["records"] if len(r.get("history", [])) > 1)
    line["history"][1]["revision"] += 1
    return request


def _other(request: dict[str, Any]) -> dict[str, Any]:
    line = next(r for r in request["records"] if len(r.get("history", [])) > 1)
    line["history"][0]["record"]["id"] = "someone-else"
    return request


def _dropped(request: dict[str, Any]) -> dict[str, Any]:
    request["records"][0]["history_dropped"] = 5  # the revisions no longer follow on from it
    return request


@pytest.mark.parametrize(
    ("change", "rule"), [(_gap, "revisions"), (_other, "history"), (_dropped, "revisions")]
)
async def test_a_history_that_does_not_hold_together_changes_nothing(
    archive_store: ArchiveStore, change: Any, rule: str
) -> None:
    async with archive_store() as source, archive_store() as target:
        await lived(source)
        request = change(import_request(await export_all(source, include_history=True)))
        with pytest.raises(RequestError) as refused:
            await target.import_records(request)
        details = refused.value.envelope["details"]
        assert any("/history/" in d["path"] and d["rule"] == rule for d in details), details
        assert (await target.scopes({})).agents == []


async def test_a_hard_forget_on_the_target_erases_the_carried_history(
    archive_store: ArchiveStore,
) -> None:
    async with archive_store() as source, archive_store() as target:
        ids = await lived(source)
        await target.import_records(import_request(await export_all(source, include_history=True)))
        await target.forget({"agent_id": "a", "ids": [ids["phone"]], "hard_delete": True})
        exported = await export_all(target, include_history=True)
        assert "555-0100" not in repr(exported)  # nothing of the old versions stays readable
