"""[recall.named-period], run on every store that imports it: a query naming a calendar day,
month or year ranks the records of that period first, by ``event_time``, else by when they
were written, and the answer is still at most k, sorted by score."""

from __future__ import annotations

import calendar
from datetime import UTC, datetime

from tests.adapters._semantics import StoreFactory, remember
from tests.adapters._support import Clock


def _ms(year: int, month: int, day: int) -> int:
    return round(datetime(year, month, day, tzinfo=UTC).timestamp() * 1000)


async def test_a_query_naming_a_day_or_a_month_ranks_that_period_first(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    days = [(2022, 5, 6), (2022, 10, 6), (2023, 1, 6), (2023, 1, 20), (2024, 8, 1)]
    written = [
        await remember(store, "Nate watched a film", type="episodic", event_time=_ms(*day))
        for day in days
    ]
    by_day = await store.recall(
        {"agent_id": "a", "query": "what film did Nate watch on 6 October 2022?", "k": 2}
    )
    by_month = await store.recall(
        {"agent_id": "a", "query": "which film did Nate watch in January 2023?", "k": 3}
    )
    assert by_day.results[0].id == written[1]
    assert len(by_day.results) == 2  # the caller's k, though the store searched deeper
    assert {hit.id for hit in by_month.results[:2]} == {written[2], written[3]}
    for answer in (by_day, by_month):
        scores = [hit.score for hit in answer.results]
        assert scores == sorted(scores, reverse=True)


async def test_a_record_without_event_time_counts_from_when_it_was_written(
    make_store: StoreFactory, clock: Clock
) -> None:
    store = make_store()
    long_ago = await remember(
        store, "the boiler was serviced", type="episodic", event_time=_ms(2001, 3, 1)
    )
    today = await remember(store, "the boiler was serviced", type="episodic")
    now = datetime.fromtimestamp(clock.now / 1000, UTC)
    month = f"{calendar.month_name[now.month]} {now.year}"
    recent = await store.recall(
        {"agent_id": "a", "query": f"when was the boiler serviced in {month}?", "k": 1}
    )
    earlier = await store.recall(
        {"agent_id": "a", "query": "when was the boiler serviced in March 2001?", "k": 1}
    )
    assert [hit.id for hit in recent.results] == [today]
    assert [hit.id for hit in earlier.results] == [long_ago]
