"""The latency benchmark's overhead: the wall time no store was working."""

from __future__ import annotations

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.bench.latency import _Clocked, _covered_ms, _turns
from mnemowire.embedders import HashEmbedder
from mnemowire.layers.memory import Memory
from mnemowire.layers.router import MemoryRouter


@pytest.mark.parametrize(
    ("spans", "covered"),
    [
        ([], 0.0),
        ([(0.0, 0.002)], 2.0),
        ([(0.0, 0.002), (0.003, 0.004)], 3.0),  # one after the other: the sum
        ([(0.0, 0.003), (0.001, 0.002)], 3.0),  # side by side: the longer
        ([(0.001, 0.004), (0.0, 0.002), (0.005, 0.006)], 5.0),  # overlapping, unsorted
    ],
)
def test_covered_time_is_the_union_of_the_spans(
    spans: list[tuple[float, float]], covered: float
) -> None:
    assert _covered_ms(spans) == pytest.approx(covered)


async def test_a_clocked_store_is_the_store_to_a_router_and_notes_each_recall() -> None:
    embedder = HashEmbedder(32)
    stores = [SqliteVecStore(":memory:", embedder=embedder, name=n) for n in ("a", "b")]
    clocks = [_Clocked(store) for store in stores]
    async with MemoryRouter(clocks) as router:
        memory = Memory(router)
        await memory.remember({"agent_id": "x", "type": "semantic", "content": "tea"})
        found = await memory.recall({"agent_id": "x", "query": "tea"})
    assert found.results[0].supporting == ["a", "b"]
    assert [len(clock.spans) for clock in clocks] == [1, 1]
    assert all(end > start for clock in clocks for start, end in clock.spans)
    assert clocks[0].embedder is embedder  # so the router embeds the query once, for both


def test_setups_take_turns_going_first() -> None:
    first, second = object(), object()
    turns = [list(_turns([first, second], done)) for done in (1, 2, 3)]  # type: ignore[list-item]
    assert turns == [[first, second], [second, first], [first, second]]
