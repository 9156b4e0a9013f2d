"""The keyword rules every store shares (mnemowire.kit.keywords); how a store applies them is in
tests/adapters/_semantics_keywords.py."""

from __future__ import annotations

import pytest

from mnemowire.kit.keywords import rank_matches, rare_terms, rarity_limit


@pytest.mark.parametrize(
    ("documents", "limit"),
    [
        (0, 3),
        (5, 3),
        (127, 3),  # 3.97: a small agent keeps the floor
        (128, 4),
        (419, 13),  # one LoCoMo conversation's turns
        (680, 21),
        (1_024, 32),
        (2_048, 32),
        (100_000, 32),  # the ceiling bounds the matches at any scale
    ],
)
def test_a_word_is_rare_relative_to_the_agents_size(documents: int, limit: int) -> None:
    assert rarity_limit(documents) == limit


def test_rare_terms_are_those_within_the_limit_rarest_first() -> None:
    held = {"pier": 9, "walrus": 2, "meeting": 300, "never": 0, "zebra": 11}
    assert rare_terms(held, 340) == ["walrus", "pier"]  # limit 10


def test_matches_rank_by_summed_idf_then_by_meaning_then_by_key() -> None:
    held = {"walrus": 2, "pier": 5}
    matches = [(1, "walrus"), (2, "walrus"), (3, "walrus"), (3, "pier"), (4, "pier")]
    relevance = {1: 0.1, 2: 0.6, 3: -0.2, 4: 0.9}
    # 3 holds both words; 1 and 2 hold the same word (2 is nearer in meaning); 4 the commoner
    assert rank_matches(matches, held, 100, relevance) == [3, 2, 1, 4]
    assert rank_matches(matches, held, 100, {**relevance, 2: 0.1}) == [3, 1, 2, 4]
