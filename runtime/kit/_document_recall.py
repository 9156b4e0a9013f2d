"""A document store's recall ranking: the backend's nearest records held to the request's
scope, types, age, filter and floor, searched deeper while those leave fewer than k, best
first by relevance, then by the calendar period the query names ([recall.named-period])."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mnemowire.filters import matches
from mnemowire.kit._rules import cutoff
from mnemowire.kit.periods import PERIOD_DEPTH, hits_by_period, named_period
from mnemowire.models import RecallRequest

__all__ = ["recall_hits"]

Record = dict[str, Any]


def recall_hits(
    req: RecallRequest,
    payload: Mapping[str, Any],
    now: int,
    *,
    search: Callable[[int], tuple[list[tuple[Record, float]], bool]],
    first_depth: int,
    visible: Callable[[Record], bool],
) -> list[tuple[Record, float, float]]:
    """The best ``req.k`` (record, score, relevance): ``search(depth)`` answers the backend's
    ``depth`` nearest records and whether it had no more; ``visible`` says whether a record
    is the request's agent's, user's and visible now. The first search goes ``first_depth``
    deep (``PERIOD_DEPTH`` at least for a query naming a period)."""
    since = cutoff(now, req.fresher_than_days)
    types = {str(t) for t in req.types} if req.types else None
    period = named_period(req.query)
    depth = max(first_depth, 0 if period is None else PERIOD_DEPTH)
    while True:
        hits, exhausted = search(depth)
        ranked = [
            (record, relevance, relevance)
            for record, relevance in hits
            if visible(record)
            and (types is None or record["type"] in types)
            and (since is None or record["created_at"] >= since)
            and matches(record["metadata"], payload.get("filter"))
            and (req.min_relevance is None or relevance >= req.min_relevance)
        ]
        if len(ranked) >= req.k or exhausted:
            break
        depth *= 4  # the exact filters took too many: look deeper
    ranked.sort(key=lambda hit: (-hit[1], hit[0]["id"]))
    if period is not None:
        ranked = hits_by_period(ranked, period)
    return ranked[: req.k]
