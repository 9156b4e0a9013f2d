"""The store kit's reading of a calendar period in a query ([recall.named-period]) and the
ranking it asks for; each store's recall by it is in tests/adapters/_semantics.py."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from mnemowire.kit import search_depth
from mnemowire.kit.periods import PERIOD_DEPTH, PERIOD_SLACK, by_period, named_period


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("What did Maria donate in December 2023?", date(2023, 12, 1), date(2024, 1, 1)),
        ("What did Gina find on 1 February, 2023?", date(2023, 2, 1), date(2023, 2, 2)),
        ("Who came to dinner on May 3, 2023?", date(2023, 5, 3), date(2023, 5, 4)),
        ("the 3rd of June 2023", date(2023, 6, 3), date(2023, 6, 4)),
        ("Sept. 5th 2020", date(2020, 9, 5), date(2020, 9, 6)),
        ("what happened on 2022-10-06", date(2022, 10, 6), date(2022, 10, 7)),
        ("Which state did Joanna visit in summer 2021?", date(2021, 1, 1), date(2022, 1, 1)),
        ("How often did she go to the beach in 2023?", date(2023, 1, 1), date(2024, 1, 1)),
        ("FEBRUARY 2024 plans", date(2024, 2, 1), date(2024, 3, 1)),
        ("leap day: 29 February 2024", date(2024, 2, 29), date(2024, 3, 1)),
        # no such day: the month and year it names still stand
        ("the 29th of February 2023", date(2023, 2, 1), date(2023, 3, 1)),
    ],
)
def test_explicit_dates_months_and_years_are_read(query: str, start: date, end: date) -> None:
    period = named_period(query)
    assert period is not None
    assert (period.start.date(), period.end.date()) == (start, end)


@pytest.mark.parametrize(
    "query",
    [
        "May I ask what Tom likes?",  # a verb, not a month
        "Which printer is in room 2012?",  # a number, not a year
        "What did she do last May?",  # relative: no "now" to read it against
        "What did Nate do on October 6?",  # no year
        "2023-13-01",
        "",
    ],
)
def test_what_names_no_calendar_period_is_left_alone(query: str) -> None:
    assert named_period(query) is None


def _ms(day: date) -> int:
    return round(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)


def test_the_period_holds_its_days_and_a_week_either_side() -> None:
    period = named_period("in March 2024")
    assert period is not None
    assert PERIOD_SLACK.days == 7
    assert period.holds(_ms(date(2024, 3, 1)))
    assert period.holds(_ms(date(2024, 2, 23)))  # 7 days before
    assert not period.holds(_ms(date(2024, 2, 22)) - 1)
    assert period.holds(_ms(date(2024, 4, 8)) - 1)  # 7 days after its last day
    assert not period.holds(_ms(date(2024, 4, 8)))


def test_by_period_lifts_the_items_of_the_period_and_keeps_the_rest_in_order() -> None:
    period = named_period("on 6 October 2022")
    assert period is not None
    order = ["a", "b", "c", "d"]
    when = {"a": _ms(date(2020, 1, 1)), "b": _ms(date(2021, 1, 1)), "c": _ms(date(2022, 10, 6))}
    score = by_period(order, when, period)  # "d" has no time: never "then"
    assert sorted(order, key=lambda item: -score[item]) == ["c", "a", "b", "d"]


def test_a_query_naming_a_period_searches_deeper() -> None:
    assert search_depth(5) == 20
    assert search_depth(5, "what did we eat in May 2023?") == PERIOD_DEPTH
    assert search_depth(5, "what did we eat in May?") == 20
    assert search_depth(300, "in 2023") == 1200
