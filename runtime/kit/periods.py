"""A query naming a calendar period ranks what happened then higher ([recall.named-period]).

"What did Maria donate in December 2023?" or "... on 6 October, 2022": a bi-encoder and a
keyword match weigh the date like any other word, so the memories of that time rank no higher
than the rest (LoCoMo, development half: 43 of 85 such questions found an evidence turn in the
top 10). A store reads an explicit English day, month or year from the query
(``named_period``), searches at least ``PERIOD_DEPTH`` candidates deep (``search_depth`` does
that for it), and fuses two orders of its candidates by RRF (``by_period``), as it fuses its own
searches: its ranking, and the same ranking restricted to the records whose time
(``event_time``, else ``created_at``) falls within the period widened by ``PERIOD_SLACK``. Only
explicit calendar dates count: "last May" needs a "now" the query does not give.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from mnemowire.fusion import rrf

__all__ = [
    "PERIOD_DEPTH",
    "PERIOD_SLACK",
    "Period",
    "by_period",
    "happened_at",
    "hits_by_period",
    "named_period",
]

Item = TypeVar("Item", bound=Hashable)
Found = TypeVar("Found", bound=Mapping[str, Any])

#: how deep each of a recall's searches goes when the query names a period: the records of the
#: period can only be lifted from the candidates (on LoCoMo's development half, 50 found 0.679
#: recall@10, 100 0.684, every record 0.687)
PERIOD_DEPTH = 100
#: how far around the named period a memory still counts as "then": a conversation's date and
#: the day it speaks of differ by days (chosen on LoCoMo's development half: 3 and 7 days
#: found the same, 0 and 14 a little less, a month clearly less)
PERIOD_SLACK = timedelta(days=7)

_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
#: most specific first: a day, then a month, then a year alone
_PATTERNS = (
    re.compile(rf"\b{_YEAR}-(?P<month_number>\d{{2}})-(?P<day>\d{{2}})\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE),
    # a year alone only after a word that makes it a time ("in 2023", "summer 2021"), not a
    # number that happens to look like one ("room 2012")
    re.compile(
        rf"\b(?:in|during|throughout|since|until|of|early|late|mid|spring|summer|autumn|fall"
        rf"|winter)[\s-]+{_YEAR}\b",
        re.IGNORECASE,
    ),
)
_MONTHS = {name[:3].lower(): number for number, name in enumerate(calendar.month_name) if name}


@dataclass(frozen=True)
class Period:
    """The days a query names: from ``start`` (inclusive) to ``end`` (exclusive), UTC."""

    start: datetime
    end: datetime

    def holds(self, epoch_ms: int) -> bool:
        """Whether a record's time (ms since the epoch, as the wire has it) falls within the
        period widened by ``PERIOD_SLACK``."""
        return _ms(self.start - PERIOD_SLACK) <= epoch_ms < _ms(self.end + PERIOD_SLACK)


def _ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


def named_period(query: str) -> Period | None:
    """The most specific explicit calendar day, month or year the query names, or None.

    >>> named_period("What did Maria donate in December 2023?").start.date()
    datetime.date(2023, 12, 1)
    >>> named_period("May I ask what Tom likes?") is None
    True
    """
    for pattern in _PATTERNS:
        for match in pattern.finditer(query):
            period = _period(match.groupdict())
            if period is not None:
                return period
    return None


def _period(parts: dict[str, str | None]) -> Period | None:
    year = int(parts["year"] or 0)
    if parts.get("month_number"):
        month: int | None = int(parts["month_number"] or 0)
    elif parts.get("month"):
        month = _MONTHS[(parts["month"] or "")[:3].lower()]
    else:
        month = None
    try:
        if month is None:
            return Period(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
        if parts.get("day"):
            start = datetime(year, month, int(parts["day"] or 0), tzinfo=UTC)
            return Period(start, start + timedelta(days=1))
        start = datetime(year, month, 1, tzinfo=UTC)
        days = calendar.monthrange(year, month)[1]
        return Period(start, start + timedelta(days=days))
    except ValueError:  # "31 June 2023", "2023-13-01": not a date
        return None


def by_period(
    order: Sequence[Item], time_of: Mapping[Item, int], period: Period
) -> dict[Item, float]:
    """New scores for ``order`` (a store's ranking, best first): RRF of that order and of the
    same order restricted to the items whose time (``time_of``, ms since the epoch) the period
    holds. Every item of ``order`` gets a score; an item without a time is never "then"."""
    within = [item for item in order if item in time_of and period.holds(time_of[item])]
    return rrf([order, within])


def happened_at(record: Mapping[str, Any]) -> int:
    """When a record (wire fields) happened: its ``event_time``, else its ``created_at``."""
    event_time = record.get("event_time")
    return int(record["created_at"] if event_time is None else event_time)


def hits_by_period(
    ranked: Sequence[tuple[Found, float, float]], period: Period
) -> list[tuple[Found, float, float]]:
    """(record, score, relevance) hits, best first, ranked again by ``period``: each score
    becomes its ``by_period`` score (ties to the smaller id)."""
    score = by_period(
        [r["id"] for r, _, _ in ranked], {r["id"]: happened_at(r) for r, _, _ in ranked}, period
    )
    rescored = [(r, score[r["id"]], relevance) for r, _, relevance in ranked]
    return sorted(rescored, key=lambda hit: (-hit[1], hit[0]["id"]))
