"""forget, merge and expire on the sqlite-vec store, and what they leave in the database."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.adapters._semantics import recalled, remember

from .conftest import Clock, StoreFactory


def rows(path: Path, sql: str, *args: Any) -> list[Any]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, args).fetchall()
    finally:
        connection.close()


# -- forget ------------------------------------------------------------------------------------


async def test_forget_by_ids_is_soft_and_reported_exactly(
    make_store: StoreFactory, tmp_path: Path
) -> None:
    store = make_store()
    keep = await remember(store, "tea at noon")
    drop = await remember(store, "tea at five")
    other_agent = await remember(store, "tea at five", agent_id="b")
    response = await store.forget({"agent_id": "a", "ids": [drop, other_agent, "missing"]})
    assert response.forgotten_ids == [drop]
    assert response.hard_delete is False
    assert await recalled(store, "tea") == [keep]
    assert await recalled(store, "tea", agent_id="b") == [other_agent]
    state = rows(tmp_path / "memory.db", "SELECT state, content FROM memories WHERE id = ?", drop)
    assert state == [("deleted", "tea at five")]  # kept for audit, invisible
    again = await store.forget({"agent_id": "a", "ids": [drop]})
    assert again.forgotten_ids == []


async def test_hard_delete_erases_from_every_table_and_index(
    make_store: StoreFactory, tmp_path: Path, holds: Callable[[str], bool]
) -> None:
    store = make_store()
    secret = await remember(store, "zanzibar passport number", metadata={"pii": True})
    soft = await remember(store, "zanzibar visa", metadata={"pii": True})
    await store.forget({"agent_id": "a", "ids": [soft]})
    response = await store.forget({"agent_id": "a", "filter": {"pii": True}, "hard_delete": True})
    assert sorted(response.forgotten_ids) == sorted([secret, soft])
    db = tmp_path / "memory.db"
    assert rows(db, "SELECT count(*) FROM memories") == [(0,)]
    assert rows(db, "SELECT count(*) FROM keywords") == [(0,)]
    assert await recalled(store, "zanzibar") == []
    with store.inner._db.transaction(write=False) as tx:
        assert tx.execute("SELECT count(*) FROM memories_vec").fetchone() == (0,)
    assert not holds("zanzibar")  # the file's bytes, not a view of them
    audit = rows(db, "SELECT operation, ids FROM audit_log WHERE operation = 'forget'")
    assert sorted(json.loads(audit[-1][1])) == sorted([secret, soft])


async def test_an_erased_record_leaves_no_byte_of_itself_in_the_file(
    make_store: StoreFactory, holds: Callable[[str], bool]
) -> None:
    """Every word, the metadata and the embedding: not in the database file or its write-ahead
    log, right after the erasure and after 100 more writes (which is when FTS5, the earlier
    keyword index, still held every word of it in its segments)."""
    store = make_store()
    words = ["qwzpassport", "jxvnumber", "kfyholder"]  # no other word starts like these
    secret = await remember(store, " ".join(words), metadata={"ssn": "zzssn998877"})
    [vector] = store.inner.embedder.embed([" ".join(words)])
    for i in range(20):
        await remember(store, f"filler note number {i}")
    assert all(holds(w) for w in words)
    await store.forget({"agent_id": "a", "ids": [secret], "hard_delete": True})
    for _ in range(2):
        for needle in [*words, "zzssn998877"]:
            assert not holds(needle), needle
        raw = (store.inner.path and Path(store.inner.path).read_bytes()) or b""
        assert vector.tobytes() not in raw
        for i in range(100):
            await remember(store, f"more filler {i}")


async def test_an_erased_record_leaves_no_byte_of_its_past_versions(
    make_store: StoreFactory, holds: Callable[[str], bool]
) -> None:
    """What history kept of a record (its content and metadata before each update) goes with
    it: not in the file or its write-ahead log after the erasure ([history.erase])."""
    store = make_store()
    secret = await remember(store, "qwzoldpassport 1", metadata={"ssn": "zzoldssn1122"})
    for version, word in enumerate(["qwzmidpassport", "qwznewpassport"], start=1):
        await store.update(
            {
                "agent_id": "a",
                "id": secret,
                "expected_version": version,
                "content": f"{word} 2",
                "metadata": {"ssn": f"zz{word}"},
            }
        )
    assert holds("qwzoldpassport")
    assert holds("zzoldssn1122")
    assert holds("qwzmidpassport")
    await store.forget({"agent_id": "a", "ids": [secret], "hard_delete": True})
    for needle in ["qwzoldpassport", "zzoldssn1122", "qwzmidpassport", "qwznewpassport"]:
        assert not holds(needle), needle


# -- merge -------------------------------------------------------------------------------------


async def test_merge_keep_canonical_hides_duplicates(make_store: StoreFactory) -> None:
    store = make_store()
    canonical = await remember(store, "Alice is allergic to peanuts")
    dupes = [
        await remember(store, "Alice has a peanut allergy"),
        await remember(store, "peanuts make Alice sick"),
    ]
    response = await store.merge({"agent_id": "a", "canonical": canonical, "duplicates": dupes})
    assert (response.canonical, response.merged_count, response.strategy_used) == (
        canonical,
        2,
        "keep_canonical",
    )
    assert await recalled(store, "Alice peanut allergy sick") == [canonical]


# -- expire ------------------------------------------------------------------------------------


async def test_no_recall_in_days_uses_recall_tracking(
    make_store: StoreFactory, clock: Clock
) -> None:
    store = make_store()
    used = await remember(store, "weekly standup notes")
    unused = await remember(store, "expense policy")
    clock.advance(days=20)
    [hit] = (await store.recall({"agent_id": "a", "query": "standup", "k": 1})).results
    assert hit.id == used
    clock.advance(days=20)
    response = await store.expire(
        {"agent_id": "a", "policy": {"no_recall_in_days": 30}, "action": "archive"}
    )
    assert response.matched_ids == [unused]
    assert await recalled(store, "expense policy") == [used]  # the archived one is gone
