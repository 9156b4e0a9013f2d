"""The scenario checks of remember, recall, validation and the store's declarations: named
invariants of docs/spec/v0.md, each citing its section (forget, merge and expire: ``retention``).

Every check works through the MemoryStore protocol only, on agents no other check uses, so it
runs the same against an in-memory store, a file, or a shared PostgreSQL. Checks about time use
the wall clock with short real waits (a store's clock is its own business), so a check never
assumes it can move time.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mnemowire.conformance._harness import (
    TIME_WINDOWS_S,
    CheckFailed,
    Harness,
    Skip,
    check,
    expect,
    too_slow,
)
from mnemowire.errors import MnemowireError
from mnemowire.kit import now_ms
from mnemowire.models import MemoryType

__all__ = ["MACHINE", "NEEDS", "rules"]

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
    expect(("/content", "contentSchema") in rules(error), f"wrong details: {error.details}")


@check("remember.dangling-state", section="types.procedural-references")
async def dangling_state(h: Harness) -> None:
    """A state machine naming an undeclared state is rejected at write time."""
    machine = {**MACHINE, "initial": "nowhere"}
    error = await h.rejected(
        "remember", {"agent_id": h.agent(), "type": "procedural", "content": json.dumps(machine)}
    )
    expect(("/content", "stateReference") in rules(error), f"wrong details: {error.details}")


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


@check(
    "remember.pending-forgettable",
    section="remember.pending",
    strength="MAY",
    needs=["governance", "forget"],
)
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
    for window_s in TIME_WINDOWS_S:
        agent = h.agent()
        keep = await h.remember(agent, "parking permit")
        expires = now_ms() + int(window_s * 1000)
        soon = await h.remember(agent, "parking ticket", expires_at=expires)
        recalled = await h.recall_ids(agent, "parking")
        if now_ms() < expires:  # the recall ended before the expiry: it had to see the record
            break
    else:
        raise too_slow("a remember and a recall")
    expect(soon in recalled, "recalled before it expired: missing")
    await asyncio.sleep((expires - now_ms()) / 1000 + 0.2)
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
            ("/approval_requried", "additionalProperties") in rules(error),
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
        expect(rule in rules(error), f"{operation} {request}: {error.details}")


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
    from mnemowire.kit import to_wire

    report = await h.store.health()
    envelope = spec.validate("health", to_wire(report))
    expect(envelope is None, f"invalid health message: {envelope}")
    expect(report.status == "ok", f"health is {report.status}")


@check("recall.empty-types", section="recall.scope")
async def empty_types(h: Harness) -> None:
    """An empty types list filters nothing (absent or empty: every type)."""
    agent = h.agent()
    plain = [t for t in MemoryType if t not in (MemoryType.SEMANTIC, MemoryType.PROCEDURAL)]
    kinds = ["semantic", *(str(t) for t in plain if t in h.capabilities)]
    ids = {await h.remember(agent, f"a {kind} note about tea", type=kind) for kind in kinds}
    got = set(await h.recall_ids(agent, "tea", types=[]))
    expect(got == ids, f"types: [] returned {sorted(got)}, not every record {sorted(ids)}")


@check("remember.sortable-ids", section="types.id", strength="SHOULD")
async def sortable_ids(h: Harness) -> None:
    """Ids the store mints sort by creation time (ULIDs)."""
    agent = h.agent()
    minted = [await h.remember(agent, f"note {i}") for i in range(5)]
    expect(minted == sorted(minted), f"minted ids do not sort by creation: {minted}")


@check("store.health-details", section="store.health", strength="SHOULD")
async def health_details(h: Harness) -> None:
    """health names the engine versions and the embedder in details."""
    report = await h.store.health()
    details = report.details or {}
    expect(bool(details), "health has no details (engine versions, embedder)")


#: capability -> a request needing it, for an agent: what a store that does not declare the
#: capability must refuse with `unsupported` ([store.capabilities])
NEEDS: dict[str, tuple[str, dict[str, Any]]] = {
    "expiry": ("remember", {"type": "semantic", "content": "x", "expires_at": 9_000_000_000_000}),
    "user_scope": ("recall", {"query": "x", "user_id": "u1"}),
    "metadata_filter": ("recall", {"query": "x", "filter": {"topic": "x"}}),
    "freshness": ("recall", {"query": "x", "fresher_than_days": 1}),
    "governance": ("remember", {"type": "semantic", "content": "x", "approval_required": True}),
    "client_ids": ("remember", {"type": "semantic", "content": "x", "id": "needs-client-ids"}),
    "episodic": ("remember", {"type": "episodic", "content": "x"}),
    "emotional": ("remember", {"type": "emotional", "content": "x"}),
    "procedural": ("remember", {"type": "procedural", "content": json.dumps(MACHINE)}),
    "forget": ("forget", {"ids": ["x"]}),
    "hard_delete": ("forget", {"ids": ["x"], "hard_delete": True}),
    "merge": ("merge", {"canonical": "x", "duplicates": ["y"]}),
    "expire": ("expire", {"policy": {"confidence_below": 0.5}}),
    "demote": ("expire", {"policy": {"confidence_below": 0.5}, "action": "demote"}),
    "archive": ("expire", {"policy": {"confidence_below": 0.5}, "action": "archive"}),
    "recall_tracking": ("expire", {"policy": {"no_recall_in_days": 30}, "action": "demote"}),
}


@check("store.undeclared-refused", section="store.capabilities")
async def undeclared_refused(h: Harness) -> None:
    """A request needing a capability the store does not declare fails with unsupported."""
    missing = [c for c in NEEDS if c not in h.capabilities]
    if not missing:
        raise Skip("the store declares every capability a request can need")
    for capability in missing:
        operation, request = NEEDS[capability]
        agent = h.agent(capability)
        try:
            await h.call(operation, {"agent_id": agent, **request})
        except MnemowireError as exc:
            expect(
                exc.code == "unsupported",
                f"without {capability}, {operation} failed with {exc.code}, not unsupported",
            )
            continue
        raise CheckFailed(
            f"the store does not declare {capability}, yet served a {operation} needing it "
            "instead of failing with unsupported",
        )


def rules(error: Any) -> set[tuple[str, str]]:
    return {(d["path"], d["rule"]) for d in error.details}
