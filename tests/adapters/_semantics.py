"""Behaviour every store in this repository shares, tested once and run against each:
tests/adapters/<adapter>/test_semantics.py imports these tests, and pytest runs them there
with that adapter's ``make_store`` and ``clock`` fixtures. What differs between stores (their
storage, faults, scale) stays in each adapter's own test files."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from mnemowire.conformance.checks import MACHINE
from mnemowire.errors import ConflictError, NotFoundError, RequestError
from tests.adapters._support import Clock

StoreFactory = Any
#: the adapter's ``snapshot`` fixture: everything the store persisted, comparable with ==
Snapshot = Callable[[], object]


async def remember(store: Any, content: str, agent_id: str = "a", **fields: Any) -> str:
    response = await store.remember(
        {"agent_id": agent_id, "type": "semantic", "content": content, **fields}
    )
    return str(response.id)


async def ids(store: Any, **request: Any) -> list[str]:
    response = await store.recall({"agent_id": "a", **request})
    return [hit.id for hit in response.results]


async def recalled(store: Any, query: str, agent_id: str = "a", **request: Any) -> list[str]:
    response = await store.recall({"agent_id": agent_id, "query": query, "k": 50, **request})
    return [hit.id for hit in response.results]


async def test_forget_by_filter_and_by_both(make_store: StoreFactory) -> None:
    store = make_store()
    t1 = await remember(store, "trip one", metadata={"topic": "travel"})
    t2 = await remember(store, "trip two", metadata={"topic": "travel"})
    h1 = await remember(store, "checkup", metadata={"topic": "health"})
    both = await store.forget({"agent_id": "a", "ids": [t1, h1], "filter": {"topic": "travel"}})
    assert both.forgotten_ids == [t1]  # listed AND matching
    by_filter = await store.forget({"agent_id": "a", "filter": {"topic": "travel"}})
    assert by_filter.forgotten_ids == [t2]
    assert set(await recalled(store, "trip checkup")) == {h1}


async def test_forget_is_scoped_by_user(make_store: StoreFactory) -> None:
    store = make_store()
    alice = await remember(store, "likes tea", user_id="alice")
    bob = await remember(store, "likes tea", user_id="bob")
    response = await store.forget({"agent_id": "a", "user_id": "alice", "ids": [alice, bob]})
    assert response.forgotten_ids == [alice]
    assert await recalled(store, "tea") == [bob]


async def test_merge_content_joins_and_reembeds(make_store: StoreFactory) -> None:
    store = make_store()
    canonical = await remember(store, "Alice lives in Lisbon")
    duplicate = await remember(store, "Alice owns a yellow bicycle")
    await store.merge(
        {
            "agent_id": "a",
            "canonical": canonical,
            "duplicates": [duplicate],
            "strategy": "merge_content",
        }
    )
    found = await store.recall({"agent_id": "a", "query": "yellow bicycle", "k": 5})
    assert [(h.id, h.content) for h in found.results] == [
        (canonical, "Alice lives in Lisbon\nAlice owns a yellow bicycle")
    ]


async def test_merge_keep_highest_confidence(make_store: StoreFactory) -> None:
    store = make_store()
    canonical = await remember(store, "meeting at 3pm", confidence=0.4, metadata={"v": 1})
    better = await remember(store, "meeting at 4pm", confidence=0.9, metadata={"v": 2})
    await store.merge(
        {
            "agent_id": "a",
            "canonical": canonical,
            "duplicates": [better],
            "strategy": "keep_highest_confidence",
        }
    )
    [hit] = (await store.recall({"agent_id": "a", "query": "meeting", "k": 5})).results
    assert (hit.id, hit.content, hit.confidence, hit.metadata) == (
        canonical,
        "meeting at 4pm",
        0.9,
        {"v": 2},
    )


async def test_merging_a_record_into_itself_is_a_conflict(make_store: StoreFactory) -> None:
    store = make_store()
    mine = await remember(store, "tea")
    other = await remember(store, "cake")
    with pytest.raises(ConflictError):
        await store.merge({"agent_id": "a", "canonical": mine, "duplicates": [other, mine]})


async def test_expire_predicates_are_anded(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store()
    old_low = await remember(store, "old low", confidence=0.1)
    old_high = await remember(store, "old high", confidence=0.9)
    old_episode = await remember(store, "old episode", type="episodic", confidence=0.1)
    clock.advance(days=40)
    new_low = await remember(store, "new low", confidence=0.1)
    response = await store.expire(
        {
            "agent_id": "a",
            "policy": {"older_than_days": 30, "confidence_below": 0.5, "type": "semantic"},
        }
    )
    assert response.matched_ids == [old_low]
    assert response.action_taken == "forget"
    assert set(await recalled(store, "old new low high episode")) == {
        old_high,
        old_episode,
        new_low,
    }


async def test_expire_respects_user_scope(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store()
    alice = await remember(store, "alice note", user_id="alice")
    bob = await remember(store, "bob note", user_id="bob")
    clock.advance(days=3)
    response = await store.expire(
        {"agent_id": "a", "user_id": "alice", "policy": {"older_than_days": 1}}
    )
    assert response.matched_ids == [alice]
    assert await recalled(store, "note") == [bob]


async def test_results_are_sorted_by_score_and_capped_at_k(make_store: StoreFactory) -> None:
    store = make_store()
    for i in range(12):
        await remember(store, f"peanut fact number {i}")
    response = await store.recall({"agent_id": "a", "query": "peanut fact", "k": 7})
    scores = [hit.score for hit in response.results]
    assert len(scores) == 7
    assert scores == sorted(scores, reverse=True)
    assert response.fusion_used == "rrf"
    assert response.stores_queried == [store.name]


async def test_default_k_is_five(make_store: StoreFactory) -> None:
    store = make_store()
    for i in range(8):
        await remember(store, f"tea note {i}")
    assert len(await ids(store, query="tea")) == 5


async def test_agents_never_see_each_other(make_store: StoreFactory) -> None:
    store = make_store()
    mine = await remember(store, "Alice is allergic to peanuts")
    await store.remember(
        {"agent_id": "b", "type": "semantic", "content": "Alice is allergic to peanuts"}
    )
    assert await ids(store, query="Alice peanuts", k=10) == [mine]


async def test_user_scope(make_store: StoreFactory) -> None:
    store = make_store()
    alice = await remember(store, "likes green tea", user_id="alice")
    bob = await remember(store, "likes green tea", user_id="bob")
    agent_wide = await remember(store, "green tea is served at noon")
    assert await ids(store, query="green tea", user_id="alice") == [alice]
    assert set(await ids(store, query="green tea")) == {alice, bob, agent_wide}
    assert await ids(store, query="green tea", user_id="") == []


async def test_type_filter(make_store: StoreFactory) -> None:
    store = make_store()
    fact = await remember(store, "the flight leaves at noon")
    episode = await remember(store, "the flight was delayed", type="episodic")
    feeling = await remember(store, "the flight was scary", type="emotional")
    assert await ids(store, query="flight", types=["episodic"]) == [episode]
    assert set(await ids(store, query="flight", types=["semantic", "emotional"])) == {fact, feeling}
    assert set(await ids(store, query="flight", types=[])) == {fact, episode, feeling}


async def test_fresher_than_days(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store()
    old = await remember(store, "weather report")
    clock.advance(days=10)
    new = await remember(store, "weather report")
    assert set(await ids(store, query="weather")) == {old, new}
    assert await ids(store, query="weather", fresher_than_days=5) == [new]
    assert set(await ids(store, query="weather", fresher_than_days=10.5)) == {old, new}


async def test_expired_records_are_never_recalled(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store()
    soon = await remember(store, "parking ticket", expires_at=clock.now + 1000)
    later = await remember(store, "parking ticket", expires_at=clock.now + 10_000_000)
    keep = await remember(store, "parking ticket")
    assert set(await ids(store, query="parking")) == {soon, later, keep}
    clock.advance(ms=1000)
    assert set(await ids(store, query="parking")) == {later, keep}


async def test_hidden_records_do_not_crowd_out_visible_ones(
    make_store: StoreFactory, clock: Clock
) -> None:
    store = make_store()
    stored = [await remember(store, f"coffee order {i}") for i in range(40)]
    await store.forget({"agent_id": "a", "ids": stored[:30]})
    clock.advance(ms=1)
    await store.expire({"agent_id": "a", "policy": {"older_than_days": 0}, "action": "archive"})
    fresh = [await remember(store, f"coffee order {i}") for i in range(3)]
    pending = [
        await remember(store, "coffee order pending", approval_required=True) for _ in range(10)
    ]
    found = await ids(store, query="coffee order", k=5)
    assert set(found) == set(fresh)
    assert not set(found) & set(pending)


async def test_relevance_is_reported_and_floors_results(make_store: StoreFactory) -> None:
    store = make_store()
    tea = await remember(store, "green tea every morning")
    await remember(store, "the quarterly report is due")
    hits = (await store.recall({"agent_id": "a", "query": "green tea morning"})).results
    relevance = {hit.id: hit.relevance for hit in hits}
    assert relevance[tea] == max(relevance.values())
    assert all(-1 <= value <= 1 for value in relevance.values())
    floored = await ids(store, query="green tea morning", min_relevance=relevance[tea] - 1e-6)
    assert floored == [tea]
    assert await ids(store, query="nothing like this", min_relevance=0.99) == []


async def test_remember_mints_sortable_ids_and_reports_itself(make_store: StoreFactory) -> None:
    store = make_store()
    first = await store.remember({"agent_id": "a", "type": "semantic", "content": "one"})
    second = await store.remember({"agent_id": "a", "type": "semantic", "content": "two"})
    assert len(first.id) == 26  # a ULID
    assert first.id < second.id
    assert first.pending_approval is False
    assert [s.store for s in first.stores] == [store.name]
    assert first.stores[0].count == 1


async def test_client_chosen_id_is_kept_and_a_retry_is_a_replay(make_store: StoreFactory) -> None:
    store = make_store()
    request = {"agent_id": "a", "id": "client-1", "type": "semantic", "content": "tea"}
    first = await store.remember(request)
    again = await store.remember(request)
    assert first.id == again.id == "client-1"
    assert again.replayed is True
    assert again.stored_at == first.stored_at
    found = await store.recall({"agent_id": "a", "query": "tea", "k": 10})
    assert [h.id for h in found.results] == ["client-1"]


@pytest.mark.parametrize(
    ("machine", "rule"),
    [
        (
            {
                **MACHINE,
                "transitions": [
                    {
                        "trigger": "go",
                        "source": "searching",
                        "dest": "booked",
                        "before": "os.system",
                    }
                ],
            },
            "contentSchema",
        ),
        (
            {
                **MACHINE,
                "transitions": [
                    {
                        "trigger": "go",
                        "source": "searching",
                        "dest": "booked",
                        "conditions": "os.path.exists",
                    }
                ],
            },
            "contentSchema",
        ),
        ({**MACHINE, "initial": "nowhere"}, "stateReference"),
        (
            {**MACHINE, "transitions": [{"trigger": "go", "source": "limbo", "dest": "booked"}]},
            "stateReference",
        ),
    ],
)
async def test_unsafe_or_broken_state_machine_is_rejected_at_write_time(
    make_store: StoreFactory, snapshot: Snapshot, machine: dict[str, Any], rule: str
) -> None:
    store = make_store()
    await store.remember({"agent_id": "a", "type": "semantic", "content": "before"})
    before = snapshot()
    with pytest.raises(RequestError) as caught:
        await store.remember(
            {"agent_id": "a", "type": "procedural", "content": json.dumps(machine)}
        )
    assert [(d["path"], d["rule"]) for d in caught.value.details] == [("/content", rule)]
    assert snapshot() == before


@pytest.mark.parametrize(
    ("request_", "path", "rule"),
    [
        (
            {"agent_id": "a", "type": "semantic", "content": "x", "approval_requried": True},
            "/approval_requried",
            "additionalProperties",
        ),
        (
            {"agent_id": "a", "type": "semantic", "content": "x", "confidence": 1.5},
            "/confidence",
            "maximum",
        ),
        ({"agent_id": "a", "type": "fact", "content": "x"}, "/type", "enum"),
        ({"agent_id": "a", "type": "semantic", "content": ""}, "/content", "minLength"),
    ],
)
async def test_invalid_request_changes_nothing(
    make_store: StoreFactory, snapshot: Snapshot, request_: dict[str, Any], path: str, rule: str
) -> None:
    store = make_store()
    await store.remember({"agent_id": "a", "type": "semantic", "content": "before"})
    before = snapshot()
    with pytest.raises(RequestError) as caught:
        await store.remember(request_)
    assert [(d["path"], d["rule"]) for d in caught.value.details] == [(path, rule)]
    assert snapshot() == before


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"x": value}
    return value


#: (operation, request, (path, rule)): values the spec refuses though a Python caller can send
#: them ([messages.wellformed]) or that no store could execute (bounds on filters)
HOSTILE = [
    (
        "remember",
        {"type": "semantic", "content": "x", "metadata": {"n": float("nan")}},
        ("/metadata/n", "json"),
    ),
    (
        "remember",
        {"type": "semantic", "content": "x", "metadata": {"n": float("inf")}},
        ("/metadata/n", "json"),
    ),
    (
        "remember",
        {"type": "semantic", "content": "x", "metadata": {"n": -1e309}},
        ("/metadata/n", "json"),
    ),
    (
        "remember",
        {"type": "semantic", "content": "x", "metadata": {1: "x"}},
        ("/metadata/1", "json"),
    ),
    ("remember", {"type": "semantic", "content": b"bytes"}, ("/content", "json")),
    (
        "remember",
        {"type": "semantic", "content": "x", "metadata": {"s": {1, 2}}},
        ("/metadata/s", "json"),
    ),
    ("remember", {"type": "semantic", "content": "lone \ud800"}, ("/content", "text")),
    (
        "remember",
        {"type": "semantic", "content": "x", "metadata": {"s": "\udfff"}},
        ("/metadata/s", "text"),
    ),
    (
        "remember",
        {"type": "semantic", "content": "x", "metadata": {"k\ud800": 1}},
        ("/metadata/k\ufffd", "text"),
    ),
    ("remember", {"type": "semantic", "content": "tea\x00cake"}, ("/content", "text")),
    (
        "remember",
        {"type": "semantic", "content": "x", "metadata": {"k": "a\x00"}},
        ("/metadata/k", "text"),
    ),
    ("remember", {"type": "semantic", "content": "x", "source": "\x00"}, ("/source", "text")),
    (
        "remember",
        {"type": "semantic", "content": "x", "metadata": _nested(300)},
        ("/metadata" + "/x" * 31, "maxDepth"),
    ),
    ("recall", {"query": "q\ud800"}, ("/query", "text")),
    ("recall", {"query": "q", "filter": {"n": 2**63}}, ("/filter/n", "maximum")),
    ("recall", {"query": "q", "filter": {"n": {"$gte": -(2**64)}}}, ("/filter/n/$gte", "minimum")),
    (
        "recall",
        {"query": "q", "filter": {"n": {"$in": [1, float("nan")]}}},
        ("/filter/n/$in/1", "json"),
    ),
    (
        "recall",
        {"query": "q", "filter": {f"k{i}": i for i in range(65)}},
        ("/filter", "maxProperties"),
    ),
    ("forget", {"filter": {"n": {"$nin": [2**70]}}}, ("/filter/n/$nin/0", "maximum")),
    ("forget", {"ids": ["x"], "reason": "gone\x00"}, ("/reason", "text")),
]


@pytest.mark.parametrize(("operation", "request_", "expected"), HOSTILE)
async def test_what_json_cannot_hold_is_refused_naming_the_field_and_changes_nothing(
    make_store: StoreFactory,
    snapshot: Snapshot,
    operation: str,
    request_: dict[str, Any],
    expected: tuple[str, str],
) -> None:
    store = make_store()
    await store.remember({"agent_id": "a", "type": "semantic", "content": "before"})
    before = snapshot()
    with pytest.raises(RequestError) as caught:
        await getattr(store, operation)({"agent_id": "a", **request_})
    assert expected in [(d["path"], d["rule"]) for d in caught.value.details]
    assert caught.value.code == "invalid_request"
    assert snapshot() == before


async def test_the_largest_filter_the_schema_accepts_is_served(make_store: StoreFactory) -> None:
    """What the schema accepts, every store executes: 64 keys, and $in/$nin of 1000 values."""
    store = make_store()
    kept = await remember(store, "tea", metadata={f"k{i}": i for i in range(64)})
    await remember(store, "tea", metadata={"k0": -1})
    values = [f"v{i}" for i in range(999)]
    big = {f"k{i}": {"$in": [*values, i], "$nin": [*values, "x"]} for i in range(64)}
    assert await recalled(store, "tea", filter=big) == [kept]
    response = await store.forget({"agent_id": "a", "filter": big})
    assert response.forgotten_ids == [kept]


# -- ids, governance, filters, merge and expire --------------------------------------------


async def test_reusing_an_id_for_other_content_or_agent_is_a_conflict(
    make_store: StoreFactory, snapshot: Snapshot
) -> None:
    store = make_store()
    await store.remember({"agent_id": "a", "id": "x1", "type": "semantic", "content": "tea"})
    before = snapshot()
    with pytest.raises(ConflictError):
        await store.remember({"agent_id": "a", "id": "x1", "type": "semantic", "content": "cake"})
    with pytest.raises(ConflictError) as caught:
        await store.remember({"agent_id": "b", "id": "x1", "type": "semantic", "content": "tea"})
    assert "tea" not in str(caught.value)  # nothing about the other agent's record leaks
    assert snapshot() == before


async def test_rejecting_a_pending_write_is_forgetting_it(make_store: StoreFactory) -> None:
    store = make_store()
    staged = await store.remember(
        {"agent_id": "a", "type": "semantic", "content": "secret", "approval_required": True}
    )
    forgotten = await store.forget({"agent_id": "a", "ids": [staged.id], "hard_delete": True})
    assert forgotten.forgotten_ids == [staged.id]
    with pytest.raises(ConflictError, match="forgotten"):  # its review ended with it
        await store.decide(
            {"agent_id": "a", "review_id": staged.id, "approved": True, "reviewer": "r"}
        )


async def test_procedural_state_machine_round_trips(make_store: StoreFactory) -> None:
    store = make_store()
    content = json.dumps(MACHINE)
    stored = await store.remember({"agent_id": "a", "type": "procedural", "content": content})
    found = await store.recall({"agent_id": "a", "query": "book flight", "types": ["procedural"]})
    assert [(h.id, h.content) for h in found.results] == [(stored.id, content)]
    keyword_only = await store.recall(
        {"agent_id": "a", "query": "paying", "types": ["procedural"], "k": 1}
    )
    assert [h.id for h in keyword_only.results] == [stored.id]  # a state name is searchable


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({"topic": "travel"}, {"t1", "t2"}),
        ({"priority": 3}, {"t2"}),
        ({"priority": {"$gte": 2}}, {"t2", "h1"}),
        ({"priority": {"$gt": 1, "$lt": 3}}, {"h1"}),
        ({"topic": {"$ne": "travel"}}, {"h1", "n1"}),
        ({"topic": {"$in": ["health", "travel"]}}, {"t1", "t2", "h1"}),
        ({"topic": {"$nin": ["health", "travel"]}}, {"n1"}),
        ({"urgent": {"$exists": True}}, {"t1"}),
        ({"urgent": {"$exists": False}}, {"t2", "h1", "n1"}),
        ({"urgent": True}, {"t1"}),
        ({"priority": True}, set()),
        ({"topic": None}, set()),
        ({'odd key.with "quotes"': "yes"}, {"n1"}),
        ({"topic": "travel", "priority": {"$lte": 1}}, {"t1"}),
        ({"topic": {"$gt": "m"}}, {"t1", "t2"}),
    ],
)
async def test_metadata_filter(
    make_store: StoreFactory, condition: dict[str, Any], expected: set[str]
) -> None:
    store = make_store()
    await remember(
        store, "trip note", id="t1", metadata={"topic": "travel", "priority": 1, "urgent": True}
    )
    await remember(store, "trip note", id="t2", metadata={"topic": "travel", "priority": 3})
    await remember(store, "trip note", id="h1", metadata={"topic": "health", "priority": 2.0})
    await remember(store, "trip note", id="n1", metadata={'odd key.with "quotes"': "yes"})
    assert set(await ids(store, query="trip note", k=10, filter=condition)) == expected


@pytest.mark.parametrize("who", ["other-agent-canonical", "other-agent-duplicate", "missing"])
async def test_merge_across_agents_fails_and_changes_nothing(
    make_store: StoreFactory, snapshot: Snapshot, who: str
) -> None:
    store = make_store()
    mine = await remember(store, "tea")
    also_mine = await remember(store, "more tea")
    theirs = await remember(store, "their tea", agent_id="b")
    canonical, duplicates = {
        "other-agent-canonical": (theirs, [mine]),
        "other-agent-duplicate": (mine, [theirs]),
        "missing": (mine, ["no-such-id"]),
    }[who]
    before = snapshot()
    with pytest.raises(NotFoundError) as caught:
        await store.merge({"agent_id": "a", "canonical": canonical, "duplicates": duplicates})
    assert "at least one is not" in str(caught.value)
    assert snapshot() == before
    assert set(await recalled(store, "tea")) == {mine, also_mine}
    assert await recalled(store, "tea", agent_id="b") == [theirs]


async def test_archive_is_restorable(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store()
    note = await remember(store, "passport renewal")
    clock.advance(days=2)
    await store.expire({"agent_id": "a", "policy": {"older_than_days": 1}, "action": "archive"})
    assert await recalled(store, "passport") == []
    assert (await store.restore({"agent_id": "b", "ids": [note]})).restored == []
    assert (await store.restore({"agent_id": "a", "ids": [note]})).restored == [note]
    assert await recalled(store, "passport") == [note]


async def test_demote_multiplies_the_score_and_never_compounds(
    make_store: StoreFactory, clock: Clock
) -> None:
    store = make_store()
    stale = await remember(store, "printer toner order")
    clock.advance(days=10)

    async def score() -> float:
        [hit] = (await store.recall({"agent_id": "a", "query": "printer toner order"})).results
        assert hit.id == stale
        return float(hit.score)

    full = await score()
    [plain] = (await store.recall({"agent_id": "a", "query": "printer toner order"})).results
    assert plain.demote is None  # only a demoted record says so
    for _ in range(3):
        response = await store.expire(
            {
                "agent_id": "a",
                "policy": {"older_than_days": 5},
                "action": "demote",
                "demote_factor": 0.5,
            }
        )
        assert response.matched_ids == [stale]
        assert await score() == pytest.approx(full * 0.5)
    [demoted] = (await store.recall({"agent_id": "a", "query": "printer toner order"})).results
    assert demoted.demote == 0.5  # carried on the hit, so a router's rank fusion keeps it
    await store.expire({"agent_id": "a", "policy": {"older_than_days": 5}, "action": "demote"})
    assert await score() == pytest.approx(full * 0.5)  # the default factor is 0.5 too
