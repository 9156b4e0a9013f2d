"""Spec v0.4's forget of a whole scope and its dry run, tested once and run against every store
that speaks v0.4 (sqlite-vec, pgvector): ``all`` reaches what a forget by ids or filter would,
and staged it names the records it reaches; a dry run lists what the same forget would reach
and changes nothing at all (no record, review or audit entry), and says whether the forget
would wait for a reviewer. tests/adapters/<adapter>/test_forget_scope.py imports these."""

from __future__ import annotations

from typing import Any

import pytest

from mnemowire.errors import RequestError
from mnemowire.kit.staging import StagingRules
from tests.adapters._semantics import Snapshot, StoreFactory, remember


async def _visible(store: Any, *ids: str) -> set[str]:
    found = await store.get({"agent_id": "a", "ids": list(ids)})
    return {r.id for r in found.records}


async def test_a_dry_run_lists_what_the_forget_would_reach_and_changes_nothing(
    make_store: StoreFactory, snapshot: Snapshot
) -> None:
    store = make_store()
    alices = [
        await remember(store, f"Alice fact {n}", user_id="alice", metadata={"topic": "t"})
        for n in range(2)
    ]
    await remember(store, "Bob fact", user_id="bob", metadata={"topic": "t"})
    staged = await remember(
        store, "Alice staged", user_id="alice", metadata={"topic": "t"}, approval_required=True
    )
    await remember(store, "another agent's fact", agent_id="b", metadata={"topic": "t"})
    before = snapshot()
    by_user = {"agent_id": "a", "user_id": "alice", "filter": {"topic": "t"}}
    cases: list[tuple[dict[str, Any], list[str], bool]] = [
        (by_user, alices, False),  # a soft forget leaves staged writes to their reviewer
        ({**by_user, "hard_delete": True}, [*alices, staged], False),  # an erasure does not
        ({"agent_id": "a", "ids": alices[:1]}, alices[:1], False),
        ({"agent_id": "a", "filter": {"nothing": "matches"}}, [], False),
        ({**by_user, "approval_required": True}, alices, True),
    ]
    for request, reach, waits in cases:
        preview = await store.forget({**request, "dry_run": True})
        assert preview.dry_run is True
        assert sorted(preview.forgotten_ids) == sorted(reach), request
        assert preview.pending_approval is waits
        assert preview.review_id is None
        assert preview.hard_delete is bool(request.get("hard_delete"))
        assert snapshot() == before  # not a record, a review, nor an audit entry
    assert await _visible(store, *alices) == set(alices)
    done = await store.forget(by_user)  # the real one reaches what the preview said
    assert sorted(done.forgotten_ids) == sorted(alices)
    assert done.dry_run is None


async def test_a_dry_run_says_the_operators_policy_would_stage_it(
    make_store: StoreFactory, snapshot: Snapshot
) -> None:
    policy = StagingRules.of({"rules": [{"name": "erasures", "operations": ["forget"]}]})
    store = make_store(policy=policy)
    alice = await remember(store, "Alice fact", user_id="alice")
    before = snapshot()
    preview = await store.forget({"agent_id": "a", "ids": [alice], "dry_run": True})
    assert (preview.forgotten_ids, preview.pending_approval) == ([alice], True)
    assert snapshot() == before
    staged = await store.forget({"agent_id": "a", "ids": [alice], "dry_run": False})
    assert staged.pending_approval is True  # the real one waits, as the preview said
    [review] = (await store.reviews({"agent_id": "a"})).reviews
    assert review.request == {"agent_id": "a", "ids": [alice]}  # dry_run is never kept
    assert await _visible(store, alice) == {alice}


async def test_a_dry_run_that_is_not_a_flag_is_refused(
    make_store: StoreFactory, snapshot: Snapshot
) -> None:
    store = make_store()
    alice = await remember(store, "Alice fact")
    before = snapshot()
    with pytest.raises(RequestError) as refused:
        await store.forget({"agent_id": "a", "ids": [alice], "dry_run": "yes"})
    assert [(d["path"], d["rule"]) for d in refused.value.details] == [("/dry_run", "type")]
    assert snapshot() == before


async def test_all_of_a_user_forgets_exactly_that_users_records(make_store: StoreFactory) -> None:
    store = make_store()
    alices = [await remember(store, f"Alice note {n}", user_id="alice") for n in range(3)]
    bobs = await remember(store, "Bob note", user_id="bob")
    nobody = await remember(store, "a note about no one")
    theirs = await remember(store, "another agent's Alice note", agent_id="b", user_id="alice")
    staged = await remember(store, "Alice staged note", user_id="alice", approval_required=True)
    preview = await store.forget(
        {"agent_id": "a", "user_id": "alice", "all": True, "dry_run": True}
    )
    done = await store.forget({"agent_id": "a", "user_id": "alice", "all": True})
    assert sorted(done.forgotten_ids) == sorted(preview.forgotten_ids) == sorted(alices)
    assert await _visible(store, *alices, bobs, nobody) == {bobs, nobody}
    assert (await store.get({"agent_id": "b", "ids": [theirs]})).missing == []
    queue = await store.reviews({"agent_id": "a"})
    assert [r.review_id for r in queue.reviews] == [staged]  # left to its reviewer
    erased = await store.forget(
        {"agent_id": "a", "user_id": "alice", "all": True, "hard_delete": True}
    )
    assert staged in erased.forgotten_ids  # an erasure reaches staged writes too
    assert (await store.reviews({"agent_id": "a"})).reviews == []


async def test_all_of_an_agent_forgets_every_record_it_holds(make_store: StoreFactory) -> None:
    store = make_store()
    mine = [await remember(store, f"note {n}", user_id=u) for n, u in enumerate(["x", "y"])]
    mine.append(await remember(store, "a note about no one"))
    theirs = await remember(store, "another agent's note", agent_id="b")
    done = await store.forget({"agent_id": "a", "all": True})
    assert sorted(done.forgotten_ids) == sorted(mine)
    assert (await store.get({"agent_id": "b", "ids": [theirs]})).missing == []


async def test_a_staged_forget_of_a_scope_names_the_records_it_reaches(
    make_store: StoreFactory,
) -> None:
    policy = StagingRules.of({"rules": [{"name": "erasures", "operations": ["forget"]}]})
    store = make_store(policy=policy)
    alices = [await remember(store, f"Alice fact {n}", user_id="alice") for n in range(2)]
    staged = await store.forget(
        {"agent_id": "a", "user_id": "alice", "all": True, "hard_delete": True, "reason": "gdpr"}
    )
    assert staged.pending_approval is True
    [review] = (await store.reviews({"agent_id": "a"})).reviews
    request = review.request
    assert sorted(request.pop("ids")) == sorted(alices)  # what the reviewer approves
    assert request == {"agent_id": "a", "user_id": "alice", "hard_delete": True, "reason": "gdpr"}
    later = await remember(store, "Alice fact written after", user_id="alice")
    await store.decide(
        {"agent_id": "a", "review_id": review.review_id, "approved": True, "reviewer": "dpo"}
    )
    assert await _visible(store, *alices, later) == {later}  # not what the reviewer never saw
    empty = await store.forget({"agent_id": "a", "user_id": "nobody", "all": True})
    assert (empty.forgotten_ids, empty.pending_approval) == ([], False)  # nothing to review


@pytest.mark.parametrize(
    ("request_", "path", "rule"),
    [
        ({"agent_id": "a", "all": True, "ids": ["m-1"]}, "/ids", "maxItems"),
        ({"agent_id": "a", "all": True, "filter": {"k": 1}}, "/filter", "maxProperties"),
        ({"agent_id": "a", "user_id": "alice", "all": False}, "/all", "const"),
        ({"agent_id": "a", "user_id": "alice"}, "", "anyOf"),
    ],
)
async def test_a_scope_that_is_not_named_on_purpose_is_refused(
    make_store: StoreFactory,
    snapshot: Snapshot,
    request_: dict[str, Any],
    path: str,
    rule: str,
) -> None:
    store = make_store()
    await remember(store, "Alice fact", user_id="alice")
    before = snapshot()
    with pytest.raises(RequestError) as refused:
        await store.forget(request_)
    assert (path, rule) in [(d["path"], d["rule"]) for d in refused.value.details]
    assert snapshot() == before
