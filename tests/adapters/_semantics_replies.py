"""[recall.replies], run on every store that imports it: a recalled episodic memory that asks
something brings the record written after it (its reply), which shares few of the query's
words, if it is the same agent's and user's, happened within a day, and the recall admits it."""

from __future__ import annotations

from typing import Any

from tests.adapters._semantics import StoreFactory

DAY_MS = 86_400_000
START = 1_700_000_000_000
QUESTION = "Melanie: What kind of counselling do you want to pursue?"
REPLY = "Caroline: Working with trans people and supporting their mental health."
#: none shares a word with the query or the reply: without the rule, which of them and the
#: reply comes second is the embedder's noise
OTHERS = [
    "Melanie: The garden looks lovely today.",
    "Caroline: Our dog loves long walks.",
    "Melanie: Pancakes for breakfast again!",
    "Caroline: That concert was amazing.",
    "Melanie: My sister visited last weekend.",
    "Caroline: Trains were late this morning.",
]
ASKED = "what kind of counselling does she want to pursue"


async def _turn(store: Any, content: str, at: int = START, **fields: Any) -> str:
    answer = await store.remember(
        {"agent_id": "a", "type": "episodic", "content": content, "event_time": at, **fields}
    )
    return str(answer.id)


async def _recall(store: Any, **request: Any) -> list[str]:
    answer = await store.recall({"agent_id": "a", "query": ASKED, "k": 2, **request})
    scores = [hit.score for hit in answer.results]
    assert scores == sorted(scores, reverse=True)
    return [hit.id for hit in answer.results]


async def test_a_recalled_question_brings_its_reply(make_store: StoreFactory) -> None:
    store = make_store()
    for text in OTHERS:
        await _turn(store, text)
    question = await _turn(store, QUESTION)
    reply = await _turn(store, REPLY)
    assert await _recall(store) == [question, reply]


async def test_no_reply_from_another_user_a_later_day_or_outside_the_recall(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    for text in OTHERS:
        await _turn(store, text)
    question = await _turn(store, QUESTION, user_id="u1")
    other_user = await _turn(store, REPLY, user_id="u2")
    two_days_on = await _turn(store, REPLY, at=START + 2 * DAY_MS, user_id="u1")
    found = await _recall(store)
    assert found[0] == question
    assert other_user not in found
    assert two_days_on not in found
    # the reply of the same user and day, filtered out of the recall, is not brought either
    kept = await _turn(store, QUESTION, user_id="u3")
    filtered = await _turn(store, REPLY, user_id="u3", metadata={"hidden": True})
    found = await _recall(store, user_id="u3", filter={"hidden": {"$ne": True}})
    assert found[0] == kept
    assert filtered not in found
