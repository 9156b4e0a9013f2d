"""Rank fusion: pure functions, no I/O, shared by the stores (hybrid recall) and the router.

Reciprocal Rank Fusion (Cormack, Clarke and Buettcher, SIGIR 2009): an item's score is the sum,
over the lists it appears in, of 1 / (k + rank), ranks counted from 1. Only ranks enter, never
raw scores, which is what makes it robust to a list whose scores are on another scale (or lie).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

__all__ = ["RRF_K", "rrf"]

RRF_K = 60
Item = TypeVar("Item", bound=Hashable)


def rrf(ranked: Iterable[Sequence[Item]], k: int = RRF_K) -> dict[Item, float]:
    """Fused scores of every item in ``ranked`` (each list best first; duplicates in one list
    count once, at their best rank)."""
    scores: dict[Item, float] = {}
    for items in ranked:
        seen: set[Item] = set()
        for rank, item in enumerate(items, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores
