"""The validating boundary (mnemowire.layers.validating): a request is validated against its
schema once per crossing, whatever sits behind it, and nothing invalid gets through either way.

Validations are counted on the compiled validators themselves, so every path that validates
anything (``spec.check``, ``spec.validate``, a store, the router) is seen."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import HashEmbedder, Vectors
from mnemowire.errors import ConflictError, RequestError, StoreError, UnsupportedError
from mnemowire.layers.memory import Memory
from mnemowire.layers.router import MemoryRouter
from mnemowire.layers.validating import ValidatingStore, batch_ceiling, parse_request
from mnemowire.models import (
    Capabilities,
    ListRequest,
    RecallHit,
    RecallRequest,
    RecallResponse,
    RememberBatchRequest,
    RememberBatchResponse,
    RememberRequest,
    v0,
)
from mnemowire.protocol import QueryEmbedding
from mnemowire.spec._validate import Validator

AGENT = "agent-1"
FACTS = ["Alice likes green tea", "Bob fixes bikes", "Carol grows tomatoes"]


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each message was validated (by any path) while the test ran."""
    seen: Counter[str] = Counter()
    is_valid = Validator.is_valid  # where every validation starts (envelope asks it first)

    def counted(self: Validator, payload: Any) -> bool:
        seen[self.message] += 1
        return is_valid(self, payload)

    monkeypatch.setattr(Validator, "is_valid", counted)
    return seen


@pytest.fixture
async def stores() -> AsyncIterator[list[SqliteVecStore]]:
    opened = [
        SqliteVecStore(":memory:", embedder=HashEmbedder(64), name=name) for name in ("a", "b")
    ]
    yield opened
    for store in opened:
        await store.aclose()


async def test_one_recall_over_a_two_store_router_validates_its_request_once(
    stores: list[SqliteVecStore], validations: Counter[str]
) -> None:
    memory = Memory(MemoryRouter(stores))
    for fact in FACTS:
        await memory.remember({"agent_id": AGENT, "type": "semantic", "content": fact})
    assert validations["remember.request"] == len(FACTS)
    validations.clear()

    found = await memory.recall({"agent_id": AGENT, "query": "tea", "k": 2})

    assert found.results
    assert validations["recall.request"] == 1  # at the boundary; the router and stores trust it
    # three different messages, each checked once where it crosses: each child's answer at
    # the router (so one broken child is that child's invalid_response), the fused answer at
    # the boundary
    assert validations["recall.response"] == 3
    assert set(validations) == {"recall.request", "recall.response"}


async def test_one_recall_over_one_store_validates_request_and_answer_once(
    stores: list[SqliteVecStore], validations: Counter[str]
) -> None:
    memory = Memory(stores[0])
    await memory.remember({"agent_id": AGENT, "type": "semantic", "content": FACTS[0]})
    validations.clear()
    await memory.recall(RecallRequest(agent_id=AGENT, query="tea"))  # a model is checked too
    assert validations == Counter({"recall.request": 1, "recall.response": 1})


async def test_a_store_called_directly_validates_nothing(
    stores: list[SqliteVecStore], validations: Counter[str]
) -> None:
    store = stores[0]
    await store.remember(RememberRequest(agent_id=AGENT, type="semantic", content=FACTS[0]))
    await store.recall(RecallRequest(agent_id=AGENT, query="tea"))
    assert validations == Counter()


async def test_a_bad_request_is_refused_naming_the_field_and_changes_nothing(
    stores: list[SqliteVecStore],
) -> None:
    memory = Memory(stores[0])
    bad: list[tuple[dict[str, Any], str, str]] = [
        ({"agent_id": AGENT, "type": "semantic", "content": ""}, "/content", "minLength"),
        ({"agent_id": AGENT, "type": "factual", "content": "x"}, "/type", "enum"),
        (
            {"agent_id": AGENT, "type": "semantic", "content": "x", "colour": 1},
            "/colour",
            "additional",
        ),
    ]
    for request, path, rule in bad:
        with pytest.raises(RequestError) as caught:
            await memory.remember(request)
        assert caught.value.code == "invalid_request"
        assert any(d["path"] == path and rule in d["rule"] for d in caught.value.details), (
            caught.value.details
        )
    found = await memory.recall({"agent_id": AGENT, "query": "x", "k": 10})
    assert found.results == []


async def test_a_model_built_without_validation_is_still_checked(
    stores: list[SqliteVecStore],
) -> None:
    forged = RecallRequest.model_construct(agent_id=AGENT, query="tea", k=5000)
    with pytest.raises(RequestError) as caught:
        await Memory(stores[0]).recall(forged)
    assert [d["path"] for d in caught.value.details] == ["/k"]


async def test_what_is_not_an_object_is_refused_as_a_request() -> None:
    with pytest.raises(RequestError) as caught:
        parse_request(RecallRequest, ["agent_id", "query"])  # type: ignore[arg-type]
    assert caught.value.details[0]["rule"] == "type"
    with pytest.raises(TypeError, match="not a request model"):
        parse_request(RecallResponse, {})


async def test_a_bulk_import_with_one_bad_request_stores_nothing(
    stores: list[SqliteVecStore],
) -> None:
    boundary = ValidatingStore(stores[0])
    requests: list[dict[str, Any]] = [
        {"agent_id": AGENT, "type": "semantic", "content": fact} for fact in FACTS
    ]
    requests[2] = {**requests[2], "confidence": 7}
    with pytest.raises(RequestError) as caught:
        await boundary.remember_many(requests)
    assert [d["path"] for d in caught.value.details] == ["/2/confidence"]
    assert (await boundary.recall({"agent_id": AGENT, "query": "tea", "k": 10})).results == []
    stored = await boundary.remember_many(requests[:2], batch_size=1)
    assert len(stored) == 2


def facts(count: int, **fields: Any) -> list[dict[str, Any]]:
    return [
        {"agent_id": AGENT, "type": "semantic", "content": f"fact {i}", **fields}
        for i in range(count)
    ]


async def test_a_bulk_import_is_remember_batch_in_chunks_validated_once(
    stores: list[SqliteVecStore], validations: Counter[str]
) -> None:
    """Through a router too (it serves remember_batch): each request validated once, each
    chunk's answer held to remember_batch.response, no batch validated again as a whole."""
    memory = Memory(MemoryRouter(stores))
    stored = await memory.remember_many(facts(5), batch_size=2)
    assert len({r.id for r in stored}) == 5
    assert validations["remember.request"] == 5
    assert validations["remember_batch.request"] == 0
    assert validations["remember_batch.response"] == 3 + 2 * 3  # and the router's checks
    for store in stores:
        listed = await store.list(ListRequest(agent_id=AGENT))
        assert sorted(r.id for r in listed.records) == sorted(r.id for r in stored)


async def test_a_bulk_import_chunk_is_at_most_the_specs_batch(
    stores: list[SqliteVecStore],
) -> None:
    ceiling = batch_ceiling()
    [limit] = [
        m.max_length
        for m in RememberBatchRequest.model_fields["requests"].metadata
        if hasattr(m, "max_length")
    ]
    assert ceiling == limit == 1000  # the schema's maxItems, as the model has it
    boundary = ValidatingStore(stores[0])
    for wrong in (0, ceiling + 1):
        with pytest.raises(ValueError, match=f"batch_size must be 1..{ceiling}"):
            await boundary.remember_many(facts(1), batch_size=wrong)
    with pytest.raises(ValueError, match="concurrency"):
        await boundary.remember_many(facts(1), concurrency=0)
    with pytest.raises(ValueError, match=r"shape \(2, 64\)"):
        await boundary.remember_many(facts(2), vectors=np.zeros((3, 64), np.float32))
    assert (await stores[0].list(ListRequest(agent_id=AGENT))).records == []


async def test_a_failed_chunk_keeps_the_chunks_before_it_and_names_its_request(
    stores: list[SqliteVecStore],
) -> None:
    boundary = ValidatingStore(stores[0])
    await boundary.remember({"agent_id": AGENT, "id": "taken", "type": "semantic", "content": "x"})
    requests = facts(3)
    requests.append({**requests[0], "id": "taken", "content": "another"})
    with pytest.raises(ConflictError) as caught:
        await boundary.remember_many(requests, batch_size=2)
    assert str(caught.value).startswith("request 3: ")
    assert "requests 2..3 were not written" in str(caught.value)
    assert [d["path"] for d in caught.value.details] == ["/3"]
    listed = await stores[0].list(ListRequest(agent_id=AGENT))
    assert sorted(r.content for r in listed.records) == ["fact 0", "fact 1", "x"]


class Counting(SqliteVecStore):
    """Counts the remember_batch calls in flight at once (``most``)."""

    running = most = 0

    async def remember_batch(
        self, request: RememberBatchRequest, *, vectors: Vectors | None = None
    ) -> RememberBatchResponse:
        self.running += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(0.01)
        try:
            return await super().remember_batch(request, vectors=vectors)
        finally:
            self.running -= 1


class Dropping(SqliteVecStore):
    """Answers a batch with one result fewer than it had requests."""

    async def remember_batch(
        self, request: RememberBatchRequest, *, vectors: Vectors | None = None
    ) -> RememberBatchResponse:
        answer = await super().remember_batch(request, vectors=vectors)
        return answer.model_copy(update={"results": answer.results[1:]})


async def test_chunks_run_concurrently_unless_an_id_repeats() -> None:
    store = Counting(":memory:", embedder=HashEmbedder(64))
    async with store:
        boundary = ValidatingStore(store)
        vectors = np.eye(64, dtype=np.float32)[:6]
        requests = [{**fact, "id": f"r{i}"} for i, fact in enumerate(facts(6))]
        stored = await boundary.remember_many(
            requests, batch_size=1, concurrency=3, vectors=vectors
        )
        assert (store.most, [r.id for r in stored]) == (3, [f"r{i}" for i in range(6)])
        store.most = 0
        again = [{**r, "id": "same"} for r in facts(4)[:1] * 4]
        replayed = await boundary.remember_many(again, batch_size=1, concurrency=3)
        assert store.most == 1
        assert [bool(r.replayed) for r in replayed] == [False, True, True, True]


async def test_a_store_answering_too_few_results_is_a_store_error() -> None:
    async with Dropping(":memory:", embedder=HashEmbedder(64)) as store:
        with pytest.raises(StoreError, match="1 results to a remember_batch of 2"):
            await ValidatingStore(store).remember_many(facts(2))


class NoBatch(SqliteVecStore):
    def capabilities(self) -> Capabilities:
        declared = super().capabilities()
        kept = [c for c in declared.capabilities if c != "remember_batch"]
        return declared.model_copy(update={"capabilities": kept})


async def test_a_store_without_remember_batch_or_an_embedder_says_so(
    stores: list[SqliteVecStore],
) -> None:
    async with NoBatch(":memory:", embedder=HashEmbedder(64)) as store:
        with pytest.raises(UnsupportedError, match="one by one"):
            await ValidatingStore(store).remember_many(facts(1))
    routed = ValidatingStore(MemoryRouter(stores))
    with pytest.raises(UnsupportedError, match="leave vectors out"):
        await routed.remember_many(facts(1), vectors=np.zeros((1, 64), np.float32))


class Crashing(SqliteVecStore):
    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        raise KeyError("a bug")


class Scoreless(SqliteVecStore):
    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        found = await super().recall(request, query_vector=query_vector)
        hits = [
            RecallHit.model_construct(**{k: v for k, v in h.model_dump().items() if k != "score"})
            for h in found.results
        ]
        return found.model_copy(update={"results": hits})


@pytest.mark.parametrize(
    ("cls", "says"), [(Crashing, "KeyError"), (Scoreless, "invalid recall.response")]
)
async def test_a_store_bug_reaches_the_caller_as_a_spec_error(
    cls: type[SqliteVecStore], says: str
) -> None:
    async with cls(":memory:", embedder=HashEmbedder(64), name="buggy") as store:
        memory = Memory(store)
        await memory.remember({"agent_id": AGENT, "type": "semantic", "content": FACTS[0]})
        with pytest.raises(StoreError, match=says) as caught:
            await memory.recall({"agent_id": AGENT, "query": "tea"})
    assert caught.value.code == "store_error"


async def test_json_handed_to_a_store_directly_says_where_json_goes(
    stores: list[SqliteVecStore],
) -> None:
    with pytest.raises(TypeError, match=r"Memory\(store\)"):
        await stores[0].remember({"agent_id": AGENT, "type": "semantic", "content": "x"})  # type: ignore[arg-type]


class V0Store(SqliteVecStore):
    """A store that speaks spec v0 only (what a third-party v0 adapter declares)."""

    def capabilities(self) -> Capabilities:
        declared = super().capabilities().capabilities
        kept = [c for c in declared if c in set(v0.Capability)]
        return Capabilities(store=self.name, spec_version="v0", capabilities=kept)


async def test_a_v0_store_refuses_a_v0_1_field_by_name_and_keeps_serving_v0(
    validations: Counter[str],
) -> None:
    """[compat.negotiation]: never a silent drop; the message names the field and versions."""
    async with Memory(V0Store(":memory:", embedder=HashEmbedder(64))) as memory:
        assert memory.version == "v0"
        sealed = {"agent_id": AGENT, "id": "m-1", "type": "semantic", "content": "x",
                  "seal": {"alg": "hmac-sha256", "key_id": "k", "mac": "ab" * 32}}  # fmt: skip
        with pytest.raises(RequestError) as refused:
            await memory.remember(sealed)
        message = str(refused.value)
        assert "/seal" in message
        assert "spec v0," in message
        assert "v0.1" in message
        assert refused.value.envelope["details"][0]["path"] == "/seal"
        with pytest.raises(RequestError) as wrong:  # wrong under every version: said as it is
            await memory.remember({**sealed, "content": ""})
        assert "v0.1" not in str(wrong.value)
        with pytest.raises(UnsupportedError, match=r"v0\.1"):
            await memory.get({"agent_id": AGENT, "ids": ["m-1"]})
        plain = {k: v for k, v in sealed.items() if k != "seal"}
        stored = await memory.remember({**plain, "id": "m-2"})
        assert stored.id == "m-2"


async def test_a_v0_1_operation_a_store_does_not_declare_is_unsupported() -> None:
    class NoList(SqliteVecStore):
        def capabilities(self) -> Capabilities:
            declared = [c for c in super().capabilities().capabilities if c != "list"]
            return Capabilities(store=self.name, spec_version="v0.1", capabilities=declared)

    async with Memory(NoList(":memory:", embedder=HashEmbedder(64))) as memory:
        with pytest.raises(UnsupportedError, match="list"):
            await memory.list({"agent_id": AGENT})
