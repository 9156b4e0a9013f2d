"""The scenario checks: named invariants of docs/spec/v0.md, each citing its section.

Every check works through the MemoryStore protocol only, on agents no other check uses, so it
runs the same against an in-memory store, a file, or a shared PostgreSQL. Checks about time use
the wall clock with short real waits (a store's clock is its own business), so a check never
assumes it can move time.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mnemowire._wire import now_ms
from mnemowire.conformance._harness import Harness, check, expect

__all__: list[str] = []

MACHINE = {
    "name": "book_flight",
    "initial": "searching",
    "states": ["searching", "paying", "booked"],
    "transitions": [
        {"trigger": "choose", "source": "searching", "dest": "paying", "conditions": "seat_free"},
        {"trigger": "pay", "source": ["paying"], "dest": "booked", "unless": ["card_declined"]},
    ],
}


async def _hit(h: Harness, agent: str, query: str, record_id: str, **request: Any) -> Any:
    hits = {hit.id: hit for hit in await h.recall(agent, query, **request)}
    expect(record_id in hits, f"record {record_id} was not recalled by its agent")
    return hits[record_id]


# -- remember ----------------------------------------------------------------------------------


@check("remember.read-your-writes", section="remember.write")
async def read_your_writes(h: Harness) -> None:
    """A remembered record is recalled by its agent right away."""
    agent = h.agent()
    record = await h.remember(agent, "Alice is allergic to peanuts")
    await _hit(h, agent, "Alice is allergic to peanuts", record)


@check("remember.lossless-semantic", section="remember.fields")
async def lossless_semantic(h: Harness) -> None:
    """Type, content, metadata, confidence and source come back exactly as written."""
    agent = h.agent()
    metadata = {"topic": "health", "nested": {"list": [1, 2.5, None, True]}, "ünï": "cödé"}
    record = await h.remember(
        agent, "Alice is allergic to peanuts", metadata=metadata, confidence=0.7, source="chat:42"
    )
    hit = await _hit(h, agent, "peanuts", record)
    got = (hit.type, hit.content, hit.metadata, hit.confidence, hit.source)
    expect(
        got == ("semantic", "Alice is allergic to peanuts", metadata, 0.7, "chat:42"),
        f"the record changed on the way: {got}",
    )


@check("remember.lossless-episodic", section="types.memory-type", needs=["episodic"])
async def lossless_episodic(h: Harness) -> None:
    """An episodic memory keeps its event_time, location and participants."""
    agent = h.agent()
    fields = {
        "event_time": 1_779_000_000_000,
        "location": "Frankfurt airport",
        "participants": ["alice", "assistant"],
    }
    record = await h.remember(agent, "Alice missed her connection", type="episodic", **fields)
    hit = await _hit(h, agent, "missed connection", record)
    got = {name: getattr(hit, name) for name in fields}
    expect((hit.type, got) == ("episodic", fields), f"episodic fields changed: {hit.type} {got}")


@check("remember.lossless-emotional", section="types.memory-type", needs=["emotional"])
async def lossless_emotional(h: Harness) -> None:
    """An emotional memory keeps sentiment, valence, arousal, emotion and target."""
    agent = h.agent()
    fields = {
        "sentiment": "negative",
        "valence": -0.6,
        "arousal": 0.7,
        "emotion": "anxiety",
        "target": "flying",
    }
    record = await h.remember(agent, "Alice is anxious before flights", type="emotional", **fields)
    hit = await _hit(h, agent, "anxious flights", record)
    got = {name: getattr(hit, name) for name in fields}
    expect((hit.type, got) == ("emotional", fields), f"emotional fields changed: {hit.type} {got}")


@check("remember.lossless-procedural", section="types.procedural", needs=["procedural"])
async def lossless_procedural(h: Harness) -> None:
    """A procedural memory's state machine comes back as the same JSON text."""
    agent = h.agent()
    content = json.dumps(MACHINE)
    record = await h.remember(agent, content, type="procedural")
    hit = await _hit(h, agent, "book flight", record, types=["procedural"])
    expect((hit.type, hit.content) == ("procedural", content), "the state machine changed")


@check("remember.user-id-kept", section="types.user", needs=["user_scope"])
async def user_id_kept(h: Harness) -> None:
    """A record's user_id comes back with it."""
    agent = h.agent()
    record = await h.remember(agent, "likes green tea", user_id="alice")
    hit = await _hit(h, agent, "green tea", record)
    expect(hit.user_id == "alice", f"user_id came back as {hit.user_id!r}")


@check("remember.client-id", section="remember.id", needs=["client_ids"])
async def client_id(h: Harness) -> None:
    """A client-chosen id is the record's id."""
    agent = h.agent()
    chosen = f"client-{now_ms()}"
    response = await h.call(
        "remember", {"agent_id": agent, "id": chosen, "type": "semantic", "content": "tea"}
    )
    expect(response.id == chosen, f"asked for id {chosen}, got {response.id}")
    await _hit(h, agent, "tea", chosen)


@check("remember.replay", section="remember.id", needs=["client_ids"])
async def replay(h: Harness) -> None:
    """Repeating a remember with the same id creates nothing new."""
    agent = h.agent()
    request = {"agent_id": agent, "id": f"retry-{now_ms()}", "type": "semantic", "content": "tea"}
    first = await h.call("remember", request)
    again = await h.call("remember", request)
    expect(again.id == first.id, "the retry got another id")
    expect(len(await h.recall(agent, "tea")) == 1, "the retry stored a second record")


@check("remember.id-conflict", section="remember.id", needs=["client_ids"])
async def id_conflict(h: Harness) -> None:
    """Reusing an id for other content is a conflict, and changes nothing."""
    agent = h.agent()
    chosen = f"dup-{now_ms()}"
    await h.call(
        "remember", {"agent_id": agent, "id": chosen, "type": "semantic", "content": "tea"}
    )
    error = await h.rejected(
        "remember", {"agent_id": agent, "id": chosen, "type": "semantic", "content": "cake"}
    )
    expect(error.code == "conflict", f"expected conflict, got {error.code}")
    [hit] = await h.recall(agent, "tea cake")
    expect(hit.content == "tea", "the conflicting write changed the record")


@check("remember.unsafe-procedure", section="types.procedural")
async def unsafe_procedure(h: Harness) -> None:
    """A state machine naming a callback is rejected at write time."""
    machine = {
        **MACHINE,
        "transitions": [
            {"trigger": "go", "source": "searching", "dest": "booked", "before": "os.system"}
        ],
    }
    error = await h.rejected(
        "remember", {"agent_id": h.agent(), "type": "procedural", "content": json.dumps(machine)}
    )
    expect(("/content", "contentSchema") in _rules(error), f"wrong details: {error.details}")


@check("remember.dangling-state", section="types.procedural-references")
async def dangling_state(h: Harness) -> None:
    """A state machine naming an undeclared state is rejected at write time."""
    machine = {**MACHINE, "initial": "nowhere"}
    error = await h.rejected(
        "remember", {"agent_id": h.agent(), "type": "procedural", "content": json.dumps(machine)}
    )
    expect(("/content", "stateReference") in _rules(error), f"wrong details: {error.details}")


@check("remember.pending-invisible", section="remember.pending", needs=["governance"])
async def pending_invisible(h: Harness) -> None:
    """A write staged for approval is never recalled."""
    agent = h.agent()
    response = await h.call(
        "remember",
        {
            "agent_id": agent,
            "type": "semantic",
            "content": "secret plan",
            "approval_required": True,
        },
    )
    expect(response.pending_approval is True, "the response does not say the write is pending")
    expect(await h.recall_ids(agent, "secret plan") == [], "a pending record was recalled")


@check("remember.pending-forgettable", section="remember.pending", needs=["governance", "forget"])
async def pending_forgettable(h: Harness) -> None:
    """A staged write can be forgotten (a reviewer's rejection)."""
    agent = h.agent()
    staged = await h.call(
        "remember",
        {
            "agent_id": agent,
            "type": "semantic",
            "content": "secret plan",
            "approval_required": True,
        },
    )
    response = await h.call("forget", {"agent_id": agent, "ids": [staged.id]})
    expect(response.forgotten_ids == [staged.id], "the pending record was not forgotten")


@check("remember.expires-at", section="remember.expires", needs=["expiry"])
async def expires_at(h: Harness) -> None:
    """A record past its expires_at is not recalled."""
    agent = h.agent()
    soon = await h.remember(agent, "parking ticket", expires_at=now_ms() + 1500)
    keep = await h.remember(agent, "parking permit")
    expect(soon in await h.recall_ids(agent, "parking"), "recalled before it expired: missing")
    await asyncio.sleep(1.7)
    expect(await h.recall_ids(agent, "parking") == [keep], "an expired record was recalled")


# -- recall ------------------------------------------------------------------------------------


@check("recall.k", section="recall.order")
async def k_respected(h: Harness) -> None:
    """recall returns at most k results."""
    agent = h.agent()
    for i in range(12):
        await h.remember(agent, f"peanut fact {i}")
    response = await h.call("recall", {"agent_id": agent, "query": "peanut", "k": 5})
    expect(len(response.results) == 5, f"k=5 returned {len(response.results)}")


@check("recall.sorted", section="recall.order")
async def sorted_by_score(h: Harness) -> None:
    """Results are sorted by score, highest first."""
    agent = h.agent()
    for i in range(8):
        await h.remember(agent, f"coffee order {i} with {'milk ' * i}")
    scores = [hit.score for hit in await h.recall(agent, "coffee with milk")]
    expect(scores == sorted(scores, reverse=True), f"scores not sorted: {scores}")


@check("recall.full-k", section="recall.visibility")
async def full_k(h: Harness) -> None:
    """With k at least the number of records, every visible record is returned."""
    agent = h.agent()
    ids = {
        await h.remember(agent, text)
        for text in (
            "Alice likes tea",
            "Bob fixes bikes",
            "the sky is blue",
            "quarterly report due",
        )
    }
    expect(set(await h.recall_ids(agent, "anything")) == ids, "not every record came back")


@check("recall.agent-isolation", section="types.agent")
async def agent_isolation(h: Harness) -> None:
    """An agent never sees another agent's records."""
    mine, theirs = h.agent("mine"), h.agent("theirs")
    own = await h.remember(mine, "Alice is allergic to peanuts")
    await h.remember(theirs, "Alice is allergic to peanuts")
    expect(await h.recall_ids(mine, "Alice peanuts") == [own], "another agent's record leaked")


@check("recall.small-tenant", section="recall.visibility")
async def small_tenant(h: Harness) -> None:
    """A small agent beside a large one gets its full k."""
    big, small = h.agent("big"), h.agent("small")
    for i in range(300):
        await h.remember(big, f"peanut allergy note {i}")
    own = {await h.remember(small, f"peanut allergy fact {i}") for i in range(5)}
    response = await h.call("recall", {"agent_id": small, "query": "peanut allergy", "k": 5})
    expect({hit.id for hit in response.results} == own, "the small agent lost results")


@check("recall.user-scope", section="types.user", needs=["user_scope"])
async def user_scope(h: Harness) -> None:
    """A user-scoped recall sees only that user's records; agent-wide sees all."""
    agent = h.agent()
    alice = await h.remember(agent, "likes green tea", user_id="alice")
    bob = await h.remember(agent, "likes green tea", user_id="bob")
    expect(await h.recall_ids(agent, "green tea", user_id="alice") == [alice], "user leak")
    expect(set(await h.recall_ids(agent, "green tea")) == {alice, bob}, "agent-wide misses")


@check("recall.types", section="recall.scope", needs=["episodic"])
async def type_filter(h: Harness) -> None:
    """A types filter returns only records of those types."""
    agent = h.agent()
    fact = await h.remember(agent, "the flight leaves at noon")
    episode = await h.remember(agent, "the flight was delayed", type="episodic")
    expect(await h.recall_ids(agent, "flight", types=["episodic"]) == [episode], "wrong types")
    expect(await h.recall_ids(agent, "flight", types=["semantic"]) == [fact], "wrong types")


@check("recall.metadata-filter", section="types.filter", needs=["metadata_filter"])
async def metadata_filter(h: Harness) -> None:
    """Metadata filters: equality and every operator."""
    agent = h.agent()
    t1 = await h.remember(agent, "trip", metadata={"topic": "travel", "n": 1, "urgent": True})
    t2 = await h.remember(agent, "trip", metadata={"topic": "travel", "n": 3})
    h1 = await h.remember(agent, "trip", metadata={"topic": "health", "n": 2.0})
    cases: list[tuple[dict[str, Any], set[str]]] = [
        ({"topic": "travel"}, {t1, t2}),
        ({"n": {"$gte": 2}}, {t2, h1}),
        ({"n": {"$gt": 1, "$lt": 3}}, {h1}),
        ({"topic": {"$ne": "travel"}}, {h1}),
        ({"topic": {"$in": ["health"]}}, {h1}),
        ({"topic": {"$nin": ["health"]}}, {t1, t2}),
        ({"urgent": {"$exists": True}}, {t1}),
        ({"n": True}, set()),
    ]
    for condition, expected in cases:
        got = set(await h.recall_ids(agent, "trip", filter=condition))
        expect(got == expected, f"filter {condition} gave {sorted(got)}, not {sorted(expected)}")


@check("recall.fresher-than-days", section="recall.scope", needs=["freshness"])
async def fresher_than_days(h: Harness) -> None:
    """fresher_than_days excludes older records."""
    agent = h.agent()
    record = await h.remember(agent, "weather report")
    await asyncio.sleep(0.05)
    expect(await h.recall_ids(agent, "weather", fresher_than_days=1) == [record], "missing")
    expect(
        await h.recall_ids(agent, "weather", fresher_than_days=0) == [],
        "a record older than 0 days passed fresher_than_days=0",
    )


@check("recall.no-crowding", section="recall.visibility", needs=["forget"])
async def no_crowding(h: Harness) -> None:
    """Forgotten records do not take the places of visible ones in the top k."""
    agent = h.agent()
    ids = [await h.remember(agent, f"coffee order {i}") for i in range(30)]
    await h.call("forget", {"agent_id": agent, "ids": ids[:25]})
    response = await h.call("recall", {"agent_id": agent, "query": "coffee order", "k": 5})
    expect({hit.id for hit in response.results} == set(ids[25:]), "hidden records crowded")


@check("recall.relevance-floor", section="recall.relevance", needs=["relevance"])
async def relevance_floor(h: Harness) -> None:
    """Hits carry their relevance, and min_relevance drops the records below it."""
    agent = h.agent()
    await h.remember(agent, "Alice drinks green tea every morning")
    await h.remember(agent, "the quarterly financial report is due on Friday")
    hits = await h.recall(agent, "green tea")
    relevance = [hit.relevance for hit in hits]
    expect(all(r is not None and -1 <= r <= 1 for r in relevance), f"relevance {relevance}")
    best, worst = max(relevance), min(relevance)
    if best == worst:
        return  # this embedder cannot tell them apart; nothing to floor between
    floor = (best + worst) / 2
    kept = await h.recall(agent, "green tea", min_relevance=floor)
    expect([hit.relevance for hit in kept] == [best], f"floor {floor} kept {kept}")
    expect(
        await h.recall(agent, "green tea", min_relevance=1.0) in ([], kept),
        "a floor of 1.0 kept a record less similar than an exact match",
    )


@check("recall.hit-shape", section="recall.hit")
async def hit_shape(h: Harness) -> None:
    """Each hit names where it came from and when it was created."""
    agent = h.agent()
    before = now_ms()
    record = await h.remember(agent, "tea")
    hit = await _hit(h, agent, "tea", record)
    expect(hit.source_store in hit.supporting, "source_store is not among supporting")
    expect(before - 5000 <= hit.created_at <= now_ms() + 5000, "created_at is not now")


# -- forget ------------------------------------------------------------------------------------


@check("forget.by-ids", section="forget.scope", needs=["forget"])
async def forget_by_ids(h: Harness) -> None:
    """forget by ids forgets exactly those of the agent, and says so."""
    agent, other = h.agent(), h.agent("other")
    keep = await h.remember(agent, "tea at noon")
    drop = await h.remember(agent, "tea at five")
    foreign = await h.remember(other, "tea at five")
    response = await h.call("forget", {"agent_id": agent, "ids": [drop, foreign]})
    expect(response.forgotten_ids == [drop], f"forgotten_ids {response.forgotten_ids}")
    expect(await h.recall_ids(agent, "tea") == [keep], "a forgotten record came back")
    expect(await h.recall_ids(other, "tea") == [foreign], "another agent's record was forgotten")


@check("forget.by-filter", section="forget.scope", needs=["forget", "metadata_filter"])
async def forget_by_filter(h: Harness) -> None:
    """forget by filter forgets the matching records."""
    agent = h.agent()
    travel = await h.remember(agent, "trip", metadata={"topic": "travel"})
    health = await h.remember(agent, "checkup", metadata={"topic": "health"})
    response = await h.call("forget", {"agent_id": agent, "filter": {"topic": "travel"}})
    expect(response.forgotten_ids == [travel], f"forgotten_ids {response.forgotten_ids}")
    expect(await h.recall_ids(agent, "trip checkup") == [health], "wrong records remain")


@check("forget.ids-and-filter", section="forget.scope", needs=["forget", "metadata_filter"])
async def forget_both(h: Harness) -> None:
    """With ids and a filter, a record must be listed and match."""
    agent = h.agent()
    a = await h.remember(agent, "trip a", metadata={"topic": "travel"})
    b = await h.remember(agent, "trip b", metadata={"topic": "health"})
    response = await h.call(
        "forget", {"agent_id": agent, "ids": [a, b], "filter": {"topic": "travel"}}
    )
    expect(response.forgotten_ids == [a], f"forgotten_ids {response.forgotten_ids}")


@check("forget.scope-required", section="forget.scope")
async def scope_required(h: Harness) -> None:
    """A forget without ids or filter, or with an empty filter, is rejected."""
    agent = h.agent()
    record = await h.remember(agent, "keep me")
    refused: list[tuple[dict[str, Any], tuple[str, str]]] = [
        ({"agent_id": agent}, ("", "anyOf")),
        ({"agent_id": agent, "filter": {}}, ("/filter", "minProperties")),
    ]
    for request, rule in refused:
        error = await h.rejected("forget", request)
        expect(rule in _rules(error), f"{request} gave {error.details}")
    expect(await h.recall_ids(agent, "keep") == [record], "a rejected forget forgot something")


@check("forget.user-scope", section="forget.scope", needs=["forget", "user_scope"])
async def forget_user_scope(h: Harness) -> None:
    """A user-scoped forget only forgets that user's records."""
    agent = h.agent()
    alice = await h.remember(agent, "likes tea", user_id="alice")
    bob = await h.remember(agent, "likes tea", user_id="bob")
    response = await h.call("forget", {"agent_id": agent, "user_id": "alice", "ids": [alice, bob]})
    expect(response.forgotten_ids == [alice], f"forgotten_ids {response.forgotten_ids}")
    expect(await h.recall_ids(agent, "tea") == [bob], "bob's record was forgotten")


@check("forget.hard", section="forget.soft", needs=["forget", "hard_delete"])
async def forget_hard(h: Harness) -> None:
    """hard_delete erases the record and says so."""
    agent = h.agent()
    record = await h.remember(agent, "passport number")
    response = await h.call("forget", {"agent_id": agent, "ids": [record], "hard_delete": True})
    expect(response.hard_delete is True and response.forgotten_ids == [record], "not reported")
    expect(await h.recall_ids(agent, "passport") == [], "an erased record came back")


@check("forget.idempotent", section="forget.response", needs=["forget"])
async def forget_idempotent(h: Harness) -> None:
    """Forgetting a forgotten record is not an error and reports nothing new."""
    agent = h.agent()
    record = await h.remember(agent, "tea")
    await h.call("forget", {"agent_id": agent, "ids": [record]})
    again = await h.call("forget", {"agent_id": agent, "ids": [record]})
    expect(again.forgotten_ids == [], f"forgot again: {again.forgotten_ids}")


# -- merge -------------------------------------------------------------------------------------


@check("merge.keep-canonical", section="merge.strategies", needs=["merge"])
async def merge_keep_canonical(h: Harness) -> None:
    """keep_canonical keeps the canonical record as it was and hides the duplicates."""
    agent = h.agent()
    canonical = await h.remember(agent, "Alice is allergic to peanuts")
    duplicate = await h.remember(agent, "Alice has a peanut allergy")
    response = await h.call(
        "merge", {"agent_id": agent, "canonical": canonical, "duplicates": [duplicate]}
    )
    expect((response.merged_count, response.strategy_used) == (1, "keep_canonical"), "response")
    [hit] = await h.recall(agent, "peanut allergy")
    expect((hit.id, hit.content) == (canonical, "Alice is allergic to peanuts"), "changed")


@check("merge.merge-content", section="merge.strategies", needs=["merge"])
async def merge_content(h: Harness) -> None:
    """merge_content joins the contents with newlines, canonical first."""
    agent = h.agent()
    canonical = await h.remember(agent, "Alice lives in Lisbon")
    duplicate = await h.remember(agent, "Alice owns a yellow bicycle")
    await h.call(
        "merge",
        {
            "agent_id": agent,
            "canonical": canonical,
            "duplicates": [duplicate],
            "strategy": "merge_content",
        },
    )
    [hit] = await h.recall(agent, "yellow bicycle")
    expected = "Alice lives in Lisbon\nAlice owns a yellow bicycle"
    expect((hit.id, hit.content) == (canonical, expected), f"got {hit.id} {hit.content!r}")


@check("merge.highest-confidence", section="merge.strategies", needs=["merge"])
async def merge_highest_confidence(h: Harness) -> None:
    """keep_highest_confidence takes the most confident record's content."""
    agent = h.agent()
    canonical = await h.remember(agent, "meeting at 3pm", confidence=0.4)
    better = await h.remember(agent, "meeting at 4pm", confidence=0.9)
    await h.call(
        "merge",
        {
            "agent_id": agent,
            "canonical": canonical,
            "duplicates": [better],
            "strategy": "keep_highest_confidence",
        },
    )
    [hit] = await h.recall(agent, "meeting")
    got = (hit.id, hit.content, hit.confidence)
    expect(got == (canonical, "meeting at 4pm", 0.9), f"got {got}")


@check("merge.ownership", section="merge.ownership", needs=["merge"])
async def merge_ownership(h: Harness) -> None:
    """Merging another agent's record fails with not_found and changes nothing."""
    agent, other = h.agent(), h.agent("other")
    mine = await h.remember(agent, "tea")
    theirs = await h.remember(other, "their tea")
    error = await h.rejected(
        "merge", {"agent_id": agent, "canonical": mine, "duplicates": [theirs]}
    )
    expect(error.code == "not_found", f"expected not_found, got {error.code}")
    expect(await h.recall_ids(other, "tea") == [theirs], "the other agent's record changed")
    expect(await h.recall_ids(agent, "tea") == [mine], "the merge changed something")


@check("merge.into-itself", section="merge.ownership", needs=["merge"])
async def merge_into_itself(h: Harness) -> None:
    """A record cannot be merged into itself."""
    agent = h.agent()
    record = await h.remember(agent, "tea")
    other = await h.remember(agent, "cake")
    error = await h.rejected(
        "merge", {"agent_id": agent, "canonical": record, "duplicates": [other, record]}
    )
    expect(error.code in ("conflict", "invalid_request"), f"unexpected {error.code}")
    expect(len(await h.recall(agent, "tea cake")) == 2, "the failed merge changed something")


@check("merge.duplicates-gone", section="merge.duplicates", needs=["merge", "forget"])
async def merge_duplicates_gone(h: Harness) -> None:
    """Merged duplicates never come back, and are no longer visible to forget."""
    agent = h.agent()
    canonical = await h.remember(agent, "Alice likes tea")
    duplicate = await h.remember(agent, "Alice enjoys tea")
    await h.call("merge", {"agent_id": agent, "canonical": canonical, "duplicates": [duplicate]})
    expect(await h.recall_ids(agent, "Alice tea") == [canonical], "a duplicate came back")
    response = await h.call("forget", {"agent_id": agent, "ids": [duplicate]})
    expect(response.forgotten_ids == [], "a merged duplicate was still forgettable")


# -- expire ------------------------------------------------------------------------------------


@check("expire.empty-policy", section="expire.policy")
async def empty_policy(h: Harness) -> None:
    """An expire with an empty (or missing) policy is rejected and matches nothing."""
    agent = h.agent()
    record = await h.remember(agent, "keep me")
    refused: list[tuple[dict[str, Any], tuple[str, str]]] = [
        ({"agent_id": agent, "policy": {}}, ("/policy", "minProperties")),
        ({"agent_id": agent}, ("/policy", "required")),
    ]
    for request, rule in refused:
        error = await h.rejected("expire", request)
        expect(rule in _rules(error), f"{request} gave {error.details}")
    expect(await h.recall_ids(agent, "keep") == [record], "a rejected expire changed something")


@check("expire.type", section="expire.policy", needs=["expire", "episodic"])
async def expire_type(h: Harness) -> None:
    """The type predicate matches that type only."""
    agent = h.agent()
    await h.remember(agent, "a fact")
    episode = await h.remember(agent, "an episode", type="episodic")
    response = await h.call("expire", {"agent_id": agent, "policy": {"type": "episodic"}})
    expect(
        response.matched_count == 1 and response.matched_ids in (None, [episode]),
        f"matched {response.matched_count} {response.matched_ids}",
    )


@check("expire.confidence-below", section="expire.policy", needs=["expire"])
async def expire_confidence(h: Harness) -> None:
    """confidence_below matches strictly lower confidence."""
    agent = h.agent()
    low = await h.remember(agent, "rumour", confidence=0.2)
    await h.remember(agent, "edge", confidence=0.5)
    response = await h.call("expire", {"agent_id": agent, "policy": {"confidence_below": 0.5}})
    expect(response.matched_count == 1 and response.matched_ids in (None, [low]), "matched")


@check("expire.older-than", section="expire.policy", needs=["expire"])
async def expire_older(h: Harness) -> None:
    """older_than_days matches records created before the cut-off."""
    agent = h.agent()
    record = await h.remember(agent, "old note")
    await asyncio.sleep(0.05)
    none = await h.call("expire", {"agent_id": agent, "policy": {"older_than_days": 1}})
    expect(none.matched_count == 0, "a brand-new record is older than a day?")
    some = await h.call("expire", {"agent_id": agent, "policy": {"older_than_days": 0}})
    expect(some.matched_count == 1 and some.matched_ids in (None, [record]), "not matched")


@check("expire.no-recall", section="recall.tracking", needs=["expire", "recall_tracking"])
async def expire_no_recall(h: Harness) -> None:
    """no_recall_in_days matches records nobody recalled within the window."""
    agent = h.agent()
    used = await h.remember(agent, "weekly standup notes")
    unused = await h.remember(agent, "expense policy")
    await asyncio.sleep(2.2)
    response = await h.call("recall", {"agent_id": agent, "query": "standup", "k": 1})
    expect([hit.id for hit in response.results] == [used], "the probe recall missed")
    window = 1.5 / 86_400  # 1.5 seconds, in days
    matched = await h.call(
        "expire", {"agent_id": agent, "action": "demote", "policy": {"no_recall_in_days": window}}
    )
    expect(
        matched.matched_ids in (None, [unused]) and matched.matched_count == 1,
        f"matched {matched.matched_ids}",
    )


@check("expire.predicates-anded", section="expire.policy", needs=["expire", "episodic"])
async def expire_anded(h: Harness) -> None:
    """Predicates are ANDed."""
    agent = h.agent()
    target = await h.remember(agent, "weak episode", type="episodic", confidence=0.1)
    await h.remember(agent, "strong episode", type="episodic", confidence=0.9)
    await h.remember(agent, "weak fact", confidence=0.1)
    response = await h.call(
        "expire", {"agent_id": agent, "policy": {"type": "episodic", "confidence_below": 0.5}}
    )
    expect(response.matched_count == 1 and response.matched_ids in (None, [target]), "matched")


@check("expire.forget", section="expire.actions", needs=["expire"])
async def expire_forget(h: Harness) -> None:
    """The forget action hides the matches."""
    agent = h.agent()
    await h.remember(agent, "rumour", confidence=0.1)
    keep = await h.remember(agent, "fact")
    await h.call("expire", {"agent_id": agent, "policy": {"confidence_below": 0.5}})
    expect(await h.recall_ids(agent, "rumour fact") == [keep], "an expired record came back")


@check("expire.archive", section="expire.actions", needs=["expire", "archive"])
async def expire_archive(h: Harness) -> None:
    """The archive action hides the matches from recall."""
    agent = h.agent()
    await h.remember(agent, "rumour", confidence=0.1)
    keep = await h.remember(agent, "fact")
    response = await h.call(
        "expire", {"agent_id": agent, "action": "archive", "policy": {"confidence_below": 0.5}}
    )
    expect(response.action_taken == "archive", "action_taken")
    expect(await h.recall_ids(agent, "rumour fact") == [keep], "an archived record came back")


@check("expire.demote", section="expire.demote", needs=["expire", "demote"])
async def expire_demote(h: Harness) -> None:
    """Demotion multiplies the recall score by the factor, and never compounds."""
    agent = h.agent()
    record = await h.remember(agent, "printer toner order", confidence=0.1)

    async def score() -> float:
        [hit] = await h.recall(agent, "printer toner order")
        return float(hit.score)

    full = await score()
    for _ in range(2):
        await h.call(
            "expire",
            {
                "agent_id": agent,
                "action": "demote",
                "demote_factor": 0.5,
                "policy": {"confidence_below": 0.5},
            },
        )
        expect(
            abs(await score() - full * 0.5) <= 1e-9 * max(1.0, full),
            f"score {await score()} is not half of {full} (record {record})",
        )


# -- validation, capabilities, health ----------------------------------------------------------


@check("validation.unknown-field", section="validation.closed")
async def unknown_field(h: Harness) -> None:
    """Every operation rejects an unknown field, naming it."""
    agent = h.agent()
    requests: dict[str, dict[str, Any]] = {
        "remember": {"agent_id": agent, "type": "semantic", "content": "x"},
        "recall": {"agent_id": agent, "query": "x"},
        "forget": {"agent_id": agent, "ids": ["x"]},
        "merge": {"agent_id": agent, "canonical": "x", "duplicates": ["y"]},
        "expire": {"agent_id": agent, "policy": {"type": "semantic"}},
    }
    for operation, request in requests.items():
        error = await h.rejected(operation, {**request, "approval_requried": True})
        expect(
            ("/approval_requried", "additionalProperties") in _rules(error),
            f"{operation}: {error.details}",
        )


@check("validation.bounds", section="validation.envelope")
async def bounds(h: Harness) -> None:
    """Out-of-range values are rejected with the field and rule named."""
    agent = h.agent()
    cases: list[tuple[str, dict[str, Any], tuple[str, str]]] = [
        ("recall", {"agent_id": agent, "query": "x", "k": 0}, ("/k", "minimum")),
        ("recall", {"agent_id": agent, "query": "x", "k": 1001}, ("/k", "maximum")),
        (
            "remember",
            {"agent_id": agent, "type": "semantic", "content": "x", "confidence": 1.5},
            ("/confidence", "maximum"),
        ),
        ("remember", {"agent_id": agent, "type": "fact", "content": "x"}, ("/type", "enum")),
        (
            "merge",
            {"agent_id": agent, "canonical": "x", "duplicates": []},
            ("/duplicates", "minItems"),
        ),
    ]
    for operation, request, rule in cases:
        error = await h.rejected(operation, request)
        expect(error.code == "invalid_request", f"{operation}: code {error.code}")
        expect(rule in _rules(error), f"{operation} {request}: {error.details}")


@check("validation.atomic", section="validation.atomic")
async def atomic(h: Harness) -> None:
    """A rejected request changes nothing a recall can see."""
    agent = h.agent()
    record = await h.remember(agent, "Alice likes tea")
    before = [(hit.id, hit.content) for hit in await h.recall(agent, "tea")]
    await h.rejected("remember", {"agent_id": agent, "type": "semantic", "content": ""})
    await h.rejected("forget", {"agent_id": agent, "ids": [record], "hard_delet": True})
    after = [(hit.id, hit.content) for hit in await h.recall(agent, "tea")]
    expect(before == after, "state changed after rejected requests")


@check("store.capabilities", section="store.capabilities")
async def capabilities(h: Harness) -> None:
    """The store declares its capabilities as a valid message, including its memory types."""
    declared = h.store.capabilities()
    expect(declared.spec_version.startswith("v0"), f"spec_version {declared.spec_version}")
    expect("semantic" in declared.capabilities, "a store must store semantic memories")


@check("store.health", section="store.health")
async def health(h: Harness) -> None:
    """health answers with a valid message saying the store is ok."""
    from mnemowire import spec
    from mnemowire._wire import to_wire

    report = await h.store.health()
    envelope = spec.validate("health", to_wire(report))
    expect(envelope is None, f"invalid health message: {envelope}")
    expect(report.status == "ok", f"health is {report.status}")


def _rules(error: Any) -> set[tuple[str, str]]:
    return {(d["path"], d["rule"]) for d in error.details}
