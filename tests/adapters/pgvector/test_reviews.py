"""The pgvector store's own side of the review queue (the shared side is
tests/adapters/_semantics.py): a schema written before the queue existed lists its staged
records (the application role's rights on the queue: test_durability.py)."""

from __future__ import annotations

import pytest

from mnemowire.embedders import HashEmbedder
from tests.adapters.pgvector.conftest import Database, StoreFactory, schema_version


async def test_a_schema_with_staged_records_from_before_the_queue_lists_them(
    make_store: StoreFactory, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = HashEmbedder(16)
    with schema_version(monkeypatch, 5):
        old = make_store(embedder=embedder)
        await old.inner.open()
        await old.inner.aclose()
    db.execute(
        "INSERT INTO memories (id, agent_id, user_id, type, content, metadata, confidence, "
        "created_at, updated_at, state, embedding, search, participants, location) VALUES "
        "('p1', 'a', 'u', 'episodic', 'old staged', '{\"k\": null}', 0.5, 7, 7, 'pending', "
        "%s::vector, ''::tsvector, '[\"bo\"]', 'Lyon')",
        str([0.25] * 16),
    )
    store = make_store(embedder=embedder)
    [review] = (await store.reviews({"agent_id": "a", "related": 0})).reviews
    assert (review.review_id, review.requested_at, review.staged_by) == ("p1", 7, "caller")
    assert review.request == {
        "agent_id": "a",
        "user_id": "u",
        "type": "episodic",
        "content": "old staged",
        "metadata": {"k": None},  # a null inside metadata is kept, not stripped
        "confidence": 0.5,
        "participants": ["bo"],
        "location": "Lyon",
        "approval_required": True,
    }
    decided = await store.decide(
        {"agent_id": "a", "review_id": "p1", "approved": True, "reviewer": "r"}
    )
    assert decided.changed_ids == ["p1"]
