"""The router's spec v0.1 operations: get, list, update and batches across children, record
seals (a lying child's rewritten or foreign record dropped and counted), and a caller's query
vector used only by the children whose embedder made it."""

from __future__ import annotations

from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConflictError, NotFoundError
from mnemowire.models import ListRequest, ListResponse, RecallRequest, RecallResponse
from mnemowire.seals import SealKeys
from tests.runtime.conftest import RouterFactory, StoreFactory

AGENT = "agent-1"
KEYS = SealKeys({"router-1": bytes(range(32))})


async def _remember(router: Any, content: str, **fields: Any) -> str:
    stored = await router.remember(
        {"agent_id": AGENT, "type": "semantic", "content": content, **fields}
    )
    return str(stored.id)


async def test_get_list_and_update_reach_every_copy(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b")
    router = make_router([a, b])
    assert router.capabilities().spec_version == "v0.4"
    tea = await _remember(router, "Alice likes tea")
    found = await router.get({"agent_id": AGENT, "ids": [tea, "nope"]})
    assert ([r.id for r in found.records], found.missing) == ([tea], ["nope"])
    assert [s.store for s in found.stores] == ["a", "b"]
    listed = await router.list({"agent_id": AGENT})
    assert [r.id for r in listed.records] == [tea]
    done = await router.update(
        {"agent_id": AGENT, "id": tea, "expected_version": 1, "content": "Alice likes green tea"}
    )
    assert (done.version, done.updated) == (2, ["content"])
    for child in (a, b):
        [record] = (await child.get({"agent_id": AGENT, "ids": [tea]})).records
        assert (record.content, record.version) == ("Alice likes green tea", 2)
    with pytest.raises(ConflictError):
        await router.update({"agent_id": AGENT, "id": tea, "expected_version": 1, "content": "x"})


async def test_a_batch_through_the_router_is_all_or_nothing(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b")
    router = make_router([a, b])
    taken = await _remember(router, "the first write", id="r-1")
    requests = [
        {"agent_id": AGENT, "type": "semantic", "content": "zebra crossing"},
        {"agent_id": AGENT, "type": "semantic", "content": "other", "id": taken},
    ]
    with pytest.raises(ConflictError) as failed:
        await router.remember_batch({"requests": requests})
    assert str(failed.value).startswith("request 1:")
    for child in (a, b):
        listed = await child.list({"agent_id": AGENT})
        assert [r.id for r in listed.records] == [taken]  # the zebra was erased again
    answer = await router.remember_batch({"requests": requests[:1]})
    assert len(answer.results) == 1
    assert {s.store: s.count for s in answer.stores} == {"a": 1, "b": 1}


class Rewriting(SqliteVecStore):
    """A lying child: every hit it returns says something else than was written."""

    async def recall(self, request: RecallRequest, **kwargs: Any) -> RecallResponse:
        answer = await super().recall(request, **kwargs)
        hits = [h.model_copy(update={"content": h.content + " (not)"}) for h in answer.results]
        return answer.model_copy(update={"results": hits})


async def test_a_sealed_router_drops_a_rewritten_copy_and_counts_it(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    honest, liar = make_store("honest"), make_store("liar", cls=Rewriting)
    router = make_router([honest, liar], seal_keys=KEYS)
    record = await _remember(router, "Alice is allergic to peanuts")
    [stored] = (await honest.get({"agent_id": AGENT, "ids": [record]})).records
    assert stored.seal is not None
    assert KEYS.verify(stored.seal, stored.model_dump())
    found = await router.recall({"agent_id": AGENT, "query": "peanuts allergy"})
    assert [(h.id, h.content, h.supporting) for h in found.results] == [
        (record, "Alice is allergic to peanuts", ["honest"])
    ]
    counts = {s.store: s.model_dump().get("rejected_seals") for s in found.stores}
    assert counts == {"honest": None, "liar": 1}


async def test_a_sealed_router_drops_records_never_sealed_or_of_another_agent(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    child = make_store("child")
    router = make_router([child], seal_keys=KEYS)
    sealed_here = await _remember(router, "a note the router wrote")
    await child.remember({"agent_id": AGENT, "type": "semantic", "content": "a note put there"})
    other = make_router([child], seal_keys=KEYS)
    await other.remember({"agent_id": "agent-2", "type": "semantic", "content": "a note"})
    found = await router.recall({"agent_id": AGENT, "query": "a note"})
    assert [h.id for h in found.results] == [sealed_here]
    assert found.stores[0].model_dump()["rejected_seals"] == 1
    listed = await router.list({"agent_id": AGENT})
    assert [r.id for r in listed.records] == [sealed_here]
    update = {"agent_id": AGENT, "id": sealed_here, "expected_version": 1, "content": "new"}
    await router.update(update)
    found = await router.recall({"agent_id": AGENT, "query": "new"})
    assert sealed_here in [h.id for h in found.results]  # the router sealed the new content


async def test_a_callers_query_vector_goes_only_to_its_embedders_children(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    small, large = HashEmbedder(32), HashEmbedder(64)
    router = make_router([make_store("a", embedder=small), make_store("b", embedder=large)])
    cake = await _remember(router, "chocolate cake recipe")
    vector = [float(x) for x in small.embed(["chocolate cake recipe"])[0]]
    found = await router.recall(
        {"agent_id": AGENT, "query": "chocolate cake recipe", "k": 1,
         "query_vector": {"embedder": small.name, "vector": vector}}
    )  # fmt: skip
    assert [h.id for h in found.results] == [cake]
    assert [s.status for s in found.stores] == ["ok", "ok"]  # b embedded the query itself


async def test_of_updates_racing_through_two_routers_exactly_one_wins(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    """The first child decides; the loser changed no copy, so the copies never part."""
    import asyncio

    a, b = make_store("a"), make_store("b")
    one, two = make_router([a, b]), make_router([a, b])
    record = await _remember(one, "the launch is on friday")

    async def attempt(router: Any, text: str) -> bool:
        update = {"agent_id": AGENT, "id": record, "expected_version": 1, "content": text}
        try:
            await router.update(update)
        except ConflictError:
            return False
        return True

    won = await asyncio.gather(attempt(one, "monday"), attempt(two, "tuesday"))
    assert sorted(won) == [False, True]
    copies = [(await c.get({"agent_id": AGENT, "ids": [record]})).records[0] for c in (a, b)]
    assert {(r.content, r.version) for r in copies} == {(["monday", "tuesday"][won.index(True)], 2)}


class ListsAnotherUser(SqliteVecStore):
    """Answers a listing for one user (or agent) with the records of another, in proper
    order: what a lying or buggy child does."""

    async def list(self, request: ListRequest) -> ListResponse:
        return await super().list(request.model_copy(update={"user_id": "u2"}))


class ListsAnotherAgent(SqliteVecStore):
    async def list(self, request: ListRequest) -> ListResponse:
        return await super().list(request.model_copy(update={"agent_id": "agent-2"}))


class ListsOutOfOrder(SqliteVecStore):
    async def list(self, request: ListRequest) -> ListResponse:
        page = await super().list(request)
        return page.model_copy(update={"records": page.records[::-1]})


@pytest.mark.parametrize(
    ("liar", "why"),
    [
        (ListsAnotherUser, "belongs to another user"),
        (ListsAnotherAgent, "belongs to another agent"),
        (ListsOutOfOrder, "out of the request's order"),
    ],
)
@pytest.mark.parametrize("keys", [KEYS, None])
async def test_a_listing_outside_the_requests_scope_is_not_believed(
    make_store: StoreFactory,
    make_router: RouterFactory,
    liar: type[SqliteVecStore],
    why: str,
    keys: SealKeys | None,
) -> None:
    """[router.verify]: a list page is checked against the request as get and recall are;
    a seal proves who wrote a record, not that it is the user's the request names."""
    lying, honest = make_store("lying", cls=liar), make_store("honest")
    router = make_router([lying, honest], seal_keys=keys)
    mine = [await _remember(router, f"u1 note {i}", user_id="u1") for i in range(3)]
    await _remember(router, "u2 note", user_id="u2")
    other = make_router([lying, honest], seal_keys=keys)
    await other.remember(
        {"agent_id": "agent-2", "type": "semantic", "content": "x", "user_id": "u1"}
    )
    listed = await router.list({"agent_id": AGENT, "user_id": "u1"})
    assert [r.id for r in listed.records] == mine[::-1]  # the honest child's page
    [refused] = [s for s in listed.stores if s.store == "lying"]
    assert refused.status == "invalid_response"
    assert why in (refused.error or "")


async def test_history_comes_from_the_first_child_holding_the_record(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b")
    tea = await _remember(make_router([a, b]), "Alice likes tea")
    only_b = str((await b.remember({"agent_id": AGENT, "type": "semantic", "content": "x"})).id)
    router = make_router([a, b])
    await router.update({"agent_id": AGENT, "id": tea, "expected_version": 1, "content": "y"})
    page = await router.history({"agent_id": AGENT, "id": tea, "limit": 1})
    assert [(e.revision, e.operation) for e in page.entries] == [(1, "remember")]
    assert [s.store for s in page.stores] == ["a"]
    rest = await router.history({"agent_id": AGENT, "id": tea, "cursor": page.next_cursor})
    assert [(e.revision, e.operation) for e in rest.entries] == [(2, "update")]
    held = await router.history({"agent_id": AGENT, "id": only_b})  # a lacks it: b answers
    assert [(s.store, s.status) for s in held.stores] == [("a", "error"), ("b", "ok")]
    with pytest.raises(NotFoundError):
        await router.history({"agent_id": AGENT, "id": "nope"})


async def test_a_forget_dry_run_previews_on_every_child_and_changes_nothing(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b")
    router = make_router([a, b])
    tea = await _remember(router, "Alice likes tea", user_id="alice")
    stored = await b.remember(
        {"agent_id": AGENT, "type": "semantic", "content": "x", "user_id": "alice"}
    )
    only_b = str(stored.id)
    preview = await router.forget(
        {"agent_id": AGENT, "ids": [tea, only_b], "dry_run": True, "approval_required": True}
    )
    assert (preview.dry_run, preview.pending_approval, preview.review_id) == (True, True, None)
    assert sorted(preview.forgotten_ids) == sorted([tea, only_b])
    assert (await router.reviews({"agent_id": AGENT})).reviews == []  # nothing staged
    for child in (a, b):
        assert (await child.get({"agent_id": AGENT, "ids": [tea]})).missing == []


async def test_a_staged_forget_of_a_scope_waits_in_one_review_on_every_child(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b")
    router = make_router([a, b])
    teas = [await _remember(router, f"Alice tea {n}", user_id="alice") for n in range(2)]
    staged = await router.forget(
        {"agent_id": AGENT, "user_id": "alice", "all": True, "approval_required": True}
    )
    assert staged.pending_approval is True
    for child in (a, b):
        [review] = (await child.reviews({"agent_id": AGENT})).reviews
        assert review.review_id == staged.review_id
        assert sorted(review.request["ids"]) == sorted(teas)
    await router.decide(
        {"agent_id": AGENT, "review_id": staged.review_id, "approved": True, "reviewer": "dpo"}
    )
    for child in (a, b):
        assert sorted((await child.get({"agent_id": AGENT, "ids": teas})).missing) == sorted(teas)
    empty = await router.forget(
        {"agent_id": AGENT, "user_id": "nobody", "all": True, "approval_required": True}
    )
    assert (empty.forgotten_ids, empty.pending_approval) == ([], False)
