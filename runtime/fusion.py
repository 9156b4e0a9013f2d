"""Rank fusion: pure functions, no I/O, shared by the stores (hybrid recall) and the router.

Reciprocal Rank Fusion (Cormack, Clarke and Buettcher, SIGIR 2009): an item's score is the sum,
over the lists it appears in, of 1 / (k + rank), ranks counted from 1. Only ranks enter, never
raw scores, which is what makes it robust to a list whose scores are on another scale (or lie):
with lists of at most k + 1 items, an item two lists agree on always outscores an item only one
list returned, whatever that list claims.

``max_fusion`` (highest raw score) and ``weighted_fusion`` (sum of weight x raw score) trust the
lists' scores; they suit stores the operator trusts to score on one scale, and one lying list
dominates them (docs/benchmarks.md, "Fusion under attack").

Every function treats its input lists as a set: the result does not depend on their order (sums
are exact, ``math.fsum``), so a router gets the same ranking whichever store answered first. An
item repeated within one list counts once, at its first (best) position.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import TypeVar

__all__ = [
    "HOP_BOOST",
    "RRF_K",
    "hop_boost",
    "hop_distances",
    "max_fusion",
    "rrf",
    "weighted_fusion",
]

RRF_K = 60
#: strength of the one-hop graph boost: a direct neighbour (distance 1) adds 5 %
HOP_BOOST = 0.1
Item = TypeVar("Item", bound=Hashable)


def _first(items: Iterable[Item]) -> Iterator[tuple[int, Item]]:
    """(rank from 1, item) for the first occurrence of each item."""
    seen: set[Item] = set()
    for rank, item in enumerate(items, start=1):
        if item not in seen:
            seen.add(item)
            yield rank, item


def _first_scored(items: Iterable[tuple[Item, float]]) -> Iterator[tuple[Item, float]]:
    seen: set[Item] = set()
    for item, score in items:
        if item not in seen:
            seen.add(item)
            yield item, score


def rrf(ranked: Iterable[Sequence[Item]], k: int = RRF_K) -> dict[Item, float]:
    """Fused scores of every item in ``ranked`` (each list best first; duplicates in one list
    count once, at their best rank).

    >>> rrf([["a", "b"], ["b"]])["b"] == 1 / 62 + 1 / 61
    True
    """
    parts: dict[Item, list[float]] = {}
    for items in ranked:
        for rank, item in _first(items):
            parts.setdefault(item, []).append(1.0 / (k + rank))
    return {item: math.fsum(values) for item, values in parts.items()}


def max_fusion(scored: Iterable[Sequence[tuple[Item, float]]]) -> dict[Item, float]:
    """Each item's highest raw score over the lists of (item, score) that returned it."""
    best: dict[Item, float] = {}
    for items in scored:
        for item, score in _first_scored(items):
            best[item] = max(best.get(item, score), score)
    return best


def weighted_fusion(
    scored: Iterable[tuple[float, Sequence[tuple[Item, float]]]],
) -> dict[Item, float]:
    """Sum over lists of weight x raw score; ``scored`` holds (weight, [(item, score), ...])."""
    parts: dict[Item, list[float]] = {}
    for weight, items in scored:
        for item, score in _first_scored(items):
            parts.setdefault(item, []).append(weight * score)
    return {item: math.fsum(values) for item, values in parts.items()}


def hop_distances(
    fused: Collection[Item],
    neighbours: Iterable[Mapping[Item, Mapping[Item, int]]],
    max_hops: int,
) -> dict[Item, int]:
    """For each fused item, the shortest reported distance (1..max_hops) to *another* fused item.

    ``neighbours`` holds one answer per graph store: item -> {neighbour: distance}. Items with no
    fused neighbour within ``max_hops`` are absent, and so are neighbours outside ``fused``: the
    graph can only strengthen what the stores already returned, never add to it.
    """
    distances: dict[Item, int] = {}
    for answer in neighbours:
        for item, near in answer.items():
            if item not in fused:
                continue
            for other, distance in near.items():
                if other != item and other in fused and 1 <= distance <= max_hops:
                    distances[item] = min(distances.get(item, distance), distance)
    return distances


def hop_boost(
    fused: Mapping[Item, float], hop_dist: Mapping[Item, int], strength: float = HOP_BOOST
) -> dict[Item, float]:
    """``final(d) = fused(d) * (1 + strength / (1 + hop_dist(d)))`` for the items that have a hop
    distance; every other item keeps its score.

    Only items already in ``fused`` are scored (ids found only in ``hop_dist`` are ignored), so a
    graph store cannot inject content. For a negative score (possible with ``max`` or
    ``weighted`` over stores that score below zero) the boost is added to its magnitude, so a
    boost never lowers an item; for scores >= 0, as RRF's always are, this is the formula above.
    """
    boosted: dict[Item, float] = {}
    for item, score in fused.items():
        distance = hop_dist.get(item)
        if distance is None:
            boosted[item] = score
            continue
        factor = strength / (1 + distance)
        boosted[item] = score * (1 + factor) if score >= 0 else score * (1 - factor)
    return boosted
