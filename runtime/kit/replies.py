"""A recalled question brings its reply ([recall.replies]).

In a conversation kept turn by turn, the turn closest to a question about it is often a
question too ("What kind of counselling do you want to pursue?"), and the answer is the turn
after it, which shares few of its words. So a store lends each episodic candidate that asks
something (``asks``: its text holds a "?") a share of its score: the record that follows it gets
``REPLY_SHARE`` of the question's score on top of its own (``lend_to_replies``; a reply that was
no candidate joins with that share alone, if it passes the recall's filters and floor). The
record that follows is the next episodic record of the same agent and user in the order the
store wrote them, when it happened no earlier than the question and at most
``REPLY_WITHIN_MS`` after (``replies_in_time``; either time unknown: it fits).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

from mnemowire.models import MemoryType

__all__ = ["REPLY_SHARE", "REPLY_WITHIN_MS", "asks", "lend_to_replies", "replies_in_time"]

Item = TypeVar("Item", bound=Hashable)

#: the share of a question's score its reply gets (LoCoMo's development half, keyword rarity
#: relative to the agent's size, ties still by age: 0.25 found 0.682 / 0.785 of the questions'
#: evidence in the top 5 / 10, 0.4 0.685 / 0.793, 0.5 0.692 / 0.799, 0.6 0.691 / 0.804; a
#: study over the same rankings found recall@5 highest at 0.5, recall@10 flat from 0.5 to 1)
REPLY_SHARE = 0.5
#: how long after a question its reply may have happened: a day (a conversation's next session
#: is another talk, even when its first turn was written right after the question)
REPLY_WITHIN_MS = 86_400_000


def asks(record_type: str, content: str) -> bool:
    """Whether a record is a turn that asks something: an episodic memory holding a "?"."""
    return record_type == MemoryType.EPISODIC and "?" in content


def replies_in_time(question_time: int | None, reply_time: int | None) -> bool:
    """Whether a reply's ``event_time`` fits its question's (either unknown fits)."""
    if question_time is None or reply_time is None:
        return True
    return question_time <= reply_time <= question_time + REPLY_WITHIN_MS


def lend_to_replies(
    score: Mapping[Item, float], reply_of: Mapping[Item, Item], demote: Mapping[Item, float]
) -> dict[Item, float]:
    """``score`` with each question's reply (``reply_of``, question -> reply) given
    ``REPLY_SHARE`` of the question's score, times the reply's own ``demote`` factor, on top
    of its own score (0 for a reply that was no candidate). A reply that answers two
    questions gets both shares; what a reply gets is never lent on."""
    lent = dict(score)
    for question, reply in reply_of.items():
        lent[reply] = lent.get(reply, 0.0) + REPLY_SHARE * score[question] * demote[reply]
    return lent
