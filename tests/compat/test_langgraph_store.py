"""mnemowire.compat.langgraph.MnemowireStore: what mnemowire adds under LangGraph's BaseStore
(records any client reads, users, erasure, any thread or loop) and the agent example. LangGraph's
own store tests run against it in `nox -s langgraph`."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.store.base import InvalidNamespaceError, PutOp

from mnemowire.apps.demo.langgraph_agent import talk
from mnemowire.compat.langgraph import MnemowireStore
from mnemowire.layers.memory import Memory
from mnemowire.models import MemoryRecord


def url(tmp_path: Path) -> str:
    return f"sqlite-vec://{tmp_path / 'lg.db'}?embedder=hash:64"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MnemowireStore]:
    with MnemowireStore(url(tmp_path), agent="assistant", user_label=1) as opened:
        yield opened


def test_the_example_agent_remembers_across_threads(tmp_path: Path) -> None:
    """The demo graph on the real embedder: facts told on Monday answer Friday's questions,
    and they are records a mnemowire client reads."""
    said: list[str] = []
    replies = talk(f"sqlite-vec://{tmp_path / 'agent.db'}", said.append)
    assert replies[-2:] == [
        "You told me: I am allergic to peanuts",
        "You told me: my sister Ana lives in Lisbon",
    ]
    assert len(said) == 5

    async def listed() -> list[tuple[str | None, str]]:
        async with Memory.open(f"sqlite-vec://{tmp_path / 'agent.db'}") as memory:
            page = await memory.list(agent="assistant", user="alice")
            return [(r.user_id, r.content) for r in page.records]

    assert sorted(asyncio.run(listed())) == [
        ("alice", "I am allergic to peanuts"),
        ("alice", "I run every morning before work"),
        ("alice", "my sister Ana lives in Lisbon"),
    ]


def test_an_item_is_a_record_of_the_agent(store: MnemowireStore, tmp_path: Path) -> None:
    store.put(("memories", "alice"), "tea", {"text": "Alice likes tea", "tags": ["drink"]})
    item = store.get(("memories", "alice"), "tea")
    assert item is not None
    assert (item.namespace, item.key, item.value) == (
        ("memories", "alice"),
        "tea",
        {"text": "Alice likes tea", "tags": ["drink"]},
    )
    [record] = asyncio.run(_records(tmp_path))
    assert (record.user_id, record.type) == ("alice", "semantic")
    assert record.metadata is not None
    assert record.metadata["text"] == "Alice likes tea"  # the value is the metadata
    assert record.metadata["langgraph:key"] == "tea"
    assert record.content == '{"tags": ["drink"], "text": "Alice likes tea"}'  # index "$"
    with pytest.raises(ValueError, match="langgraph:"):
        store.put(("memories", "alice"), "bad", {"langgraph:key": "x"})


async def _records(tmp_path: Path) -> list[MemoryRecord]:
    async with Memory.open(url(tmp_path)) as memory:
        return list((await memory.list(agent="assistant")).records)


def test_filters_the_store_runs_and_the_ones_python_judges(store: MnemowireStore) -> None:
    ns = ("docs",)
    store.put(ns, "a", {"n": 1, "tags": ["draft"], "who": {"name": "ann"}, "s": "x"})
    store.put(ns, "b", {"n": 5, "tags": ["final"], "who": {"name": "bob"}, "s": "y"})

    def keys(filter_: dict[str, object]) -> list[str]:
        return sorted(item.key for item in store.search(ns, filter=filter_))

    assert keys({"n": {"$gt": 2}}) == ["b"]
    assert keys({"tags": ["draft"]}) == ["a"]  # a list, element by element
    assert keys({"who": {"name": "bob"}}) == ["b"]  # a nested object, by its keys
    assert keys({"n": {"$lt": float("inf")}}) == ["a", "b"]  # a bound no store holds
    assert keys({"s": "x\x00"}) == []  # a text no store holds matches nothing
    injected = "s') = 'x' OR '1'='1"
    assert keys({injected: "x"}) == []  # a key is a key, never SQL
    with pytest.raises(ValueError, match="unknown operators"):
        store.search(ns, filter={"n": {"$regex": "1"}})


def test_a_key_written_again_after_a_delete(store: MnemowireStore) -> None:
    ns = ("memories", "bob")
    store.put(ns, "k", {"v": 1})
    store.delete(ns, "k")
    assert store.get(ns, "k") is None
    store.put(ns, "k", {"v": 1})  # the same write again: its first id only replays it
    assert store.get(ns, "k").value == {"v": 1}  # type: ignore[union-attr]
    store.delete(ns, "k")
    store.put(ns, "k", {"v": 2})  # the first id is spent: the item gets a new one
    store.put(ns, "k", {"v": 3})
    item = store.get(ns, "k")
    assert item is not None
    assert item.value == {"v": 3}
    assert [i.key for i in store.search(ns)] == ["k"]


def test_hard_delete_erases_the_value_from_the_file(tmp_path: Path) -> None:
    with MnemowireStore(url(tmp_path), hard_delete=True) as erasing:
        erasing.put(("users", "carol"), "id", {"passport": "X7654321"})
        erasing.delete(("users", "carol"), "id")
    connection = sqlite3.connect(tmp_path / "lg.db")
    connection.execute("VACUUM")
    connection.close()
    assert b"X7654321" not in (tmp_path / "lg.db").read_bytes()


def test_a_bad_op_fails_the_whole_batch_before_any_runs(store: MnemowireStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("ok",), "k", {"v": 1}), PutOp(("a.b",), "k", {"v": 1})])
    assert store.get(("ok",), "k") is None


def test_one_store_serves_threads_and_other_loops_at_once(store: MnemowireStore) -> None:
    def writer(n: int) -> None:
        for i in range(10):
            store.put(("t", str(n)), str(i), {"i": i})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()

    async def reader() -> int:
        await store.aput(("async",), "k", {"v": 1})
        return len(await store.asearch(("t",), limit=100))

    seen = asyncio.run(reader())  # another loop, while the threads write
    for thread in threads:
        thread.join()
    assert 0 <= seen <= 40
    assert len(store.search(("t",), limit=100)) == 40
    assert store.list_namespaces(prefix=("t",)) == [("t", str(n)) for n in range(4)]
    assert store.list_namespaces(max_depth=1) == [("async",), ("t",)]


def test_langgraphs_own_embed_function_is_the_index(tmp_path: Path) -> None:
    def embed(texts: list[str]) -> list[list[float]]:  # one axis per letter of interest
        return [[t.count("a") + 0.01, t.count("b") + 0.01, t.count("c") + 0.01] for t in texts]

    index = {"dims": 3, "embed": embed, "fields": ["text"]}
    with MnemowireStore(f"sqlite-vec://{tmp_path / 'own.db'}", index=index) as own:  # type: ignore[arg-type]
        own.put(("d",), "a", {"text": "aaaa"})
        own.put(("d",), "b", {"text": "bbbb"})
        own.put(("d",), "none", {"text": "cccc"}, index=False)
        found = own.search(("d",), query="aa", limit=3)
    assert [i.key for i in found] == ["a", "b", "none"]  # unindexed last, unscored
    assert found[0].score == pytest.approx(1.0, abs=1e-3)
    assert found[2].score is None


def test_an_async_embed_function_is_the_index_too(tmp_path: Path) -> None:
    """LangGraph takes an async embedding function alone; the store embeds off its loop."""

    async def embed(texts: list[str]) -> list[list[float]]:
        return [[t.count("a") + 0.01, t.count("b") + 0.01] for t in texts]

    index = {"dims": 2, "embed": embed}
    with MnemowireStore(f"sqlite-vec://{tmp_path / 'async.db'}", index=index) as own:  # type: ignore[arg-type]
        own.put(("d",), "a", {"text": "aaaa"})
        own.put(("d",), "b", {"text": "bbbb"})
        found = own.search(("d",), query="bb", limit=2)
    assert [i.key for i in found] == ["b", "a"]
