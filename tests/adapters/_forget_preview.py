"""Spec v0.4's forget dry run, tested once and run against every store that speaks v0.4
(sqlite-vec, pgvector): it lists what the same forget would reach and changes nothing at all
(no record, review or audit entry), and it says whether the forget would wait for a reviewer.
tests/adapters/<adapter>/test_forget_preview.py imports these."""

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
