"""The review queue's behaviour every store in this repository shares (spec v0.2), beyond what
the conformance checks see from outside: decisions audited and chained, two stores on one
database racing on one review, a failed approval left pending, erasure of what the queue kept,
and a staging policy. Run against each adapter like tests/adapters/_semantics.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mnemowire.errors import (
    ConfigError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    RequestError,
)
from mnemowire.kit.audit import verify
from mnemowire.kit.staging import StagingRules
from mnemowire.protocol import AuditedStore
from tests.adapters._semantics import StoreFactory, recalled, remember
from tests.adapters._support import CheckedStore


async def staged(store: Any, content: str, **fields: Any) -> str:
    return await remember(store, content, approval_required=True, **fields)


async def chain_holds(store: Any) -> bool:
    """The audit chain verifies, where the store lets a test read it (not over HTTP: the
    served store's own tests read it there)."""
    if not isinstance(store.inner, AuditedStore):
        return True
    verdict = verify(await store.inner.audit_entries())
    assert verdict.ok, verdict.problem
    return True


async def test_every_decision_is_audited_and_chained(
    make_store: StoreFactory, audit: Callable[[], list[dict[str, Any]]]
) -> None:
    store = make_store()
    kept = await remember(store, "x")
    approved = await staged(store, "approve me")
    rejected = await staged(store, "reject me")
    forget = await store.forget({"agent_id": "a", "ids": [kept], "approval_required": True})
    for review_id, verdict in ((approved, True), (rejected, False), (forget.review_id, True)):
        await store.decide(
            {
                "agent_id": "a",
                "review_id": review_id,
                "approved": verdict,
                "reviewer": "dana",
                "reason": f"because {review_id}",
            }
        )
    assert await chain_holds(store)
    decisions = [e for e in audit() if e["operation"] == "decide"]
    assert [(d["detail"]["review_id"], d["detail"]["outcome"]) for d in decisions] == [
        (approved, "approved"),
        (rejected, "rejected"),
        (forget.review_id, "approved"),
    ]
    assert {d["detail"]["reviewer"] for d in decisions} == {"dana"}
    assert decisions[2]["ids"] == [kept]
    staged_entries = [e for e in audit() if e["detail"].get("pending")]
    assert len(staged_entries) == 3  # each staged write audited when staged, too


async def test_two_stores_on_one_database_decide_one_review_exactly_once(
    make_store: StoreFactory, audit: Callable[[], list[dict[str, Any]]]
) -> None:
    """Two processes' stores (two connections to one file or schema) race: one decision
    lands, the other is a conflict, and the audit log holds one decision."""
    first, second = make_store(), make_store()
    review_id = await staged(first, "contested")
    body = {"agent_id": "a", "review_id": review_id, "reviewer": "r"}
    for _ in range(2):  # both orders of arrival
        outcomes = await asyncio.gather(
            first.decide({**body, "approved": True}),
            second.decide({**body, "approved": False}),
            return_exceptions=True,
        )
        assert sorted(type(o).__name__ for o in outcomes) == ["ConflictError", "DecideResponse"]
        review_id = await staged(first, "contested again")
        body["review_id"] = review_id
    assert [e["operation"] for e in audit()].count("decide") == 2
    assert await chain_holds(first)


async def test_a_failed_approval_leaves_the_review_pending(make_store: StoreFactory) -> None:
    """merge_into naming no active record: not_found, and nothing changed."""
    store = make_store()
    review_id = await staged(store, "merge me somewhere")
    body = {"agent_id": "a", "review_id": review_id, "reviewer": "r", "approved": True}
    with pytest.raises(NotFoundError):
        await store.decide({**body, "merge_into": "no-such-record"})
    queue = await store.reviews({"agent_id": "a"})
    assert [r.review_id for r in queue.reviews] == [review_id]
    assert (await store.decide(body)).outcome == "approved"
    with pytest.raises(ConflictError):
        await store.decide(body)


async def test_merge_into_is_for_a_staged_remember_only(make_store: StoreFactory) -> None:
    store = make_store()
    kept = await remember(store, "k")
    forget = await store.forget({"agent_id": "a", "ids": [kept], "approval_required": True})
    body = {"agent_id": "a", "review_id": forget.review_id, "reviewer": "r", "approved": True}
    with pytest.raises(RequestError) as refused:
        await store.decide({**body, "merge_into": kept})
    assert refused.value.details[0]["path"] == "/merge_into"
    assert (await store.reviews({"agent_id": "a"})).reviews  # still pending


async def test_a_review_id_names_one_staged_write_whoever_staged_it(
    make_store: StoreFactory,
) -> None:
    """A staged forget or merge under a review id already taken, by this agent or another,
    is a conflict and leaves nothing of itself: not queued, nothing hidden."""
    store = make_store()
    first, second = await remember(store, "one"), await remember(store, "two")
    theirs = await remember(store, "theirs", agent_id="b")
    taken = await store.forget(
        {"agent_id": "b", "ids": [theirs], "approval_required": True, "review_id": "rv-1"}
    )
    assert taken.review_id == "rv-1"
    for body in (
        {"agent_id": "a", "ids": [first], "approval_required": True, "review_id": "rv-1"},
        {"agent_id": "b", "ids": [theirs], "approval_required": True, "review_id": "rv-1"},
    ):
        with pytest.raises(ConflictError):
            await store.forget(body)
    merge = {"agent_id": "a", "canonical": first, "duplicates": [second], "review_id": "rv-1"}
    with pytest.raises(ConflictError):
        await store.merge({**merge, "approval_required": True})
    assert (await store.reviews({"agent_id": "a"})).reviews == []
    assert [r.review_id for r in (await store.reviews({"agent_id": "b"})).reviews] == ["rv-1"]
    got = await store.get({"agent_id": "a", "ids": [first, second]})
    assert sorted(r.id for r in got.records) == sorted([first, second])
    assert all(r.state == "active" for r in got.records)


async def test_a_rejected_remember_is_erased_unless_kept(
    make_store: StoreFactory, holds: Callable[[str], bool]
) -> None:
    store = make_store()
    erased = await staged(store, "the vault code is zq-erased-7781")
    kept = await staged(store, "the vault code is zq-kept-5523")
    body = {"agent_id": "a", "reviewer": "r", "approved": False}
    await store.decide({**body, "review_id": erased})
    await store.decide({**body, "review_id": kept, "hard": False})
    got = await store.get({"agent_id": "a", "ids": [erased, kept]})
    assert got.missing == [erased, kept]
    assert not holds("zq-erased-7781")
    assert holds("zq-kept-5523")


async def test_a_hard_forget_of_a_staged_remember_erases_its_review_copy(
    make_store: StoreFactory, holds: Callable[[str], bool]
) -> None:
    store = make_store()
    review_id = await staged(store, "the locker holds zq-forgot-9154")
    await store.forget({"agent_id": "a", "ids": [review_id], "hard_delete": True})
    assert (await store.reviews({"agent_id": "a"})).reviews == []
    assert not holds("zq-forgot-9154")


async def test_an_erasure_reaches_every_review_copy_whatever_its_review_became(
    make_store: StoreFactory, holds: Callable[[str], bool]
) -> None:
    """A hard forget erases the words the queue kept of a staged remember whether its review
    is still pending or was approved, approved as a merge into another record, or rejected
    softly ([forget.soft])."""
    store = make_store()
    body = {"agent_id": "a", "reviewer": "r"}
    canonical = await remember(store, "the canonical zq-canonical-3301")
    approved = await staged(store, "approved zq-approved-5510")
    merged = await staged(store, "merged zq-merged-6620")
    soft = await staged(store, "softly rejected zq-soft-7730")
    await store.decide({**body, "review_id": approved, "approved": True})
    await store.decide({**body, "review_id": merged, "approved": True, "merge_into": canonical})
    await store.decide({**body, "review_id": soft, "approved": False, "hard": False})
    words = ["zq-canonical-3301", "zq-approved-5510", "zq-merged-6620", "zq-soft-7730"]
    assert all(holds(word) for word in words)
    erased = [canonical, approved, soft]  # the merged one is erased with its canonical
    await store.forget({"agent_id": "a", "ids": erased, "hard_delete": True})
    assert [word for word in words if holds(word)] == []
    assert await chain_holds(store)


async def test_a_decision_applies_the_version_reviewed_or_none(
    make_store: StoreFactory, holds: Callable[[str], bool]
) -> None:
    """An agent that changes its staged record between a reviewer's listing and the click on
    Approve gets a conflict, not an approval of text nobody saw ([review.decide]); the
    version shown is what a decision names. Erased later, neither text is left."""
    store = make_store()
    body = {"agent_id": "a", "reviewer": "r", "approved": True}
    review_id = await staged(store, "as first staged zq-original-8840")
    [shown] = (await store.reviews({"agent_id": "a"})).reviews
    assert shown.diff.added[0].version == 1
    await store.update(
        {"agent_id": "a", "id": review_id, "expected_version": 1, "content": "zq-swapped-8841"}
    )
    for stale in ({"expected_version": 1}, {}):  # the version shown, or none (version 1)
        with pytest.raises(ConflictError, match="--expected-version 2") as refused:
            await store.decide({**body, "review_id": review_id, **stale})
        assert refused.value.details[0]["path"] == "/expected_version"
    [again] = (await store.reviews({"agent_id": "a"})).reviews  # still pending, unchanged
    assert (again.diff.added[0].version, again.diff.added[0].content) == (2, "zq-swapped-8841")
    assert await recalled(store, "swapped") == []
    done = await store.decide({**body, "review_id": review_id, "expected_version": 2})
    assert done.outcome == "approved"
    assert await recalled(store, "zq-swapped-8841") == [review_id]
    kept = await remember(store, "kept")
    forget = await store.forget({"agent_id": "a", "ids": [kept], "approval_required": True})
    with pytest.raises(ConflictError):  # a staged forget or merge is at version 1 for good
        await store.decide({**body, "review_id": forget.review_id, "expected_version": 2})
    await store.decide({**body, "review_id": forget.review_id, "expected_version": 1})
    assert (await store.get({"agent_id": "a", "ids": [kept]})).missing == [kept]
    await store.forget({"agent_id": "a", "ids": [review_id], "hard_delete": True})
    assert not holds("zq-original-8840")  # the queue's copy of what was first staged
    assert not holds("zq-swapped-8841")
    assert await chain_holds(store)


async def test_a_staging_policy_stages_what_it_matches_and_says_which_rule(
    make_store: StoreFactory,
) -> None:
    policy = StagingRules.of(
        {
            "rules": [
                {"name": "health", "operations": ["remember"], "filter": {"topic": "health"}},
                {"name": "erasures", "operations": ["forget"]},
            ]
        }
    )
    store = make_store(policy=policy)
    declared = store.capabilities()
    assert "staging_policy" in declared.capabilities
    assert declared.staging_policy.model_dump(exclude_none=True) == policy.document
    health = await remember(store, "Alice takes insulin", metadata={"topic": "health"})
    plain = await remember(store, "Alice likes tea")
    assert await recalled(store, "Alice") == [plain]
    forget = await store.forget({"agent_id": "a", "ids": [plain]})
    assert forget.pending_approval is True
    assert await recalled(store, "Alice") == [plain]
    queue = (await store.reviews({"agent_id": "a"})).reviews
    assert [(r.review_id, r.staged_by) for r in queue] == [
        (health, "policy:health"),
        (forget.review_id, "policy:erasures"),
    ]
    assert "approval_required" not in queue[0].request  # the request as the agent sent it
    asked = await store.forget({"agent_id": "a", "ids": [plain], "approval_required": True})
    [mine] = (await store.reviews({"agent_id": "a", "ids": [asked.review_id]})).reviews
    assert mine.staged_by == "caller"


async def test_an_update_cannot_carry_a_write_past_the_staging_policy(
    make_store: StoreFactory,
) -> None:
    """Written as something no rule matches, then updated into what a rule stages: refused
    (``forbidden``), nothing changed; an update of a record a rule matches is refused too,
    and a staged record's update waits with it for its review ([review.policy])."""
    policy = StagingRules.of(
        {"rules": [{"name": "health", "operations": ["remember"], "filter": {"topic": "health"}}]}
    )
    store = make_store(policy=policy)
    plain = await remember(store, "Alice likes tea", metadata={"topic": "food"})
    sneaky = {"agent_id": "a", "id": plain, "expected_version": 1}
    into_health: list[dict[str, Any]] = [
        {"metadata": {"topic": "health"}},
        {"metadata": {"topic": "health"}, "content": "Alice takes insulin", "confidence": 0.2},
    ]
    for change in into_health:
        with pytest.raises(ForbiddenError, match="rule 'health'") as refused:
            await store.update({**sneaky, **change})
        assert refused.value.details[0]["rule"] == "policy"
    [kept] = (await store.get({"agent_id": "a", "ids": [plain]})).records
    assert (kept.version, kept.metadata) == (1, {"topic": "food"})
    done = await store.update({**sneaky, "content": "Alice likes green tea"})
    assert done.version == 2  # what no rule matches still updates
    staged_id = await remember(store, "Alice takes insulin", metadata={"topic": "health"})
    moved = await store.update(
        {"agent_id": "a", "id": staged_id, "expected_version": 1, "content": "insulin, 2x"}
    )
    assert moved.version == 2  # pending: its review shows it
    body = {"agent_id": "a", "review_id": staged_id, "reviewer": "r", "approved": True}
    await store.decide({**body, "expected_version": 2})
    with pytest.raises(ForbiddenError):  # approved, it is a record the rule matches
        await store.update(
            {"agent_id": "a", "id": staged_id, "expected_version": 2, "content": "none"}
        )
    [approved] = (await store.get({"agent_id": "a", "ids": [staged_id]})).records
    assert (approved.version, approved.content, approved.state) == (2, "insulin, 2x", "active")


async def a_policy_file_on_the_url_stages_writes(
    open_url: Callable[[Path], Any], tmp_path: Path
) -> None:
    """A store opened from a URL with ``policy=FILE`` (``open_url(FILE)``) declares the policy
    and stages what it matches; a policy that is not valid is refused, naming the field,
    before the store opens. For each adapter's own tests (its URL parsing is its own)."""
    policy = {"rules": [{"name": "codes", "content_pattern": "door code"}]}
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    store = CheckedStore(open_url(tmp_path / "policy.json"))
    try:
        assert store.capabilities().staging_policy.model_dump(exclude_none=True) == policy
        plain = await remember(store, "Dana likes tea")
        staged = await store.remember(
            {"agent_id": "a", "type": "semantic", "content": "Dana's door code is 4417"}
        )
        assert staged.pending_approval is True
        [review] = (await store.reviews({"agent_id": "a"})).reviews
        assert (review.review_id, review.staged_by) == (staged.id, "policy:codes")
        assert await recalled(store, "Dana") == [plain]
    finally:
        await store.aclose()
    (tmp_path / "bad.json").write_text(json.dumps({"rules": [{"name": "x", "colour": "red"}]}))
    with pytest.raises(ConfigError, match="/rules/0/colour"):
        open_url(tmp_path / "bad.json")
