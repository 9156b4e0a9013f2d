"""Retrieval quality with the real embedder (all-MiniLM-L6-v2): what the store is for.

Paraphrased questions over the demo corpus must find the memory that answers them in the top 3,
through hybrid recall. The full labelled benchmark is `mnemowire bench quality`; this keeps the
basic promise under test on every run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.demo import corpus
from mnemowire.embedders import default_embedder
from mnemowire.layers.memory import Memory

QUESTIONS: list[tuple[dict[str, Any], str]] = [
    (
        {"agent_id": "assistant", "user_id": "alice", "query": "Which nuts could hurt Alice?"},
        "Alice is allergic to peanuts and tree nuts.",
    ),
    (
        {"agent_id": "assistant", "user_id": "bob", "query": "What milk should Bob drink?"},
        "Bob is lactose intolerant; he drinks oat milk.",
    ),
    (
        {
            "agent_id": "assistant",
            "user_id": "alice",
            "query": "Is Alice nervous on planes?",
            "types": ["emotional"],
        },
        "Alice gets anxious before flights, especially during take-off.",
    ),
    (
        {
            "agent_id": "assistant",
            "query": "what happened to Carla's computer",
            "types": ["episodic"],
        },
        "Carla's laptop was stolen on the tram, and IT wiped it remotely.",
    ),
    (
        {"agent_id": "assistant", "query": "deadline for submitting travel expenses"},
        "Expense reports must be filed within 30 days of the trip.",
    ),
    (
        {"agent_id": "assistant", "user_id": "bob", "query": "what pet does Bob have"},
        "Bob's dog Pixel needs a walk at 7 am and 7 pm.",
    ),
]


@pytest.fixture
async def store() -> AsyncIterator[Memory]:
    async with Memory(SqliteVecStore(":memory:", embedder=default_embedder())) as opened:
        await opened.remember_many(corpus())
        yield opened


@pytest.mark.parametrize(("request_", "answer"), QUESTIONS, ids=[q["query"] for q, _ in QUESTIONS])
async def test_paraphrased_question_finds_its_answer(
    store: Memory, request_: dict[str, Any], answer: str
) -> None:
    found = await store.recall({**request_, "k": 3})
    assert answer in [hit.content for hit in found.results]


async def test_relevance_separates_an_answer_from_an_unrelated_question(
    store: Memory,
) -> None:
    good = await store.recall(
        {
            "agent_id": "assistant",
            "user_id": "alice",
            "query": "Which nuts could hurt Alice?",
            "k": 1,
        }
    )
    unrelated = await store.recall(
        {"agent_id": "assistant", "user_id": "alice", "query": "how do volcanoes form", "k": 1}
    )
    [answer], [nearest] = good.results, unrelated.results
    assert answer.relevance is not None
    assert nearest.relevance is not None
    assert answer.relevance > nearest.relevance + 0.2
