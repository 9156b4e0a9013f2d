"""recall on the sqlite-vec store: every filter applies before the top k, on both searches."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.adapters.sqlite_vec.store import _Scope
from mnemowire.embedders import HashEmbedder
from mnemowire.models import RecallRequest

from .conftest import Clock, StoreFactory


async def ids(store: Any, **request: Any) -> list[str]:
    response = await store.recall({"agent_id": "a", **request})
    return [hit.id for hit in response.results]


async def remember(store: Any, content: str, **fields: Any) -> str:
    response = await store.remember(
        {"agent_id": "a", "type": "semantic", "content": content, **fields}
    )
    return str(response.id)


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


async def test_small_agent_beside_a_large_one_gets_its_full_k(make_store: StoreFactory) -> None:
    store = make_store()
    big = [
        {"agent_id": "big", "type": "semantic", "content": f"peanut allergy note {i}"}
        for i in range(3000)
    ]
    await store.inner.remember_many(big, batch_size=500)
    small = [
        await store.remember(
            {"agent_id": "small", "type": "semantic", "content": f"peanut allergy fact {i}"}
        )
        for i in range(5)
    ]
    found = await store.recall({"agent_id": "small", "query": "peanut allergy", "k": 5})
    assert {h.id for h in found.results} == {s.id for s in small}


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


@pytest.mark.parametrize(
    "request_",
    [
        {"query": "tea"},
        {"query": "flights", "types": ["episodic"], "k": 20},
        {"query": "coffee", "user_id": "u1", "k": 20},
        {"query": "note", "fresher_than_days": 10, "k": 50},
        {"query": "tea", "filter": {"i": {"$lt": 30}}, "k": 20},
    ],
)
async def test_accelerated_and_vec0_vector_searches_agree(
    make_store: StoreFactory, clock: Clock, request_: dict[str, Any]
) -> None:
    """The in-process index and vec0 implement one rule; they return the same neighbours at
    the same distances (up to float32 rounding, which may swap near-ties)."""
    accelerated = make_store(accelerate_above=1)
    for i in range(60):
        topic = ["tea", "coffee", "flights"][i % 3]
        await accelerated.remember(
            {
                "agent_id": "a",
                "type": ["semantic", "episodic"][i % 2],
                "user_id": f"u{i % 3}",
                "content": f"note {i} about {topic} w{i * 7919 % 1000}",
                "metadata": {"i": i},
            }
        )
        clock.advance(days=1)
    plain = make_store(accelerate_above=10**9, path=str(accelerated.inner.path))
    request = RecallRequest(agent_id="a", **request_)
    vector = accelerated.inner.embedder.embed([request.query])[0]
    found = []
    for store in (accelerated.inner, plain.inner):
        with store._transaction(write=False) as tx:
            rowids = store._vector_search(tx, _Scope.of(request, clock.now), vector, 80)
            blobs = dict(tx.execute("SELECT rowid, embedding FROM memories"))
        found.append([(r, 1 - float(np.frombuffer(blobs[r], np.float32) @ vector)) for r in rowids])
    fast, reference = found
    assert len(fast) == len(reference) > 0
    assert {r for r, _ in fast} == {r for r, _ in reference}
    assert [d for _, d in fast] == pytest.approx([d for _, d in reference], abs=1e-5)


async def test_accelerated_index_sees_writes_from_another_connection(
    make_store: StoreFactory,
) -> None:
    reader = make_store(accelerate_above=1)
    writer = make_store()
    first = await remember(writer, "quarterly report")
    assert await ids(reader, query="quarterly report") == [first]
    second = await remember(writer, "quarterly report draft")
    assert set(await ids(reader, query="quarterly report")) == {first, second}
    await writer.forget({"agent_id": "a", "ids": [first]})
    assert await ids(reader, query="quarterly report") == [second]


async def test_in_memory_store_works(make_store: StoreFactory) -> None:
    store = make_store(":memory:")
    stored = await remember(store, "in memory only")
    assert await ids(store, query="memory") == [stored]


async def test_query_vector_from_a_router_is_used_when_the_embedder_matches() -> None:
    from mnemowire.protocol import QueryVector

    embedder = HashEmbedder(64)
    async with SqliteVecStore(":memory:", embedder=embedder) as store:
        tea = (await store.remember({"agent_id": "a", "type": "semantic", "content": "tea"})).id
        cake = (await store.remember({"agent_id": "a", "type": "semantic", "content": "cake"})).id
        # The query text says "zzz" (no keyword hit); the given vector is cake's: cake wins.
        vector = QueryVector(embedder.name, embedder.embed(["cake"])[0])
        found = await store.recall({"agent_id": "a", "query": "zzz", "k": 1}, query_vector=vector)
        assert [h.id for h in found.results] == [cake]
        other = QueryVector("another-model/64", embedder.embed(["cake"])[0])
        found = await store.recall({"agent_id": "a", "query": "tea", "k": 1}, query_vector=other)
        assert [h.id for h in found.results] == [tea]


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


async def test_small_tenants_beside_a_hundred_thousand_rows(make_store: StoreFactory) -> None:
    """The preprint's bug: an agent with few memories lost results once another agent in the
    same file had many on-topic rows. Filters apply before the top k, at full scale, on both
    vector paths (vec0 and the in-process index) and for a small user inside the large agent."""
    store = make_store(embedder=HashEmbedder(16))
    rng = np.random.default_rng(5)
    big = [
        {
            "agent_id": "big",
            "type": "semantic",
            "content": f"peanut allergy note {i}",
            **({"user_id": "rare"} if i % 20_000 == 0 else {}),
        }
        for i in range(100_000)
    ]
    vectors = rng.standard_normal((len(big), 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    await store.inner.remember_many(big, batch_size=5_000, vectors=vectors)
    small = {
        (
            await store.remember(
                {"agent_id": "small", "type": "semantic", "content": f"peanut allergy fact {i}"}
            )
        ).id
        for i in range(5)
    }
    found = await store.recall({"agent_id": "small", "query": "peanut allergy", "k": 5})
    assert {hit.id for hit in found.results} == small
    for threshold in (4096, 10**9):  # in-process index, then vec0
        probe = make_store(
            path=str(store.inner.path), embedder=HashEmbedder(16), accelerate_above=threshold
        )
        rare = await probe.recall({"agent_id": "big", "user_id": "rare", "query": "peanut", "k": 5})
        assert len(rare.results) == 5
        assert {hit.user_id for hit in rare.results} == {"rare"}
