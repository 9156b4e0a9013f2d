"""Promotion (spec v0.4's promote, kit.promotion) on real sqlite-vec stores with the real
embedder: what counts as a repetition and a recall, which records are short-term, and what a
promotion leaves behind when it is stopped, staged, raced or routed. The behaviour every store
shares is in tests/adapters/_semantics_lifecycle.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import Embedder, default_embedder
from mnemowire.kit.promotion import long_term_id
from mnemowire.layers.memory import Memory
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import GetRequest, MergeRequest, MergeResponse, UpdateRequest
from tests.adapters._support import Clock

DAY = 86_400_000


@pytest.fixture(scope="module")
def model() -> Embedder:
    return default_embedder()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def memory(tmp_path: Path, model: Embedder, clock: Clock) -> AsyncIterator[Memory]:
    store = SqliteVecStore(str(tmp_path / "m.db"), embedder=model, clock=clock)
    async with Memory(store) as opened:
        yield opened


async def _store(memory: Memory, content: str, **fields: Any) -> str:
    request = {"agent_id": "a", "type": "episodic", "content": content, **fields}
    return str((await memory.remember(request)).id)


def _moves(answer: Any) -> dict[tuple[str, ...], str]:
    return {tuple(a.ids): str(a.action) for a in answer.actions}


async def test_a_repetition_is_the_same_fact_said_again_by_the_same_user(
    memory: Memory, clock: Clock
) -> None:
    coffee = [
        await _store(memory, "Alice takes her coffee black.", user_id="u", event_time=1),
        await _store(memory, "Alice takes her coffee black, every single morning.", user_id="u"),
    ]
    tea = await _store(memory, "Alice likes tea.", user_id="u")
    await _store(memory, "Alice likes coffee.", user_id="u")  # a near miss, not a repetition
    theirs = await _store(memory, "Alice takes her coffee black.", user_id="other")
    await _store(memory, "Alice likes tea.", user_id="u", type="emotional", sentiment="positive")
    clock.advance(days=2)
    plan = await memory.promote({"agent_id": "a", "rules": {"short_term_types": ["episodic"]}})
    [action] = plan.actions
    assert tuple(action.ids) == (coffee[1], coffee[0])  # the one that says the most first
    assert action.repetitions == 2
    assert action.content == "Alice takes her coffee black, every single morning."
    assert plan.scanned == 5  # the emotional record is not short-term here
    assert tea not in action.ids
    assert theirs not in action.ids
    both = await memory.promote(
        {"agent_id": "a", "rules": {"short_term_types": ["episodic", "emotional"]}}
    )
    assert both.scanned == 6
    assert len(both.actions) == 1  # "likes tea" as an event and as a feeling: two types


async def test_a_burst_of_recalls_counts_once(memory: Memory, clock: Clock) -> None:
    shipped = await _store(memory, "Release 4.2 shipped on Friday.")
    for _ in range(5):  # five recalls within one minute
        clock.advance(ms=5_000)
        await memory.recall({"agent_id": "a", "query": "release 4.2", "k": 1})
    clock.advance(days=2)
    assert (await memory.promote({"agent_id": "a"})).actions == []
    for _ in range(2):  # two more, each a minute apart
        clock.advance(ms=61_000)
        await memory.recall({"agent_id": "a", "query": "release 4.2", "k": 1})
    [action] = (await memory.promote({"agent_id": "a"})).actions
    assert (tuple(action.ids), action.recalls) == ((shipped,), 3)


async def test_working_notes_are_short_term_unless_the_rules_say_not(
    memory: Memory, clock: Clock
) -> None:
    later = clock.now + 90 * DAY
    notes = [
        await _store(memory, "Build 118 fails on the ARM runner.", type="semantic",
                     expires_at=later)
        for _ in range(2)
    ]  # fmt: skip
    await _store(memory, "The ARM runner is flaky.", type="semantic")  # long-term: no expiry
    clock.advance(days=2)
    assert _moves(await memory.promote({"agent_id": "a"})) == {tuple(notes): "promote"}
    assert (await memory.promote({"agent_id": "a", "rules": {"expiring": False}})).actions == []
    applied = await memory.promote({"agent_id": "a", "dry_run": False})
    [kept] = (await memory.get({"agent_id": "a", "ids": [applied.actions[0].into]})).records
    assert kept.expires_at is None  # long-term now


async def test_a_promotion_stopped_after_its_write_is_finished_by_a_rerun(
    memory: Memory, clock: Clock
) -> None:
    said = [await _store(memory, "Dana prefers window seats.", event_time=d) for d in (1, 2)]
    clock.advance(days=2)
    [planned] = (await memory.promote({"agent_id": "a"})).actions
    into = long_term_id("a", planned.ids[0], 1)
    assert planned.into == into
    # the process stopped after writing the long-term record, before the merge
    await memory.remember(
        {"agent_id": "a", "id": into, "type": "semantic", "content": planned.content}
    )
    applied = await memory.promote({"agent_id": "a", "dry_run": False})
    assert [(a.into, str(a.status)) for a in applied.actions] == [(into, "promoted")]
    listed = await memory.list({"agent_id": "a", "types": ["semantic"]})
    assert [r.id for r in listed.records] == [into]  # written once
    assert (await memory.get({"agent_id": "a", "ids": said})).records == []


async def test_a_staged_promotion_waits_for_its_reviewer_once(memory: Memory, clock: Clock) -> None:
    said = [await _store(memory, "Erin is allergic to peanuts.", event_time=d) for d in (1, 2)]
    clock.advance(days=2)
    request = {"agent_id": "a", "dry_run": False, "approval_required": True}
    [staged] = (await memory.promote(request)).actions
    assert (str(staged.status), staged.review_id) == ("pending_approval", staged.into)
    [again] = (await memory.promote(request)).actions
    assert str(again.status) == "pending_approval"
    assert len((await memory.reviews({"agent_id": "a"})).reviews) == 1
    assert {str(r.state) for r in (await memory.get({"agent_id": "a", "ids": said})).records} == {
        "active"
    }
    await memory.decide(
        {"agent_id": "a", "review_id": staged.review_id, "approved": True, "reviewer": "ops"}
    )
    [done] = (await memory.promote({"agent_id": "a", "dry_run": False})).actions
    assert (str(done.status), done.into) == ("promoted", staged.into)


async def test_a_rejected_promotion_leaves_its_group_short_term(
    memory: Memory, clock: Clock
) -> None:
    said = [await _store(memory, "Hana hates cilantro.", event_time=d) for d in (1, 2)]
    clock.advance(days=2)
    request = {"agent_id": "a", "dry_run": False, "approval_required": True}
    [staged] = (await memory.promote(request)).actions
    await memory.decide(
        {"agent_id": "a", "review_id": staged.review_id, "approved": False, "reviewer": "ops"}
    )
    [again] = (await memory.promote({"agent_id": "a", "dry_run": False})).actions
    assert (again.into, str(again.status)) == (staged.into, "changed")  # its id is not reused
    records = (await memory.get({"agent_id": "a", "ids": said})).records
    assert {str(r.state) for r in records} == {"active"}


class _RacingStore(SqliteVecStore):
    """A store whose first merge finds one of its records changed by another writer."""

    raced = False

    async def merge(self, request: MergeRequest) -> MergeResponse:
        if not self.raced:
            self.raced = True
            victim = request.duplicates[0]
            change = {"agent_id": "a", "id": victim, "expected_version": 1, "confidence": 0.9}
            await self.update(UpdateRequest.model_validate(change))
        return await super().merge(request)


async def test_a_group_changed_before_its_merge_is_left_whole_and_its_record_withdrawn(
    tmp_path: Path, model: Embedder, clock: Clock
) -> None:
    store = _RacingStore(str(tmp_path / "r.db"), embedder=model, clock=clock)
    async with Memory(store) as memory:
        said = [await _store(memory, "Finn drives a blue van.", event_time=d) for d in (1, 2)]
        clock.advance(days=2)
        [action] = (await memory.promote({"agent_id": "a", "dry_run": False})).actions
        assert str(action.status) == "changed"
        assert (await memory.get({"agent_id": "a", "ids": [action.into]})).records == []
        records = (await memory.get({"agent_id": "a", "ids": said})).records
        assert {str(r.state) for r in records} == {"active"}
        [again] = (await memory.promote({"agent_id": "a", "dry_run": False})).actions
        assert str(again.status) == "promoted"  # planned afresh, at the new version
        assert again.into != action.into


async def test_a_router_plans_once_and_promotes_on_every_child(
    tmp_path: Path, model: Embedder, clock: Clock
) -> None:
    children = [
        SqliteVecStore(str(tmp_path / f"{n}.db"), embedder=model, clock=clock) for n in "xy"
    ]
    async with Memory(MemoryRouter(children)) as memory:
        said = [await _store(memory, "Gus plays the oboe.", event_time=d) for d in (1, 2)]
        clock.advance(days=2)
        plan = await memory.promote({"agent_id": "a"})
        assert _moves(plan) == {tuple(said): "promote"}
        [action] = (await memory.promote({"agent_id": "a", "dry_run": False})).actions
        assert str(action.status) == "promoted"
        assert action.into is not None
        for child in children:
            got = await child.get(GetRequest(agent_id="a", ids=[action.into, *said]))
            assert [r.id for r in got.records] == [action.into]
