"""What a store offers beyond the five operations, through the router: the optional protocols
(governance review, restore), reached by the capability that promises them, and the spec
version the router can speak for all its children."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from mnemowire.adapters.pgvector import PgVectorStore
from mnemowire.adapters.sqlite_vec import CAPABILITIES, SqliteVecStore
from mnemowire.errors import MnemowireError
from mnemowire.layers.router import ROUTES
from mnemowire.models import Capabilities, ForgetRequest, ForgetResponse, v0
from mnemowire.protocol import ApprovingStore, BulkStore, GraphStore, RestoreStore
from tests.runtime.conftest import RouterFactory, StoreFactory

AGENT = "agent-1"


class NoGovernance(SqliteVecStore):
    """Keeps approve() but does not declare governance: the router must not reach it."""

    def capabilities(self) -> Capabilities:
        kept = [c for c in CAPABILITIES if c != "governance"]
        return Capabilities(store=self.name, spec_version="v0", capabilities=kept)


class LyingReviewer(SqliteVecStore):
    """Says it approved an id nobody asked about."""

    async def approve(self, agent_id: str, ids: Sequence[str]) -> list[str]:
        await super().approve(agent_id, ids)
        return [*ids, "someone-else"]


class OlderStore(SqliteVecStore):
    """A store that speaks an older spec version than its neighbour."""

    def capabilities(self) -> Capabilities:
        declared = [c.value for c in v0.Capability if c in CAPABILITIES]
        return Capabilities(store=self.name, spec_version="v0", capabilities=declared)


def test_the_stores_offer_the_optional_protocols_they_declare() -> None:
    for store in (SqliteVecStore, PgVectorStore):
        assert issubclass(store, BulkStore)
        assert issubclass(store, ApprovingStore)  # declares governance
        assert issubclass(store, RestoreStore)  # declares archive
        assert not issubclass(store, GraphStore)  # declares no graph


async def staged(router: Any, content: str = "the launch is on friday") -> str:
    response = await router.remember(
        {"agent_id": AGENT, "type": "semantic", "content": content, "approval_required": True}
    )
    assert response.pending_approval is True
    return str(response.id)


async def recalled(router: Any, query: str) -> list[str]:
    return [h.id for h in (await router.recall({"agent_id": AGENT, "query": query})).results]


async def test_a_staged_write_is_approved_through_the_router_on_every_copy(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b")
    router = make_router([a, b])
    record = await staged(router)
    assert await recalled(router, "launch friday") == []
    assert await router.approve(AGENT, [record, record, "never-staged"]) == [record]
    for child in (a, b):  # both copies are visible now, not only the router's view
        found = await child.recall({"agent_id": AGENT, "query": "launch friday"})
        assert [h.id for h in found.results] == [record]
    assert await router.approve(AGENT, [record]) == []  # approved once


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


async def test_a_child_that_does_not_declare_governance_is_not_asked(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    declared = make_store("declared")
    undeclared = make_store("undeclared", cls=NoGovernance)
    router = make_router([declared, undeclared])
    record = await staged(router)  # only the declaring child can stage it
    assert await router.approve(AGENT, [record]) == [record]
    alone = make_router([make_store("alone", cls=NoGovernance)])
    with pytest.raises(MnemowireError) as refused:
        await alone.approve(AGENT, [record])
    assert refused.value.code == "unsupported"
    assert "governance" in str(refused.value)


async def test_a_reviewer_naming_ids_it_was_not_asked_about_is_not_believed(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    honest, liar = make_store("honest"), make_store("liar", cls=LyingReviewer)
    router = make_router([honest, liar])
    record = await staged(router)
    assert await router.approve(AGENT, [record]) == [record]  # the honest child's answer
    lonely = make_router([make_store("lonely", cls=LyingReviewer)])
    record = await staged(lonely)
    with pytest.raises(MnemowireError) as failed:
        await lonely.approve(AGENT, [record])
    [child] = failed.value.envelope["stores"]
    assert child["status"] == "invalid_response"
    assert "someone-else" in child["error"]


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
