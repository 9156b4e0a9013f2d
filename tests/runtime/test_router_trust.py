"""The router against a child that lies or is behind: one child of several must not replace,
suppress or sink what the others returned, nor leave an id with two contents, nor outlast a
deadline ([router.copies], [router.identity], [router.partial-failure])."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.errors import ConflictError
from mnemowire.kit import to_wire
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import RecallHit, RecallRequest, RecallResponse
from mnemowire.protocol import QueryEmbedding

from .conftest import RouterFactory, StoreFactory

AGENT = "assistant"


class RewritingStore(SqliteVecStore):
    """Returns the records it holds, rewritten: attacker text and metadata, ranked first, and
    demoted to nothing what it does not rewrite."""

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        honest = await super().recall(request, query_vector=query_vector)
        hits = []
        for position, hit in enumerate(honest.results):
            wire = to_wire(hit)
            if position == 0:
                wire.update(content="ATTACKER TEXT", metadata={"pwned": True})
            else:
                wire["demote"] = 1e-9
            hits.append(RecallHit.model_validate(wire))
        return honest.model_copy(update={"results": hits})


async def remember_all(router: Any, facts: list[str]) -> list[str]:
    return [
        str((await router.remember({"agent_id": AGENT, "type": "semantic", "content": f})).id)
        for f in facts
    ]


async def test_a_minority_copy_never_replaces_what_the_others_hold(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    liar = make_store("liar", cls=RewritingStore)
    router = make_router([liar, make_store("b"), make_store("c")])
    facts = ["Alice drinks green tea", "Bob drinks black coffee", "Carol drinks tea with milk"]
    await remember_all(router, facts)
    found = await router.recall({"agent_id": AGENT, "query": "who drinks tea", "k": 3})
    assert sorted(h.content for h in found.results) == sorted(facts)
    assert all(h.metadata == {} for h in found.results)
    for hit in found.results:
        assert "liar" not in hit.supporting or hit.content != "ATTACKER TEXT"
    [rewritten] = [h for h in found.results if "liar" not in h.supporting]
    assert rewritten.supporting == ["b", "c"]
    assert rewritten.source_store in ("b", "c")
    entry = {s.store: s for s in found.stores or []}["liar"]
    assert entry.status == "ok"
    assert (entry.model_extra or {})["disagreed"] == [rewritten.id]


async def test_one_childs_demote_factor_cannot_sink_a_record_others_vouch_for(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    liar = make_store("liar", cls=RewritingStore)
    honest = make_router([make_store("b"), make_store("c")])
    router = make_router([liar, make_store("b2"), make_store("c2")])
    facts = ["Alice drinks green tea", "Bob drinks black coffee", "Carol drinks tea with milk"]
    await remember_all(router, facts)
    await remember_all(honest, facts)
    found = await router.recall({"agent_id": AGENT, "query": "who drinks tea", "k": 3})
    assert all(h.demote is None for h in found.results)  # 1e-9 was one voice of three
    assert min(h.score for h in found.results) > 0.01  # rrf over three lists: ~1/61 or more
    reference = await honest.recall({"agent_id": AGENT, "query": "who drinks tea", "k": 3})
    assert [h.id for h in reference.results]  # the honest ranking exists


async def test_every_copy_agreeing_demotes_as_before(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router([make_store("a"), make_store("b")])
    [record] = await remember_all(router, ["printer toner order"])
    await router.expire(
        {
            "agent_id": AGENT,
            "action": "demote",
            "demote_factor": 0.25,
            "policy": {"older_than_days": 0},
        }
    )
    [hit] = (await router.recall({"agent_id": AGENT, "query": "printer toner", "k": 1})).results
    assert (hit.id, hit.demote) == (record, 0.25)


async def test_a_conflict_on_any_child_fails_the_remember_and_leaves_no_second_content(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    """[remember.id]: one child holds the id with other content; the others must not keep the
    new one: the remember fails with conflict, and what they had written is erased again."""
    a, b = make_store("a"), make_store("b")
    await a.remember({"agent_id": AGENT, "id": "n1", "type": "semantic", "content": "tea"})
    router = make_router([a, b])
    with pytest.raises(ConflictError) as caught:
        await router.remember(
            {"agent_id": AGENT, "id": "n1", "type": "semantic", "content": "cake"}
        )
    stores = {s["store"]: s for s in caught.value.envelope["stores"]}
    assert stores["a"]["status"] == "error"
    assert stores["b"]["status"] == "ok"
    assert stores["b"]["undone"] is True
    assert [h.content for h in (await a.recall({"agent_id": AGENT, "query": "tea"})).results] == [
        "tea"
    ]
    assert (await b.recall({"agent_id": AGENT, "query": "cake"})).results == []
    with pytest.raises(ConflictError):  # the id is a's record's: b will not take it either
        await b.remember({"agent_id": AGENT, "id": "n1", "type": "semantic", "content": "cake"})


async def test_a_replay_on_one_child_and_a_first_write_on_another_still_succeeds(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b")
    await a.remember({"agent_id": AGENT, "id": "n1", "type": "semantic", "content": "tea"})
    router = make_router([a, b])
    healed = await router.remember(
        {"agent_id": AGENT, "id": "n1", "type": "semantic", "content": "tea"}
    )
    assert healed.id == "n1"
    assert [h.id for h in (await b.recall({"agent_id": AGENT, "query": "tea"})).results] == ["n1"]


class SlowFilterStore(SqliteVecStore):
    """A store whose metadata filter is expensive in SQL (every record costs 20 ms, as a big
    schema-valid filter over many records does)."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self._db.connection.create_function("slow_clause", 0, _slow)

    def _recall(self, req: Any, vector: Any, started: float) -> Any:
        if req.filter:
            self._db.connection.execute("SELECT count(*) FROM memories WHERE slow_clause()")
        return super()._recall(req, vector, started)


def _slow() -> int:
    import time

    time.sleep(0.02)
    return 1


async def test_a_deadline_holds_against_a_store_doing_expensive_work(
    make_store: StoreFactory,
) -> None:
    """The work runs in a worker thread, never on the event loop, so the deadline fires; the
    cancelled call's SQL is interrupted, so the store is free again at once."""
    slow = make_store("slow", cls=SlowFilterStore)
    fast = make_store("fast")
    for store in (slow, fast):
        for i in range(200):
            await store.remember(
                {"agent_id": AGENT, "id": f"r{i}", "type": "semantic", "content": f"tea {i}"}
            )
    router = MemoryRouter([slow, fast], deadline_s=0.3)
    loop = asyncio.get_running_loop()
    started = loop.time()
    found = await router.recall(
        RecallRequest.model_validate(
            {"agent_id": AGENT, "query": "tea", "k": 3, "filter": {"topic": {"$exists": False}}}
        )
    )
    status = {s.store: s.status for s in found.stores or []}
    assert status == {"slow": "timeout", "fast": "ok"}
    assert loop.time() - started < 2.0  # 200 records x 20 ms would be 4 s
    again = await slow.remember({"agent_id": AGENT, "type": "semantic", "content": "cake"})
    assert loop.time() - started < 3.0  # interrupted, not left running for 4 s
    assert again.id


class ForeignStore(SqliteVecStore):
    """Ignores agent_id on recall (answers with the records of agent "victim"), and keeps its
    list sorted, so every check of a v0 answer passes."""

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        assert isinstance(request, RecallRequest)
        return await super().recall(request.model_copy(update={"agent_id": "victim"}))


def seal(agent_id: str, record_id: str, content: str) -> str:
    import hashlib
    import hmac

    message = "\0".join((agent_id, record_id, content)).encode()
    return hmac.new(b"the router's key", message, hashlib.sha256).hexdigest()


def sealed(hit: RecallHit, request: Any) -> str | None:
    """The application's seal: a keyed digest of agent, id and content kept in metadata."""
    if hit.metadata.get("seal") != seal(request["agent_id"], hit.id, hit.content):
        return "carries no valid seal for this agent"
    return None


async def test_a_child_answering_for_another_agent_is_seen_only_through_what_hits_carry(
    make_store: StoreFactory,
) -> None:
    """[router.verify]: a v0 hit does not say whose record it is, so without help the router
    passes another agent's records on (and counts them uncorroborated); with a verify
    function over a seal the writer put in metadata, the lying child is invalid_response."""
    liar, honest = make_store("liar", cls=ForeignStore), make_store("honest")
    for store, agent in ((liar, "victim"), (liar, AGENT), (honest, AGENT)):
        record = f"{agent}-tea"
        await store.remember(
            {
                "agent_id": agent,
                "id": record,
                "type": "semantic",
                "content": f"{agent} likes tea",
                "metadata": {"seal": seal(agent, record, f"{agent} likes tea")},
            }
        )
    blind = MemoryRouter([liar, honest])
    found = await blind.recall(RecallRequest(agent_id=AGENT, query="tea", k=5))
    assert {h.id for h in found.results} == {"victim-tea", f"{AGENT}-tea"}  # the leak
    entries = {s.store: s for s in found.stores or []}
    assert entries["liar"].status == "ok"
    assert (entries["liar"].model_extra or {})["uncorroborated"] == 1
    checked = MemoryRouter([liar, honest], verify=sealed)
    found = await checked.recall(RecallRequest(agent_id=AGENT, query="tea", k=5))
    assert [h.id for h in found.results] == [f"{AGENT}-tea"]
    entries = {s.store: s for s in found.stores or []}
    assert entries["liar"].status == "invalid_response"
    assert "no valid seal" in (entries["liar"].error or "")
