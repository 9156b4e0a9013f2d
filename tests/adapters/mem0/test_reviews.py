"""The review queue of a document store (kit._document_reviews) on the real mem0: what the
conformance checks cannot see from outside. The queue lives beside mem0 in the id map's
SQLite: it survives a reopen, a hard rejection leaves no content in it, a decision that
cannot apply leaves its review pending, and records staged before the queue existed are
queued when the agent's queue is first read. A staging policy given on the URL stages what its
rules match, as on every store (tests/adapters/_semantics_reviews.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.mem0 import Mem0Store
from mnemowire.errors import ConflictError, NotFoundError
from mnemowire.models import DecideRequest
from tests.adapters._semantics_reviews import (
    a_policy_file_on_the_url_stages_writes,
    test_a_review_id_names_one_staged_write_whoever_staged_it,
    test_a_staging_policy_stages_what_it_matches_and_says_which_rule,
    test_an_update_cannot_carry_a_write_past_the_staging_policy,
)
from tests.adapters.mem0.conftest import CheckedStore, Clock

__all__ = [
    "test_a_review_id_names_one_staged_write_whoever_staged_it",
    "test_a_staging_policy_stages_what_it_matches_and_says_which_rule",
    "test_an_update_cannot_carry_a_write_past_the_staging_policy",
]

SECRET = "Dana's door code is 4417"


def ids_db(folder: Path) -> Path:
    return folder / "mnemowire-ids.db"


async def pending(store: CheckedStore, agent: str = "a") -> list[str]:
    return [r.review_id for r in (await store.reviews({"agent_id": agent})).reviews]


async def test_a_staged_forget_survives_a_reopen_and_is_decided_after(
    tmp_path: Path, clock: Clock
) -> None:
    folder = tmp_path / "kept"
    first = CheckedStore(Mem0Store(folder, clock=clock))
    try:
        kept = (await first.remember({"agent_id": "a", "type": "semantic", "content": "x"})).id
        staged = await first.forget({"agent_id": "a", "ids": [kept], "approval_required": True})
    finally:
        await first.aclose()
    again = CheckedStore(Mem0Store(folder, clock=clock))
    try:
        [review] = (await again.reviews({"agent_id": "a"})).reviews
        assert review.review_id == staged.review_id
        assert [r.id for r in review.diff.removed] == [kept]
        await again.decide(
            {"agent_id": "a", "review_id": staged.review_id, "approved": True, "reviewer": "r"}
        )
        assert (await again.get({"agent_id": "a", "ids": [kept]})).records == []
    finally:
        await again.aclose()


async def test_a_hard_rejection_leaves_no_content_in_the_queue(
    raw: Mem0Store, store: CheckedStore, tmp_path: Path
) -> None:
    staged = (
        await store.remember(
            {"agent_id": "a", "type": "semantic", "content": SECRET, "approval_required": True}
        )
    ).id
    rejected = await store.decide(
        {"agent_id": "a", "review_id": staged, "approved": False, "reviewer": "r"}
    )
    assert rejected.changed_ids == [staged]
    with sqlite3.connect(ids_db(tmp_path / "mem0")) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = connection.execute("SELECT request, state FROM reviews").fetchall()
    assert rows == [("{}", "rejected")]
    stored = b"".join(
        p.read_bytes() for p in (tmp_path / "mem0").glob("mnemowire-ids.db*") if p.is_file()
    )
    assert SECRET.encode() not in stored
    with pytest.raises(ConflictError):
        await store.decide(
            {"agent_id": "a", "review_id": staged, "approved": True, "reviewer": "r"}
        )


async def test_a_decision_that_cannot_apply_leaves_the_review_pending(
    store: CheckedStore,
) -> None:
    target = (await store.remember({"agent_id": "a", "type": "semantic", "content": "tea"})).id
    staged = (
        await store.remember(
            {"agent_id": "a", "type": "semantic", "content": "green tea",
             "approval_required": True}
        )
    ).id  # fmt: skip
    await store.forget({"agent_id": "a", "ids": [target]})
    with pytest.raises(NotFoundError):
        await store.decide(
            {"agent_id": "a", "review_id": staged, "approved": True, "merge_into": target,
             "reviewer": "r"}
        )  # fmt: skip
    assert await pending(store) == [staged]
    assert (await store.recall({"agent_id": "a", "query": "green tea"})).results == []


async def test_records_staged_before_the_queue_are_queued_when_it_is_read(
    tmp_path: Path, clock: Clock
) -> None:
    folder = tmp_path / "older"
    first = CheckedStore(Mem0Store(folder, clock=clock))
    try:
        staged = (
            await first.remember(
                {"agent_id": "a", "user_id": "u", "type": "semantic", "content": "old write",
                 "approval_required": True}
            )
        ).id  # fmt: skip
    finally:
        await first.aclose()
    with sqlite3.connect(ids_db(folder)) as connection:  # a map made before the queue
        connection.execute("DROP TABLE reviews")
    again = CheckedStore(Mem0Store(folder, clock=clock))
    try:
        [review] = (await again.reviews({"agent_id": "a"})).reviews
        assert review.review_id == staged
        assert review.request == {
            "agent_id": "a", "user_id": "u", "id": staged, "type": "semantic",
            "content": "old write", "metadata": {}, "confidence": 1.0,
            "approval_required": True,
        }  # fmt: skip
        assert review.staged_by == "caller"
        await again.decide(
            {"agent_id": "a", "review_id": staged, "approved": True, "reviewer": "r"}
        )
        hits = (await again.recall({"agent_id": "a", "query": "old write"})).results
        assert [h.id for h in hits] == [staged]
    finally:
        await again.aclose()


async def test_a_decision_cut_short_is_finished_once_before_the_queue_is_next_read(
    raw: Mem0Store, store: CheckedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash between a merge's two writes (the canonical written, the staged record not)
    leaves the review deciding; the next read finishes it, joining the content once."""
    target = (await store.remember({"agent_id": "a", "type": "semantic", "content": "tea"})).id
    staged = (
        await store.remember(
            {"agent_id": "a", "type": "semantic", "content": "green tea",
             "approval_required": True}
        )
    ).id  # fmt: skip
    rewrite, writes = raw._rewrite, []

    def dies_on_the_second(record: Any, **kwargs: Any) -> None:
        writes.append(record["id"])
        if len(writes) == 3:  # the approval, the canonical, then the staged record: the crash
            raise KeyboardInterrupt
        rewrite(record, **kwargs)

    monkeypatch.setattr(raw, "_rewrite", dies_on_the_second)
    monkeypatch.setattr(raw._ids.reviews, "reopen", lambda review_id: None)  # killed: no undo
    with pytest.raises(KeyboardInterrupt):
        await raw.decide(
            DecideRequest(agent_id="a", review_id=staged, approved=True, merge_into=target,
                          reviewer="r")
        )  # fmt: skip
    monkeypatch.undo()
    assert await pending(store) == []  # finished by this read, not listed again
    [record] = (await store.get({"agent_id": "a", "ids": [target, staged]})).records
    assert (record.id, record.content) == (target, "tea\ngreen tea")
    with pytest.raises(ConflictError, match="it was merged"):
        await store.decide(
            {"agent_id": "a", "review_id": staged, "approved": True, "reviewer": "r"}
        )


async def test_a_policy_file_on_the_url_stages_writes_and_is_declared(tmp_path: Path) -> None:
    await a_policy_file_on_the_url_stages_writes(
        lambda policy: Mem0Store.from_url(f"mem0://{tmp_path / 'mem0'}?policy={policy}"), tmp_path
    )


def queue_holds(folder: Path, text: str) -> bool:
    """Whether the id map's SQLite files (the queue's rows), checkpointed, hold ``text``."""
    with sqlite3.connect(ids_db(folder)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    stored = b"".join(p.read_bytes() for p in folder.glob("mnemowire-ids.db*") if p.is_file())
    return text.encode() in stored


async def test_an_erasure_reaches_the_queues_copy_whatever_its_review_became(
    store: CheckedStore, tmp_path: Path
) -> None:
    """[review.erasure]: approved, merged into another record, softly rejected, or updated
    while pending and then approved: erasing the record erases the words the queue kept."""
    body = {"agent_id": "a", "reviewer": "r"}

    async def staged(content: str) -> str:
        note = {"agent_id": "a", "type": "semantic", "content": content}
        return str((await store.remember({**note, "approval_required": True})).id)

    canonical = (await store.remember({"agent_id": "a", "type": "semantic", "content": "c"})).id
    approved, merged = await staged("zq-approved-5510"), await staged("zq-merged-6620")
    soft, updated = await staged("zq-soft-7730"), await staged("zq-original-8840")
    await store.decide({**body, "review_id": approved, "approved": True})
    await store.decide({**body, "review_id": merged, "approved": True, "merge_into": canonical})
    await store.decide({**body, "review_id": soft, "approved": False, "hard": False})
    await store.update(
        {"agent_id": "a", "id": updated, "expected_version": 1, "content": "zq-later-8841"}
    )
    with pytest.raises(ConflictError, match="--expected-version 2"):  # not what was shown
        await store.decide({**body, "review_id": updated, "approved": True})
    await store.decide({**body, "review_id": updated, "approved": True, "expected_version": 2})
    words = ["zq-approved-5510", "zq-merged-6620", "zq-soft-7730", "zq-original-8840"]
    folder = tmp_path / "mem0"
    assert all(queue_holds(folder, word) for word in words)
    erased = [canonical, approved, soft, updated]  # the merged one goes with its canonical
    await store.forget({"agent_id": "a", "ids": erased, "hard_delete": True})
    assert [word for word in words if queue_holds(folder, word)] == []
