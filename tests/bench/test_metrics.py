"""The retrieval metrics on examples worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import math

import pytest

from mnemowire.apps.bench.metrics import (
    FloorPoint,
    empty_rate,
    mean,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    recommend_floor,
)

RANKED = ["a", "x", "b", "y", "z", "c"]
RELEVANT = frozenset({"a", "b", "c", "d"})


def test_recall_at_k() -> None:
    assert recall_at_k(RANKED, RELEVANT, 1) == 1 / 4  # a
    assert recall_at_k(RANKED, RELEVANT, 5) == 2 / 4  # a, b
    assert recall_at_k(RANKED, RELEVANT, 10) == 3 / 4  # a, b, c; d never returned
    assert recall_at_k([], RELEVANT, 5) == 0.0
    assert recall_at_k(["b", "b"], frozenset({"b"}), 5) == 1.0  # a duplicate counts once


def test_precision_at_k_divides_by_k() -> None:
    assert precision_at_k(RANKED, RELEVANT, 5) == 2 / 5
    assert precision_at_k(["a"], RELEVANT, 5) == 1 / 5  # a short list is not rewarded
    assert precision_at_k(RANKED, RELEVANT, 1) == 1.0


def test_reciprocal_rank() -> None:
    assert reciprocal_rank(RANKED, RELEVANT) == 1.0
    assert reciprocal_rank(["x", "y", "b"], RELEVANT) == 1 / 3
    assert reciprocal_rank(["x", "y"], RELEVANT) == 0.0


def test_ndcg_with_binary_relevance() -> None:
    # DCG = 1/log2(2) + 1/log2(4) + 1/log2(7) (a at 1, b at 3, c at 6)
    dcg = 1 + 1 / 2 + 1 / math.log2(7)
    # IDCG: four relevant items, all at the top: ranks 1..4
    ideal = 1 + 1 / math.log2(3) + 1 / 2 + 1 / math.log2(5)
    assert ndcg_at_k(RANKED, RELEVANT, 10) == pytest.approx(dcg / ideal)
    assert ndcg_at_k(["a", "b", "c", "d"], RELEVANT, 10) == pytest.approx(1.0)
    # one relevant item at rank 2: (1/log2(3)) / 1
    assert ndcg_at_k(["x", "q"], frozenset({"q"}), 10) == pytest.approx(1 / math.log2(3))
    # k cuts the list and the ideal: only rank 1 counts, and the ideal is one hit
    assert ndcg_at_k(["x", "a"], RELEVANT, 1) == 0.0
    assert ndcg_at_k(["a", "x"], RELEVANT, 1) == 1.0
    assert ndcg_at_k(["a", "a"], frozenset({"a", "b"}), 10) == pytest.approx(
        1 / (1 + 1 / math.log2(3))
    )  # the repeated hit earns nothing


def test_empty_rate_and_mean() -> None:
    assert empty_rate([0, 5, 0, 2]) == 0.5
    assert empty_rate([0]) == 1.0
    assert mean([1.0, 0.0, 0.5]) == 0.5
    with pytest.raises(ValueError, match="no probes"):
        empty_rate([])
    with pytest.raises(ValueError, match="mean of nothing"):
        mean([])


@pytest.mark.parametrize(
    "metric",
    [
        lambda: recall_at_k(["a"], frozenset(), 5),
        lambda: precision_at_k(["a"], frozenset(), 5),
        lambda: reciprocal_rank(["a"], frozenset()),
        lambda: ndcg_at_k(["a"], frozenset(), 10),
    ],
)
def test_metrics_refuse_queries_without_relevant_items(metric: object) -> None:
    with pytest.raises(ValueError, match="no-match probes"):
        metric()  # type: ignore[operator]


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be at least 1"):
        recall_at_k(["a"], RELEVANT, 0)


def test_recommend_floor_takes_the_highest_floor_within_the_loss() -> None:
    curve = [
        FloorPoint(0.0, 0.92, 0.0),
        FloorPoint(0.2, 0.91, 0.1),
        FloorPoint(0.3, 0.90, 0.2),  # exactly 0.02 below the baseline: allowed
        FloorPoint(0.4, 0.85, 0.6),
    ]
    chosen = recommend_floor(curve, baseline=0.92, max_recall_loss=0.02)
    assert chosen == FloorPoint(0.3, 0.90, 0.2)
    assert recommend_floor(curve, baseline=0.92, max_recall_loss=0.0) == curve[0]
    assert recommend_floor(curve[3:], baseline=0.92, max_recall_loss=0.02) is None
    assert recommend_floor([], baseline=0.92, max_recall_loss=0.02) is None
