"""Spec v0.1's record operations, tested once and run against every store (like
``_semantics``): get, list and its cursors, restore, update, batch remember, expire's dry run,
query vectors and seals. tests/adapters/<adapter>/test_browse.py imports these."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest

from mnemowire.conformance.checks import MACHINE
from mnemowire.errors import ConflictError, NotFoundError, RequestError, UnsupportedError
from tests.adapters._records import Audit
from tests.adapters._semantics import Snapshot, StoreFactory, recalled, remember
from tests.adapters._support import Clock

SEAL = {"alg": "hmac-sha256", "key_id": "k1", "mac": "ab" * 32}


async def _all(store: Any, **request: Any) -> list[Any]:
    body = {"agent_id": "a", **request}
    records: list[Any] = []
    while True:
        page = await store.list(body)
        assert len(page.records) <= body.get("limit", 100)
        records += page.records
        if page.next_cursor is None:
            return records
        body = {**body, "cursor": page.next_cursor}


# -- get ---------------------------------------------------------------------------------------


async def test_get_returns_what_the_request_may_see_in_its_order(make_store: StoreFactory) -> None:
    store = make_store()
    tea = await remember(store, "Alice likes tea", user_id="alice", metadata={"k": [1, 2.5]})
    coffee = await remember(store, "Bob likes coffee")
    theirs = await remember(store, "another agent's note", agent_id="b")
    found = await store.get({"agent_id": "a", "ids": [coffee, theirs, "nope", tea]})
    assert [r.id for r in found.records] == [coffee, tea]
    assert found.missing == [theirs, "nope"]
    record = found.records[1]
    assert (record.agent_id, record.user_id, record.metadata) == ("a", "alice", {"k": [1, 2.5]})
    assert (record.state, record.version) == ("active", 1)
    bobs = await store.get({"agent_id": "a", "ids": [tea, coffee], "user_id": "bob"})
    assert bobs.records == []
    assert bobs.missing == [tea, coffee]


async def test_get_shows_other_states_only_when_asked(
    make_store: StoreFactory, clock: Clock
) -> None:
    store = make_store()
    staged = await remember(store, "staged note", approval_required=True)
    soon = await remember(store, "expiring note", expires_at=clock.now + 1000)
    old = await remember(store, "archived note", confidence=0.1)
    gone = await remember(store, "forgotten note")
    await store.expire({"agent_id": "a", "policy": {"confidence_below": 0.5}, "action": "archive"})
    await store.forget({"agent_id": "a", "ids": [gone]})
    clock.advance(ms=2000)
    ids = [staged, soon, old, gone]
    assert (await store.get({"agent_id": "a", "ids": ids})).missing == ids
    every = ["active", "pending", "archived", "expired"]
    found = await store.get({"agent_id": "a", "ids": ids, "states": every})
    assert {r.id: r.state for r in found.records} == {
        staged: "pending",
        soon: "expired",
        old: "archived",
    }
    assert found.missing == [gone]  # forgotten is never shown


# -- list --------------------------------------------------------------------------------------


async def test_list_pages_newest_first_each_record_once(
    make_store: StoreFactory, clock: Clock
) -> None:
    store = make_store()
    ids = []
    for n in range(23):
        ids.append(await remember(store, f"note {n}"))
        clock.advance(ms=1000 if n % 3 else 0)  # some share a created_at: ties go by id
    await remember(store, "someone else's", agent_id="b")
    listed = await _all(store, limit=4)
    assert sorted(r.id for r in listed) == sorted(ids)
    keys = [(r.created_at, r.id) for r in listed]
    assert keys == sorted(keys, reverse=True)
    by_id = await _all(store, order="id", limit=5)
    assert [r.id for r in by_id] == sorted(ids)


async def test_list_narrows_by_user_type_filter_and_state(make_store: StoreFactory) -> None:
    store = make_store()
    alice = await remember(store, "Alice note", user_id="alice", metadata={"topic": "food"})
    await remember(store, "Alice other", user_id="alice", metadata={"topic": "work"})
    event = await remember(store, "met Bob", type="episodic", metadata={"topic": "food"})
    staged = await remember(store, "staged", approval_required=True, metadata={"topic": "food"})
    assert [r.id for r in await _all(store, user_id="alice", filter={"topic": "food"})] == [alice]
    assert [r.id for r in await _all(store, types=["episodic"])] == [event]
    pending = await _all(store, states=["pending"], filter={"topic": "food"})
    assert [(r.id, r.state) for r in pending] == [(staged, "pending")]


async def test_a_cursor_stays_valid_while_records_are_added(
    make_store: StoreFactory, clock: Clock
) -> None:
    store = make_store()
    before = []
    for n in range(6):
        before.append(await remember(store, f"before {n}"))
        clock.advance(ms=1000)
    first = await store.list({"agent_id": "a", "limit": 2})
    for n in range(5):
        await remember(store, f"added {n}")
    rest = await _all(store, limit=2, cursor=first.next_cursor)
    seen = [r.id for r in [*first.records, *rest]]
    assert sorted(seen) == sorted(before)  # the newer records sort before the cursor


@pytest.mark.parametrize("change", ["agent", "filter", "order", "user", "tampered", "garbage"])
async def test_a_cursor_for_another_request_is_refused(
    make_store: StoreFactory, change: str
) -> None:
    store = make_store()
    for n in range(3):
        await remember(store, f"note {n}")
    cursor = (await store.list({"agent_id": "a", "limit": 1})).next_cursor
    assert cursor is not None
    raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    request: dict[str, Any] = {"agent_id": "a", "limit": 1, "cursor": cursor}
    if change == "agent":
        request["agent_id"] = "b"
    elif change == "filter":
        request["filter"] = {"topic": "x"}
    elif change == "order":
        request["order"] = "id"
    elif change == "user":
        request["user_id"] = "alice"
    elif change == "tampered":
        forged = raw[:-1] + bytes([raw[-1] ^ 1])
        request["cursor"] = base64.urlsafe_b64encode(forged).rstrip(b"=").decode()
    else:
        request["cursor"] = "AAAA"
    with pytest.raises(RequestError) as refused:
        await store.list(request)
    assert [(d["path"], d["rule"]) for d in refused.value.envelope["details"]] == [
        ("/cursor", "cursor")
    ]
    assert "note" not in str(refused.value.envelope)  # nothing revealed
    resized = await store.list({"agent_id": "a", "limit": 2, "cursor": cursor})
    assert len(resized.records) == 2  # the page size may change between pages


# -- restore -----------------------------------------------------------------------------------


async def test_restore_brings_back_only_archived_records_in_request_order(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    one = await remember(store, "passport renewal", confidence=0.1)
    two = await remember(store, "passport photos", confidence=0.1, user_id="alice")
    active = await remember(store, "passport office hours")
    await store.expire({"agent_id": "a", "policy": {"confidence_below": 0.5}, "action": "archive"})
    mine = await store.restore({"agent_id": "a", "user_id": "bob", "ids": [two]})
    assert mine.restored == []  # another user's
    done = await store.restore({"agent_id": "a", "ids": [two, active, "nope", one]})
    assert done.restored == [two, one]
    assert set(await recalled(store, "passport")) == {one, two, active}


# -- update ------------------------------------------------------------------------------------


async def test_update_changes_what_it_names_and_moves_the_version(
    make_store: StoreFactory, audit: Audit
) -> None:
    store = make_store()
    record = await remember(store, "Alice owns a red bicycle", metadata={"a": 1})
    done = await store.update(
        {"agent_id": "a", "id": record, "expected_version": 1,
         "content": "Alice owns a blue kayak", "metadata": {"b": 2}, "confidence": 1.0,
         "reason": "she said so"}
    )  # fmt: skip
    assert (done.version, done.updated) == (2, ["content", "metadata"])  # confidence unchanged
    assert await recalled(store, "blue kayak") == [record]
    [found] = (await store.get({"agent_id": "a", "ids": [record]})).records
    assert (found.content, found.metadata, found.version) == (
        "Alice owns a blue kayak",
        {"b": 2},
        2,
    )
    entry = audit()[-1]
    assert (entry["operation"], entry["ids"]) == ("update", [record])
    assert entry["detail"] == {
        "from_version": 1, "to_version": 2, "fields": ["content", "metadata"],
        "reason": "she said so",
    }  # fmt: skip
    assert "kayak" not in json.dumps(audit())  # the log is no second copy of the content
    same = await store.update(
        {"agent_id": "a", "id": record, "expected_version": 2, "confidence": 1.0}
    )
    assert (same.version, same.updated) == (2, [])


async def test_a_stale_or_foreign_update_changes_nothing(
    make_store: StoreFactory, snapshot: Snapshot
) -> None:
    store = make_store()
    record = await remember(store, "the meeting is on monday")
    await store.update({"agent_id": "a", "id": record, "expected_version": 1, "content": "tue"})
    before = snapshot()
    with pytest.raises(ConflictError) as stale:
        await store.update({"agent_id": "a", "id": record, "expected_version": 1, "content": "x"})
    assert stale.value.envelope["details"][0]["path"] == "/expected_version"
    with pytest.raises(NotFoundError):
        await store.update({"agent_id": "b", "id": record, "expected_version": 2, "content": "x"})
    with pytest.raises(NotFoundError):
        await store.update(
            {"agent_id": "a", "user_id": "u", "id": record, "expected_version": 2, "content": "x"}
        )
    assert snapshot() == before


async def test_of_racing_updates_exactly_one_wins(make_store: StoreFactory) -> None:
    store = make_store()
    record = await remember(store, "the launch is on friday")

    async def attempt(text: str) -> str | None:
        try:
            await store.update(
                {"agent_id": "a", "id": record, "expected_version": 1, "content": text}
            )
        except ConflictError:
            return None
        return text

    results = await asyncio.gather(*(attempt(f"launch moved to day {n}") for n in range(4)))
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    [found] = (await store.get({"agent_id": "a", "ids": [record]})).records
    assert (found.content, found.version) == (winners[0], 2)


async def test_a_procedural_update_must_stay_a_state_machine(make_store: StoreFactory) -> None:
    store = make_store()
    record = await remember(store, json.dumps(MACHINE), type="procedural")
    with pytest.raises(RequestError) as refused:
        await store.update(
            {"agent_id": "a", "id": record, "expected_version": 1, "content": "not json"}
        )
    assert all(d["path"].startswith("/content") for d in refused.value.envelope["details"])


async def test_an_update_can_extend_an_expired_record(
    make_store: StoreFactory, clock: Clock
) -> None:
    store = make_store()
    record = await remember(store, "a parking ticket note", expires_at=clock.now + 1000)
    clock.advance(ms=2000)
    assert await recalled(store, "parking ticket") == []
    await store.update(
        {"agent_id": "a", "id": record, "expected_version": 1, "expires_at": clock.now + 10**6}
    )
    assert await recalled(store, "parking ticket") == [record]


# -- batch remember ----------------------------------------------------------------------------


async def test_a_batch_is_stored_whole_with_one_answer_per_request(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    first = await remember(store, "already here", id="r-1")
    answer = await store.remember_batch(
        {"requests": [
            {"agent_id": "a", "type": "semantic", "content": "Alice likes tea"},
            {"agent_id": "a", "id": "r-1", "type": "semantic", "content": "already here"},
            {"agent_id": "b", "type": "episodic", "content": "met Bob", "event_time": 5},
        ]}
    )  # fmt: skip
    assert [r.replayed for r in answer.results] == [None, True, None]
    assert answer.results[1].id == first
    assert (await recalled(store, "Alice likes tea"))[0] == answer.results[0].id
    assert await recalled(store, "met Bob", agent_id="b") == [answer.results[2].id]


async def test_a_batch_with_a_conflict_stores_nothing(
    make_store: StoreFactory, snapshot: Snapshot
) -> None:
    store = make_store()
    await remember(store, "the first write", id="r-1")
    before = snapshot()
    requests = [
        {"agent_id": "a", "type": "semantic", "content": "zebra crossing"},
        {"agent_id": "a", "type": "semantic", "content": "zebra too", "id": "r-2"},
        {"agent_id": "a", "type": "semantic", "content": "another text", "id": "r-1"},
    ]
    with pytest.raises(ConflictError) as conflict:
        await store.remember_batch({"requests": requests})
    assert str(conflict.value).startswith("request 2:")
    assert all(d["path"].startswith("/requests/2") for d in conflict.value.envelope["details"])
    assert snapshot() == before
    with pytest.raises(RequestError) as invalid:
        await store.remember_batch({"requests": [requests[0], {"agent_id": "a", "type": "x"}]})
    paths = {d["path"] for d in invalid.value.envelope["details"]}
    assert paths == {"/requests/1/type", "/requests/1/content"}
    assert snapshot() == before


# -- expire's dry run, query vectors, seals ----------------------------------------------------


async def test_an_expire_dry_run_matches_and_changes_nothing(
    make_store: StoreFactory, snapshot: Snapshot, clock: Clock
) -> None:
    store = make_store()
    old = await remember(store, "an old note")
    clock.advance(days=3)
    await remember(store, "a new note")
    before = snapshot()
    request = {"agent_id": "a", "policy": {"older_than_days": 1}, "action": "forget"}
    preview = await store.expire({**request, "dry_run": True})
    assert (preview.matched_ids, preview.dry_run) == ([old], True)
    assert snapshot() == before
    done = await store.expire(request)
    assert done.matched_ids == [old]
    assert not done.dry_run


async def test_a_query_vector_is_used_only_from_the_same_embedder(make_store: StoreFactory) -> None:
    store = make_store()
    embedder = store.inner.embedder
    cake = await remember(store, "chocolate cake recipe")
    await remember(store, "tea with lemon")
    vector = [float(x) for x in embedder.embed(["chocolate cake recipe"])[0]]
    request = {"agent_id": "a", "query": "zzz unrelated words", "k": 1}
    found = await store.recall(
        {**request, "query_vector": {"embedder": embedder.name, "vector": vector}}
    )
    assert [h.id for h in found.results] == [cake]
    for name, vec in (("other-model", vector), (embedder.name, vector[:-1])):
        with pytest.raises(UnsupportedError):
            await store.recall({**request, "query_vector": {"embedder": name, "vector": vec}})


async def test_a_seal_is_kept_and_returned_unchanged(make_store: StoreFactory) -> None:
    store = make_store()
    record = await remember(store, "sealed note on tea", id="s-1", seal=SEAL)
    [hit] = (await store.recall({"agent_id": "a", "query": "sealed note tea"})).results
    [got] = (await store.get({"agent_id": "a", "ids": [record]})).records
    [listed] = (await store.list({"agent_id": "a"})).records
    for seal in (hit.seal, got.seal, listed.seal):
        assert seal is not None
        assert seal.model_dump() == SEAL
    resealed = {**SEAL, "mac": "cd" * 32}
    done = await store.update(
        {"agent_id": "a", "id": record, "expected_version": 1, "content": "tea", "seal": resealed}
    )
    assert done.updated == ["content", "seal"]
    [got] = (await store.get({"agent_id": "a", "ids": [record]})).records
    assert got.seal is not None
    assert got.seal.model_dump() == resealed


async def test_every_new_operation_is_declared(make_store: StoreFactory) -> None:
    declared = make_store().capabilities()
    assert declared.spec_version == "v0.4"  # pgvector's, sqlite-vec's
    for capability in (
        "get",
        "list",
        "restore",
        "update",
        "remember_batch",
        "query_vector",
        "seals",
        "reviews",
        "decide",
        "history",
    ):
        assert capability in declared.capabilities


async def test_a_cursor_survives_a_default_sent_or_left_out(make_store: StoreFactory) -> None:
    store = make_store()
    for n in range(3):
        await remember(store, f"note {n}")
    first = await store.list({"agent_id": "a", "limit": 1})
    same = {"agent_id": "a", "limit": 1, "states": ["active"], "order": "newest"}
    second = await store.list({**same, "cursor": first.next_cursor})
    assert second.records[0].id != first.records[0].id
