"""forget, merge and expire on the pgvector store, and what they leave in the database."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mnemowire.errors import ConflictError, NotFoundError
from tests.adapters._semantics import recalled, remember

from .conftest import Clock, Database, StoreFactory

# -- forget ------------------------------------------------------------------------------------


async def test_forget_by_ids_is_soft_and_reported_exactly(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store()
    keep = await remember(store, "tea at noon")
    drop = await remember(store, "tea at five")
    other_agent = await remember(store, "tea at five", agent_id="b")
    response = await store.forget({"agent_id": "a", "ids": [drop, other_agent, "missing"]})
    assert response.forgotten_ids == [drop]
    assert response.hard_delete is False
    assert await recalled(store, "tea") == [keep]
    assert await recalled(store, "tea", agent_id="b") == [other_agent]
    state = db.rows("SELECT state, content FROM memories WHERE id = %s", drop)
    assert state == [("deleted", "tea at five")]  # kept for audit, invisible
    again = await store.forget({"agent_id": "a", "ids": [drop]})
    assert again.forgotten_ids == []


async def test_forget_reports_ids_in_write_order(make_store: StoreFactory) -> None:
    store = make_store()
    stored = [await remember(store, f"note {i}", id=name) for i, name in enumerate("zyx")]
    response = await store.forget({"agent_id": "a", "ids": list(reversed(stored))})
    assert response.forgotten_ids == stored


async def test_hard_delete_erases_from_every_table_and_index(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store()
    secret = await remember(store, "zanzibar passport number", metadata={"pii": True})
    soft = await remember(store, "zanzibar visa", metadata={"pii": True})
    merged_away = await remember(store, "zanzibar ferry", metadata={"pii": True})
    kept = await remember(store, "ferry timetable")
    await store.merge({"agent_id": "a", "canonical": kept, "duplicates": [merged_away]})
    assert await recalled(store, "zanzibar passport") != []  # tracked in recalls
    await store.forget({"agent_id": "a", "ids": [soft]})
    response = await store.forget({"agent_id": "a", "filter": {"pii": True}, "hard_delete": True})
    assert sorted(response.forgotten_ids) == sorted([secret, soft, merged_away])
    assert response.hard_delete is True
    assert db.rows("SELECT id FROM memories") == [(kept,)]
    assert db.rows(
        "SELECT count(*) FROM recalls r LEFT JOIN memories m ON m.seq = r.memory "
        "WHERE m.seq IS NULL"
    ) == [(0,)]
    await store.inner.vacuum()  # what autovacuum does: dead rows and index entries go
    assert db.rows("SELECT count(*) FROM memories WHERE search @@ 'zanzibar'::tsquery") == [(0,)]
    assert (
        db.rows("SELECT word FROM ts_stat('SELECT search FROM memories') WHERE word = 'zanzibar'")
        == []
    )
    assert await recalled(store, "zanzibar") in ([], [kept])
    audit = db.rows("SELECT ids, detail FROM audit_log WHERE operation = 'forget' ORDER BY seq")
    assert sorted(audit[-1][0]) == sorted([secret, soft, merged_away])
    assert audit[-1][1] == {"hard_delete": True}
    assert db.rows(
        "SELECT count(*) FROM audit_log WHERE detail::text LIKE '%%zanzibar%%' "
        "OR ids::text LIKE '%%zanzibar%%'"
    ) == [(0,)]


# -- merge -------------------------------------------------------------------------------------


async def test_merge_keep_canonical_hides_duplicates(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store()
    canonical = await remember(store, "Alice is allergic to peanuts")
    dupes = [
        await remember(store, "Alice has a peanut allergy"),
        await remember(store, "peanuts make Alice sick"),
    ]
    response = await store.merge({"agent_id": "a", "canonical": canonical, "duplicates": dupes})
    assert (response.canonical, response.merged_count, response.strategy_used) == (
        canonical,
        2,
        "keep_canonical",
    )
    assert await recalled(store, "Alice peanut allergy sick") == [canonical]
    pointers = db.rows("SELECT state, merged_into FROM memories WHERE id = ANY(%s)", dupes)
    assert pointers == [("merged", canonical)] * 2
    with pytest.raises(NotFoundError):  # merged-away records are hidden from merge too
        await store.merge({"agent_id": "a", "canonical": canonical, "duplicates": dupes[:1]})


async def test_merge_content_of_procedures_is_a_conflict_and_changes_nothing(
    make_store: StoreFactory, db: Database
) -> None:
    store = make_store()
    machine = (
        '{"name": "n", "initial": "s", "states": ["s"], "transitions": '
        '[{"trigger": "t", "source": "s", "dest": "s"}]}'
    )
    first = await remember(store, machine, type="procedural")
    second = await remember(store, machine.replace('"n"', '"m"'), type="procedural")
    before = db.snapshot()
    with pytest.raises(ConflictError, match="state machines"):
        await store.merge(
            {
                "agent_id": "a",
                "canonical": first,
                "duplicates": [second],
                "strategy": "merge_content",
            }
        )
    assert db.snapshot() == before


async def test_a_record_changed_while_merging_fails_the_merge(
    make_store: StoreFactory, db: Database, clock: Clock
) -> None:
    """The merge plans (and embeds) outside its write transaction; a change in between is
    caught by the version check, and the merge changes nothing."""
    store = make_store()
    canonical = await remember(store, "Alice lives in Lisbon")
    duplicate = await remember(store, "Alice owns a bicycle")
    embed = store.inner.embedder.embed

    def embed_and_interfere(texts: list[str]) -> Any:
        db.execute("UPDATE memories SET updated_at = updated_at + 1 WHERE id = %s", duplicate)
        return embed(texts)

    store.inner.embedder.embed = embed_and_interfere
    before = db.snapshot()
    with pytest.raises(ConflictError, match="changed while merging"):
        await store.merge(
            {
                "agent_id": "a",
                "canonical": canonical,
                "duplicates": [duplicate],
                "strategy": "merge_content",
            }
        )
    after = db.snapshot()
    assert after[0] != before[0]  # only the interfering update happened
    assert db.rows("SELECT content, state FROM memories ORDER BY seq") == [
        ("Alice lives in Lisbon", "active"),
        ("Alice owns a bicycle", "active"),
    ]
    assert after[2] == before[2]  # no audit entry for the failed merge


# -- expire ------------------------------------------------------------------------------------


async def test_expire_never_touches_hidden_records(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store()
    pending = await remember(store, "pending note", approval_required=True)
    forgotten = await remember(store, "forgotten note")
    await store.forget({"agent_id": "a", "ids": [forgotten]})
    clock.advance(days=3)
    response = await store.expire({"agent_id": "a", "policy": {"older_than_days": 1}})
    assert response.matched_ids == []
    decided = await store.decide(
        {"agent_id": "a", "review_id": pending, "approved": True, "reviewer": "r"}
    )
    assert decided.changed_ids == [pending]  # still pending: expire passed it over


async def test_no_recall_in_days_uses_recall_tracking(
    make_store: StoreFactory, clock: Clock, db: Database
) -> None:
    store = make_store()
    used = await remember(store, "weekly standup notes")
    unused = await remember(store, "expense policy")
    clock.advance(days=20)
    [hit] = (await store.recall({"agent_id": "a", "query": "standup", "k": 1})).results
    assert hit.id == used
    assert db.rows("SELECT m.id, r.at FROM recalls r JOIN memories m ON m.seq = r.memory") == [
        (used, clock.now)
    ]
    clock.advance(days=20)
    response = await store.expire(
        {"agent_id": "a", "policy": {"no_recall_in_days": 30}, "action": "archive"}
    )
    assert response.matched_ids == [unused]
    assert await recalled(store, "expense policy") == [used]  # the archived one is gone


async def test_recall_tracking_rewrites_at_most_once_a_minute(
    make_store: StoreFactory, clock: Clock, db: Database
) -> None:
    store = make_store()
    await remember(store, "standup")
    await recalled(store, "standup")
    first = clock.now
    clock.advance(ms=30_000)
    await recalled(store, "standup")
    assert db.rows("SELECT at FROM recalls") == [(first,)]
    clock.advance(ms=31_000)
    await recalled(store, "standup")
    assert db.rows("SELECT at FROM recalls") == [(clock.now,)]


async def test_demotion_reorders_after_fusion(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store()
    best = await remember(store, "printer toner order")
    clock.advance(days=10)
    second = await remember(store, "printer toner order form")
    assert (await recalled(store, "printer toner order"))[0] == best
    await store.expire(
        {
            "agent_id": "a",
            "policy": {"older_than_days": 5},
            "action": "demote",
            "demote_factor": 0.1,
        }
    )
    assert await recalled(store, "printer toner order") == [second, best]


# -- dedupe on write ---------------------------------------------------------------------------


async def test_concurrent_repeats_with_dedupe_store_one_record(
    make_store: StoreFactory, db: Database
) -> None:
    """Remembers saying the same thing at once, from stores of their own (as processes would
    be): the advisory lock makes each weigh what the others wrote, so one is stored and the
    rest answered by it."""
    stores = [make_store() for _ in range(6)]
    for store in stores:
        await remember(store, "warm-up")  # each connected before the race
    body = {
        "agent_id": "a",
        "type": "semantic",
        "content": "Ola bikes to work.",
        "dedupe": "existing",
    }
    answers = await asyncio.gather(*(store.remember(dict(body)) for store in stores * 5))
    assert len({a.id for a in answers}) == 1
    assert sum(a.duplicate_of is None for a in answers) == 1
    assert db.rows("SELECT count(*) FROM memories WHERE content = %s", body["content"]) == [(1,)]
