"""mnemowire.compat.mem0 beside the real mem0ai 2.2.1, one program run on both: mem0's
documented quickstart with ``infer=False`` (no LLM here), then every read and write it goes
on to, compared answer by answer (ids and times aside, which each mints itself).

The facade runs on the embedded store with the same all-MiniLM-L6-v2 mem0 embeds with."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.mem0._backend import close_memory, open_memory
from mnemowire.compat import mem0 as compat

#: mem0's quickstart conversation (docs: "Open Source > Python quickstart")
MESSAGES = [
    {"role": "user", "content": "I'm planning to watch a movie tonight. Any recommendations?"},
    {"role": "assistant", "content": "How about thriller movies? They can be quite engaging."},
    {"role": "user", "content": "I'm not a big fan of thriller movies but I love sci-fi movies."},
    {
        "role": "assistant",
        "content": "Got it! I'll avoid thriller recommendations and suggest sci-fi movies in "
        "the future.",
    },
]
#: what each side mints for itself
OWN = {"id", "memory_id", "created_at", "updated_at"}


@pytest.fixture
def both(tmp_path: Path) -> Iterator[tuple[Any, compat.Memory]]:
    real = open_memory(tmp_path / "mem0")
    facade = compat.Memory(f"sqlite-vec://{tmp_path / 'facade.db'}")
    try:
        yield real, facade
    finally:
        facade.close()
        close_memory(real)


def same(real: Any, ours: Any) -> None:
    """Equal answers but for what each side mints (ids, times), keys in the same order."""
    if isinstance(real, dict):
        assert isinstance(ours, dict)
        assert list(real) == list(ours), (real, ours)
        for key in real:
            if key not in OWN:
                same(real[key], ours[key])
    elif isinstance(real, list):
        assert isinstance(ours, list)
        assert len(real) == len(ours), (real, ours)
        for r, o in zip(real, ours, strict=True):
            same(r, o)
    elif isinstance(real, float):
        assert isinstance(ours, float)
    else:
        assert real == ours


def by_memory(answer: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return sorted(answer["results"], key=lambda r: r["memory"])


def test_one_program_on_both(both: tuple[Any, compat.Memory]) -> None:
    real, facade = both
    added = [
        m.add(MESSAGES, user_id="alex", metadata={"category": "movies"}, infer=False)
        for m in (real, facade)
    ]
    same(*added)
    more = [
        m.add("Alex is allergic to peanuts", user_id="alex", agent_id="chef", infer=False)
        for m in (real, facade)
    ]
    same(*more)
    ids = [[r["id"] for r in answer["results"]] for answer in added]
    for step in range(4):
        same(real.get(ids[0][step]), facade.get(ids[1][step]))
    same(*(by_memory(m.get_all(filters={"user_id": "alex"})) for m in (real, facade)))
    same(*(by_memory(m.get_all(filters={"agent_id": "chef"})) for m in (real, facade)))
    same(
        *(
            by_memory(m.get_all(filters={"user_id": "alex", "category": "movies"}))
            for m in (real, facade)
        )
    )
    # the same embedder gives the same scores, and both list by score (with a top_k that
    # holds every memory: which few make a small top_k is each one's ranking, mnemowire's
    # hybrid recall's here, docs/integrations.md#mem0)
    for query in ("What kind of movies does Alex like?", "sci-fi", "thriller movies"):
        found = [m.search(query, filters={"user_id": "alex"}, top_k=10) for m in (real, facade)]
        same(*found)
        assert [r["memory"] for r in found[0]["results"]] == [
            r["memory"] for r in found[1]["results"]
        ]
        for mine, theirs in zip(found[1]["results"], found[0]["results"], strict=True):
            assert mine["score"] == pytest.approx(theirs["score"], abs=1e-3)
    chef = [
        m.search("food allergies", filters={"agent_id": "chef"}, top_k=5)["results"]
        for m in (real, facade)
    ]
    same(chef[0], chef[1])
    # writes answer the same words, and leave the same memories behind
    same(
        real.update(ids[0][2], text="I love sci-fi and documentaries."),
        facade.update(ids[1][2], text="I love sci-fi and documentaries."),
    )
    same(real.get(ids[0][2]), facade.get(ids[1][2]))
    same(real.delete(ids[0][1]), facade.delete(ids[1][1]))
    assert real.get(ids[0][1]) is None
    assert facade.get(ids[1][1]) is None
    same(real.delete_all(agent_id="chef"), facade.delete_all(agent_id="chef"))
    same(*(by_memory(m.get_all(filters={"user_id": "alex"})) for m in (real, facade)))
    # and the same history: ADD, then the UPDATE or DELETE, each with its actor and role
    for step in (0, 1, 2, 3):
        same(real.history(ids[0][step]), facade.history(ids[1][step]))
    same(
        *(
            m.history(answer["results"][0]["id"])
            for m, answer in zip((real, facade), more, strict=False)
        )
    )


ERRORS: list[tuple[str, Callable[[Any], Any]]] = [
    ("no scope on add", lambda m: m.add("x", infer=False)),
    ("a spaced user id", lambda m: m.add("x", user_id="a b", infer=False)),
    ("no scope on search", lambda m: m.search("x", filters={"category": "movies"})),
    ("a top-level user_id", lambda m: m.get_all(user_id="alex")),
    ("a threshold past 1", lambda m: m.search("x", filters={"user_id": "a"}, threshold=1.5)),
    ("a negative top_k", lambda m: m.get_all(filters={"user_id": "a"}, top_k=-1)),
    ("an empty query", lambda m: m.search(" ", filters={"user_id": "a"})),
    ("an update of nothing", lambda m: m.update("f6d3c1c0-0000-4000-8000-000000000000")),
    ("delete_all of everything", lambda m: m.delete_all()),
    (
        "a bad expiration date",
        lambda m: m.add("x", user_id="a", expiration_date="soon", infer=False),
    ),
]


@pytest.mark.parametrize(("case", "call"), ERRORS, ids=[c for c, _ in ERRORS])
def test_the_same_mistakes_get_the_same_words(
    both: tuple[Any, compat.Memory], case: str, call: Callable[[Any], Any]
) -> None:
    real, facade = both
    with pytest.raises(Exception) as by_mem0:  # noqa: PT011 (mem0's own classes vary)
        call(real)
    with pytest.raises(ValueError) as by_facade:  # noqa: PT011 (the words are compared below)
        call(facade)
    assert getattr(by_mem0.value, "message", str(by_mem0.value)) == str(by_facade.value), case


def test_unknown_ids(both: tuple[Any, compat.Memory]) -> None:
    real, facade = both
    unknown = "f6d3c1c0-0000-4000-8000-000000000000"
    assert real.get(unknown) is None
    assert facade.get(unknown) is None
    assert real.history(unknown) == facade.history(unknown) == []
    for m in (real, facade):
        with pytest.raises(ValueError, match=f"Memory with id {unknown} not found"):
            m.delete(unknown)
