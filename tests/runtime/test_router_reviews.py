"""The review queue through the router (docs/spec/v0.2.md#review.router): one review id on
every child, one listing, one decision reaching every copy; a child that ended the review
already, or never held it, and a child that ignores staging."""

from __future__ import annotations

from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.errors import (
    ConfigError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    StoreError,
)
from mnemowire.kit.staging import StagingRules
from mnemowire.models import (
    Capabilities,
    DecideRequest,
    DecideResponse,
    ForgetRequest,
    ForgetResponse,
)
from tests.runtime.conftest import RouterFactory, StoreFactory

AGENT = "agent-1"


class IgnoresStaging(SqliteVecStore):
    """Forgets at once, whatever the request says."""

    async def forget(self, request: ForgetRequest) -> ForgetResponse:
        applied = request.model_copy(update={"approval_required": False, "review_id": None})
        return await super().forget(applied)


async def _remember(store: Any, content: str, **fields: Any) -> str:
    body = {"agent_id": AGENT, "type": "semantic", "content": content, **fields}
    return str((await store.remember(body)).id)


async def test_a_staged_forget_waits_on_every_child_under_one_review_id(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b")
    router = make_router([a, b])
    kept = await _remember(router, "the boat is moored at pier 9")
    staged = await router.forget({"agent_id": AGENT, "ids": [kept], "approval_required": True})
    assert staged.pending_approval is True
    for child in (a, b):
        [review] = (await child.reviews({"agent_id": AGENT})).reviews
        assert review.review_id == staged.review_id
    listed = await router.reviews({"agent_id": AGENT})
    assert [r.review_id for r in listed.reviews] == [staged.review_id]  # once, not per child
    decided = await router.decide(
        {"agent_id": AGENT, "review_id": staged.review_id, "approved": True, "reviewer": "r"}
    )
    assert decided.changed_ids == [kept]
    for child in (a, b):
        found = await child.recall({"agent_id": AGENT, "query": "boat pier"})
        assert found.results == []
    with pytest.raises(ConflictError):
        await router.decide(
            {"agent_id": AGENT, "review_id": staged.review_id, "approved": True, "reviewer": "r"}
        )


async def test_the_router_pages_the_union_of_its_childrens_queues(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    """Reviews staged on one child directly, and through the router on both, interleave."""
    a, b = make_store("a"), make_store("b")
    router = make_router([a, b])
    ids = [await _remember(router, f"shared note {i}", approval_required=True) for i in range(3)]
    ids += [await _remember(a, f"only a {i}", approval_required=True) for i in range(2)]
    ids += [await _remember(b, f"only b {i}", approval_required=True) for i in range(2)]
    listed: list[str] = []
    body: dict[str, Any] = {"agent_id": AGENT, "limit": 2, "related": 0}
    while True:
        page = await router.reviews(body)
        listed += [r.review_id for r in page.reviews]
        if page.next_cursor is None:
            break
        body["cursor"] = page.next_cursor
    assert listed == sorted(ids)


async def test_a_decision_no_child_holds_is_not_found(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router([make_store("a"), make_store("b")])
    with pytest.raises(NotFoundError):
        await router.decide(
            {"agent_id": AGENT, "review_id": "never-staged", "approved": True, "reviewer": "r"}
        )


async def test_a_child_that_applied_a_staged_forget_is_not_believed(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    honest, liar = make_store("honest"), make_store("liar", cls=IgnoresStaging)
    router = make_router([honest, liar])
    kept = await _remember(router, "the key is under the mat")
    answer = await router.forget({"agent_id": AGENT, "ids": [kept], "approval_required": True})
    [result] = [r for r in answer.stores if r.store == "liar"]
    assert result.status == "invalid_response"
    assert "stage" in (result.error or "")


POLICY = StagingRules.of(
    {"rules": [{"name": "health", "filter": {"topic": "health"}}, {"name": "erasures",
                                                                  "operations": ["forget"]}]}
)  # fmt: skip


async def test_the_routers_policy_stages_on_every_child_and_names_its_rule(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b")
    router = make_router([a, b], policy=POLICY)
    declared = router.capabilities()
    assert "staging_policy" in declared.capabilities
    assert declared.staging_policy.model_dump(exclude_none=True) == POLICY.document
    staged = await _remember(router, "Ann takes insulin", metadata={"topic": "health"})
    plain = await _remember(router, "Ann likes tea")
    forget = await router.forget({"agent_id": AGENT, "ids": [plain]})
    assert forget.pending_approval is True
    for child in (a, b):
        listed = (await child.reviews({"agent_id": AGENT})).reviews
        assert [r.review_id for r in listed] == sorted([staged, forget.review_id])
    queue = (await router.reviews({"agent_id": AGENT})).reviews
    assert {r.review_id: r.staged_by for r in queue} == {
        staged: "policy:health",
        forget.review_id: "policy:erasures",
    }


async def test_a_policy_needs_the_queue_everywhere_and_no_child_of_its_own(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    with pytest.raises(ConfigError, match="own"):
        make_router([make_store("a", policy=POLICY), make_store("b")])
    with pytest.raises(ConfigError, match="review queue"):
        make_router([make_store("a"), make_store("b", cls=NoQueue)], policy=POLICY)


class NoQueue(SqliteVecStore):
    """Stages remembers, serves no review queue."""

    def capabilities(self) -> Capabilities:
        declared = super().capabilities()
        kept = [c for c in declared.capabilities if c not in ("reviews", "decide")]
        return declared.model_copy(update={"capabilities": kept})


class FailsDecisions(SqliteVecStore):
    """Fails every decision while ``failing`` is set, changing nothing: a child that is down."""

    failing = True

    async def decide(self, request: DecideRequest) -> DecideResponse:
        if self.failing:
            raise StoreError("the disk is full")
        return await super().decide(request)


async def _state(child: Any, review_id: str) -> str:
    """pending, or the state the child's record is in now (active once approved)."""
    if [r.review_id for r in (await child.reviews({"agent_id": AGENT})).reviews] == [review_id]:
        return "pending"
    got = await child.get({"agent_id": AGENT, "ids": [review_id], "states": ["active", "pending"]})
    return "active" if got.records else "gone"


async def test_a_decision_a_child_failed_is_never_overturned_there(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    """[review.once] across children: the first child holding the review decides and the
    others follow; a follower that failed keeps its copy pending, an opposite decision lands
    nowhere (the first says conflict), and the same decision sent again completes it."""
    first, lagging = make_store("first"), make_store("lagging", cls=FailsDecisions)
    router = make_router([first, lagging])
    review_id = await _remember(router, "the gate code is 1234", approval_required=True)
    body = {"agent_id": AGENT, "review_id": review_id, "reviewer": "r"}
    approved = await router.decide({**body, "approved": True})
    assert {r.store: r.status for r in approved.stores} == {"first": "ok", "lagging": "error"}
    assert (await _state(first, review_id), await _state(lagging, review_id)) == (
        "active",
        "pending",
    )
    lagging.failing = False
    with pytest.raises(ConflictError) as opposite:
        await router.decide({**body, "approved": False})
    assert opposite.value.envelope["decision"]["approved"] is True  # what had landed
    assert await _state(lagging, review_id) == "pending"  # not erased: no divergence
    with pytest.raises(ConflictError) as retried:
        await router.decide({**body, "approved": True, "reason": "again"})
    assert {s["store"]: s["status"] for s in retried.value.envelope["stores"]} == {
        "first": "error",
        "lagging": "ok",
    }
    assert await _state(lagging, review_id) == "active"  # the copies agree


async def test_a_decision_the_first_holder_fails_changes_no_copy(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    down, other = make_store("down", cls=FailsDecisions), make_store("other")
    router = make_router([down, other])
    review_id = await _remember(router, "the safe is behind the painting", approval_required=True)
    with pytest.raises(StoreError):
        await router.decide(
            {"agent_id": AGENT, "review_id": review_id, "reviewer": "r", "approved": True}
        )
    assert [await _state(c, review_id) for c in (down, other)] == ["pending", "pending"]
    down.failing = False
    only_other = await _remember(other, "staged on one child only", approval_required=True)
    decided = await router.decide(  # a child without the review is passed over
        {"agent_id": AGENT, "review_id": only_other, "reviewer": "r", "approved": True}
    )
    assert {r.store: (r.status, r.count) for r in decided.stores} == {
        "down": ("ok", 0),
        "other": ("ok", 1),
    }


async def test_the_routers_policy_refuses_an_update_into_what_it_stages(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    """[review.policy-update] through a router: its children hold no policy, so the router
    asks its own about the record it reads before any copy changes."""
    a, b = make_store("a"), make_store("b")
    router = make_router([a, b], policy=POLICY)
    plain = await _remember(router, "Ann likes tea", metadata={"topic": "food"})
    change = {"agent_id": AGENT, "id": plain, "expected_version": 1}
    with pytest.raises(ForbiddenError, match="rule 'health'"):
        await router.update({**change, "metadata": {"topic": "health"}})
    for child in (a, b):
        [copy] = (await child.get({"agent_id": AGENT, "ids": [plain]})).records
        assert (copy.version, copy.metadata) == (1, {"topic": "food"})
    assert (await router.update({**change, "content": "Ann likes green tea"})).version == 2
