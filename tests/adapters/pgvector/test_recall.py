"""recall on the pgvector store: every filter applies before the top k, on both searches, and
a small tenant beside a large one gets its full k."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import numpy as np
import pytest
from pgvector.psycopg import register_vector

from mnemowire.adapters.pgvector import _search
from mnemowire.adapters.pgvector._search import COUNT_QUERY, recall_query
from mnemowire.adapters.pgvector._sql import Scope, agent_key, lexeme
from mnemowire.adapters.pgvector._vector_index import nearest
from mnemowire.embedders import HashEmbedder
from mnemowire.layers.validating import parse_requests
from mnemowire.models import RecallRequest, RememberRequest
from mnemowire.protocol import QueryEmbedding
from tests.adapters._semantics import ids, remember

from .conftest import Clock, Database, StoreFactory


async def test_ties_go_to_the_smaller_id(make_store: StoreFactory) -> None:
    store = make_store()
    for record_id in ("c3", "a1", "b2"):
        await remember(store, "identical twin text", id=record_id)
    response = await store.recall({"agent_id": "a", "query": "identical twin text", "k": 3})
    # equal distances and equal keyword ranks: each search, and the fusion, order by id
    assert [h.id for h in response.results] == ["a1", "b2", "c3"]


async def test_keyword_side_finds_a_rare_word_the_vectors_miss(make_store: StoreFactory) -> None:
    store = make_store(embedder=HashEmbedder(8))  # 8-d hash vectors: nearly meaningless
    target = await remember(store, "the invoice number is XK-44817")
    for i in range(40):
        await remember(store, f"an unrelated remark about the weather, number {i}")
    found = await ids(store, query="what about xk 44817", k=1)
    assert found == [target]


async def test_a_rare_word_is_found_right_after_a_recall_of_the_empty_agent(
    make_store: StoreFactory,
) -> None:
    # the first recall counts the agent (empty); the writes that follow must not leave the
    # keyword side believing it still is, for as long as the count is reused
    store = make_store(embedder=HashEmbedder(8))  # 8-d hash vectors: nearly meaningless
    assert await ids(store, query="what about xk 44817", k=1) == []
    target = await remember(store, "the invoice number is XK-44817")
    for i in range(40):
        await remember(store, f"an unrelated remark about the weather, number {i}")
    assert await ids(store, query="what about xk 44817", k=1) == [target]


async def test_word_counts_are_counted_again_after_every_change_of_the_agent(
    make_store: StoreFactory,
) -> None:
    """A word's count is reused between recalls, never past a write of the agent's records:
    held by 3 it is rare (searched), by 4 common, by 3 again rare."""
    events: list[tuple[str, dict[str, Any]]] = []
    store = make_store(embedder=HashEmbedder(8), tracer=lambda *e: events.append(e))
    sightings = [await remember(store, f"zebra sighting number {i}") for i in range(3)]
    await remember(store, "zebra sighting by another agent", agent_id="b")

    async def searched() -> list[str]:
        events.clear()
        await store.recall({"agent_id": "a", "query": "zebra", "k": 3})
        [terms] = [e[1]["terms"] for e in events if e[0] == "keyword_search"]
        return list(terms)

    assert await searched() == ["zebra"]
    await remember(store, "zebra sighting number 3", agent_id="b")  # another agent's words
    assert await searched() == ["zebra"]
    await remember(store, "zebra sighting number 3")
    assert await searched() == []
    await store.forget({"agent_id": "a", "ids": sightings[:1], "hard_delete": True})
    assert await searched() == ["zebra"]


async def test_a_word_the_statistics_call_common_is_not_counted(
    make_store: StoreFactory, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GIN cannot stop a count early: a word most records hold is known common from the
    statistics, and only the others are counted."""
    store = make_store(embedder=HashEmbedder(8))
    await store.remember_many(
        [{"agent_id": "a", "type": "semantic", "content": f"alpha remark {i}"} for i in range(300)]
    )
    walrus = await remember(store, "alpha remark about the walrus")
    db.execute("ANALYZE memories")
    asked: list[list[str]] = []
    counted = _search.held_counts

    async def spy(conn: Any, agent_id: str, terms: Sequence[str], documents: int) -> Any:
        asked.append(list(terms))
        return await counted(conn, agent_id, terms, documents)

    monkeypatch.setattr(_search, "held_counts", spy)
    store.inner._sizes.expire()  # read the statistics the ANALYZE above wrote
    assert walrus in await ids(store, query="alpha walrus", k=2)  # keyword rank 1: 1/61
    assert asked == [["walrus"]]


async def test_query_vector_from_a_router_is_used_when_the_embedder_matches(
    make_store: StoreFactory,
) -> None:
    embedder = HashEmbedder(64)
    store = make_store(embedder=embedder)
    tea = await remember(store, "tea")
    cake = await remember(store, "cake")
    # The query text says "zzz" (no keyword hit); the given vector is cake's: cake wins.
    vector = QueryEmbedding(embedder.name, embedder.embed(["cake"])[0])
    found = await store.recall({"agent_id": "a", "query": "zzz", "k": 1}, query_vector=vector)
    assert [h.id for h in found.results] == [cake]
    other = QueryEmbedding("another-model/64", embedder.embed(["cake"])[0])
    found = await store.recall({"agent_id": "a", "query": "tea", "k": 1}, query_vector=other)
    assert [h.id for h in found.results] == [tea]


# -- a small tenant beside a large one ---------------------------------------------------------

BIG = 1500
#: session settings that leave the planner nothing but the vector index for the ANN query
FORCE_INDEX = ["enable_seqscan=off", "enable_bitmapscan=off"]


def _with_options(dsn: str, settings: list[str]) -> str:
    """``dsn`` with server settings for every connection it makes (libpq ``options``)."""
    options = " ".join(f"-c {setting}" for setting in settings)
    return f"{dsn}{'&' if '?' in dsn else '?'}options={quote(options)}"


async def _tenants(store: Any) -> list[str]:
    """A big agent whose records all lie closer to the query than the small agent's do (the
    big one's load builds the vector index: BIG is past ``INDEXED_FROM``)."""
    big = [
        {"agent_id": "big", "type": "semantic", "content": f"peanut allergy note {i}"}
        for i in range(BIG)
    ]
    await store.inner.load_fresh(parse_requests(RememberRequest, big), batch_size=500)
    small = await store.remember_many(
        [
            {"agent_id": "small", "type": "semantic", "content": f"peanut allergy fact {i}"}
            for i in range(10)
        ]
    )
    return [r.id for r in small]


async def test_small_agent_beside_a_large_one_gets_its_full_k(make_store: StoreFactory) -> None:
    store = make_store()
    small = await _tenants(store)
    for k in (5, 10, 20):
        found = await store.recall({"agent_id": "small", "query": "peanut allergy note", "k": k})
        assert {h.id for h in found.results} <= set(small)
        assert len(found.results) == min(k, 10)


async def test_the_index_scan_itself_returns_the_small_agents_full_k(
    make_store: StoreFactory, db: Database, pg_dsn: str
) -> None:
    """Without the tenant btrees (the scope's, and the list orders') the planner must use the
    IVFFlat index for the small agent too: probing one cell with iterative scans off it comes
    back short (the big agent fills the cell), in relaxed_order it probes on and is complete,
    and so is the store, probing one cell."""
    store = make_store()
    small = await _tenants(store)
    for index in ("memories_scope", "memories_newest", "memories_agent_ids"):
        db.execute(f"DROP INDEX {index}")
    vector = store.inner.embedder.embed(["peanut allergy note"])[0].tolist()
    query = (
        "SELECT id FROM memories WHERE agent_id = 'small' AND state = 'active' "
        f"ORDER BY {nearest('embedding', '%s::vector', 64)} LIMIT 5"
    )
    counts = {}
    for mode in ("off", "relaxed_order"):
        with db.connection.transaction():
            for setting in FORCE_INDEX:
                db.execute(f"SET LOCAL {setting.replace('=', ' = ')}")
            db.execute("SET LOCAL ivfflat.probes = 1")
            db.execute(f"SET LOCAL ivfflat.iterative_scan = {mode}")
            plan = "\n".join(row[0] for row in db.rows(f"EXPLAIN {query}", str(vector)))
            assert "memories_embedding" in plan
            counts[mode] = len(db.rows(query, str(vector)))
    assert counts["off"] < 5, "this scale no longer shows the filtered-scan problem"
    assert counts["relaxed_order"] == 5
    events: list[tuple[str, dict[str, Any]]] = []
    forced = _with_options(pg_dsn, FORCE_INDEX)
    found = await make_store(dsn=forced, probes=1, tracer=lambda *e: events.append(e)).recall(
        {"agent_id": "small", "query": "peanut allergy note", "k": 5}
    )
    assert {h.id for h in found.results} <= set(small)
    assert len(found.results) == 5
    assert ("vector_search", {"fetch": 20, "returned": 10, "exact": True}) in events


async def test_a_filtered_index_scan_finds_what_exact_search_finds(
    make_store: StoreFactory, db: Database, pg_dsn: str
) -> None:
    """One agent's nearest among ten agents' records, through the IVFFlat index (the scope's
    btrees dropped, so nothing else can serve the query) with the probes the store sets,
    against exact search. Loose queries (random directions, as a question is to its answers)
    over random vectors are IVFFlat's hardest case; a table of a few thousand records is
    probed whole (``MIN_SCANNED``), so it finds all of them."""
    embedder = HashEmbedder(32)
    loaded = make_store(embedder=embedder)
    texts = [
        {"agent_id": f"a{agent}", "type": "semantic", "content": f"agent {agent} note {i}"}
        for agent in range(10)
        for i in range(300)
    ]
    await loaded.inner.load_fresh(parse_requests(RememberRequest, texts), batch_size=500)
    for index in ("memories_scope", "memories_newest", "memories_agent_ids"):
        db.execute(f"DROP INDEX {index}")
    db.execute("ANALYZE memories")
    store = make_store(embedder=embedder, dsn=_with_options(pg_dsn, FORCE_INDEX))
    register_vector(db.connection)
    rng = np.random.default_rng(3)
    found = []
    for _ in range(30):
        vector = rng.standard_normal(32).astype(np.float32)
        vector /= np.linalg.norm(vector)
        answer = await store.recall(
            {"agent_id": "a0", "query": "?", "k": 10},
            query_vector=QueryEmbedding(embedder.name, vector),
        )
        with db.connection.transaction():
            db.execute("SET LOCAL enable_indexscan = off")
            exact = db.rows(
                "SELECT id FROM memories WHERE agent_id = 'a0' AND state = 'active' "
                "ORDER BY (embedding <=> %s) + 0, id LIMIT 10",
                vector,
            )
        found.append(len({h.id for h in answer.results} & {row[0] for row in exact}) / 10)
    assert np.mean(found) == 1.0


async def test_exact_search_takes_over_when_the_index_scan_gives_up(
    make_store: StoreFactory, db: Database, pg_dsn: str
) -> None:
    """ivfflat.max_probes caps an iterative scan (four times the probes); past it the store
    searches exactly."""
    small = await _tenants(make_store())
    for index in ("memories_scope", "memories_newest", "memories_agent_ids"):
        db.execute(f"DROP INDEX {index}")
    events: list[tuple[str, dict[str, Any]]] = []
    capped = _with_options(pg_dsn, FORCE_INDEX)
    store = make_store(dsn=capped, probes=1, tracer=lambda *e: events.append(e))
    found = await store.recall({"agent_id": "small", "query": "peanut allergy note", "k": 10})
    assert {h.id for h in found.results} == set(small)
    assert ("vector_search", {"fetch": 40, "returned": 10, "exact": True}) in events


async def test_keyword_only_hits_report_their_relevance_too(make_store: StoreFactory) -> None:
    store = make_store(embedder=HashEmbedder(8))
    embedder = store.inner.embedder
    target = await remember(store, "the invoice number is XK-44817")
    for i in range(40):
        await remember(store, f"an unrelated remark about the weather, number {i}")
    [hit] = (await store.recall({"agent_id": "a", "query": "xk 44817", "k": 1})).results
    assert hit.id == target
    vectors = embedder.embed(["xk 44817", "the invoice number is XK-44817"])
    assert hit.relevance == pytest.approx(float(vectors[0] @ vectors[1]), abs=1e-5)


def _filters(plan: dict[str, Any]) -> list[str]:
    """Every row filter of a JSON plan, its subplans included."""
    found = [plan["Filter"]] if "Filter" in plan else []
    for child in plan.get("Plans", []):
        found += _filters(child)
    return found


async def test_a_store_without_statistics_analyzes_and_searches_words_on_the_index(
    make_store: StoreFactory, db: Database, clock: Clock
) -> None:
    # Without planner statistics (a new table, autovacuum not there yet) PostgreSQL read the
    # table for each searched word, all of it for a rare one. The first recall that finds them
    # missing starts an ANALYZE; after it, every word is counted and matched on the index.
    store = make_store(embedder=HashEmbedder(384))  # rows as wide as MiniLM's
    await store.recall({"agent_id": "a", "query": "creates the tables"})
    db.execute("ALTER TABLE memories SET (autovacuum_enabled = false)")
    await store.remember_many(
        [
            {
                "agent_id": f"agent-{i % 3}",
                "type": "semantic",
                "content": f"note {i} about the garden shed and invoice {i * 7}",
            }
            for i in range(600)  # a bulk import of 1,000 or more runs ANALYZE itself
        ]
    )
    statistics = "SELECT count(*) FROM pg_stats WHERE schemaname = %s AND tablename = 'memories'"
    assert db.rows(statistics, db.schema) == [(0,)]
    payload = {"agent_id": "agent-1", "query": "invoice 4123 and the garden shed", "k": 5}
    found = await store.recall(payload)
    assert found.results[0].content == "note 589 about the garden shed and invoice 4123"
    for _ in range(100):  # the ANALYZE runs in the background
        if db.rows(statistics, db.schema) != [(0,)]:
            break
        await asyncio.sleep(0.1)
    assert db.rows(statistics, db.schema) != [(0,)]
    vector = HashEmbedder(384).embed([str(payload["query"])])[0]
    scope = Scope.of(RecallRequest.model_validate(payload), payload, clock())
    lexemes = [lexeme(agent_key("agent-1"), w) for w in ("invoice", "4123", "garden", "shed")]
    register_vector(db.connection)
    for statement, args in (
        (COUNT_QUERY, [4, lexemes]),
        recall_query(scope, vector, ["4123"], 20),
    ):
        [(plan,)] = db.rows(f"EXPLAIN (FORMAT JSON) {statement}", *args)
        assert [f for f in _filters(plan[0]["Plan"]) if "@@" in f] == []  # on the index only
