"""The mem0 store against the real mem0: every wire field read back exactly, scopes exact
whatever mem0 trims, the id map and mem0 never out of step, mem0's failures as spec errors."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.mem0 import Mem0Store
from mnemowire.adapters.mem0._backend import entity
from mnemowire.embedders import HashEmbedder, load_embedder
from mnemowire.errors import ConfigError, ConflictError, NotFoundError, StoreError
from mnemowire.models import RecallRequest
from mnemowire.protocol import QueryEmbedding
from tests.adapters.mem0.conftest import CheckedStore, Clock

EVERY_FIELD: dict[str, Any] = {
    "agent_id": "a",
    "user_id": "u",
    "id": "r-every",
    "type": "emotional",
    "content": "  Alice was thrilled at the concert\n— “encore” 🎉  ",
    "metadata": {"big": 10**30, "nested": {"list": [1, None, 2.5, "x"]}, "é": True},
    "confidence": 0.25,
    "source": "chat",
    "expires_at": 1_900_000_000_000,
    "sentiment": "positive",
    "valence": 0.8,
    "arousal": 0.9,
    "emotion": "joy",
    "target": "the concert",
}


async def test_every_field_is_read_back_exactly(store: CheckedStore, clock: Clock) -> None:
    await store.remember(EVERY_FIELD)
    [hit] = (await store.recall({"agent_id": "a", "query": "concert", "k": 5})).results
    wire = hit.model_dump(by_alias=True, exclude_none=True)
    for field, value in EVERY_FIELD.items():
        if field != "agent_id":
            assert wire[field] == value, field
    assert wire["created_at"] == wire["updated_at"] == clock.now


@pytest.mark.parametrize(("one", "other"), [("a", " a"), ("a b", "a  b"), ("x", "mw~x")])
async def test_agents_mem0_would_confuse_stay_apart(
    store: CheckedStore, one: str, other: str
) -> None:
    """mem0 trims entity ids and refuses inner whitespace: such ids go in under a digest."""
    assert entity(one) != entity(other)
    await store.remember({"agent_id": one, "type": "semantic", "content": "tea for one"})
    await store.remember({"agent_id": other, "type": "semantic", "content": "tea for other"})
    for agent, content in ((one, "tea for one"), (other, "tea for other")):
        hits = (await store.recall({"agent_id": agent, "query": "tea", "k": 5})).results
        assert [h.content for h in hits] == [content]
    user_scoped = {"agent_id": one, "user_id": " u", "type": "semantic", "content": "tea u"}
    await store.remember(user_scoped)
    found = await store.recall({"agent_id": one, "user_id": "u", "query": "tea", "k": 5})
    assert found.results == []


async def test_a_filter_that_keeps_only_the_least_similar_still_gets_k(
    store: CheckedStore,
) -> None:
    """The exact filters run on what mem0 returns, so the store fetches deeper until it has
    k hits or the agent has no more."""
    for i in range(60):
        await store.remember(
            {"agent_id": "a", "type": "semantic", "content": f"green tea number {i}",
             "metadata": {"kind": "tea"}}
        )  # fmt: skip
    for content in ("the motorway was closed", "quarterly tax forms"):
        await store.remember(
            {"agent_id": "a", "type": "semantic", "content": content, "metadata": {"kind": "x"}}
        )
    request = {"agent_id": "a", "query": "green tea", "k": 2, "filter": {"kind": "x"}}
    hits = (await store.recall(request)).results
    assert sorted(h.content for h in hits) == ["quarterly tax forms", "the motorway was closed"]


async def test_dissimilar_records_are_not_dropped(store: CheckedStore) -> None:
    """mem0's search drops negative cosine similarities even at threshold 0.0; recall asks for
    the k nearest, however far."""
    for content in ("Alice likes tea", "Bob fixes bikes", "the sky is blue", "zzz qqq"):
        await store.remember({"agent_id": "a", "type": "semantic", "content": content})
    hits = (await store.recall({"agent_id": "a", "query": "tea", "k": 10})).results
    assert len(hits) == 4
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)


async def test_recall_answers_the_same_twice(store: CheckedStore) -> None:
    for content in ("Alice likes tea", "Bob fixes bikes", "the sky is blue"):
        await store.remember({"agent_id": "a", "type": "semantic", "content": content})
    request = {"agent_id": "a", "query": "tea bikes sky", "k": 5}
    first = [(h.id, h.score) for h in (await store.recall(request)).results]
    assert first == [(h.id, h.score) for h in (await store.recall(request)).results]


async def test_a_row_the_id_map_does_not_name_is_not_a_record(
    raw: Mem0Store, store: CheckedStore
) -> None:
    """A crash between mem0's write and the map's leaves a row no read returns."""
    stray = {"mw_id": "ghost", "mw_type": "semantic", "mw_state": "active",
             "mw_record": '{"agent_id":"a","type":"semantic","metadata":{},"created_at":1,'
                          '"updated_at":1,"confidence":1.0}'}  # fmt: skip
    raw._memory.add("Alice likes tea", agent_id="a", metadata=stray, infer=False)
    assert (await store.recall({"agent_id": "a", "query": "tea", "k": 5})).results == []
    await store.remember({"agent_id": "a", "id": "ghost", "type": "semantic", "content": "x"})


async def test_a_failed_map_write_leaves_no_row(
    raw: Mem0Store, store: CheckedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(raw._ids, "put", broken)
    with pytest.raises(StoreError, match="disk full"):
        await store.remember({"agent_id": "a", "type": "semantic", "content": "Alice likes tea"})
    monkeypatch.undo()
    rows = raw._memory.get_all(filters={"agent_id": "a"}, top_k=100)["results"]
    assert rows == []


async def test_mem0_failures_are_store_errors_naming_the_store(
    raw: Mem0Store, store: CheckedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any, **__: Any) -> None:
        raise RuntimeError("qdrant fell over")

    monkeypatch.setattr(raw._memory, "add", broken)
    with pytest.raises(StoreError) as failed:
        await store.remember({"agent_id": "a", "type": "semantic", "content": "x"})
    assert raw.name in str(failed.value)
    assert "qdrant fell over" in str(failed.value)


async def test_ids_replay_conflict_and_are_never_reused(store: CheckedStore) -> None:
    first = {"agent_id": "a", "id": "r1", "type": "semantic", "content": "tea"}
    await store.remember(first)
    assert (await store.remember(first)).replayed
    with pytest.raises(ConflictError):
        await store.remember({**first, "agent_id": "b"})
    await store.forget({"agent_id": "a", "ids": ["r1"], "hard_delete": True})
    with pytest.raises(ConflictError):
        await store.remember(first)


async def test_pending_writes_stay_invisible_until_approved(store: CheckedStore) -> None:
    staged = {"agent_id": "a", "id": "p1", "type": "semantic", "content": "Alice likes tea",
              "approval_required": True}  # fmt: skip
    assert (await store.remember(staged)).pending_approval
    assert (await store.recall({"agent_id": "a", "query": "tea"})).results == []
    decision = {"review_id": "p1", "approved": True, "reviewer": "r"}
    with pytest.raises(NotFoundError):  # another agent's review
        await store.decide({**decision, "agent_id": "b"})
    assert (await store.decide({**decision, "agent_id": "a"})).changed_ids == ["p1"]
    assert [h.id for h in (await store.recall({"agent_id": "a", "query": "tea"})).results] == ["p1"]


async def test_the_records_survive_a_reopen(tmp_path: Path, clock: Clock) -> None:
    folder = tmp_path / "kept"
    first = Mem0Store(folder, clock=clock)
    try:
        await CheckedStore(first).remember(EVERY_FIELD)
    finally:
        await first.aclose()
    again = Mem0Store(folder, clock=clock)
    try:
        hits = (await CheckedStore(again).recall({"agent_id": "a", "query": "concert"})).results
        assert [(h.id, h.content, h.metadata) for h in hits] == [
            ("r-every", EVERY_FIELD["content"], EVERY_FIELD["metadata"])
        ]
        with pytest.raises(ConflictError):  # the id map came back too
            await CheckedStore(again).remember({**EVERY_FIELD, "content": "other"})
    finally:
        await again.aclose()


async def test_an_operation_whose_caller_gives_up_still_ends_whole(
    raw: Mem0Store, store: CheckedStore
) -> None:
    for i in range(5):
        await store.remember({"agent_id": "a", "id": f"s{i}", "type": "semantic",
                              "content": f"tea {i}"})  # fmt: skip
    ids = [f"s{i}" for i in range(5)]
    call = asyncio.ensure_future(store.forget({"agent_id": "a", "ids": ids}))
    await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await raw.health()  # queued behind the forget on the worker: it has ended
    assert (await store.recall({"agent_id": "a", "query": "tea", "k": 10})).results == []


def test_an_embedder_is_taken_only_when_it_is_mem0s_own_model() -> None:
    with pytest.raises(ConfigError, match="hash"):
        Mem0Store.from_url("mem0://:memory:", embedder=HashEmbedder(64))


async def test_a_hard_forget_leaves_no_copy_of_the_words_on_disk(tmp_path: Path) -> None:
    """mem0's history keeps a deleted memory's text; the store keeps that history in memory,
    so what a hard forget erased is in no file of the store's folder."""
    folder = tmp_path / "erased"
    store = Mem0Store(folder)
    words = "the secret phrase zanzibar-quokka-1729"
    try:
        checked = CheckedStore(store)
        await checked.remember({"agent_id": "a", "id": "s1", "type": "semantic", "content": words})
        await checked.update({"agent_id": "a", "id": "s1", "expected_version": 1,
                              "content": words + " (edited)"})  # fmt: skip
        await checked.forget({"agent_id": "a", "ids": ["s1"], "hard_delete": True})
    finally:
        await store.aclose()
    holding = [p for p in folder.rglob("*") if p.is_file() and b"zanzibar" in p.read_bytes()]
    assert holding == []


async def test_get_list_and_update_over_mem0(store: CheckedStore, clock: Clock) -> None:
    for i in range(5):
        await store.remember({"agent_id": "a", "id": f"r{i}", "type": "semantic",
                              "content": f"note {i}", "metadata": {"i": i}})  # fmt: skip
        clock.advance(ms=1)
    got = await store.get({"agent_id": "a", "ids": ["r3", "nope", "r1"]})
    assert [r.id for r in got.records] == ["r3", "r1"]
    assert got.missing == ["nope"]
    pages, cursor = [], None
    while True:
        request = {"agent_id": "a", "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = await store.list(request)
        pages.append([r.id for r in page.records])
        cursor = page.next_cursor
        if cursor is None:
            break
    assert pages == [["r4", "r3"], ["r2", "r1"], ["r0"]]
    updated = await store.update(
        {"agent_id": "a", "id": "r2", "expected_version": 1, "content": "note two"}
    )
    assert (updated.version, updated.updated) == (2, ["content"])
    [record] = (await store.get({"agent_id": "a", "ids": ["r2"]})).records
    assert (record.content, record.version) == ("note two", 2)
    hits = (await store.recall({"agent_id": "a", "query": "note two", "k": 1})).results
    assert [h.id for h in hits] == ["r2"]  # mem0 embedded the new content


async def test_a_routers_vector_of_the_same_model_is_used_another_is_not(raw: Mem0Store) -> None:
    """A router embeds a query once for its children; mem0's model is all-MiniLM-L6-v2, so a
    vector of that model stands for the query, and one of another embedder is left aside."""
    checked = CheckedStore(raw)
    for content in ("Alice likes tea", "Bob fixes bikes"):
        await checked.remember({"agent_id": "a", "type": "semantic", "content": content})
    minilm = load_embedder("minilm")
    bikes = minilm.embed(["repairing a bicycle"])
    request = RecallRequest(agent_id="a", query="tea", k=1)
    same = await raw.recall(request, query_vector=QueryEmbedding(minilm.name, bikes))
    assert [h.content for h in same.results] == ["Bob fixes bikes"]
    other = await raw.recall(request, query_vector=QueryEmbedding("hash-64", bikes))
    assert [h.content for h in other.results] == ["Alice likes tea"]
