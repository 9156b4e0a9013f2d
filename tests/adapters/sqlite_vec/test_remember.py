"""remember on the sqlite-vec store: ids, replay, pending writes, procedural checks, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConfigError

from .conftest import StoreFactory


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
    approved = await store.decide(
        {"agent_id": "a", "review_id": staged.id, "approved": True, "reviewer": "r"}
    )
    assert approved.changed_ids == [staged.id]
    found = await store.recall({"agent_id": "a", "query": "peanuts"})
    assert [h.id for h in found.results] == [staged.id]


async def test_every_field_round_trips_losslessly(make_store: StoreFactory) -> None:
    store = make_store()
    episodic = {
        "agent_id": "a",
        "user_id": "alice",
        "type": "episodic",
        "content": "Alice said she was nervous about her flight to Lisbon",
        "metadata": {"topic": "travel", "nested": {"list": [1, 2.5, None, True]}},
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


async def test_opening_with_another_embedder_is_a_clear_error(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    store = SqliteVecStore(path, embedder=HashEmbedder(64))
    await store.aclose()
    with pytest.raises(ConfigError, match="mnemowire-hash-v1/64"):
        SqliteVecStore(path, embedder=HashEmbedder(32))
