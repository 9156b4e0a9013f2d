"""Recall on the caller's thread when nothing can make it wait, in a worker thread otherwise;
the event loop never waits on a lock either way."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest

import mnemowire.adapters.sqlite_vec.store as sqlite_store
from tests.adapters._semantics import ids, remember

from .conftest import CheckedStore, Clock, StoreFactory

T = TypeVar("T")


def recall_threads(store: CheckedStore, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """For every run of the store's recall from now on: whether it ran on this thread."""
    here = threading.get_ident()
    seen: list[bool] = []
    real = store.inner._recall

    def spy(*args: Any) -> Any:
        seen.append(threading.get_ident() == here)
        return real(*args)

    monkeypatch.setattr(store.inner, "_recall", spy)
    return seen


async def while_ticking(call: Awaitable[T]) -> tuple[T, int]:
    """``call``'s result, and how often a 10 ms ticker ran meanwhile (0: the loop was blocked)."""
    ticks = 0
    done = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not done.is_set():
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        return await call, ticks
    finally:
        done.set()
        await task


async def test_a_cached_small_agent_is_recalled_on_the_calling_thread(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store()
    tea = await remember(store, "green tea")
    await remember(store, "black coffee")
    threads = recall_threads(store, monkeypatch)
    first = await ids(store, query="tea")
    second = await ids(store, query="tea")
    assert first == second
    assert first[0] == tea
    assert threads == [False, True]  # the first loads the agent's index, in a worker thread


async def test_an_agent_past_the_inline_limit_is_recalled_in_a_worker_thread(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_store, "INLINE_RECALL_ROWS", 2)
    store = make_store()
    for text in ("one", "two", "three"):
        await remember(store, text)
    threads = recall_threads(store, monkeypatch)
    await ids(store, query="two")
    await ids(store, query="two")
    assert threads == [False, False]


async def test_recall_waits_for_a_running_operation_in_a_worker_thread(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store()
    tea = await remember(store, "green tea")
    await ids(store, query="tea")  # the index is cached: recall would run inline
    threads = recall_threads(store, monkeypatch)
    held = threading.Event()

    def busy() -> None:  # another operation holding the store's lock for 0.3 s
        with store.inner._db.lock:
            held.set()
            threading.Event().wait(0.3)

    worker = threading.Thread(target=busy)
    worker.start()
    held.wait()
    found, ticks = await while_ticking(ids(store, query="tea"))
    worker.join()
    assert found == [tea]
    assert threads == [False]
    assert ticks >= 5  # the loop ran while the recall waited for the lock


async def test_a_database_locked_by_another_connection_never_blocks_the_event_loop(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch, clock: Clock
) -> None:
    """Another connection holds the write lock the recall-tracking write needs. The recall does
    not wait for it ([recall.tracking]): it answers on the caller's thread, and the recall time
    is written by the first operation after the lock is free."""
    store = make_store()
    tea = await remember(store, "green tea")
    await ids(store, query="tea")
    clock.advance(ms=sqlite_store.RECALL_TRACKING_GRANULARITY_MS + 1)  # tracking is due again
    threads = recall_threads(store, monkeypatch)
    other = store.inner._db.driver.module.connect(
        str(store.inner.path), isolation_level=None, check_same_thread=False
    )
    other.execute("BEGIN IMMEDIATE")
    found, _ = await while_ticking(ids(store, query="tea"))
    assert other.in_transaction  # answered while the other writer still held the lock
    other.execute("COMMIT")
    assert found == [tea]
    assert threads == [True]  # on the caller's thread, as any recall that cannot wait
    (before,) = other.execute(
        "SELECT last_recalled_at FROM memories WHERE id = ?", (tea,)
    ).fetchone()
    assert before < clock.now  # not written yet
    await remember(store, "cake")  # the next operation writes it
    (recalled,) = other.execute(
        "SELECT last_recalled_at FROM memories WHERE id = ?", (tea,)
    ).fetchone()
    other.close()
    assert recalled == clock.now
