"""Retrieval metrics with binary relevance: pure functions, no I/O, tested on worked examples.

``ranked`` is what a recall returned, best first (labels or ids); ``relevant`` is the set a
query's labels name. Metrics that divide by the number of relevant memories (recall@k, nDCG)
are undefined for a query without any: those are no-match probes, scored by
:func:`empty_rate` instead. Definitions follow the TREC conventions, so the numbers compare
with published ones:

- recall@k = |top k ∩ relevant| / |relevant|
- precision@k = |top k ∩ relevant| / k (a list shorter than k is not rewarded for it)
- reciprocal rank = 1 / rank of the first relevant hit (ranks from 1), 0 when none is returned
- nDCG@k = DCG@k / IDCG@k, DCG@k = Σ rel_i / log2(i + 1) over ranks i = 1..k, and IDCG@k the
  DCG of a perfect list (min(|relevant|, k) relevant hits first)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass

__all__ = [
    "FloorPoint",
    "empty_rate",
    "mean",
    "ndcg_at_k",
    "precision_at_k",
    "recall_at_k",
    "reciprocal_rank",
    "recommend_floor",
]


def _check(relevant: Set[str], k: int | None = None) -> None:
    if not relevant:
        raise ValueError("undefined without relevant items: score no-match probes by empty_rate")
    if k is not None and k < 1:
        raise ValueError(f"k must be at least 1, not {k}")


def recall_at_k(ranked: Sequence[str], relevant: Set[str], k: int) -> float:
    """Share of the relevant items among the first ``k`` results."""
    _check(relevant, k)
    return len(set(ranked[:k]) & relevant) / len(relevant)


def precision_at_k(ranked: Sequence[str], relevant: Set[str], k: int) -> float:
    """Share of the ``k`` result slots holding a relevant item."""
    _check(relevant, k)
    return len(set(ranked[:k]) & relevant) / k


def reciprocal_rank(ranked: Sequence[str], relevant: Set[str]) -> float:
    """1 / rank of the first relevant result; 0 when none was returned."""
    _check(relevant)
    for rank, item in enumerate(ranked, start=1):
        if item in relevant:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked: Sequence[str], relevant: Set[str], k: int = 10) -> float:
    """Normalised discounted cumulative gain at ``k`` with binary relevance."""
    _check(relevant, k)
    seen: set[str] = set()
    dcg = 0.0
    for rank, item in enumerate(ranked[:k], start=1):
        if item in relevant and item not in seen:  # a duplicate hit earns nothing twice
            dcg += 1.0 / math.log2(rank + 1)
        seen.add(item)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(relevant), k) + 1))
    return dcg / ideal


def empty_rate(result_counts: Iterable[int]) -> float:
    """No-match handling: the share of no-match probes answered with zero results."""
    counts = list(result_counts)
    if not counts:
        raise ValueError("no probes to score")
    return sum(count == 0 for count in counts) / len(counts)


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean; a benchmark with nothing to average is a bug, so it raises."""
    items = list(values)
    if not items:
        raise ValueError("mean of nothing")
    return sum(items) / len(items)


@dataclass(frozen=True)
class FloorPoint:
    """One relevance floor and what it did: mean recall@k over the labelled queries and the
    share of no-match probes that came back empty."""

    floor: float
    recall_at_k: float
    empty_rate: float


def recommend_floor(
    curve: Sequence[FloorPoint], *, baseline: float, max_recall_loss: float
) -> FloorPoint | None:
    """The highest floor whose recall@k is within ``max_recall_loss`` of ``baseline`` (the
    recall without a floor), i.e. the most no-match protection that costs at most that much
    recall; None when even the lowest floor costs more."""
    allowed = [p for p in curve if p.recall_at_k >= baseline - max_recall_loss - 1e-12]
    return max(allowed, key=lambda p: p.floor, default=None)
