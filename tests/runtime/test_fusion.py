"""Fusion math: hand-computed examples, then properties every input must satisfy."""

from __future__ import annotations

import math
import random

from hypothesis import given
from hypothesis import strategies as st

from mnemowire.fusion import RRF_K, hop_boost, hop_distances, max_fusion, rrf, weighted_fusion

ids = st.sampled_from([f"m{i}" for i in range(12)])
ranked_lists = st.lists(st.lists(ids, max_size=10), max_size=5)
scores = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
scored_lists = st.lists(st.lists(st.tuples(ids, scores), max_size=10), max_size=5)
weighted_lists = st.lists(
    st.tuples(st.floats(min_value=0, max_value=10), st.lists(st.tuples(ids, scores), max_size=10)),
    max_size=5,
)


# -- hand-computed examples ----------------------------------------------------------------


def test_rrf_by_hand() -> None:
    fused = rrf([["a", "b", "c"], ["b", "a"], ["c"]])
    assert math.isclose(fused["a"], 0.03252247488101534)  # 1/61 + 1/62
    assert math.isclose(fused["b"], 0.03252247488101534)  # 1/62 + 1/61
    assert math.isclose(fused["c"], 0.032266458495966696)  # 1/63 + 1/61
    assert fused["a"] == fused["b"]  # same ranks, other order: an exact tie


def test_rrf_other_k_by_hand() -> None:
    assert rrf([["a", "b"]], k=1) == {"a": 0.5, "b": 1 / 3}


def test_max_by_hand() -> None:
    fused = max_fusion([[("a", 0.9), ("b", 0.5)], [("b", 0.7), ("c", 0.2)]])
    assert fused == {"a": 0.9, "b": 0.7, "c": 0.2}


def test_weighted_by_hand() -> None:
    fused = weighted_fusion([(2.0, [("a", 0.5), ("b", 0.25)]), (1.0, [("b", 0.5), ("c", 0.1)])])
    assert fused == {"a": 1.0, "b": 1.0, "c": 0.1}


def test_hop_boost_by_hand() -> None:
    fused = {"a": 0.03, "b": 0.02, "c": 0.01}
    distances = hop_distances(fused, [{"a": {"b": 1}, "c": {"x": 1}}, {"b": {"c": 2}}], 3)
    assert distances == {"a": 1, "b": 2}  # c's only neighbour x was not fused
    boosted = hop_boost(fused, distances)
    assert math.isclose(boosted["a"], 0.0315)  # 0.03 * (1 + 0.1 / 2)
    assert math.isclose(boosted["b"], 0.02 * (1 + 0.1 / 3))
    assert boosted["c"] == 0.01
    assert set(boosted) == {"a", "b", "c"}


def test_hop_distances_keep_the_nearest_and_ignore_the_rest() -> None:
    fused = {"a", "b", "c"}
    answers = [
        {"a": {"b": 3, "a": 1}},  # itself does not count
        {"a": {"c": 1}, "b": {"c": 4, "a": 0}},  # beyond max_hops or zero: ignored
        {"x": {"a": 1}},  # x was not fused
    ]
    assert hop_distances(fused, answers, 3) == {"a": 1}


def test_hop_boost_never_lowers_a_negative_score() -> None:
    assert math.isclose(hop_boost({"a": -1.0}, {"a": 1})["a"], -0.95)


def test_hop_boost_ignores_ids_that_were_not_fused() -> None:
    assert hop_boost({"a": 1.0}, {"b": 1, "a": 2}) == {"a": 1.0 * (1 + 0.1 / 3)}


# -- properties ----------------------------------------------------------------------------


@given(ranked_lists, st.randoms())
def test_rrf_ignores_the_order_of_the_lists(lists: list[list[str]], rnd: random.Random) -> None:
    shuffled = list(lists)
    rnd.shuffle(shuffled)
    assert rrf(shuffled) == rrf(lists)  # exactly: sums are fsum, not order dependent


@given(scored_lists, st.randoms())
def test_max_ignores_the_order_of_the_lists(
    lists: list[list[tuple[str, float]]], rnd: random.Random
) -> None:
    shuffled = list(lists)
    rnd.shuffle(shuffled)
    assert max_fusion(shuffled) == max_fusion(lists)


@given(weighted_lists, st.randoms())
def test_weighted_ignores_the_order_of_the_lists(
    lists: list[tuple[float, list[tuple[str, float]]]], rnd: random.Random
) -> None:
    shuffled = list(lists)
    rnd.shuffle(shuffled)
    assert weighted_fusion(shuffled) == weighted_fusion(lists)


@given(st.lists(ids, unique=True, min_size=2, max_size=12))
def test_rrf_ties_are_exact(items: list[str]) -> None:
    """A list and its reverse: items at mirrored positions have the same ranks, so they tie."""
    fused = rrf([items, items[::-1]])
    for i in range(len(items)):
        assert fused[items[i]] == fused[items[-1 - i]]


@given(st.integers(min_value=0, max_value=4))
def test_empty_inputs_fuse_to_nothing(n: int) -> None:
    assert rrf([[]] * n) == {}
    assert max_fusion([[]] * n) == {}
    assert weighted_fusion([(1.0, [])] * n) == {}
    assert hop_boost({}, {"a": 1}) == {}
    assert hop_distances(set(), [{"a": {"b": 1}}], 3) == {}


@given(st.lists(ids, max_size=15))
def test_rrf_counts_a_duplicate_once_at_its_best_rank(items: list[str]) -> None:
    fused = rrf([items])
    assert set(fused) == set(items)
    for item in fused:
        assert fused[item] == 1 / (RRF_K + items.index(item) + 1)


@given(st.lists(st.tuples(ids, scores), max_size=15), st.floats(min_value=0, max_value=10))
def test_score_fusions_count_a_duplicate_once_at_its_best_rank(
    items: list[tuple[str, float]], weight: float
) -> None:
    first: dict[str, float] = {}
    for item, score in items:
        first.setdefault(item, score)
    assert max_fusion([items]) == first
    assert weighted_fusion([(weight, items)]) == {i: weight * s for i, s in first.items()}


@given(st.lists(ids, max_size=10))
def test_two_agreeing_lists_double_one_list(items: list[str]) -> None:
    one = rrf([items])
    assert rrf([items, items]) == {item: 2 * score for item, score in one.items()}


@given(st.lists(st.lists(ids, max_size=RRF_K + 1), min_size=2, max_size=5))
def test_consensus_beats_any_single_list(lists: list[list[str]]) -> None:
    """With lists of at most k + 1 items, an item two lists returned outscores every item only
    one list returned, whatever its rank: what makes RRF hold against one lying store."""
    fused = rrf(lists)
    votes = {item: sum(item in items for items in lists) for item in fused}
    agreed = [fused[i] for i, n in votes.items() if n >= 2]
    alone = [fused[i] for i, n in votes.items() if n == 1]
    if agreed and alone:
        assert min(agreed) > max(alone)


@given(
    st.dictionaries(ids, scores, max_size=8),
    st.lists(
        st.dictionaries(ids, st.dictionaries(ids, st.integers(-1, 5), max_size=4), max_size=6),
        max_size=3,
    ),
    st.integers(min_value=1, max_value=3),
)
def test_hop_boost_only_strengthens_what_was_fused(
    fused: dict[str, float], answers: list[dict[str, dict[str, int]]], hops: int
) -> None:
    distances = hop_distances(fused, answers, hops)
    assert set(distances) <= set(fused)
    assert all(1 <= d <= hops for d in distances.values())
    boosted = hop_boost(fused, distances)
    assert set(boosted) == set(fused)  # never an injected id
    for item, score in fused.items():
        assert boosted[item] >= score
        assert abs(boosted[item] - score) <= 0.05 * abs(score) * (1 + 1e-12)
