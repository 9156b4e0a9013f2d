"""Spec v0.3's export_records, import_records and scopes, tested once and run against every
store that keeps records in tables of its own (tests/adapters/<adapter>/test_archive_ops.py
imports these tests, with that adapter's ``archive_store`` fixture: a factory of stores, each
on storage of its own, as Memory facades): a round trip keeps every field, state, review,
tombstone and vector; the import's id policies and conflict rules hold; a bad page changes
nothing (docs/spec/v0.3.md)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest

from mnemowire.errors import ConflictError, RequestError
from mnemowire.kit import to_wire
from mnemowire.layers.memory import Memory

SEAL = {"alg": "hmac-sha256", "key_id": "k1", "mac": "5" * 64}
#: a record for each kept state (and one to erase), each written with these fields
WRITES: list[tuple[str, dict[str, Any]]] = [
    ("active", {"user_id": "u1", "metadata": {"k": [1, {"x": None}]}, "seal": SEAL,
                "source": "chat", "confidence": 0.4}),
    ("archived", {"confidence": 0.1}), ("forgotten", {}), ("merged", {}), ("erased", {}),
    ("pending", {"approval_required": True}),
]  # fmt: skip


#: the adapter's ``archive_store`` fixture: a new store of that dimension (hash embedder) on
#: storage of its own, as a Memory facade, closed at the test's end
ArchiveStore = Callable[..., Memory]


async def every_state(m: Memory) -> dict[str, str]:
    """An agent with a record in each kept state, an erased id, a seal, a second user."""
    w: dict[str, Any] = {"agent_id": "a", "type": "semantic"}
    ids = {
        name: (await m.remember({**w, "content": f"{name} tea fact", **extra})).id
        for name, extra in WRITES
    }  # fmt: skip
    await m.remember({"agent_id": "a", "type": "episodic", "content": "Lisbon", "event_time": 7,
                      "location": "Lisbon", "participants": ["al"]})  # fmt: skip
    await m.update({"agent_id": "a", "id": ids["active"], "expected_version": 1,
                    "content": "active tea fact, updated", "user_id": "u1"})  # fmt: skip
    await m.expire({"agent_id": "a", "policy": {"confidence_below": 0.2}, "action": "archive"})
    await m.forget({"agent_id": "a", "ids": [ids["forgotten"]]})
    await m.forget({"agent_id": "a", "ids": [ids["erased"]], "hard_delete": True})
    await m.merge({"agent_id": "a", "canonical": ids["active"], "duplicates": [ids["merged"]]})
    await m.remember({"agent_id": "b", "type": "semantic", "content": "other agent"})
    return ids


async def export_all(m: Memory, agent: str = "a", **extra: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"agent_id": agent, "include_vectors": True, "limit": 2, **extra}
    records: list[Any] = []
    tombstones: list[Any] = []
    while True:
        page = to_wire(await m.export_records(request))
        records += page["records"]
        tombstones += page["tombstones"]
        if "next_cursor" not in page:
            return {"records": records, "tombstones": tombstones, "embedder": page.get("embedder")}
        request["cursor"] = page["next_cursor"]


def import_request(exported: dict[str, Any], **extra: Any) -> dict[str, Any]:
    request = {"agents": ["a"], "records": exported["records"],
               "tombstones": exported["tombstones"], **extra}  # fmt: skip
    if exported["embedder"] is not None:  # a store that hands out no vectors names none
        request["embedder"] = exported["embedder"]
    return request


async def test_a_round_trip_keeps_every_field_state_review_tombstone_and_vector(
    archive_store: ArchiveStore,
) -> None:
    async with archive_store() as source, archive_store() as target:
        ids = await every_state(source)
        await source.recall({"agent_id": "a", "query": "tea fact"})  # tracked: a recall time
        exported = await export_all(source)
        recalled = {r["record"]["id"] for r in exported["records"] if "last_recalled_at" in r}
        assert ids["active"] in recalled
        states = {r["record"]["id"]: r["state"] for r in exported["records"]}
        assert states[ids["archived"]] == "archived"
        assert states[ids["forgotten"]] == "forgotten"
        assert states[ids["merged"]] == "merged"
        assert states[ids["pending"]] == "pending"
        assert [t["id"] for t in exported["tombstones"]] == [ids["erased"]]
        ordered = [r["record"]["id"] for r in exported["records"]]
        assert ordered == sorted(ordered)
        answer = await target.import_records(import_request(exported))
        assert {r.outcome for r in answer.results} == {"imported"}
        assert answer.kept is None  # the same embedder: every field and vector kept exactly
        assert await export_all(target) == exported
        # the pending record waits for the same review; the erased id stays taken
        [review] = (await target.reviews({"agent_id": "a"})).reviews
        assert review.review_id == ids["pending"]
        with pytest.raises(ConflictError, match="never reused"):
            await target.remember(
                {"agent_id": "a", "id": ids["erased"], "type": "semantic", "content": "x"}
            )
        hits = (await target.recall({"agent_id": "a", "query": "tea fact"})).results
        found = {h.id for h in hits}
        assert ids["active"] in found
        assert not found & {ids["archived"], ids["forgotten"], ids["merged"], ids["pending"]}


async def test_a_rerun_skips_everything_and_leaves_the_audit_log_as_one_run_did(
    archive_store: ArchiveStore,
) -> None:
    async with archive_store() as source, archive_store() as target:
        await every_state(source)
        exported = await export_all(source)
        request = import_request(exported, on_conflict="skip")
        await target.import_records(request)
        log = await target.store.audit_entries()  # type: ignore[attr-defined]
        again = await target.import_records(request)
        assert {r.outcome for r in again.results} == {"skipped"}
        assert again.tombstones.known == 1
        assert await target.store.audit_entries() == log  # type: ignore[attr-defined]
        assert [e["operation"] for e in log] == ["import_records"]


async def test_conflicts_fail_whole_overwrite_or_get_new_ids(archive_store: ArchiveStore) -> None:
    async with archive_store() as source, archive_store() as target:
        ids = await every_state(source)
        exported = await export_all(source)
        await target.import_records(import_request(exported))
        before = await export_all(target)
        with pytest.raises(ConflictError, match="on_conflict is fail") as refused:
            await target.import_records(import_request(exported, on_conflict="fail"))
        assert refused.value.envelope["details"][0]["rule"] == "conflict"
        assert await export_all(target) == before
        copied = await target.import_records(import_request(exported, id_policy="new"))
        assert all(r.new_id and r.new_id != r.id for r in copied.results)
        mapped = {r.id: r.new_id for r in copied.results}
        merged = next(r for r in exported["records"] if r["record"]["id"] == ids["merged"])
        again = await export_all(target)
        copy = next(r for r in again["records"] if r["record"]["id"] == mapped[ids["merged"]])
        assert copy["merged_into"] == mapped[merged["merged_into"]]  # follows the page's ids
        edited = [dict(r, record={**r["record"], "content": "edited"}) for r in exported["records"]]
        over = await target.import_records(
            import_request({**exported, "records": edited}, on_conflict="overwrite")
        )
        assert {r.outcome for r in over.results} == {"overwritten"}
        got = await target.get({"agent_id": "a", "ids": [ids["active"]]})
        assert got.records[0].content == "edited"


async def test_an_erased_id_is_never_written_and_remap_gives_it_a_new_one(
    archive_store: ArchiveStore,
) -> None:
    async with archive_store() as source, archive_store() as target:
        written = await source.remember({"agent_id": "a", "type": "semantic", "content": "x"})
        exported = await export_all(source)
        await target.import_records(
            {
                "agents": ["a"],
                "tombstones": [{"kind": "tombstone", "id": written.id, "agent_id": "a"}],
            }
        )
        kept = await target.import_records(import_request(exported, on_conflict="skip"))
        assert [r.outcome for r in kept.results] == ["erased"]
        remapped = await target.import_records(import_request(exported, id_policy="remap"))
        assert remapped.results[0].new_id not in (None, written.id)


def _packed(line: dict[str, Any], raw: bytes) -> dict[str, Any]:
    """The line with ``raw`` as its vector's float32 bytes (vector_base64)."""
    out = {k: v for k, v in line.items() if k != "vector"}
    return {**out, "vector_base64": base64.b64encode(raw).decode()}


@pytest.mark.parametrize(
    ("change", "path", "rule"),
    [
        (lambda r: {**r, "agents": ["b"]}, "/records/0/record/agent_id", "agents"),
        (lambda r: {**r, "records": r["records"] * 2}, "/records", "uniqueIds"),
        (lambda r: {**r, "records": [{**r["records"][0], "state": "expired"}]},
         "/records/0/state", "enum"),
        (lambda r: {**r, "records": [{**r["records"][0], "vector": [0.1] * 3}]},
         "/records/0/vector", "dimension"),
        (lambda r: {**r, "records": [{**r["records"][0], "vector_base64": "AACAPw=="}]},
         "/records/0", "oneVector"),
        (lambda r: {**r, "records": [_packed(r["records"][0], b"\0" * 6)]},
         "/records/0/vector_base64", "float32"),
        (lambda r: {**r, "records": [_packed(r["records"][0], b"\0\0\xc0\x7f" * 32)]},
         "/records/0/vector_base64", "json"),
        (lambda r: {**r, "records": [_packed(r["records"][0], b"\0" * 12)]},
         "/records/0/vector_base64", "dimension"),
    ],
)  # fmt: skip
async def test_a_bad_page_names_its_field_and_writes_nothing(
    archive_store: ArchiveStore, change: Any, path: str, rule: str
) -> None:
    async with archive_store() as source, archive_store() as target:
        await source.remember({"agent_id": "a", "type": "semantic", "content": "x"})
        request = change(import_request(await export_all(source)))
        with pytest.raises(RequestError) as refused:
            await target.import_records(request)
        details = refused.value.envelope["details"]
        assert any(d["path"].startswith(path) and d["rule"] == rule for d in details), details
        assert (await target.scopes({})).agents == []


async def test_vectors_of_another_embedder_are_embedded_again_and_said_so(
    archive_store: ArchiveStore,
) -> None:
    async with archive_store(16) as source, archive_store(32) as target:
        await source.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
        answer = await target.import_records(import_request(await export_all(source)))
        assert answer.kept is not None
        assert answer.kept["vector"].as_ == "transformed"
        assert (await target.recall({"agent_id": "a", "query": "tea"})).results


async def test_scopes_count_each_agent_by_type_state_and_user(archive_store: ArchiveStore) -> None:
    async with archive_store() as m:
        await every_state(m)
        page = await m.scopes({"limit": 1, "max_users": 1})
        [a] = page.agents
        assert (a.agent_id, a.records, a.erased) == ("a", 6, 1)
        assert a.by_state == {"active": 2, "archived": 1, "forgotten": 1, "merged": 1, "pending": 1}
        assert a.by_type == {"semantic": 5, "episodic": 1}
        assert len(a.users) == 1
        assert a.users_truncated
        nxt = await m.scopes({"limit": 1, "max_users": 1, "cursor": page.next_cursor})
        assert [s.agent_id for s in nxt.agents] == ["b"]
        assert nxt.next_cursor is None
        only = await m.scopes({"agent_ids": ["b"]})
        assert [s.agent_id for s in only.agents] == ["b"]


async def test_an_id_another_agent_holds_is_refused_whole_even_to_skip_or_overwrite(
    archive_store: ArchiveStore,
) -> None:
    async with archive_store() as target:
        theirs = await target.remember({"agent_id": "b", "type": "semantic", "content": "b's"})
        record = {"id": theirs.id, "agent_id": "a", "type": "semantic", "content": "a's",
                  "created_at": 1}  # fmt: skip
        line = {"kind": "record", "state": "active", "record": record}
        for conflict in ("skip", "overwrite"):
            with pytest.raises(ConflictError, match="another agent") as refused:
                await target.import_records(
                    {"agents": ["a"], "records": [line], "on_conflict": conflict}
                )
            assert refused.value.envelope["details"][0]["path"] == "/records/0/record/id"
        got = await target.get({"agent_id": "b", "ids": [theirs.id]})
        assert got.records[0].content == "b's"
        remapped = await target.import_records(
            {"agents": ["a"], "records": [line], "id_policy": "remap"}
        )
        assert remapped.results[0].new_id not in (None, theirs.id)
