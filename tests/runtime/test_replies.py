"""The store kit's rule for a recalled question's reply ([recall.replies]); each store's
recall by it is in tests/adapters/_semantics_replies.py."""

from __future__ import annotations

from mnemowire.kit.replies import (
    REPLY_SHARE,
    REPLY_WITHIN_MS,
    asks,
    lend_to_replies,
    replies_in_time,
)


def test_only_an_episodic_memory_with_a_question_mark_asks() -> None:
    assert asks("episodic", "Melanie: What do you want to pursue?")
    assert asks("episodic", "Is it? [shared a photo: a cat]")
    assert not asks("episodic", "Caroline: Counselling, I think.")
    assert not asks("semantic", "Why is the sky blue?")
    assert not asks("procedural", '{"states": ["?"]}')


def test_a_reply_happens_no_earlier_than_its_question_and_within_a_day() -> None:
    assert replies_in_time(1_000, 1_000)
    assert replies_in_time(1_000, 1_000 + REPLY_WITHIN_MS)
    assert not replies_in_time(1_000, 1_001 + REPLY_WITHIN_MS)
    assert not replies_in_time(1_000, 999)
    assert replies_in_time(None, 5)
    assert replies_in_time(5, None)


def test_a_reply_gets_a_share_of_its_questions_score_times_its_own_demote() -> None:
    score = {"q": 0.04, "r": 0.01, "other": 0.02}
    lent = lend_to_replies(score, {"q": "r", "other": "new"}, {"r": 1.0, "new": 0.5})
    assert lent["q"] == 0.04
    assert lent["other"] == 0.02
    assert lent["r"] == 0.01 + REPLY_SHARE * 0.04
    assert lent["new"] == REPLY_SHARE * 0.02 * 0.5  # no candidate before: the share alone
    assert score == {"q": 0.04, "r": 0.01, "other": 0.02}  # the input is left as it was
