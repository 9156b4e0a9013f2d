"""MemoryRouter over real sqlite-vec stores: one identity, capability routing, fusion, partial
failure, write policies, nesting. The deliberately broken children are real stores with one
behaviour replaced, defined below."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import CAPABILITIES, SqliteVecStore
from mnemowire.embedders import HashEmbedder, Vectors
from mnemowire.errors import (
    ConfigError,
    ConflictError,
    NotFoundError,
    RequestError,
    StoreError,
    UnavailableError,
    UnsupportedError,
)
from mnemowire.kit import to_wire
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import (
    Capabilities,
    ExpireRequest,
    ForgetRequest,
    ForgetResponse,
    MergeRequest,
    RecallHit,
    RecallRequest,
    RecallResponse,
    RememberRequest,
    RememberResponse,
)
from mnemowire.protocol import GraphStore, MemoryStore, QueryEmbedding

from .conftest import RouterFactory, StoreFactory

AGENT = "agent-1"
FACTS = [
    "Alice drinks green tea with lemon every morning",
    "Bob prefers black coffee without sugar",
    "Alice is allergic to peanuts and tree nuts",
    "The office kitchen has green tea and herbal tea",
    "Carol runs a marathon every spring",
    "Bob keeps lemon cake in the fridge",
]
FSM = json.dumps(
    {
        "name": "book_flight",
        "initial": "searching",
        "states": ["searching", "booked"],
        "transitions": [{"trigger": "pay", "source": "searching", "dest": "booked"}],
    }
)


# -- deliberately broken (or limited) children ---------------------------------------------


class LimitedStore(SqliteVecStore):
    """A real store that declares fewer capabilities than it has."""

    without: frozenset[str] = frozenset()

    def capabilities(self) -> Capabilities:
        kept = [c for c in CAPABILITIES if c not in self.without]
        declared = super().capabilities()
        return declared.model_copy(update={"capabilities": kept})


class NoProcedural(LimitedStore):
    without = frozenset({"procedural"})


class NoClientIds(LimitedStore):
    without = frozenset({"client_ids"})


class NoFilter(LimitedStore):
    without = frozenset({"metadata_filter", "forget"})


class RaisingStore(SqliteVecStore):
    """Every operation fails with a bug, not a mnemowire error."""

    async def remember(self, request: RememberRequest) -> RememberResponse:
        raise RuntimeError("disk on fire")

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        raise RuntimeError("disk on fire")


class TimingOutStore(SqliteVecStore):
    """Its own backend times out at once: a failure of the store, not of the router's deadline."""

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        raise TimeoutError("backend gave up after 30 s")


class HangingStore(SqliteVecStore):
    """Never answers."""

    async def remember(self, request: RememberRequest) -> RememberResponse:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class MalformedStore(SqliteVecStore):
    """Answers messages that break the response schemas."""

    async def remember(self, request: RememberRequest) -> RememberResponse:
        return RememberResponse.model_construct(
            id="not an id!", stored_at=-5, stores=[], pending_approval=False
        )

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        return RecallResponse.model_construct(
            results=[], fusion_used="rrf", stores_queried=[self.name], latency_ms=-1.0
        )


class LeakyStore(SqliteVecStore):
    """Ignores the agent scope: answers with another agent's records (which say whose they
    are), and reports forgetting ids nobody asked it about."""

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        assert isinstance(request, RecallRequest)
        stolen = await super().recall(request.model_copy(update={"agent_id": "victim"}))
        hits = [
            RecallHit.model_validate({**to_wire(hit), "agent_id": "victim"})
            for hit in stolen.results
        ]
        return stolen.model_copy(update={"results": hits})

    async def forget(self, request: ForgetRequest) -> ForgetResponse:
        response = await super().forget(request)
        return response.model_copy(update={"forgotten_ids": ["victims-record"]})


class TypeIgnoringStore(SqliteVecStore):
    """Drops the types filter before recalling."""

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        assert isinstance(request, RecallRequest)
        wire = {k: v for k, v in to_wire(request).items() if k != "types"}
        return await super().recall(RecallRequest.model_validate(wire))


class FlakyStore(SqliteVecStore):
    """Its first remember fails (a dropped connection); later ones work."""

    failures = 1

    async def remember(self, request: RememberRequest) -> RememberResponse:
        if self.failures:
            self.failures -= 1
            raise UnavailableError("connection reset by peer")
        return await super().remember(request)


class SpyStore(SqliteVecStore):
    """Records which operations reached it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[str] = []

    async def remember(self, request: RememberRequest) -> RememberResponse:
        self.calls.append("remember")
        return await super().remember(request)

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        self.calls.append("recall")
        return await super().recall(request, query_vector=query_vector)


class TinyGraphStore(SqliteVecStore):
    """A real store plus an undirected graph over record ids (``link``), served through the
    GraphStore protocol."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.edges: dict[str, set[str]] = {}
        self.asked: list[list[str]] = []

    def link(self, a: str, b: str) -> None:
        self.edges.setdefault(a, set()).add(b)
        self.edges.setdefault(b, set()).add(a)

    def capabilities(self) -> Capabilities:
        declared = super().capabilities()
        return declared.model_copy(update={"capabilities": [*declared.capabilities, "graph"]})

    async def neighbours(
        self, agent_id: str, ids: Sequence[str], *, hops: int
    ) -> Mapping[str, Mapping[str, int]]:
        self.asked.append(list(ids))
        out: dict[str, dict[str, int]] = {}
        for start in ids:
            seen = {start: 0}
            frontier = [start]
            for distance in range(1, hops + 1):
                frontier = [
                    n for node in frontier for n in self.edges.get(node, ()) if n not in seen
                ]
                for node in frontier:
                    seen.setdefault(node, distance)
            near = {node: d for node, d in seen.items() if d > 0}
            if near:
                out[start] = near
        return out


class LyingGraphStore(TinyGraphStore):
    """Answers ``neighbours`` with whatever ``answer(ids)`` makes up."""

    answer: Any = None

    async def neighbours(self, agent_id: str, ids: Sequence[str], *, hops: int) -> Any:
        return self.answer(ids)


class CountingEmbedder:
    """HashEmbedder with a shared call counter (same name, so its vectors are interchangeable)."""

    def __init__(self, dimension: int, calls: list[int]) -> None:
        self.inner = HashEmbedder(dimension)
        self.calls = calls

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(len(texts))
        return self.inner.embed(texts)


# -- helpers -------------------------------------------------------------------------------


async def remember_all(router: Any, facts: Sequence[str] = FACTS) -> list[str]:
    ids = []
    for content in facts:
        stored = await router.remember({"agent_id": AGENT, "type": "semantic", "content": content})
        ids.append(stored.id)
    return ids


async def held(store: MemoryStore, query: str = "tea coffee peanuts marathon cake") -> set[str]:
    found = await store.recall(RecallRequest(agent_id=AGENT, query=query, k=100))
    return {hit.id for hit in found.results}


def statuses(response: Any) -> dict[str, str]:
    return {r.store: r.status for r in response.stores}


def failures(exc: pytest.ExceptionInfo[Any]) -> dict[str, str]:
    return {s["store"]: s["status"] for s in exc.value.envelope["stores"]}


# -- one identity --------------------------------------------------------------------------


async def test_one_id_for_every_copy(make_store: StoreFactory, make_router: RouterFactory) -> None:
    a, b = make_store("a"), make_store("b", embedder=HashEmbedder(48))
    router = make_router([a, b])
    stored = await router.remember({"agent_id": AGENT, "type": "semantic", "content": FACTS[0]})
    assert statuses(stored) == {"a": "ok", "b": "ok"}
    assert [r.count for r in stored.stores] == [1, 1]
    assert await held(a) == await held(b) == {stored.id}

    found = await router.recall({"agent_id": AGENT, "query": "green tea"})
    assert [hit.id for hit in found.results] == [stored.id]  # once, not once per store
    assert found.results[0].supporting == ["a", "b"]
    assert found.results[0].source_store == "a"
    assert found.stores_queried == ["a", "b"]

    forgotten = await router.forget({"agent_id": AGENT, "ids": [stored.id]})
    assert forgotten.forgotten_ids == [stored.id]
    assert [r.count for r in forgotten.stores] == [1, 1]
    assert await held(a) == await held(b) == set()


async def test_a_client_id_is_kept_and_a_retry_replays(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router([make_store("a"), make_store("b")])
    request = {"agent_id": AGENT, "type": "semantic", "content": FACTS[1], "id": "note-1"}
    first = await router.remember(request)
    again = await router.remember(request)
    assert first.id == again.id == "note-1"
    assert first.replayed is None
    assert again.replayed is True
    assert again.stored_at == first.stored_at
    assert [r.count for r in again.stores] == [0, 0]


async def test_a_retry_heals_a_partial_write(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, flaky = make_store("a"), make_store("flaky", cls=FlakyStore)
    router = make_router([a, flaky])
    request = {"agent_id": AGENT, "type": "semantic", "content": FACTS[2]}
    first = await router.remember(request)
    assert statuses(first) == {"a": "ok", "flaky": "error"}
    assert "unavailable: connection reset" in str(first.stores[1].error)
    healed = await router.remember({**request, "id": first.id})
    assert statuses(healed) == {"a": "ok", "flaky": "ok"}
    assert healed.replayed is None  # flaky stored its copy now: not a pure replay
    assert healed.stored_at == first.stored_at  # the first write's time
    assert await held(flaky) == {first.id}


async def test_a_conflicting_id_is_a_conflict(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router([make_store("a"), make_store("b")])
    await router.remember({"agent_id": AGENT, "type": "semantic", "content": "x", "id": "n1"})
    with pytest.raises(ConflictError) as caught:
        await router.remember({"agent_id": AGENT, "type": "semantic", "content": "y", "id": "n1"})
    assert failures(caught) == {"a": "error", "b": "error"}
    assert caught.value.envelope["operation"] == "remember"


async def test_merge_and_expire_reach_every_copy(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b")
    router = make_router([a, b])
    keep, dup, *_ = await remember_all(router)
    merged = await router.merge({"agent_id": AGENT, "canonical": keep, "duplicates": [dup]})
    assert (merged.canonical, merged.merged_count) == (keep, 1)
    assert merged.strategy_used == "keep_canonical"
    assert dup not in await held(a) | await held(b)

    low = await router.remember(
        {"agent_id": AGENT, "type": "semantic", "content": "maybe", "confidence": 0.1}
    )
    expired = await router.expire({"agent_id": AGENT, "policy": {"confidence_below": 0.5}})
    assert expired.matched_ids == [low.id]  # two copies, one record
    assert expired.matched_count == 1
    assert [r.count for r in expired.stores] == [1, 1]

    with pytest.raises(NotFoundError) as caught:
        await router.merge({"agent_id": AGENT, "canonical": keep, "duplicates": ["nope"]})
    assert failures(caught) == {"a": "error", "b": "error"}


# -- fusion --------------------------------------------------------------------------------


async def test_fusion_matches_the_formulas_on_real_stores(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b = make_store("a"), make_store("b", embedder=HashEmbedder(48))
    router = make_router([a, b], weights={"a": 2.0, "b": 0.5})
    await remember_all(router)
    request = {"agent_id": AGENT, "query": "green tea with lemon", "k": 3}
    # what each child is asked: overfetch (4) x k
    lists = {
        name: (await store.recall({**request, "k": 12})).results
        for name, store in (("a", a), ("b", b))
    }
    rank = {name: {h.id: i + 1 for i, h in enumerate(hits)} for name, hits in lists.items()}
    raw = {name: {h.id: h.score for h in hits} for name, hits in lists.items()}
    every = set(rank["a"]) | set(rank["b"])
    expected = {
        "rrf": {i: sum(1 / (60 + rank[s][i]) for s in rank if i in rank[s]) for i in every},
        "max": {i: max(raw[s][i] for s in raw if i in raw[s]) for i in every},
        "weighted": {i: 2.0 * raw["a"].get(i, 0.0) + 0.5 * raw["b"].get(i, 0.0) for i in every},
    }
    for fusion, scores in expected.items():
        found = await router.recall({**request, "fusion": fusion})
        assert found.fusion_used == fusion
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:3]
        assert [h.id for h in found.results] == [i for i, _ in best]
        for hit, (_, score) in zip(found.results, best, strict=True):
            assert math.isclose(hit.score, score, rel_tol=1e-12)
            assert hit.supporting == [s for s in ("a", "b") if hit.id in rank[s]]


async def test_quorum_drops_what_too_few_stores_returned(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, b, c = make_store("a"), make_store("b"), make_store("c")
    await remember_all(make_router([a, b]))
    lone = await c.remember({"agent_id": AGENT, "type": "semantic", "content": "green tea cake"})
    request = {"agent_id": AGENT, "query": "green tea", "k": 20}
    everyone = await make_router([a, b, c]).recall(request)
    assert lone.id in {h.id for h in everyone.results}
    agreed = await make_router([a, b, c], quorum=2).recall(request)
    assert lone.id not in {h.id for h in agreed.results}
    assert all(len(h.supporting) >= 2 for h in agreed.results)
    assert len(agreed.results) == len(FACTS)


async def test_hop_boost_strengthens_fused_neighbours_only(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    a, graph = make_store("a"), make_store("graph", cls=TinyGraphStore)
    router = make_router([a, graph])
    x, y, z, w, *_ = await remember_all(router)
    graph.link(x, y)  # adjacent
    graph.link(z, "outside")  # z and w are two hops apart, through a record nobody returned
    graph.link("outside", w)
    request = {"agent_id": AGENT, "query": "tea coffee peanuts", "k": 10}
    plain = {h.id: h.score for h in (await router.recall(request)).results}

    one = await router.recall({**request, "hops": 1})
    boosted = {h.id: h.score for h in one.results}
    assert set(boosted) == set(plain)  # "outside" is never injected
    assert math.isclose(boosted[x], plain[x] * 1.05)
    assert math.isclose(boosted[y], plain[y] * 1.05)
    assert boosted[z] == plain[z]
    assert boosted[w] == plain[w]
    graph_result = next(r for r in one.stores if r.store == "graph")
    assert graph_result.model_extra == {"graph_status": "ok"}
    assert set(graph.asked[-1]) == set(plain)  # asked only about fused ids

    two = {h.id: h.score for h in (await router.recall({**request, "hops": 2})).results}
    assert math.isclose(two[z], plain[z] * (1 + 0.1 / 3))
    assert math.isclose(two[w], plain[w] * (1 + 0.1 / 3))


GRAPH_LIES = {
    "an id never asked about": (lambda ids: {"never-asked": {ids[0]: 1}}, "never-asked"),
    "not a mapping": (lambda ids: [ids], "not a mapping"),
    "neighbours not a mapping": (lambda ids: {ids[0]: [ids[1]]}, "are not a mapping"),
    "distance zero": (lambda ids: {ids[0]: {ids[1]: 0}}, "distance 0, not 1..1"),
    "distance not an int": (lambda ids: {ids[0]: {ids[1]: True}}, "distance True"),
}


@pytest.mark.parametrize("lie", sorted(GRAPH_LIES))
async def test_a_lying_graph_store_boosts_nothing(
    make_store: StoreFactory, make_router: RouterFactory, lie: str
) -> None:
    answer, snippet = GRAPH_LIES[lie]
    liar = make_store("graph", cls=LyingGraphStore)
    liar.answer = answer
    router = make_router([make_store("a"), liar])
    await remember_all(router)
    request = {"agent_id": AGENT, "query": "tea", "k": 10}
    plain = [(h.id, h.score) for h in (await router.recall(request)).results]
    found = await router.recall({**request, "hops": 1})
    assert [(h.id, h.score) for h in found.results] == plain
    note = next(r for r in found.stores if r.store == "graph").model_extra or {}
    assert note["graph_status"] == "invalid_response"
    assert snippet in note["graph_error"]


async def test_the_query_is_embedded_once_per_embedder(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    calls: list[int] = []
    a = make_store("a", embedder=CountingEmbedder(64, calls))
    b = make_store("b", embedder=CountingEmbedder(64, calls))
    c = make_store("c", embedder=CountingEmbedder(48, calls))
    await remember_all(make_router([a, b, c]))

    calls.clear()
    found = await make_router([a, b]).recall({"agent_id": AGENT, "query": "green tea"})
    assert calls == [1]  # one shared embedding; neither store embedded again
    assert found.results[0].supporting == ["a", "b"]

    calls.clear()
    await make_router([a, b, c]).recall({"agent_id": AGENT, "query": "green tea"})
    assert calls == [1, 1]  # one per distinct embedder (64-d and 48-d)

    calls.clear()  # nested: the outer router's vector is reused inside
    inner = MemoryRouter([b, c], name="inner")
    await make_router([a, inner]).recall({"agent_id": AGENT, "query": "green tea"})
    assert calls == [1, 1]


# -- capability routing --------------------------------------------------------------------


async def test_a_child_without_the_type_is_skipped(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    full, semantic = make_store("full"), make_store("semantic", cls=NoProcedural)
    router = make_router([full, semantic])
    stored = await router.remember({"agent_id": AGENT, "type": "procedural", "content": FSM})
    assert statuses(stored) == {"full": "ok", "semantic": "skipped"}
    assert stored.stores[1].error == "lacks capability: procedural"
    assert stored.stores[1].count == 0

    found = await router.recall(
        {"agent_id": AGENT, "query": "book flight", "types": ["procedural"]}
    )
    assert found.stores_queried == ["full"]
    assert [h.id for h in found.results] == [stored.id]
    both = await router.recall(
        {"agent_id": AGENT, "query": "book flight", "types": ["procedural", "semantic"]}
    )
    assert both.stores_queried == ["full", "semantic"]  # semantic is asked for semantic only


async def test_children_that_cannot_serve_are_skipped_not_failed(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    full, no_ids, no_filter = (
        make_store("full"),
        make_store("no-ids", cls=NoClientIds),
        make_store("no-filter", cls=NoFilter),
    )
    router = make_router([full, no_ids, no_filter])
    stored = await router.remember({"agent_id": AGENT, "type": "semantic", "content": FACTS[0]})
    assert statuses(stored) == {"full": "ok", "no-ids": "skipped", "no-filter": "ok"}
    assert stored.stores[1].error == "lacks capability: client_ids"
    found = await router.recall({"agent_id": AGENT, "query": "tea", "filter": {"x": 1}})
    assert statuses(found)["no-filter"] == "skipped"
    forgotten = await router.forget({"agent_id": AGENT, "ids": [stored.id]})
    assert statuses(forgotten) == {"full": "ok", "no-ids": "ok", "no-filter": "skipped"}


async def test_no_capable_child_is_unsupported(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router([make_store("semantic", cls=NoProcedural)])
    with pytest.raises(UnsupportedError) as caught:
        await router.remember({"agent_id": AGENT, "type": "procedural", "content": FSM})
    assert failures(caught) == {"semantic": "skipped"}
    assert "procedural" in str(caught.value)


async def test_capabilities_are_the_union(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router(
        [make_store("semantic", cls=NoProcedural), make_store("g", cls=TinyGraphStore)]
    )
    declared = router.capabilities().capabilities
    # the router declines the archive operations for now (docs/portability.md#stores)
    assert set(declared) == {*CAPABILITIES, "graph"} - {"recall_tracking"}
    assert declared[:2] == ["semantic", "episodic"]  # first declaration order
    assert isinstance(router.inner, MemoryStore)
    assert isinstance(router.inner, GraphStore)


# -- partial failure -----------------------------------------------------------------------


async def test_broken_children_are_reported_and_ignored(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router(
        [
            make_store("good"),
            make_store("raising", cls=RaisingStore),
            make_store("hanging", cls=HangingStore),
            make_store("malformed", cls=MalformedStore),
        ],
        deadline_s=0.5,
    )
    stored = await router.remember({"agent_id": AGENT, "type": "semantic", "content": FACTS[0]})
    expected = {"good": "ok", "raising": "error", "hanging": "timeout"}
    assert statuses(stored) == {**expected, "malformed": "invalid_response"}
    found = await router.recall({"agent_id": AGENT, "query": "green tea"})
    assert statuses(found) == {**expected, "malformed": "invalid_response"}
    assert [(h.id, h.supporting) for h in found.results] == [(stored.id, ["good"])]
    errors = {r.store: r.error for r in found.stores}
    assert errors["good"] is None
    assert errors["raising"] == "RuntimeError: disk on fire"
    assert errors["hanging"] == "no answer within 0.5 s"
    assert "/latency_ms" in str(errors["malformed"])


async def test_a_childs_own_timeout_error_is_an_error_not_the_routers_deadline(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router(
        [make_store("good"), make_store("gave-up", cls=TimingOutStore)], deadline_s=30
    )
    found = await router.recall({"agent_id": AGENT, "query": "green tea"})
    assert statuses(found) == {"good": "ok", "gave-up": "error"}
    errors = {r.store: r.error for r in found.stores}
    assert errors["gave-up"] == "TimeoutError: backend gave up after 30 s"


async def test_lying_children_are_invalid_responses(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    good, leaky, loose = (
        make_store("good"),
        make_store("leaky", cls=LeakyStore),
        make_store("loose", cls=TypeIgnoringStore),
    )
    router = make_router([good, leaky, loose])
    await leaky.remember({"agent_id": "victim", "type": "semantic", "content": "victim's tea"})
    await remember_all(router)
    await router.remember({"agent_id": AGENT, "type": "procedural", "content": FSM})

    found = await router.recall({"agent_id": AGENT, "query": "tea", "types": ["semantic"]})
    assert statuses(found) == {
        "good": "ok",
        "leaky": "invalid_response",
        "loose": "invalid_response",
    }
    errors = {r.store: str(r.error) for r in found.stores}
    assert "belongs to another agent" in errors["leaky"]
    assert "is procedural, asked for semantic" in errors["loose"]
    assert all(h.supporting == ["good"] for h in found.results)

    ids = [h.id for h in found.results]
    forgotten = await router.forget({"agent_id": AGENT, "ids": ids[:1]})
    assert statuses(forgotten)["leaky"] == "invalid_response"
    assert "victims-record" in str(forgotten.stores[1].error)
    assert forgotten.forgotten_ids == ids[:1]


async def test_when_every_child_fails_the_error_lists_them(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router(
        [make_store("raising", cls=RaisingStore), make_store("hanging", cls=HangingStore)],
        deadline_s=0.3,
    )
    with pytest.raises(StoreError) as caught:
        await router.recall({"agent_id": AGENT, "query": "tea"})
    assert caught.value.code == "store_error"
    assert caught.value.envelope["operation"] == "recall"
    assert failures(caught) == {"raising": "error", "hanging": "timeout"}

    only_hanging = make_router([make_store("hanging-2", cls=HangingStore)], deadline_s=0.3)
    with pytest.raises(StoreError) as timed_out:
        await only_hanging.remember({"agent_id": AGENT, "type": "semantic", "content": "x"})
    assert timed_out.value.code == "timeout"


async def test_invalid_requests_never_reach_a_child(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    spy = make_store("spy", cls=SpyStore)
    router = make_router([spy])
    with pytest.raises(RequestError) as caught:
        await router.recall({"agent_id": AGENT, "query": "tea", "k": 0})
    assert caught.value.details[0]["path"] == "/k"
    with pytest.raises(RequestError):
        await router.remember({"agent_id": AGENT, "type": "semantic", "content": "x", "typo": 1})
    assert spy.calls == []


async def test_health_reports_every_child(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    healthy = await make_router([make_store("a"), make_store("b")]).health()
    assert healthy.status == "ok"
    assert [s.store for s in healthy.stores or []] == ["a", "b"]

    class Unhealthy(HangingStore):
        async def health(self) -> Any:
            await asyncio.Event().wait()

    mixed = await make_router(
        [make_store("c"), make_store("d", cls=Unhealthy)], deadline_s=0.3
    ).health()
    assert mixed.status == "degraded"
    down = (mixed.stores or [])[1]
    assert (down.status, (down.details or {})["error"]) == (
        "down",
        "timeout: no answer within 0.3 s",
    )


# -- write policies and nesting ------------------------------------------------------------


async def test_primary_only_writes_to_the_first_capable_child(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    semantic, first, second = (
        make_store("semantic", cls=NoProcedural),
        make_store("first"),
        make_store("second"),
    )
    router = make_router([semantic, first, second], write_policy="primary_only")
    fact = await router.remember({"agent_id": AGENT, "type": "semantic", "content": FACTS[0]})
    assert statuses(fact) == {"semantic": "ok", "first": "skipped", "second": "skipped"}
    assert fact.stores[1].error == "write_policy primary_only: written to semantic only"
    procedure = await router.remember({"agent_id": AGENT, "type": "procedural", "content": FSM})
    assert statuses(procedure) == {"semantic": "skipped", "first": "ok", "second": "skipped"}

    found = await router.recall({"agent_id": AGENT, "query": "green tea book flight", "k": 10})
    assert found.stores_queried == ["semantic", "first", "second"]  # recall still fans out
    assert {h.id: h.supporting for h in found.results} == {
        fact.id: ["semantic"],
        procedure.id: ["first"],
    }
    forgotten = await router.forget({"agent_id": AGENT, "ids": [fact.id, procedure.id]})
    assert statuses(forgotten) == {"semantic": "ok", "first": "ok", "second": "ok"}
    assert sorted(forgotten.forgotten_ids) == sorted([fact.id, procedure.id])


async def test_routers_nest(make_store: StoreFactory, make_router: RouterFactory) -> None:
    a, b = make_store("a"), make_store("b", embedder=HashEmbedder(48))
    graph = make_store("graph", cls=TinyGraphStore)
    inner = MemoryRouter([b, graph], name="inner")
    outer = make_router([a, inner], name="outer")
    assert isinstance(inner, MemoryStore)
    ids = await remember_all(outer)
    x, y = ids[:2]
    assert await held(a) == await held(b) == await held(graph) == set(ids)

    request = {"agent_id": AGENT, "query": "green tea", "k": 10}
    plain = await outer.recall(request)
    assert {tuple(h.supporting) for h in plain.results} == {("a", "inner")}
    inner_result = plain.stores[1]
    assert [s["store"] for s in (inner_result.model_extra or {})["stores"]] == ["b", "graph"]

    graph.link(x, y)  # the inner router's graph boosts the outer fusion
    scores = {h.id: h.score for h in plain.results}
    boosted = {h.id: h.score for h in (await outer.recall({**request, "hops": 1})).results}
    assert math.isclose(boosted[x], scores[x] * 1.05)

    forgotten = await outer.forget({"agent_id": AGENT, "ids": [x]})
    assert forgotten.forgotten_ids == [x]
    assert x not in await held(a) | await held(b) | await held(graph)


# -- configuration -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"weights": {"nope": 1.0}}, "weights name stores"),
        ({"weights": {"a": -1.0}}, "finite and >= 0"),
        ({"quorum": 3}, "quorum must be between 1"),
        ({"deadline_s": 0}, "deadline_s"),
        ({"write_policy": "some"}, "write_policy"),
        ({"overfetch": 0}, "overfetch"),
        ({"name": ""}, "name must not be empty"),
    ],
)
async def test_bad_configuration_is_refused(
    make_store: StoreFactory, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        MemoryRouter([make_store("a"), make_store("b")], **options)


async def test_bad_children_are_refused(make_store: StoreFactory) -> None:
    with pytest.raises(ConfigError, match="at least one store"):
        MemoryRouter([])
    with pytest.raises(ConfigError, match="unique"):
        MemoryRouter([make_store("a"), make_store("a")])
    with pytest.raises(ConfigError, match="not a MemoryStore"):
        MemoryRouter([object()])  # type: ignore[list-item]

    class Undeclared(SqliteVecStore):
        def capabilities(self) -> Capabilities:
            return Capabilities.model_construct(store="", spec_version="v0", capabilities=[])

    with pytest.raises(ConfigError, match="no valid capabilities"):
        MemoryRouter([make_store("u", cls=Undeclared)])


async def test_errors_validate_against_the_spec(make_store: StoreFactory) -> None:
    """The envelope of every kind of router error is a valid error message."""
    router = MemoryRouter([make_store("raising", cls=RaisingStore)])
    with pytest.raises(StoreError) as caught:
        await router.remember(RememberRequest(agent_id=AGENT, type="semantic", content="x"))
    assert spec.validate("error", caught.value.envelope) is None


# -- every capability an option needs, and every lie the router catches --------------------


class TamperingStore(SqliteVecStore):
    """A real store whose answers pass through ``tamper[operation]`` before the router sees
    them: how a buggy or malicious backend would answer."""

    tamper: Mapping[str, Any] = {}

    def _out(self, operation: str, response: Any) -> Any:
        return self.tamper.get(operation, lambda r: r)(response)

    async def remember(self, request: RememberRequest) -> Any:
        return self._out("remember", await super().remember(request))

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> Any:
        return self._out("recall", await super().recall(request, query_vector=query_vector))

    async def forget(self, request: ForgetRequest) -> Any:
        return self._out("forget", await super().forget(request))

    async def merge(self, request: MergeRequest) -> Any:
        return self._out("merge", await super().merge(request))

    async def expire(self, request: ExpireRequest) -> Any:
        return self._out("expire", await super().expire(request))


def without(field: str) -> Any:
    """Tamper: drop one field of the wire message (the answer is then a plain dict)."""
    return lambda r: {k: v for k, v in to_wire(r).items() if k != field}


def hits(change: Any) -> Any:
    """Tamper: rewrite every hit's wire form with ``change``."""
    return lambda r: r.model_copy(
        update={"results": [RecallHit.model_validate(change(to_wire(h))) for h in r.results]}
    )


LIES = {
    "another record id": (
        "remember",
        lambda r: r.model_copy(update={"id": "01OWNID"}),
        "stored the record as '01OWNID'",
    ),
    "too many hits": (
        "recall",
        lambda r: r.model_copy(update={"results": r.results * 30}),
        "hits, asked for at most 40",
    ),
    "unsorted hits": (
        "recall",
        lambda r: r.model_copy(update={"results": r.results[::-1]}),
        "not sorted",
    ),
    "another user": ("recall", hits(lambda h: {**h, "user_id": "mallory"}), "another user"),
    "outside the filter": ("recall", hits(lambda h: {**h, "metadata": {}}), "filter"),
    "not a message": ("recall", lambda r: None, "answered a NoneType"),
    "no relevance": (
        "recall",
        hits(lambda h: {k: v for k, v in h.items() if k != "relevance"}),
        "has no relevance, though the store declares it",
    ),
    "below the floor": ("recall", hits(lambda h: {**h, "relevance": -0.9}), "below -0.5"),
    "unserialisable": (
        "recall",
        lambda r: r.model_copy(update={"latency_ms": object()}),
        "cannot be serialised",
    ),
    "hard delete claimed": (
        "forget",
        lambda r: r.model_copy(update={"hard_delete": True}),
        "hard_delete",
    ),
    "another canonical": (
        "merge",
        lambda r: r.model_copy(update={"canonical": "other"}),
        "merged into 'other'",
    ),
    "more merged than named": (
        "merge",
        lambda r: r.model_copy(update={"merged_count": 9}),
        "merged 9 records",
    ),
    "another action": (
        "expire",
        lambda r: r.model_copy(update={"action_taken": "archive"}),
        "applied 'archive'",
    ),
    "ids beyond the count": (
        "expire",
        lambda r: r.model_copy(update={"matched_count": 0}),
        "more matched ids",
    ),
}


async def run(router: Any, operation: str, ids: list[str]) -> Any:
    """One request of ``operation`` over the records ``ids`` (stored for user alice)."""
    requests: dict[str, dict[str, Any]] = {
        "remember": {"type": "semantic", "content": "new", "user_id": "alice"},
        "recall": {
            "query": "tea",
            "k": 10,
            "user_id": "alice",
            "filter": {"topic": "food"},
            "min_relevance": -0.5,
        },
        "forget": {"ids": ids[:1]},
        "merge": {"canonical": ids[0], "duplicates": ids[1:2]},
        "expire": {"policy": {"older_than_days": 0}},
    }
    return await getattr(router, operation)({"agent_id": AGENT, **requests[operation]})


@pytest.mark.parametrize("lie", sorted(LIES))
async def test_every_lie_is_an_invalid_response(
    make_store: StoreFactory, make_router: RouterFactory, lie: str
) -> None:
    operation, tamper, snippet = LIES[lie]
    liar = make_store("liar", cls=TamperingStore)
    router = make_router([make_store("good"), liar])
    ids = [
        (
            await router.remember(
                {
                    "agent_id": AGENT,
                    "type": "semantic",
                    "content": content,
                    "user_id": "alice",
                    "metadata": {"topic": "food"},
                }
            )
        ).id
        for content in FACTS
    ]
    liar.tamper = {operation: tamper}
    response = await run(router, operation, ids)
    assert statuses(response) == {"good": "ok", "liar": "invalid_response"}
    assert snippet in str(response.stores[1].error)


async def test_an_honest_plain_dict_answer_is_accepted(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    plain = make_store("plain", cls=TamperingStore)
    plain.tamper = {"recall": to_wire}
    router = make_router([plain])
    await remember_all(router)
    found = await router.recall({"agent_id": AGENT, "query": "tea"})
    assert statuses(found) == {"plain": "ok"}
    assert len(found.results) == 5


async def test_an_expire_without_ids_counts_at_least_the_largest(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    terse = make_store("terse", cls=TamperingStore)
    terse.tamper = {"expire": without("matched_ids")}
    router = make_router([make_store("a"), terse])
    await remember_all(router)
    expired = await router.expire({"agent_id": AGENT, "policy": {"older_than_days": 0}})
    assert expired.matched_count == len(FACTS)
    assert expired.matched_ids is None


NEEDS = [
    ("remember", {"type": "semantic", "content": "x", "user_id": "u"}, "user_scope"),
    ("remember", {"type": "semantic", "content": "x", "approval_required": True}, "governance"),
    ("remember", {"type": "semantic", "content": "x", "expires_at": 1}, "expiry"),
    ("remember", {"type": "emotional", "content": "x"}, "emotional"),
    ("recall", {"query": "x", "user_id": "u"}, "user_scope"),
    ("recall", {"query": "x", "fresher_than_days": 1}, "freshness"),
    ("recall", {"query": "x", "filter": {"a": 1}}, "metadata_filter"),
    ("recall", {"query": "x", "types": ["episodic"]}, "episodic"),
    ("forget", {"ids": ["x"], "user_id": "u"}, "user_scope"),
    ("forget", {"filter": {"a": 1}}, "metadata_filter"),
    ("forget", {"ids": ["x"]}, "forget"),
    ("expire", {"policy": {"type": "procedural"}}, "procedural"),
    ("expire", {"policy": {"older_than_days": 3}, "user_id": "u"}, "user_scope"),
    ("expire", {"policy": {"older_than_days": 3}}, "expire"),
]


@pytest.mark.parametrize(("operation", "request_", "capability"), NEEDS)
async def test_each_option_needs_its_capability(
    make_store: StoreFactory,
    make_router: RouterFactory,
    operation: str,
    request_: dict[str, Any],
    capability: str,
) -> None:
    lacking = type("Lacking", (LimitedStore,), {"without": frozenset({capability})})
    router = make_router([make_store("full"), make_store("lacking", cls=lacking)])
    response = await getattr(router, operation)({"agent_id": AGENT, **request_})
    assert statuses(response) == {"full": "ok", "lacking": "skipped"}
    assert response.stores[1].error == f"lacks capability: {capability}"


@pytest.mark.parametrize("action", ["archive", "demote"])
async def test_what_acts_on_every_copy_needs_every_child(
    make_store: StoreFactory, make_router: RouterFactory, action: str
) -> None:
    """An archive that only one child can do would leave the other child's copy recalled (a
    demotion, one child's score halved): the router does not promise it, and refuses it
    whole, before any child changes."""
    lacking = type("Lacking", (LimitedStore,), {"without": frozenset({action})})
    router = make_router([make_store("full"), make_store("lacking", cls=lacking)])
    assert action not in router.capabilities().capabilities
    await remember_all(router)
    before = [
        (h.id, h.score) for h in (await router.recall({"agent_id": AGENT, "query": "tea"})).results
    ]
    expire = {"agent_id": AGENT, "policy": {"older_than_days": 0}, "action": action}
    with pytest.raises(UnsupportedError, match=action):
        await router.expire(expire)
    after = [
        (h.id, h.score) for h in (await router.recall({"agent_id": AGENT, "query": "tea"})).results
    ]
    assert after == before


async def test_a_hard_forget_needs_every_child_to_erase(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    """A hard forget that one child cannot do would leave that child's copy recalled, and
    not even soft-forgotten: the router does not promise hard_delete, refuses the request
    whole, and a soft forget still reaches every copy."""
    lacking = type("Lacking", (LimitedStore,), {"without": frozenset({"hard_delete"})})
    full, partial = make_store("full"), make_store("lacking", cls=lacking)
    router = make_router([full, partial])
    assert "hard_delete" not in router.capabilities().capabilities
    [first, *_] = await remember_all(router)
    with pytest.raises(UnsupportedError, match="hard_delete"):
        await router.forget({"agent_id": AGENT, "ids": [first], "hard_delete": True})
    for child in (full, partial):
        assert first in await held(child)
    await router.forget({"agent_id": AGENT, "ids": [first]})
    for child in (full, partial):
        assert first not in await held(child)


async def test_a_v0_child_makes_a_v0_router_without_v01_operations(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    speaks_v0 = type(
        "SpeaksV0", (LimitedStore,), {"capabilities": lambda self: Capabilities(
            store=self.name, spec_version="v0", capabilities=list(spec.capability_names("v0"))
        )},
    )  # fmt: skip
    router = make_router([make_store("new"), make_store("old", cls=speaks_v0)])
    declared = router.capabilities()
    assert declared.spec_version == "v0"
    assert set(declared.capabilities) <= set(spec.capability_names("v0"))
    assert "get" not in declared.capabilities


async def test_no_recall_in_days_needs_a_router_that_returns_what_its_store_returned(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    """Stores mark every hit they return as recalled, over-fetched ones included: through a
    fusing router, no_recall_in_days would spare records nobody was shown, so it is refused."""
    expire = {"agent_id": AGENT, "action": "demote", "policy": {"no_recall_in_days": 0}}
    fusing = make_router([make_store("a"), make_store("b")])
    assert "recall_tracking" not in fusing.capabilities().capabilities
    with pytest.raises(UnsupportedError, match="cannot evaluate no_recall_in_days"):
        await fusing.expire(expire)
    with pytest.raises(UnsupportedError, match="cannot evaluate no_recall_in_days"):
        await make_router([make_store("c")]).expire(expire)  # over-fetch 4: still inexact

    now = [1_780_000_000_000]
    exact = make_router([make_store("d", clock=lambda: now[0])], overfetch=1)
    assert "recall_tracking" in exact.capabilities().capabilities
    await remember_all(exact)
    now[0] += 2 * 86_400_000
    [shown] = (await exact.recall({"agent_id": AGENT, "query": FACTS[0], "k": 1})).results
    cold = await exact.expire({**expire, "policy": {"no_recall_in_days": 1}})
    assert cold.matched_count == len(FACTS) - 1
    assert shown.id not in (cold.matched_ids or [])

    untracking = type("Untracking", (LimitedStore,), {"without": frozenset({"recall_tracking"})})
    with pytest.raises(UnsupportedError, match="lacks capability: recall_tracking"):
        await make_router([make_store("e", cls=untracking)], overfetch=1).expire(expire)


async def test_the_relevance_floor_applies_where_a_store_can_apply_it(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    """docs/spec/v0.md#recall.relevance: the floor goes to the stores that measure relevance;
    the others' hits pass unfloored, and stores[] says which is which."""
    blind = type("Blind", (LimitedStore,), {"without": frozenset({"relevance"})})
    measuring, unmeasured = make_store("measuring"), make_store("blind", cls=blind)
    assert "relevance" in make_router([measuring, make_store("m2")]).capabilities().capabilities
    router = make_router([measuring, unmeasured])
    assert "relevance" not in router.capabilities().capabilities  # not every hit will carry it
    await remember_all(router)
    request = {"agent_id": AGENT, "query": "green tea with lemon", "k": 10}
    everything = await router.recall(request)
    assert all(h.relevance is not None for h in everything.results)  # the source copy's

    floored = await router.recall({**request, "min_relevance": 0.99})
    assert {r.store: (r.model_extra or {}).get("floored") for r in floored.stores} == {
        "measuring": True,
        "blind": False,
    }
    assert floored.stores[0].count == 0  # no fact is that close to the query
    assert len(floored.results) == len(FACTS)  # the blind store's hits, unfloored
    assert {tuple(h.supporting) for h in floored.results} == {("blind",)}


async def test_merge_needs_the_merge_capability(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    no_merge = type("NoMerge", (LimitedStore,), {"without": frozenset({"merge"})})
    router = make_router([make_store("no-merge", cls=no_merge)])
    keep, dup, *_ = await remember_all(router)
    with pytest.raises(UnsupportedError, match="lacks capability: merge"):
        await router.merge({"agent_id": AGENT, "canonical": keep, "duplicates": [dup]})


async def test_a_store_holding_no_memory_type_is_not_asked_to_recall(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    class GraphOnly(TinyGraphStore):
        def capabilities(self) -> Capabilities:
            return Capabilities(store=self.name, spec_version="v0", capabilities=["graph"])

    graph = make_store("graph", cls=GraphOnly)
    router = make_router([make_store("a"), graph])
    x, y, *_ = await remember_all(router)
    graph.link(x, y)
    found = await router.recall({"agent_id": AGENT, "query": "tea", "k": 10, "hops": 1})
    assert found.stores_queried == ["a"]
    assert found.stores[1].error == "holds no memory type"
    assert (found.stores[1].model_extra or {})["graph_status"] == "ok"
    assert {h.id: h.score for h in found.results}[x] > 0


# -- embedding, graph and lifecycle edge cases ---------------------------------------------


class OnceBrokenEmbedder(CountingEmbedder):
    """Fails its first call (raising, or with a wrong shape), then works."""

    def __init__(self, dimension: int, calls: list[int], how: str) -> None:
        super().__init__(dimension, calls)
        self.how = how

    def embed(self, texts: Sequence[str]) -> Vectors:
        vectors = super().embed(texts)
        if len(self.calls) == 1:
            if self.how == "raise":
                raise RuntimeError("model not loaded")
            return vectors[:, :-1]
        return vectors


@pytest.mark.parametrize("how", ["raise", "shape"])
async def test_a_failed_shared_embedding_lets_each_store_embed(
    make_store: StoreFactory, make_router: RouterFactory, how: str
) -> None:
    calls: list[int] = []
    store = make_store("a")
    await remember_all(make_router([store]))
    store.embedder = OnceBrokenEmbedder(64, calls, how)
    found = await make_router([store]).recall({"agent_id": AGENT, "query": "green tea"})
    assert statuses(found) == {"a": "ok"}
    assert len(calls) == 2  # the router's (broken) one, then the store's own


async def test_a_router_without_working_graph_children_cannot_answer_neighbours(
    make_store: StoreFactory,
) -> None:
    class BrokenGraph(TinyGraphStore):
        async def neighbours(
            self, agent_id: str, ids: Sequence[str], *, hops: int
        ) -> Mapping[str, Mapping[str, int]]:
            raise RuntimeError("graph offline")

    router = MemoryRouter([make_store("g", cls=BrokenGraph)])
    with pytest.raises(StoreError) as caught:
        await router.neighbours(AGENT, ["x"], hops=1)
    assert caught.value.envelope["operation"] == "neighbours"
    assert await MemoryRouter([make_store("plain")]).neighbours(AGENT, ["x"], hops=1) == {}


async def test_every_child_down_is_down(make_store: StoreFactory) -> None:
    class Down(SqliteVecStore):
        async def health(self) -> Any:
            raise RuntimeError("no route to host")

    router = MemoryRouter([make_store("a", cls=Down), make_store("b", cls=Down)])
    health = await router.health()
    assert health.status == "down"
    assert spec.validate("health", to_wire(health)) is None


async def test_closing_the_router_closes_every_child() -> None:
    class Stubborn(SqliteVecStore):
        async def aclose(self) -> None:
            await super().aclose()
            raise RuntimeError("close failed")

    a = SqliteVecStore(":memory:", embedder=HashEmbedder(64), name="a")
    b = Stubborn(":memory:", embedder=HashEmbedder(64), name="b")
    router = MemoryRouter([b, a], name="r")
    assert router.stores == (b, a)
    assert repr(router) == "MemoryRouter('r', stores=[b, a], write_policy='all')"
    with pytest.raises(RuntimeError, match="close failed"):
        async with router:
            pass
    with pytest.raises(UnavailableError):  # closed, although b failed first
        await a.recall(RecallRequest(agent_id=AGENT, query="x"))


async def test_the_memory_facade_routes_over_several_urls() -> None:
    from mnemowire.layers.memory import Memory

    urls = ["sqlite-vec://:memory:?name=one", "sqlite-vec://:memory:?name=two"]
    async with Memory.open(urls, embedder=HashEmbedder(64), quorum=2) as memory:
        assert isinstance(memory.store, MemoryRouter)
        stored = await memory.remember({"agent_id": AGENT, "type": "semantic", "content": "tea"})
        found = await memory.recall({"agent_id": AGENT, "query": "tea"})
        assert [(h.id, h.supporting) for h in found.results] == [(stored.id, ["one", "two"])]


async def test_the_router_passes_the_conformance_scenarios() -> None:
    """mnemowire's own conformance harness, every scenario check, on a router over two stores.
    The one skip is documented in docs/architecture.md: a router over several stores does not
    track recalls exactly (its children mark over-fetched hits as recalled)."""
    from contextlib import asynccontextmanager

    from mnemowire.conformance import CHECKS, GENERATING, certify

    @asynccontextmanager
    async def router() -> Any:
        store = MemoryRouter(
            [
                SqliteVecStore(":memory:", embedder=HashEmbedder(64), name="a"),
                SqliteVecStore(":memory:", embedder=HashEmbedder(48), name="b"),
            ]
        )
        try:
            yield store
        finally:
            await store.aclose()

    scenarios = [c.id for c in CHECKS if not c.id.startswith(GENERATING)]
    report = await certify(router, only=scenarios)
    odd = {c["id"]: c["status"] for c in report.data["checks"] if c["status"] != "PASS"}
    assert odd == {"expire.no-recall": "SKIP"}


class EmbedsItself(LimitedStore):
    """A child that takes no query vector and whose embedder the router cannot see (as a
    store over a library that embeds for itself: mem0)."""

    without = frozenset({"query_vector"})

    @property  # type: ignore[override]
    def embedder(self) -> None:  # the router sees none (the refusal comes before any search)
        return None

    @embedder.setter
    def embedder(self, value: Any) -> None:
        object.__setattr__(self, "_hidden_embedder", value)


async def test_a_foreign_query_vector_is_refused_beside_a_child_that_embeds_itself(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    """Only the children that take query vectors judge one: a child that embeds the query
    text itself does not make an unknown embedder's vector acceptable."""
    router = make_router([make_store("takes"), make_store("itself", cls=EmbedsItself)])
    foreign = {"embedder": "no-such-embedder", "vector": [0.5] * 64}
    with pytest.raises(UnsupportedError, match="no-such-embedder"):
        await router.recall({"agent_id": AGENT, "query": "tea", "query_vector": foreign})


async def test_a_batch_needs_a_router_that_can_erase_what_it_wrote(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    """The router makes a batch all or nothing by sending it to every child as one message
    (one transaction there) and erasing what a failed one wrote: without remember_batch and
    hard_delete in every child it cannot, so it does not promise remember_batch."""
    for without in ("hard_delete", "remember_batch"):
        lacking = type("Lacking", (LimitedStore,), {"without": frozenset({without})})
        router = make_router([make_store("full"), make_store(f"no {without}", cls=lacking)])
        assert "remember_batch" not in router.capabilities().capabilities
        batch = {"requests": [{"agent_id": AGENT, "type": "semantic", "content": "tea"}]}
        with pytest.raises(UnsupportedError, match="remember_batch"):
            await router.remember_batch(batch)
