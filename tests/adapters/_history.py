"""Spec v0.4's history, tested once and run against every store that keeps it (sqlite-vec,
pgvector): each write path makes its version with the operation and caller that made it,
the bound drops the oldest, and an erasure takes the versions along.
tests/adapters/<adapter>/test_history.py imports these."""

from __future__ import annotations

from typing import Any

import pytest

from mnemowire.errors import NotFoundError
from mnemowire.kit.audit import as_caller
from tests.adapters._semantics import StoreFactory, remember
from tests.adapters._support import Clock


async def versions(store: Any, record_id: str, **request: Any) -> list[Any]:
    """Every version of one of agent a's records, page by page."""
    body: dict[str, Any] = {"agent_id": "a", "id": record_id, **request}
    entries: list[Any] = []
    while True:
        page = await store.history(body)
        entries += page.entries
        if page.next_cursor is None:
            return entries
        body = {**body, "cursor": page.next_cursor}


def steps(entries: list[Any]) -> list[tuple[str, str]]:
    return [(e.operation, e.record.state) for e in entries]


async def test_each_write_path_makes_its_version(make_store: StoreFactory, clock: Clock) -> None:
    store = make_store()
    tea = await remember(store, "Alice likes tea", user_id="alice")
    await store.update({"agent_id": "a", "id": tea, "expected_version": 1, "confidence": 0.5,
                        "reason": "she was unsure"})  # fmt: skip
    clock.advance(ms=1000)
    await store.expire({"agent_id": "a", "policy": {"confidence_below": 0.6}, "action": "archive"})
    await store.restore({"agent_id": "a", "ids": [tea]})
    await store.forget({"agent_id": "a", "ids": [tea]})
    got = await versions(store, tea)
    assert steps(got) == [
        ("remember", "active"),
        ("update", "active"),
        ("expire", "archived"),
        ("restore", "active"),
        ("forget", "forgotten"),
    ]
    assert [e.revision for e in got] == [1, 2, 3, 4, 5]
    assert got[1].record.confidence == 0.5
    assert got[0].record.confidence == 1.0
    assert (got[0].reason, got[1].reason) == (None, "she was unsure")
    assert got[2].at == got[1].at + 1000  # each version at its write's time
    assert all(e.record.user_id == "alice" for e in got)
    assert len({e.audit_seq for e in got}) == 5


async def test_a_batch_a_decision_and_a_merge_each_make_versions(make_store: StoreFactory) -> None:
    store = make_store()
    batch = await store.remember_batch(
        {
            "requests": [
                {"agent_id": "a", "type": "semantic", "content": c}
                for c in ("Bob rides a bike", "Bob rides a red bike")
            ]
        }
    )
    first, second = (r.id for r in batch.results)
    staged = await remember(store, "Carol plays cello", approval_required=True)
    await store.decide({"agent_id": "a", "review_id": staged, "approved": True, "reviewer": "ops"})
    await store.merge({"agent_id": "a", "canonical": first, "duplicates": [second],
                       "strategy": "merge_content"})  # fmt: skip
    assert steps(await versions(store, staged)) == [("remember", "pending"), ("approve", "active")]
    kept = await versions(store, first)
    assert steps(kept) == [("remember", "active"), ("merge", "active")]
    assert kept[-1].merged_from == [second]
    assert "Bob rides a red bike" in kept[-1].record.content
    assert kept[0].record.content == "Bob rides a bike"
    folded = await versions(store, second)
    assert steps(folded) == [("remember", "active"), ("merge", "merged")]
    assert folded[-1].merged_into == first


async def test_a_merge_that_moves_nothing_is_still_a_version_of_the_canonical(
    make_store: StoreFactory,
) -> None:
    store = make_store()  # the test clock stands still: every write is in one millisecond
    tea = await remember(store, "Fay likes tea")
    again = await remember(store, "Fay likes tea a lot")
    await store.merge({"agent_id": "a", "canonical": tea, "duplicates": [again]})
    kept = await versions(store, tea)
    assert steps(kept) == [("remember", "active"), ("merge", "active")]
    assert kept[-1].merged_from == [again]
    assert kept[-1].record.updated_at > kept[0].record.created_at  # a change is seen as one


async def test_a_version_names_the_credential_that_wrote_it(make_store: StoreFactory) -> None:
    store = make_store()
    stored = await as_caller("agent-token", store.remember(
        {"agent_id": "a", "type": "semantic", "content": "Dana keeps bees"}
    ))  # fmt: skip
    record = stored.id
    await store.update({"agent_id": "a", "id": record, "expected_version": 1, "content": "x"})
    got = await versions(store, record)
    assert [e.caller for e in got] == ["agent-token", None]


async def test_reads_and_refused_writes_make_no_version(make_store: StoreFactory) -> None:
    store = make_store()
    record = await remember(store, "Erin likes plums", confidence=0.4)
    await store.recall({"agent_id": "a", "query": "plums"})
    await store.get({"agent_id": "a", "ids": [record]})
    with pytest.raises(Exception, match="version"):
        await store.update({"agent_id": "a", "id": record, "expected_version": 9, "content": "x"})
    await store.expire({"agent_id": "a", "policy": {"confidence_below": 0.5}, "action": "demote",
                        "demote_factor": 0.5})  # fmt: skip
    assert steps(await versions(store, record)) == [("remember", "active")]


async def test_an_erased_record_takes_its_versions_along(make_store: StoreFactory) -> None:
    store = make_store()
    kept = await remember(store, "Frank's locker is 12")
    folded = await remember(store, "Frank's locker is number 12")
    await store.merge({"agent_id": "a", "canonical": kept, "duplicates": [folded]})
    await store.forget({"agent_id": "a", "ids": [kept], "hard_delete": True})
    for gone in (kept, folded):  # what was merged into it is erased with it
        with pytest.raises(NotFoundError):
            await store.history({"agent_id": "a", "id": gone})


async def test_history_is_scoped_to_the_agent_and_user(make_store: StoreFactory) -> None:
    store = make_store()
    record = await remember(store, "Grace's note", user_id="grace")
    for request in (
        {"agent_id": "b", "id": record},
        {"agent_id": "a", "id": record, "user_id": "heidi"},
        {"agent_id": "a", "id": "never-stored"},
    ):
        with pytest.raises(NotFoundError) as refused:
            await store.history(request)
        assert refused.value.details[0]["path"] == "/id"
    assert len(await versions(store, record, user_id="grace")) == 1


async def test_the_bound_drops_the_oldest_versions(make_store: StoreFactory) -> None:
    store = make_store(history_limit=3)
    record = await remember(store, "v1")
    for version in range(1, 6):
        await store.update(
            {
                "agent_id": "a",
                "id": record,
                "expected_version": version,
                "content": f"v{version + 1}",
            }
        )
    page = await store.history({"agent_id": "a", "id": record})
    assert page.dropped == 3
    assert [(e.revision, e.record.content) for e in page.entries] == [
        (4, "v4"),
        (5, "v5"),
        (6, "v6"),
    ]
    other = make_store()  # the bound is the store's, kept with its data
    await other.update({"agent_id": "a", "id": record, "expected_version": 6, "content": "v7"})
    again = await other.history({"agent_id": "a", "id": record})
    assert (again.dropped, [e.revision for e in again.entries]) == (4, [5, 6, 7])


async def test_pages_continue_where_the_last_ended(make_store: StoreFactory) -> None:
    store = make_store()
    record = await remember(store, "n0")
    for version in range(1, 5):
        await store.update(
            {"agent_id": "a", "id": record, "expected_version": version, "content": f"n{version}"}
        )
    whole = [e.record.content for e in await versions(store, record)]
    assert whole == ["n0", "n1", "n2", "n3", "n4"]
    assert [e.record.content for e in await versions(store, record, limit=2)] == whole
