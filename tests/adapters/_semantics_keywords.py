"""The keyword half of recall (the rules of mnemowire.kit.keywords), run on every store that
imports it: which of a query's words are searched depends on how many of the agent's
records hold them, relative to how many it has, and records holding the same searched words
rank by meaning."""

from __future__ import annotations

from typing import Any

from tests.adapters._semantics import StoreFactory

#: what the query shares most words with: the vector side's nearest records, always
FILLER = "weekly team meeting note number {}"
QUERY = "weekly team meeting note walrus"


async def _write(store: Any, contents: list[str]) -> list[str]:
    written = await store.remember_many(
        [{"agent_id": "a", "type": "semantic", "content": c} for c in contents]
    )
    return [str(answer.id) for answer in written]


async def _recall(store: Any, query: str, k: int) -> list[str]:
    found = await store.recall({"agent_id": "a", "query": query, "k": k})
    return [hit.id for hit in found.results]


async def test_a_word_rare_for_the_agents_size_is_searched(make_store: StoreFactory) -> None:
    """Among 340 records a word 8 of them hold is rare (at most 340 / 32 = 10): the keyword
    side finds its records, which the vector side ranks far below the filler. A word 12 of them
    hold is not searched. (A searched word used to be held by at most 3 records, whatever the
    agent's size.)"""
    store = make_store()
    await _write(store, [FILLER.format(i) for i in range(320)])
    rare = await _write(store, [f"walrus seen off the pier, sighting {i}" for i in range(8)])
    common = await _write(store, [f"zebra seen at the crossing, sighting {i}" for i in range(12)])
    found = await _recall(store, QUERY, 5)
    assert set(found) & set(rare)
    none = await _recall(store, QUERY.replace("walrus", "zebra"), 5)
    assert not set(none) & set(common)


async def test_records_holding_the_same_words_rank_by_meaning(make_store: StoreFactory) -> None:
    """Two records hold the query's one rare word and the vector side reaches neither (the
    filler is nearer): the one nearer the query in meaning ranks first, not the older one."""
    store = make_store()
    await _write(store, [FILLER.format(i) for i in range(30)])
    [far] = await _write(store, ["walrus painted on a purple crossing"])
    [near] = await _write(store, ["walrus at the weekly team lunch"])
    found = await _recall(store, QUERY, 5)
    assert near in found
    assert far in found
    assert found.index(near) < found.index(far)


async def test_a_record_found_by_its_words_alone_comes_back_whole(
    make_store: StoreFactory,
) -> None:
    """A keyword match the vector side does not reach is returned with all its fields, JSON
    ones included (a store that ranks matches from fewer columns must read the rest)."""
    store = make_store()
    await _write(store, [FILLER.format(i) for i in range(30)])
    written = await store.remember(
        {
            "agent_id": "a",
            "type": "episodic",
            "content": "walrus painted on a purple crossing",
            "metadata": {"where": "pier", "seen": 2},
            "participants": ["Ana", "Bo"],
        }
    )
    found = await store.recall({"agent_id": "a", "query": QUERY, "k": 5})
    [hit] = [h for h in found.results if h.id == written.id]
    assert hit.metadata == {"where": "pier", "seen": 2}
    assert hit.participants == ["Ana", "Bo"]
    assert hit.content == "walrus painted on a purple crossing"
