"""recall on the sqlite-vec store: every filter applies before the top k, on both searches."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore, _keywords, _search
from mnemowire.adapters.sqlite_vec._records import Scope
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConfigError
from mnemowire.models import RecallRequest
from tests.adapters._semantics import ids, remember
from tests.adapters._support import CheckedStore

from .conftest import Clock, StoreFactory


async def test_small_agent_beside_a_large_one_gets_its_full_k(make_store: StoreFactory) -> None:
    store = make_store()
    big = [
        {"agent_id": "big", "type": "semantic", "content": f"peanut allergy note {i}"}
        for i in range(3000)
    ]
    await store.remember_many(big, batch_size=500)
    small = [
        await store.remember(
            {"agent_id": "small", "type": "semantic", "content": f"peanut allergy fact {i}"}
        )
        for i in range(5)
    ]
    found = await store.recall({"agent_id": "small", "query": "peanut allergy", "k": 5})
    assert {h.id for h in found.results} == {s.id for s in small}


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
        with store._db.transaction(write=False) as tx:
            rowids = _search._vector_search(
                tx,
                Scope.of(request, clock.now),
                vector,
                80,
                60,
                store._indexes,
                store._accelerate_above,
            )
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


async def test_in_process_indexes_stay_within_their_memory_budget(
    make_store: StoreFactory,
) -> None:
    """Past the budget the least recently searched agent's index is dropped, an agent too large
    for the budget is searched by vec0, and every answer holds what vec0 finds (k = 50 takes a
    small agent's every record: hash embeddings tie, and the two searches may break ties apart)."""
    # HashEmbedder(64): one agent of 30 rows takes ~22 KB (64 rows reserved); 40 KB fits one
    budgeted = make_store(index_budget_mb=40 / 1024)
    for agent in ("a", "b", "c"):
        for i in range(30):
            await budgeted.remember(
                {"agent_id": agent, "type": "semantic", "content": f"{agent} note {i} tea"}
            )
    for i in range(200):  # too large for 40 KB on its own
        await budgeted.remember({"agent_id": "big", "type": "semantic", "content": f"tea {i}"})
    reference = make_store(accelerate_above=10**9, path=str(budgeted.inner.path))

    async def answers(store: Any, agent: str) -> set[str]:
        found = await store.recall({"agent_id": agent, "query": "tea note", "k": 50})
        return {h.id for h in found.results}

    async def held() -> tuple[int, float]:
        details = (await budgeted.health()).details or {}
        return details["indexed_agents"], details["index_mb"]

    for agent in ("a", "b", "c", "a", "big"):
        assert await answers(budgeted, agent) == await answers(reference, agent)
        count, megabytes = await held()
        assert count == 1
        assert 0 < megabytes <= 40 / 1024
    assert [*budgeted.inner._indexes._indexes] == ["a"]  # big never got one; a was last


def test_a_negative_index_budget_is_refused() -> None:
    with pytest.raises(ConfigError, match="index_budget_mb"):
        SqliteVecStore(":memory:", embedder=HashEmbedder(8), index_budget_mb=-1)


async def test_in_memory_store_works(make_store: StoreFactory) -> None:
    store = make_store(":memory:")
    stored = await remember(store, "in memory only")
    assert await ids(store, query="memory") == [stored]


async def test_query_vector_from_a_router_is_used_when_the_embedder_matches() -> None:
    from mnemowire.protocol import QueryEmbedding

    embedder = HashEmbedder(64)
    async with CheckedStore(SqliteVecStore(":memory:", embedder=embedder)) as store:
        tea = (await store.remember({"agent_id": "a", "type": "semantic", "content": "tea"})).id
        cake = (await store.remember({"agent_id": "a", "type": "semantic", "content": "cake"})).id
        # The query text says "zzz" (no keyword hit); the given vector is cake's: cake wins.
        vector = QueryEmbedding(embedder.name, embedder.embed(["cake"])[0])
        found = await store.recall({"agent_id": "a", "query": "zzz", "k": 1}, query_vector=vector)
        assert [h.id for h in found.results] == [cake]
        other = QueryEmbedding("another-model/64", embedder.embed(["cake"])[0])
        found = await store.recall({"agent_id": "a", "query": "tea", "k": 1}, query_vector=other)
        assert [h.id for h in found.results] == [tea]


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
    await store.remember_many(big, vectors=vectors)
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


async def test_a_word_no_memory_held_is_matched_once_one_does(make_store: StoreFactory) -> None:
    """Word counts are read in the recall's own transaction, never cached: a word no memory held
    matches as soon as one does, written by this connection or another."""
    store, writer = make_store(), make_store()
    for i in range(5):
        await remember(store, f"ordinary note {i}")

    def keyword_hits(query: str) -> list[int]:
        inner = store.inner
        scope = Scope.of(RecallRequest(agent_id="a", query=query), inner._clock())
        with inner._db.lock, inner._db.transaction(write=False) as tx:
            (documents,) = tx.execute("SELECT visible FROM agent_stats WHERE agent_id = 'a'")
            hits: list[int] = _keywords.keyword_search(
                tx,
                "a",
                documents[0],
                query,
                vector=inner.embedder.embed([query])[0],
                fetch=20,
                where=(scope.sql, scope.args),
            )
            return hits

    assert keyword_hits("zebracorn") == []
    await remember(store, "a zebracorn in the pasture")
    assert len(keyword_hits("zebracorn")) == 1
    assert keyword_hits("quagga") == []
    await remember(writer, "a quagga by the river")  # another connection to the same file
    assert len(keyword_hits("quagga")) == 1
