"""What a store offers beyond the five operations, through the router: the optional protocols
(the review queue, restore), reached by the capability that promises them, and the spec
version the router can speak for all its children."""

from __future__ import annotations

from typing import Any

import pytest

from mnemowire.adapters.pgvector import PgVectorStore
from mnemowire.adapters.sqlite_vec import CAPABILITIES, SqliteVecStore
from mnemowire.errors import MnemowireError
from mnemowire.layers.router import ROUTES
from mnemowire.models import (
    Capabilities,
    DecideRequest,
    DecideResponse,
    ForgetRequest,
    ForgetResponse,
    v0,
)
from mnemowire.protocol import (
    GraphStore,
    RememberBatchStore,
    RestoreStore,
    ReviewStore,
    VectorBatchStore,
)
from tests.runtime.conftest import RouterFactory, StoreFactory

AGENT = "agent-1"


class NoQueue(SqliteVecStore):
    """Keeps decide() but does not declare the review queue: the router must not reach it."""

    def capabilities(self) -> Capabilities:
        declared = super().capabilities()
        kept = [c for c in declared.capabilities if c not in ("reviews", "decide")]
        return declared.model_copy(update={"capabilities": kept})


class LyingReviewer(SqliteVecStore):
    """Decides what it was asked, then answers about another review (``lie``: the field and
    the value it changes)."""

    lie: tuple[str, Any] = ("review_id", "someone-else")

    async def decide(self, request: DecideRequest) -> DecideResponse:
        answer = await super().decide(request)
        return answer.model_copy(update=dict([self.lie]))


class OlderStore(SqliteVecStore):
    """A store that speaks an older spec version than its neighbour."""

    def capabilities(self) -> Capabilities:
        declared = [c.value for c in v0.Capability if c in CAPABILITIES]
        return Capabilities(store=self.name, spec_version="v0", capabilities=declared)


def test_the_stores_offer_the_optional_protocols_they_declare() -> None:
    for store in (SqliteVecStore, PgVectorStore):
        assert issubclass(store, ReviewStore)  # declares reviews and decide
        assert issubclass(store, RememberBatchStore)
        assert issubclass(store, RestoreStore)  # declares archive
        assert not issubclass(store, GraphStore)  # declares no graph


async def test_precomputed_vectors_go_only_to_a_store_with_an_embedder(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    store = make_store("a")
    assert isinstance(store.inner, VectorBatchStore)
    assert not isinstance(make_router([store]).inner, VectorBatchStore)


async def staged(router: Any, content: str = "the launch is on friday") -> str:
    response = await router.remember(
        {"agent_id": AGENT, "type": "semantic", "content": content, "approval_required": True}
    )
    assert response.pending_approval is True
    return str(response.id)


async def recalled(router: Any, query: str) -> list[str]:
    return [h.id for h in (await router.recall({"agent_id": AGENT, "query": query})).results]


async def test_an_archived_record_is_restored_through_the_router(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router([make_store("a"), make_store("b")])
    stored = await router.remember(
        {"agent_id": AGENT, "type": "semantic", "content": "old tea", "confidence": 0.2}
    )
    archived = await router.expire(
        {"agent_id": AGENT, "policy": {"confidence_below": 0.5}, "action": "archive"}
    )
    assert archived.matched_ids == [stored.id]
    assert await recalled(router, "old tea") == []
    restored = await router.restore({"agent_id": AGENT, "ids": [stored.id]})
    assert restored.restored == [stored.id]
    assert await recalled(router, "old tea") == [stored.id]


def decision(review_id: str) -> dict[str, Any]:
    return {"agent_id": AGENT, "review_id": review_id, "approved": True, "reviewer": "r"}


async def test_a_child_that_does_not_declare_the_review_queue_is_not_asked(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    declared = make_store("declared")
    undeclared = make_store("undeclared", cls=NoQueue)
    router = make_router([declared, undeclared])
    record = await staged(router)  # both stage it: staging needs governance alone
    decided = await router.decide(decision(record))
    assert [r.store for r in decided.stores or []] == ["declared"]
    assert [
        h.id for h in (await declared.recall({"agent_id": AGENT, "query": "launch"})).results
    ] == [record]
    assert (await undeclared.recall({"agent_id": AGENT, "query": "launch"})).results == []
    alone = make_router([make_store("alone", cls=NoQueue)])
    with pytest.raises(MnemowireError) as refused:
        await alone.decide(decision(await staged(alone)))
    assert refused.value.code == "unsupported"
    assert "decide" in str(refused.value)


@pytest.mark.parametrize(
    "lie", [("review_id", "someone-else"), ("outcome", "rejected")], ids=["review", "verdict"]
)
async def test_a_reviewer_answering_about_another_decision_is_not_believed(
    make_store: StoreFactory, make_router: RouterFactory, lie: tuple[str, Any]
) -> None:
    honest, liar = make_store("honest"), make_store("liar", cls=LyingReviewer)
    liar.inner.lie = lie
    router = make_router([honest, liar])
    record = await staged(router)
    decided = await router.decide(decision(record))  # the honest child's answer
    assert (decided.review_id, decided.outcome) == (record, "approved")
    assert {r.store: r.status for r in decided.stores or []} == {
        "honest": "ok",
        "liar": "invalid_response",
    }
    alone = make_store("lonely", cls=LyingReviewer)
    alone.lie = lie
    lonely = make_router([alone])
    record = await staged(lonely)
    with pytest.raises(MnemowireError) as failed:
        await lonely.decide(decision(record))
    [child] = failed.value.envelope["stores"]
    assert child["status"] == "invalid_response"
    assert str(lie[1]) in child["error"]


async def test_a_router_speaks_the_oldest_spec_version_of_its_children(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    newer = make_store("newer")
    assert make_router([newer]).capabilities().spec_version == ROUTES.spec_version
    older = make_store("older", cls=OlderStore)
    assert make_router([newer, older]).capabilities().spec_version == "v0"


class Meddling(SqliteVecStore):
    """Rewrites the request it was handed before it acts (a careless adapter)."""

    async def forget(self, request: ForgetRequest) -> ForgetResponse:
        request.ids = ["not-there"]
        return await super().forget(request)


async def test_a_child_altering_its_request_alters_no_other_childs(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    meddler, honest = make_store("meddler", cls=Meddling), make_store("honest")
    router = make_router([meddler, honest])
    stored = await router.remember({"agent_id": AGENT, "type": "semantic", "content": "tea"})
    await router.forget({"agent_id": AGENT, "ids": [stored.id]})
    assert (await honest.recall({"agent_id": AGENT, "query": "tea"})).results == []
    assert [h.id for h in (await meddler.recall({"agent_id": AGENT, "query": "tea"})).results] == [
        stored.id
    ]
