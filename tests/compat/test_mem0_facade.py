"""mnemowire.compat.mem0 on sqlite-vec (a deterministic embedder): mem0's methods, arguments,
answers and errors, and what the facade adds (review, erasure) and refuses (the LLM's work).
Side by side with the real mem0: tests/adapters/mem0/test_compat_side_by_side.py."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mnemowire.compat.mem0 import AsyncMemory, Memory, NeedsAnLLM
from mnemowire.errors import MnemowireError, RequestError, UnsupportedError
from mnemowire.layers.memory import Memory as Boundary
from mnemowire.layers.memory import RunningLoopError

ITEM_KEYS = ["id", "memory", "hash", "metadata", "score", "created_at", "updated_at"]


def url(tmp_path: Path) -> str:
    return f"sqlite-vec://{tmp_path / 'mem0.db'}?embedder=hash:64"


@pytest.fixture
def m(tmp_path: Path) -> Iterator[Memory]:
    with Memory(url(tmp_path)) as memory:
        yield memory


def test_add_stores_each_message_as_mem0_does_without_inference(m: Memory) -> None:
    added = m.add(
        [
            {"role": "system", "content": "You are a travel assistant."},
            {"role": "user", "content": "I'm planning to watch a movie tonight.", "name": "alex"},
            {"role": "assistant", "content": "How about thriller movies?"},
        ],
        user_id="alice",
        agent_id="travel",
        run_id="r-1",
        metadata={"category": "movies", "user_id": "mallory"},  # scope ids come from arguments
        infer=False,
    )
    results = added["results"]
    assert [(r["memory"], r["event"], r["role"], r["actor_id"]) for r in results] == [
        ("I'm planning to watch a movie tonight.", "ADD", "user", "alex"),
        ("How about thriller movies?", "ADD", "assistant", None),
    ]
    assert list(results[0]) == ["id", "memory", "event", "actor_id", "role"]
    got = m.get(results[0]["id"])
    assert got is not None
    assert list(got)[:7] == ITEM_KEYS
    assert got["score"] is None
    assert got["hash"] == hashlib.md5(got["memory"].encode()).hexdigest()  # mem0's hash
    assert (got["user_id"], got["agent_id"], got["run_id"], got["actor_id"], got["role"]) == (
        "alice",
        "travel",
        "r-1",
        "alex",
        "user",
    )
    assert got["metadata"] == {"category": "movies"}
    assert got["created_at"].endswith("+00:00")
    # a string is one user message; a dict one message
    [one] = m.add("Alice likes tea", user_id="alice", infer=False)["results"]
    assert (one["role"], one["actor_id"]) == ("user", None)
    [two] = m.add({"role": "user", "content": "Bob likes cake"}, user_id="bob", infer=False)[
        "results"
    ]
    assert m.get(two["id"])["user_id"] == "bob"  # type: ignore[index]


def test_reads_are_scoped_by_filters_as_in_mem0(m: Memory) -> None:
    m.add("Alice likes tea", user_id="alice", agent_id="travel", run_id="r-1", infer=False)
    m.add("Alice likes jazz", user_id="alice", agent_id="music", infer=False)
    m.add("Bob likes cake", user_id="bob", agent_id="travel", infer=False)

    def contents(answer: dict[str, list[dict[str, Any]]]) -> set[str]:
        return {r["memory"] for r in answer["results"]}

    assert contents(m.get_all(filters={"user_id": "alice"})) == {
        "Alice likes tea",
        "Alice likes jazz",
    }
    assert contents(m.get_all(filters={"agent_id": "travel"})) == {
        "Alice likes tea",
        "Bob likes cake",
    }
    assert contents(m.get_all(filters={"user_id": "alice", "agent_id": "travel"})) == {
        "Alice likes tea"
    }
    assert contents(m.get_all(filters={"run_id": "r-1"})) == {"Alice likes tea"}
    assert "score" not in m.get_all(filters={"run_id": "r-1"})["results"][0]
    assert len(m.get_all(filters={"user_id": "alice"}, top_k=1)["results"]) == 1
    assert m.get_all(filters={"user_id": "alice"}, top_k=0) == {"results": []}
    found = m.search("Alice likes tea", filters={"user_id": "alice"}, threshold=0.0)
    assert found["results"][0]["memory"] == "Alice likes tea"
    assert list(found["results"][0])[:7] == ITEM_KEYS
    assert isinstance(found["results"][0]["score"], float)
    scores = [r["score"] for r in found["results"]]
    assert scores == sorted(scores, reverse=True)
    assert contents(m.search("likes", filters={"agent_id": "music"}, threshold=0.0)) == {
        "Alice likes jazz"
    }
    assert m.search("x", filters={"user_id": "alice"}, top_k=0) == {"results": []}


def test_metadata_filters_map_onto_the_specs_operators(m: Memory) -> None:
    for year, genre in ((1999, "thriller"), (2010, "comedy"), (2020, "thriller")):
        m.add(
            f"a {genre} from {year}",
            user_id="u",
            metadata={"year": year, "genre": genre},
            infer=False,
        )
    m.add("no year", user_id="u", infer=False)

    def years(filters: dict[str, Any]) -> list[int]:
        found = m.get_all(filters={"user_id": "u", **filters})["results"]
        return sorted(r["metadata"]["year"] for r in found if r["metadata"])

    assert years({"genre": "thriller"}) == [1999, 2020]
    assert years({"year": {"gte": 2010}}) == [2010, 2020]
    assert years({"year": {"gt": 1999, "lt": 2020}}) == [2010]
    assert years({"genre": {"in": ["comedy"]}}) == [2010]
    assert years({"genre": {"ne": "thriller"}}) == [2010]
    assert years({"AND": [{"genre": "thriller"}, {"year": {"lte": 2000}}]}) == [1999]
    assert len(m.get_all(filters={"user_id": "u", "year": "*"})["results"]) == 3
    for refused in ({"OR": [{"genre": "comedy"}]}, {"genre": {"icontains": "thr"}}):
        with pytest.raises(UnsupportedError, match="mnemowire's metadata filter"):
            m.search("film", filters={"user_id": "u", **refused})


def test_update_merges_metadata_at_the_version_read(m: Memory) -> None:
    [added] = m.add("Alice likes tea", user_id="alice", metadata={"topic": "drinks"}, infer=False)[
        "results"
    ]
    assert m.update(added["id"], text="Alice likes green tea") == {
        "message": "Memory updated successfully!"
    }
    m.update(added["id"], metadata={"mood": "calm", "user_id": "mallory"})
    m.update(added["id"], data="Alice likes oolong")  # mem0's deprecated alias
    got = m.get(added["id"])
    assert got is not None
    assert (got["memory"], got["metadata"], got["user_id"]) == (
        "Alice likes oolong",
        {"topic": "drinks", "mood": "calm"},
        "alice",
    )
    assert got["updated_at"] > got["created_at"]
    with pytest.raises(ValueError, match="At least one of text, metadata, or expiration_date"):
        m.update(added["id"])
    with pytest.raises(ValueError, match="Memory with id nope not found"):
        m.update("nope", text="x")


def test_expiration_dates_hide_a_memory_after_its_day(m: Memory) -> None:
    [past] = m.add("old news", user_id="u", expiration_date="2020-01-01", infer=False)["results"]
    [future] = m.add("fresh news", user_id="u", expiration_date="2999-12-31", infer=False)[
        "results"
    ]
    assert [r["memory"] for r in m.get_all(filters={"user_id": "u"})["results"]] == ["fresh news"]
    listed = m.get_all(filters={"user_id": "u"}, show_expired=True)["results"]
    assert {r["memory"]: r["expiration_date"] for r in listed} == {
        "old news": "2020-01-01",
        "fresh news": "2999-12-31",
    }
    assert m.get(past["id"]) is None  # an expired memory is not served
    assert m.get(future["id"])["expiration_date"] == "2999-12-31"  # type: ignore[index]
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        m.add("x", user_id="u", expiration_date="tomorrow", infer=False)


def test_delete_delete_all_and_reset(m: Memory) -> None:
    [tea] = m.add("Alice likes tea", user_id="alice", infer=False)["results"]
    m.add("Alice likes jazz", user_id="alice", agent_id="music", infer=False)
    m.add("Bob likes cake", user_id="bob", infer=False)
    assert m.delete(tea["id"]) == {"message": "Memory deleted successfully!"}
    assert m.get(tea["id"]) is None
    with pytest.raises(ValueError, match=f"Memory with id {tea['id']} not found"):
        m.delete(tea["id"])
    assert m.delete_all(user_id="alice") == {"message": "Memories deleted successfully!"}
    assert m.get_all(filters={"user_id": "alice"}) == {"results": []}
    assert len(m.get_all(filters={"user_id": "bob"})["results"]) == 1
    with pytest.raises(ValueError, match="use the `reset\\(\\)` method"):
        m.delete_all()
    m.reset()
    assert m.get_all(filters={"user_id": "bob"}) == {"results": []}


def test_hard_delete_erases_the_text_from_the_file(tmp_path: Path) -> None:
    secret = "Alice's passport number is X1234567"
    with Memory(url(tmp_path), hard_delete=True) as memory:
        [added] = memory.add(secret, user_id="alice", infer=False)["results"]
        memory.delete(added["id"])
    connection = sqlite3.connect(tmp_path / "mem0.db")
    connection.execute("VACUUM")
    connection.close()
    assert b"X1234567" not in (tmp_path / "mem0.db").read_bytes()


async def test_writes_wait_for_a_reviewer_when_asked(tmp_path: Path) -> None:
    async with AsyncMemory(url(tmp_path), agent="assistant", approval_required=True) as m:
        [staged] = (await m.add("Alice likes tea", user_id="alice", infer=False))["results"]
        assert staged["pending_approval"] is True
        assert await m.get(staged["id"]) is None  # invisible until approved
        boundary: Boundary = m.memory
        [review] = (await boundary.reviews({"agent_id": "assistant"})).reviews
        await boundary.decide(
            {
                "agent_id": "assistant",
                "review_id": review.review_id,
                "approved": True,
                "reviewer": "dana",
            }
        )
        got = await m.get(staged["id"])
        assert got is not None
        assert got["memory"] == "Alice likes tea"


def test_what_needs_an_llm_is_refused_naming_the_alternative(m: Memory) -> None:
    with pytest.raises(NeedsAnLLM, match="pass infer=False") as caught:
        m.add("Alice likes tea", user_id="alice")  # mem0's default: infer=True
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, MnemowireError)
    with pytest.raises(NeedsAnLLM, match="memory_type"):
        m.add("step 1", agent_id="a", infer=False, memory_type="procedural_memory")
    assert m.get_all(filters={"user_id": "alice"}) == {"results": []}


def test_history_lists_each_change_as_mem0_does(m: Memory) -> None:
    [added] = m.add("Alice likes tea", user_id="alice", infer=False)["results"]
    m.update(added["id"], text="Alice likes green tea")
    m.delete(added["id"])
    rows = m.history(added["id"])
    assert [(r["event"], r["old_memory"], r["new_memory"], r["is_deleted"]) for r in rows] == [
        ("ADD", None, "Alice likes tea", False),
        ("UPDATE", "Alice likes tea", "Alice likes green tea", False),
        ("DELETE", "Alice likes green tea", None, True),
    ]
    assert {r["memory_id"] for r in rows} == {added["id"]}
    assert [r["id"] for r in rows] == [r["id"] for r in m.history(added["id"])]  # stable
    assert m.history("01J0000000000000000000000") == []


def test_history_after_an_erasure_is_empty(tmp_path: Path) -> None:
    with Memory(url(tmp_path), hard_delete=True) as erasing:
        [added] = erasing.add("Alice's passport is X1", user_id="alice", infer=False)["results"]
        erasing.delete(added["id"])
        assert erasing.history(added["id"]) == []


def test_mem0s_argument_errors(m: Memory) -> None:
    with pytest.raises(ValueError, match="At least one of 'user_id', 'agent_id', or 'run_id'"):
        m.add("x", infer=False)
    with pytest.raises(ValueError, match="Invalid user_id: cannot contain whitespace"):
        m.add("x", user_id="al ice", infer=False)
    with pytest.raises(ValueError, match="filters must contain at least one of"):
        m.search("x", filters={"topic": "a"})
    with pytest.raises(ValueError, match="Top-level entity parameters"):
        m.get_all(user_id="alice")
    with pytest.raises(ValueError, match="Invalid threshold: 2"):
        m.search("x", filters={"user_id": "a"}, threshold=2)
    with pytest.raises(ValueError, match="Invalid top_k: -1"):
        m.search("x", filters={"user_id": "a"}, top_k=-1)
    with pytest.raises(ValueError, match="Invalid query"):
        m.search("  ", filters={"user_id": "a"})
    with pytest.raises(ValueError, match=r"messages\[1\] is not a message"):
        m.add([{"role": "user", "content": "a"}, {"content": "no role"}], user_id="a", infer=False)
    with pytest.raises(ValueError, match="configure mem0's own backends"):
        Memory.from_config({"vector_store": {"provider": "qdrant"}})
    # what only the spec refuses is named by mem0's argument, and nothing is written
    with pytest.raises(RequestError, match=r"^top_k 5000 is greater than the maximum of 1000"):
        m.search("x", filters={"user_id": "a"}, top_k=5000)
    with pytest.raises(RequestError, match=r"^messages\[2\] "):
        m.add(
            [
                {"role": "system", "content": "s"},
                {"role": "user", "content": "ok"},
                {"role": "user", "content": ""},
            ],
            user_id="a",
            infer=False,
        )
    assert m.get_all(filters={"user_id": "a"}) == {"results": []}


async def test_from_config_opens_a_store_by_url_as_one_agent(tmp_path: Path) -> None:
    """The facade's memories are the agent's records: any mnemowire client reads them."""
    async with AsyncMemory.from_config({"store": url(tmp_path), "agent": "assistant"}) as m:
        [added] = (await m.add("Alice likes tea", user_id="alice", infer=False))["results"]
    async with Boundary.open(url(tmp_path)) as memory:
        [record] = (await memory.get(added["id"], agent="assistant")).records
    assert (record.content, record.user_id, record.type) == ("Alice likes tea", "alice", "semantic")


async def test_the_blocking_memory_refuses_a_running_loop(tmp_path: Path) -> None:
    with pytest.raises(RunningLoopError, match="AsyncMemory, with await"):
        Memory(url(tmp_path))
    assert not (tmp_path / "mem0.db").exists()
