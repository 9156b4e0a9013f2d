"""remember on the pgvector store: ids, replay, pending writes, procedural checks, bad input."""

from __future__ import annotations

import pytest

from mnemowire.adapters.pgvector import PgVectorStore
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConfigError, ConflictError, NotFoundError

from .conftest import Database, StoreFactory


async def test_pending_write_is_invisible_until_approved(make_store: StoreFactory) -> None:
    store = make_store()
    staged = await store.remember(
        {
            "agent_id": "a",
            "type": "semantic",
            "content": "Alice is allergic to peanuts",
            "approval_required": True,
        }
    )
    assert staged.pending_approval is True
    assert (await store.recall({"agent_id": "a", "query": "peanuts"})).results == []
    replay = await store.remember(
        {
            "agent_id": "a",
            "id": staged.id,
            "type": "semantic",
            "content": "Alice is allergic to peanuts",
        }
    )
    assert (replay.replayed, replay.pending_approval) == (True, True)
    decision = {"review_id": staged.id, "approved": True, "reviewer": "r"}
    with pytest.raises(NotFoundError):  # another agent cannot approve it
        await store.decide({**decision, "agent_id": "b"})
    approved = await store.decide({**decision, "agent_id": "a"})
    assert approved.changed_ids == [staged.id]
    found = await store.recall({"agent_id": "a", "query": "peanuts"})
    assert [h.id for h in found.results] == [staged.id]
    with pytest.raises(ConflictError):  # decided once
        await store.decide({**decision, "agent_id": "a"})


async def test_every_field_round_trips_losslessly(make_store: StoreFactory, db: Database) -> None:
    store = make_store()
    episodic = {
        "agent_id": "a",
        "user_id": "alice",
        "type": "episodic",
        "content": "Alice said she was nervous about her flight to Lisbon",
        "metadata": {"topic": "travel", "nested": {"list": [1, 2.5, None, True]}, "big": 2**60},
        "confidence": 0.7,
        "source": "chat:42",
        "expires_at": 9_000_000_000_000,
        "event_time": 1_779_000_000_000,
        "location": "video call",
        "participants": ["alice", "assistant"],
    }
    emotional = {
        "agent_id": "a",
        "user_id": "alice",
        "type": "emotional",
        "content": "Alice expressed anxiety when discussing flights",
        "sentiment": "negative",
        "valence": -0.6,
        "arousal": 0.7,
        "emotion": "anxiety",
        "target": "air travel",
    }
    for request in (episodic, emotional):
        stored = await store.remember(request)
        found = await store.recall(
            {"agent_id": "a", "query": request["content"], "k": 1, "types": [request["type"]]}
        )
        [hit] = found.results
        assert hit.id == stored.id
        wire = hit.model_dump(mode="json", exclude_unset=True)
        for key, value in request.items():
            if key != "agent_id":
                assert wire[key] == value, key
        assert hit.created_at == stored.stored_at
        assert hit.source_store == store.name
        assert hit.supporting == [store.name]
    # every field is a native column (no JSON blob standing in for the record)
    [row] = db.rows(
        "SELECT user_id, type, confidence, source, expires_at, event_time, location, "
        "participants, metadata->'topic' FROM memories WHERE type = 'episodic'"
    )
    assert row == (
        "alice",
        "episodic",
        0.7,
        "chat:42",
        9_000_000_000_000,
        1_779_000_000_000,
        "video call",
        ["alice", "assistant"],
        "travel",
    )


async def test_opening_with_another_embedder_is_a_clear_error(pg_dsn: str, schema: str) -> None:
    async with PgVectorStore(pg_dsn, embedder=HashEmbedder(64), schema=schema):
        pass
    with pytest.raises(ConfigError, match="mnemowire-hash-v1/64"):
        async with PgVectorStore(pg_dsn, embedder=HashEmbedder(32), schema=schema):
            pass
