"""The cognee store against the real cognee: every wire field read back exactly, scopes exact
and filtered inside cognee, the id map and cognee's items never out of step, a changed record
one item, cognee's failures as spec errors."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.cognee import COGNEE, CogneeStore
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import (
    ConfigError,
    ConflictError,
    NotFoundError,
    StoreError,
    UnsupportedError,
)
from tests.adapters._semantics_reviews import a_policy_file_on_the_url_stages_writes
from tests.adapters.cognee.conftest import CheckedStore, Clock

EVERY_FIELD: dict[str, Any] = {
    "agent_id": " a ü ",
    "user_id": "u\t1",
    "id": "r-every",
    "type": "emotional",
    "content": "  Alice was thrilled at the concert\n— “encore” 🎉  ",
    "metadata": {"big": 10**30, "nested": {"list": [1, None, 2.5, "x"]}, "é": True},
    "confidence": 0.123456789,
    "source": " chat ",
    "expires_at": 1_900_000_000_000,
    "sentiment": "positive",
    "valence": 0.8,
    "arousal": 0.9,
    "emotion": "joy",
    "target": "the concert",
}


def _items(raw: CogneeStore) -> list[Any]:
    """Every item of the store's dataset, as cognee lists it."""
    return COGNEE.worker.submit(raw._rows).result()


async def test_every_field_is_read_back_exactly(store: CheckedStore, clock: Clock) -> None:
    await store.remember(EVERY_FIELD)
    scope = {"agent_id": EVERY_FIELD["agent_id"], "user_id": EVERY_FIELD["user_id"]}
    [hit] = (await store.recall({**scope, "query": "concert", "k": 5})).results
    [record] = (await store.get({**scope, "ids": ["r-every"]})).records
    for answer in (hit, record):
        wire = answer.model_dump(by_alias=True, exclude_none=True)
        for field, value in EVERY_FIELD.items():
            if field != "agent_id":
                assert wire[field] == value, field
        assert wire["created_at"] == wire["updated_at"] == clock.now


async def test_text_that_looks_like_a_path_or_a_url_is_kept_as_text(store: CheckedStore) -> None:
    """cognee reads a file or fetches a page for such a string unless told it is text."""
    for content in ("/etc/hostname", "https://example.invalid/page", "file:///etc/passwd"):
        await store.remember({"agent_id": "a", "type": "semantic", "content": content})
    listed = await store.list({"agent_id": "a"})
    assert sorted(r.content for r in listed.records) == sorted(
        ["/etc/hostname", "https://example.invalid/page", "file:///etc/passwd"]
    )


async def test_scopes_are_exact_inside_cognee(store: CheckedStore) -> None:
    """Agent, user and types are node sets cognee filters on before it ranks: a recall
    returns k hits of its scope however many nearer records other scopes hold."""
    for i in range(12):
        await store.remember(
            {"agent_id": "a", "type": "semantic", "content": f"green tea number {i}"}
        )
    await store.remember({"agent_id": " a", "type": "semantic", "content": "green tea, other"})
    await store.remember({"agent_id": "a", "user_id": "u", "type": "episodic",
                          "content": "tax forms", "event_time": 1})  # fmt: skip
    await store.remember({"agent_id": "a", "user_id": "u", "type": "semantic",
                          "content": "the motorway was closed"})  # fmt: skip
    user = await store.recall({"agent_id": "a", "user_id": "u", "query": "green tea", "k": 2})
    assert sorted(h.content for h in user.results) == ["tax forms", "the motorway was closed"]
    typed = await store.recall(
        {"agent_id": "a", "query": "green tea", "k": 3, "types": ["episodic"]}
    )
    assert [h.content for h in typed.results] == ["tax forms"]
    other = await store.recall({"agent_id": " a", "query": "green tea", "k": 5})
    assert [h.content for h in other.results] == ["green tea, other"]


async def test_a_filter_that_keeps_only_the_least_similar_still_gets_k(
    store: CheckedStore,
) -> None:
    """Metadata filters run on what cognee returns, so the store searches deeper until it
    has k hits or the scope has no more."""
    for i in range(25):
        await store.remember({"agent_id": "a", "type": "semantic",
                              "content": f"green tea number {i}",
                              "metadata": {"kind": "tea"}})  # fmt: skip
    for content in ("the motorway was closed", "quarterly tax forms"):
        await store.remember(
            {"agent_id": "a", "type": "semantic", "content": content, "metadata": {"kind": "x"}}
        )
    request = {"agent_id": "a", "query": "green tea", "k": 2, "filter": {"kind": "x"}}
    hits = (await store.recall(request)).results
    assert sorted(h.content for h in hits) == ["quarterly tax forms", "the motorway was closed"]


async def test_a_long_memory_is_one_record_ranked_by_its_best_chunk(store: CheckedStore) -> None:
    filler = " ".join(f"word{i}" for i in range(600))  # several chunks of 254 tokens
    long = f"{filler} The password of the staging database rotates every Monday."
    await store.remember({"agent_id": "a", "id": "long", "type": "semantic", "content": long})
    await store.remember({"agent_id": "a", "type": "semantic", "content": "Bob likes chess"})
    hits = (await store.recall({"agent_id": "a", "query": "staging database password"})).results
    assert [h.id for h in hits][:1] == ["long"]
    assert [h.id for h in hits].count("long") == 1
    assert hits[0].content == long


async def test_recall_answers_the_same_twice(store: CheckedStore) -> None:
    for content in ("Alice likes tea", "Bob fixes bikes", "the sky is blue"):
        await store.remember({"agent_id": "a", "type": "semantic", "content": content})
    request = {"agent_id": "a", "query": "tea bikes sky", "k": 5}
    first = [(h.id, h.score) for h in (await store.recall(request)).results]
    assert first == [(h.id, h.score) for h in (await store.recall(request)).results]


async def test_an_item_the_id_map_does_not_name_is_not_a_record(
    raw: CogneeStore, store: CheckedStore
) -> None:
    """A crash between cognee's write and the map's leaves an item no read returns."""
    ghost = {"id": "ghost", "agent_id": "a", "type": "semantic", "content": "Alice likes tea",
             "metadata": {}, "confidence": 1.0, "created_at": 1, "updated_at": 1,
             "state": "active", "version": 1}  # fmt: skip
    COGNEE.worker.submit(raw._add, ghost).result()
    assert (await store.recall({"agent_id": "a", "query": "tea", "k": 5})).results == []
    assert (await store.list({"agent_id": "a"})).records == []
    await store.remember({"agent_id": "a", "id": "ghost", "type": "semantic", "content": "x"})


async def test_a_failed_map_write_leaves_no_item(
    raw: CogneeStore, store: CheckedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(raw._ids, "put", broken)
    with pytest.raises(StoreError, match="disk full"):
        await store.remember({"agent_id": "a", "type": "semantic", "content": "Alice likes tea"})
    monkeypatch.undo()
    assert _items(raw) == []


async def test_cognee_failures_are_store_errors_naming_the_store(
    raw: CogneeStore, store: CheckedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cognee

    async def broken(*_: Any, **__: Any) -> None:
        raise RuntimeError("lancedb fell over")

    monkeypatch.setattr(cognee, "add", broken)
    with pytest.raises(StoreError) as failed:
        await store.remember({"agent_id": "a", "type": "semantic", "content": "x"})
    assert raw.name in str(failed.value)
    assert "lancedb fell over" in str(failed.value)


async def test_ids_replay_conflict_and_are_never_reused(store: CheckedStore) -> None:
    first = {"agent_id": "a", "id": "r1", "type": "semantic", "content": "tea"}
    await store.remember(first)
    assert (await store.remember(first)).replayed
    with pytest.raises(ConflictError):
        await store.remember({**first, "agent_id": "b"})
    await store.forget({"agent_id": "a", "ids": ["r1"]})
    with pytest.raises(ConflictError):  # a forgotten record's id is not free again
        await store.remember({**first, "content": "coffee"})


async def test_a_changed_record_is_one_new_item_and_the_old_one_is_gone(
    raw: CogneeStore, store: CheckedStore
) -> None:
    """cognee cannot change an item: the store adds the changed record, moves the id map to
    it, then forgets the old item."""
    staged = {"agent_id": "a", "id": "p1", "type": "semantic", "content": "Alice likes tea",
              "approval_required": True}  # fmt: skip
    assert (await store.remember(staged)).pending_approval
    assert (await store.recall({"agent_id": "a", "query": "tea"})).results == []
    before = [str(item.id) for item in _items(raw)]
    decision = {"review_id": "p1", "approved": True, "reviewer": "r"}
    with pytest.raises(NotFoundError):  # another agent's review
        await store.decide({**decision, "agent_id": "b"})
    assert (await store.decide({**decision, "agent_id": "a"})).changed_ids == ["p1"]
    after = [str(item.id) for item in _items(raw)]
    assert len(before) == len(after) == 1
    assert before != after
    await store.update({"agent_id": "a", "id": "p1", "expected_version": 1,
                        "content": "Alice likes coffee"})  # fmt: skip
    hits = (await store.recall({"agent_id": "a", "query": "coffee"})).results
    assert [(h.id, h.content) for h in hits] == [("p1", "Alice likes coffee")]
    assert len(_items(raw)) == 1


async def test_the_records_survive_a_reopen(tmp_path: Path, clock: Clock) -> None:
    folder = tmp_path / "kept"
    first = CogneeStore(folder, clock=clock)
    try:
        await CheckedStore(first).remember(EVERY_FIELD)
    finally:
        await first.aclose()
    again = CogneeStore(folder, clock=clock)
    try:
        scope = {"agent_id": EVERY_FIELD["agent_id"], "user_id": EVERY_FIELD["user_id"]}
        hits = (await CheckedStore(again).recall({**scope, "query": "concert"})).results
        assert [(h.id, h.content, h.metadata) for h in hits] == [
            ("r-every", EVERY_FIELD["content"], EVERY_FIELD["metadata"])
        ]
        with pytest.raises(ConflictError):  # the id map came back too
            await CheckedStore(again).remember({**EVERY_FIELD, "content": "other"})
        with pytest.raises(ConfigError, match="one folder per process"):
            CogneeStore(tmp_path / "another")
    finally:
        await again.aclose()


async def test_an_operation_whose_caller_gives_up_still_ends_whole(
    raw: CogneeStore, store: CheckedStore
) -> None:
    for i in range(3):
        await store.remember({"agent_id": "a", "id": f"s{i}", "type": "semantic",
                              "content": f"tea {i}"})  # fmt: skip
    ids = [f"s{i}" for i in range(3)]
    call = asyncio.ensure_future(store.forget({"agent_id": "a", "ids": ids}))
    await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await raw.health()  # queued behind the forget on the worker: it has ended
    assert (await store.recall({"agent_id": "a", "query": "tea", "k": 10})).results == []


def test_an_embedder_is_taken_only_when_it_is_the_model_cognee_is_given() -> None:
    with pytest.raises(ConfigError, match="hash"):
        CogneeStore.from_url("cognee://:memory:", embedder=HashEmbedder(64))
    with pytest.raises(ConfigError, match="dataset"):
        CogneeStore.from_url("cognee://:memory:?dataset=a.b")


async def test_a_policy_file_on_the_url_stages_writes_and_is_declared(tmp_path: Path) -> None:
    await a_policy_file_on_the_url_stages_writes(
        lambda policy: CogneeStore.from_url(f"cognee://:memory:?policy={policy}"), tmp_path
    )


async def test_hard_delete_is_not_declared_because_cognee_keeps_the_words(
    raw: CogneeStore, store: CheckedStore
) -> None:
    """cognee's ``forget`` removes an item's row, text file, chunks and vectors, but its
    pipeline-run log keeps what was added and its search history what was found: the store
    cannot erase a record, so it refuses a hard forget rather than half-do it. If cognee ever
    stops keeping them, this test fails and the store can declare hard_delete."""
    words = f"the secret phrase zanzibar-quokka-{uuid.uuid4().hex[:6]}"
    await store.remember({"agent_id": "a", "id": "s1", "type": "semantic", "content": words})
    await store.recall({"agent_id": "a", "query": "secret"})
    with pytest.raises(UnsupportedError, match="hard_delete"):
        await store.forget({"agent_id": "a", "ids": ["s1"], "hard_delete": True})
    mapped = raw._ids.get("s1")
    assert mapped is not None
    assert mapped.backend_id is not None
    COGNEE.worker.submit(raw._forget_item, mapped.backend_id).result()  # cognee's own forget
    assert _items(raw) == []
    database = Path(COGNEE.scratch()) / "system" / "databases" / "cognee_db"
    assert words.encode() in database.read_bytes()
