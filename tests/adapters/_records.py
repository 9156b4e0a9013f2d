"""A record's life, tested once and run against every store (like ``_semantics``): its id is
never reused, a replay is the same writer's, expired is not visible, merges keep content
typed, a forget by filter leaves unreviewed writes to their reviewer, and erasure erases
everything the record left behind. tests/adapters/<adapter>/test_records.py imports these."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from mnemowire.conformance.checks import MACHINE
from mnemowire.errors import ConflictError, NotFoundError
from tests.adapters._semantics import Snapshot, StoreFactory, recalled, remember
from tests.adapters._support import Clock

Audit = Callable[[], list[dict[str, Any]]]
Holds = Callable[[str], bool]


# -- ids and replays -----------------------------------------------------------------------


async def test_a_hard_deleted_id_is_never_reused_by_anyone(
    make_store: StoreFactory, snapshot: Snapshot
) -> None:
    """[types.id]: minted once, never reused; a retry after an erasure must not bring it back."""
    store = make_store()
    request = {"agent_id": "a", "id": "r1", "type": "semantic", "content": "passport 123"}
    await store.remember(request)
    await store.forget({"agent_id": "a", "ids": ["r1"], "hard_delete": True})
    before = snapshot()
    for again in (request, {**request, "agent_id": "b"}, {**request, "content": "other"}):
        with pytest.raises(ConflictError) as caught:
            await store.remember(again)
        assert "passport" not in str(caught.value)
    assert snapshot() == before
    assert await recalled(store, "passport") == []


async def test_a_bulk_import_repeating_an_id_is_held_to_the_same_rule(
    make_store: StoreFactory, snapshot: Snapshot
) -> None:
    """[remember.id] inside one bulk import: an id repeated by the same writer replays its
    first occurrence; repeated by another user of the agent it is a conflict, and the import
    stores nothing."""
    store = make_store()
    first = {"agent_id": "a", "user_id": "u1", "id": "b1", "type": "semantic", "content": "tea"}
    await store.remember({"agent_id": "z", "type": "semantic", "content": "another agent"})
    before = snapshot()
    with pytest.raises(ConflictError):
        await store.remember_many([first, {**first, "user_id": "u2"}])
    assert snapshot() == before
    assert await recalled(store, "tea") == []
    written, again = await store.remember_many([first, first])
    assert (written.id, written.replayed, again.id, again.replayed) == ("b1", None, "b1", True)


async def test_a_replay_is_the_same_writers_and_another_users_is_a_conflict(
    make_store: StoreFactory, snapshot: Snapshot
) -> None:
    """[remember.id]: a replay answers with the first write's stored_at, so only the same
    agent, user, type and content replay; a second user of the agent learns nothing."""
    store = make_store()
    first = await store.remember(
        {"agent_id": "a", "user_id": "u1", "id": "x1", "type": "semantic", "content": "tea"}
    )
    before = snapshot()
    for user in ({"user_id": "u2"}, {}):
        with pytest.raises(ConflictError) as caught:
            await store.remember(
                {"agent_id": "a", "id": "x1", "type": "semantic", "content": "tea", **user}
            )
        assert str(first.stored_at) not in json.dumps(caught.value.envelope)
    again = await store.remember(
        {"agent_id": "a", "user_id": "u1", "id": "x1", "type": "semantic", "content": "tea"}
    )
    assert (again.replayed, again.stored_at) == (True, first.stored_at)
    assert snapshot() == before


# -- expired is not visible ----------------------------------------------------------------


async def test_merge_refuses_an_expired_record(make_store: StoreFactory, clock: Clock) -> None:
    """[merge.ownership]: visible records only. An expired duplicate merged in would bring its
    content back into recall through the canonical."""
    store = make_store()
    canonical = await remember(store, "Alice lives in Lisbon")
    expired = await remember(store, "Alice's gate code 4471", expires_at=clock.now + 1000)
    clock.advance(ms=2000)
    for ids in ((canonical, expired), (expired, canonical)):
        for strategy in ("keep_canonical", "merge_content", "keep_highest_confidence"):
            with pytest.raises(NotFoundError):
                await store.merge(
                    {
                        "agent_id": "a",
                        "canonical": ids[0],
                        "duplicates": [ids[1]],
                        "strategy": strategy,
                    }
                )
    assert await recalled(store, "gate code 4471") == [canonical]
    [hit] = (await store.recall({"agent_id": "a", "query": "gate code", "k": 5})).results
    assert hit.content == "Alice lives in Lisbon"


async def test_expire_never_counts_an_expired_record(
    make_store: StoreFactory, clock: Clock
) -> None:
    """[expire.policy]: only visible records match; an expired one is not visible."""
    store = make_store()
    await remember(store, "parking ticket", expires_at=clock.now + 1000)
    live = await remember(store, "parking permit")
    clock.advance(days=2)
    response = await store.expire(
        {"agent_id": "a", "policy": {"older_than_days": 1}, "action": "archive"}
    )
    assert (response.matched_count, response.matched_ids) == (1, [live])


# -- merges keep content typed -------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["keep_highest_confidence", "merge_content"])
async def test_content_never_moves_between_types(
    make_store: StoreFactory, snapshot: Snapshot, strategy: str
) -> None:
    """[merge.strategies]: a procedural record's content is a state machine, an episodic one an
    event: strategies that move content need one type, else conflict and nothing changes."""
    store = make_store()
    procedure = await remember(store, json.dumps(MACHINE), type="procedural", confidence=0.2)
    fact = await remember(store, "flights are booked on Fridays", confidence=0.9)
    episode = await remember(store, "booked the Lisbon flight", type="episodic", confidence=0.9)
    before = snapshot()
    for canonical, duplicate in ((procedure, fact), (fact, episode), (fact, procedure)):
        with pytest.raises(ConflictError) as caught:
            await store.merge(
                {
                    "agent_id": "a",
                    "canonical": canonical,
                    "duplicates": [duplicate],
                    "strategy": strategy,
                }
            )
        assert "type" in str(caught.value)
    assert snapshot() == before


async def test_keep_canonical_merges_across_types(make_store: StoreFactory) -> None:
    store = make_store()
    procedure = await remember(store, json.dumps(MACHINE), type="procedural")
    note = await remember(store, "how to book a flight: search, pay, done")
    response = await store.merge({"agent_id": "a", "canonical": procedure, "duplicates": [note]})
    assert response.merged_count == 1
    found = await store.recall({"agent_id": "a", "query": "book flight", "k": 10})
    assert [(h.id, h.type, h.content) for h in found.results] == [
        (procedure, "procedural", json.dumps(MACHINE))
    ]


# -- forget by filter and unreviewed writes --------------------------------------------------


async def test_a_forget_by_filter_leaves_staged_writes_to_their_reviewer(
    make_store: StoreFactory,
) -> None:
    """[forget.scope]: a staged (pending) write is reached by naming its id (how a reviewer's
    rejection ends) or by an erasure; a forget by filter alone would silently reject writes
    nobody reviewed."""
    store = make_store()
    live = await remember(store, "trip one", metadata={"topic": "travel"})
    staged = await remember(store, "trip two", metadata={"topic": "travel"}, approval_required=True)
    response = await store.forget({"agent_id": "a", "filter": {"topic": "travel"}})
    assert response.forgotten_ids == [live]
    named = await store.forget({"agent_id": "a", "ids": [staged], "filter": {"topic": "travel"}})
    assert named.forgotten_ids == [staged]


async def test_an_erasure_by_filter_reaches_staged_writes(make_store: StoreFactory) -> None:
    store = make_store()
    staged = await remember(store, "patient 7", metadata={"pii": True}, approval_required=True)
    response = await store.forget({"agent_id": "a", "filter": {"pii": True}, "hard_delete": True})
    assert response.forgotten_ids == [staged]


async def test_the_forget_reason_is_kept_in_the_audit_log(
    make_store: StoreFactory, audit: Audit
) -> None:
    store = make_store()
    record = await remember(store, "tea")
    await store.forget({"agent_id": "a", "ids": [record], "reason": "user asked, ticket 81"})
    [entry] = [e for e in audit() if e["operation"] == "forget"]
    assert entry["ids"] == [record]
    assert entry["detail"]["reason"] == "user asked, ticket 81"


# -- erasure -------------------------------------------------------------------------------


async def test_erasing_a_canonical_erases_what_was_merged_into_it(
    make_store: StoreFactory, holds: Holds, audit: Audit
) -> None:
    """[forget.soft]: the duplicates' content lives on in hidden rows that point to the
    canonical; erasing the canonical erases them too (through earlier merges as well), and
    forgotten_ids lists what the request named."""
    store = make_store()
    oldest = await remember(store, "zqxoldest lives at 12 Elm Street")
    middle = await remember(store, "jkvmiddle phone 0170 5550123")
    canonical = await remember(store, "Alice's contact details")
    keep = await remember(store, "an unrelated memory")
    await store.merge({"agent_id": "a", "canonical": middle, "duplicates": [oldest]})
    await store.merge({"agent_id": "a", "canonical": canonical, "duplicates": [middle]})
    assert holds("zqxoldest")
    response = await store.forget({"agent_id": "a", "ids": [canonical], "hard_delete": True})
    assert response.forgotten_ids == [canonical]
    for gone in ("zqxoldest", "jkvmiddle", "Alice's contact details"):
        assert not holds(gone), gone
    assert holds("an unrelated memory")
    [entry] = [e for e in audit() if e["operation"] == "forget"]
    assert sorted(entry["detail"]["erased_with"]) == sorted([oldest, middle])
    assert await recalled(store, "memory") == [keep]
    with pytest.raises(ConflictError):  # their ids are spent too
        await store.remember({"agent_id": "a", "id": oldest, "type": "semantic", "content": "x"})


# -- isolation -----------------------------------------------------------------------------


async def test_an_agents_scores_depend_only_on_its_own_records(make_store: StoreFactory) -> None:
    """[types.agent]: another agent writing the same words must not move this agent's results
    or scores by a single bit (keyword rarity was counted over the whole store: a side
    channel telling one tenant what another writes)."""
    store = make_store()
    for text in (
        "invoice ZX-4471 for the Lisbon office",
        "the garden party is on Saturday",
        "Alice prefers the window seat",
        "quarterly invoice review with finance",
        "printer toner order for the Lisbon office",
    ):
        await remember(store, text)

    async def seen() -> list[tuple[str, float, float | None]]:
        fresh = make_store()  # the same data, and no cache of word counts from before
        found = await fresh.recall({"agent_id": "a", "query": "invoice ZX-4471 Lisbon", "k": 5})
        return [(h.id, h.score, h.relevance) for h in found.results]

    before = await seen()
    for i in range(40):
        await remember(store, f"invoice ZX-4471 copy {i} for the Lisbon office", agent_id="b")
    assert await seen() == before
