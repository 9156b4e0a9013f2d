"""Consolidation (spec v0.4's consolidate, kit.consolidation) on a real sqlite-vec store with
the real embedder: what a plan groups and leaves apart, what applying it writes, and what it
leaves alone when records change under it or when it is stopped part way."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import Embedder, default_embedder
from mnemowire.errors import ConflictError, RequestError
from mnemowire.layers.memory import Memory
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import GetRequest, MergeRequest, MergeResponse


@pytest.fixture(scope="module")
def model() -> Embedder:
    return default_embedder()


@pytest.fixture
async def memory(tmp_path: Path, model: Embedder) -> AsyncIterator[Memory]:
    async with Memory(SqliteVecStore(str(tmp_path / "m.db"), embedder=model)) as opened:
        yield opened


async def _store(memory: Memory, content: str, **fields: Any) -> str:
    request = {"agent_id": "a", "type": "semantic", "content": content, **fields}
    return str((await memory.remember(request)).id)


def _groups(answer: Any) -> list[set[str]]:
    return [{g.canonical, *g.duplicates} for g in answer.groups]


async def test_a_plan_groups_what_says_the_same_and_keeps_near_misses_apart(
    memory: Memory,
) -> None:
    tea = [
        await _store(memory, t, user_id="u")
        for t in ("Alice likes green tea.", "alice likes green tea", "ALICE LIKES GREEN TEA!")
    ]
    dog = [
        await _store(memory, t, user_id="u")
        for t in ("Kwame owns a golden retriever.", "Kwame owns a golden retriever called Mango.")
    ]
    for near in (
        "Alice likes coffee.",
        "Ben's phone number is 555 0101.",
        "Ben's phone number is 555 0199.",
        "Alice does not like green tea.",
    ):
        await _store(memory, near, user_id="u")
    await _store(memory, "Alice likes green tea.", user_id="other")  # another user's
    await _store(
        memory, "Alice likes green tea.", user_id="u", type="episodic", event_time=1_700_000_000_000
    )  # another type
    plan = await memory.consolidate({"agent_id": "a"})
    assert plan.dry_run
    assert plan.scanned == 11
    assert not plan.more
    assert _groups(plan) == [set(tea), set(dog)]  # largest first
    retriever = plan.groups[1]
    assert retriever.canonical == dog[1]  # the record that says the most is kept
    [evidence] = retriever.evidence or []
    assert (evidence.reason, evidence.only_in_canonical) == ("extends", ["called", "Mango"])
    assert retriever.expected_versions.root == {dog[0]: 1, dog[1]: 1}
    assert {str(g.status) for g in plan.groups} == {"planned"}
    narrowed = await memory.consolidate({"agent_id": "a", "user_id": "u", "limit": 1})
    assert _groups(narrowed) == [set(tea)]
    assert narrowed.more


async def test_applying_merges_each_group_once_and_a_rerun_finds_nothing(memory: Memory) -> None:
    same = [await _store(memory, t) for t in ("Erin walks to work.", "erin walks to work")]
    applied = await memory.consolidate({"agent_id": "a", "dry_run": False})
    [group] = applied.groups
    assert (str(group.status), {group.canonical, *group.duplicates}) == ("merged", set(same))
    [duplicate] = group.duplicates
    versions = (await memory.history({"agent_id": "a", "id": duplicate})).entries
    assert [(e.operation, e.record.state) for e in versions][-1] == ("merge", "merged")
    assert not (await memory.consolidate({"agent_id": "a", "dry_run": False})).groups


async def test_a_plan_applied_later_leaves_a_changed_group_alone(memory: Memory) -> None:
    first = [await _store(memory, t) for t in ("Erin walks to work.", "erin walks to work")]
    second = [await _store(memory, t) for t in ("Finn cycles daily.", "finn cycles daily")]
    plan = await memory.consolidate({"agent_id": "a"})
    sent = [{"canonical": g.canonical, "duplicates": g.duplicates,
             "expected_versions": g.expected_versions.root} for g in plan.groups]  # fmt: skip
    await memory.update({"agent_id": "a", "id": first[1], "expected_version": 1,
                         "content": "Erin walks to work, rain or shine."})  # fmt: skip
    checked = await memory.consolidate({"agent_id": "a", "plan": sent})
    applied = await memory.consolidate({"agent_id": "a", "plan": sent, "dry_run": False})
    by_group = {frozenset([g.canonical, *g.duplicates]): str(g.status) for g in applied.groups}
    assert by_group == {frozenset(first): "changed", frozenset(second): "merged"}
    assert {str(g.status) for g in checked.groups} == {"changed", "planned"}
    assert checked.scanned == applied.scanned == 0
    found = await memory.get({"agent_id": "a", "ids": first})
    assert len(found.records) == 2  # the changed group was not merged


async def test_staged_merges_wait_for_a_reviewer(memory: Memory) -> None:
    same = [await _store(memory, t) for t in ("Gus swims on Sundays.", "gus swims on sundays")]
    staged = await memory.consolidate(
        {"agent_id": "a", "dry_run": False, "approval_required": True}
    )
    [group] = staged.groups
    assert str(group.status) == "pending_approval"
    assert group.review_id is not None
    assert len((await memory.get({"agent_id": "a", "ids": same})).records) == 2
    await memory.decide(
        {"agent_id": "a", "review_id": group.review_id, "approved": True, "reviewer": "r"}
    )
    assert len((await memory.get({"agent_id": "a", "ids": same})).records) == 1


async def test_merge_expected_versions_refuse_a_changed_record(memory: Memory) -> None:
    one, two = [await _store(memory, t) for t in ("Hana reads.", "hana reads")]
    await memory.update({"agent_id": "a", "id": two, "expected_version": 1, "content": "x y"})
    base = {"agent_id": "a", "canonical": one, "duplicates": [two]}
    with pytest.raises(ConflictError) as stale:
        await memory.merge({**base, "expected_versions": {one: 1, two: 1}})
    assert stale.value.envelope["details"][0]["path"] == f"/expected_versions/{two}"
    with pytest.raises(RequestError):
        await memory.merge({**base, "expected_versions": {"m-outside": 1}})
    assert (await memory.merge({**base, "expected_versions": {two: 2}})).merged_count == 1


class _Stopping(SqliteVecStore):
    """A store whose process dies after its first merge of a consolidation."""

    merges = 0

    async def merge(self, request: MergeRequest) -> MergeResponse:
        if self.merges == 1:
            raise KeyboardInterrupt
        self.merges += 1
        return await super().merge(request)


async def test_a_consolidation_stopped_part_way_converges_when_run_again(
    tmp_path: Path, model: Embedder
) -> None:
    path = str(tmp_path / "stopped.db")
    texts = ("Ivy paints.", "ivy paints", "Jon sings.", "jon sings", "Kai runs.", "kai runs")
    async with Memory(_Stopping(path, embedder=model)) as stopping:
        for text in texts:
            await _store(stopping, text)
        with pytest.raises(KeyboardInterrupt):
            await stopping.consolidate({"agent_id": "a", "dry_run": False})
    store = SqliteVecStore(path, embedder=model)
    async with Memory(store) as memory:
        rest = await memory.consolidate({"agent_id": "a", "dry_run": False})
        assert [str(g.status) for g in rest.groups] == ["merged", "merged"]
        assert len((await memory.list({"agent_id": "a"})).records) == 3
        merges = [e for e in await store.audit_entries() if e["operation"] == "merge"]
        assert len(merges) == 3  # each group merged and audited once


async def test_a_router_plans_once_across_its_children(tmp_path: Path, model: Embedder) -> None:
    children = [SqliteVecStore(str(tmp_path / f"{n}.db"), embedder=model) for n in "xy"]
    async with Memory(MemoryRouter(children)) as memory:
        same = [await _store(memory, t) for t in ("Lea knits.", "lea knits")]
        applied = await memory.consolidate({"agent_id": "a", "dry_run": False})
        assert _groups(applied) == [set(same)]
        for child in children:
            found = await child.get(GetRequest(agent_id="a", ids=same))
            assert len(found.records) == 1  # merged on every copy


async def test_a_plan_that_could_never_apply_is_refused_whole(memory: Memory) -> None:
    one, two, three = [await _store(memory, t) for t in ("Mo hikes.", "mo hikes", "Mo hikes!")]
    good = {"canonical": one, "duplicates": [two], "expected_versions": {one: 1, two: 1}}
    for bad in (
        {"canonical": three, "duplicates": [three], "expected_versions": {three: 1}},
        {"canonical": three, "duplicates": [two], "expected_versions": {three: 1}},
        {"canonical": three, "duplicates": [one], "expected_versions": {three: 1, one: 1}},
    ):
        with pytest.raises(RequestError) as refused:
            await memory.consolidate({"agent_id": "a", "dry_run": False, "plan": [good, bad]})
        assert refused.value.envelope["details"][0]["path"] == "/plan/1"
    assert len((await memory.get({"agent_id": "a", "ids": [one, two, three]})).records) == 3


async def test_episodes_or_feelings_that_differ_in_their_fields_are_never_merged(
    memory: Memory,
) -> None:
    """The same words at another time, place or polarity are another event or feeling."""
    monday, friday = 1_767_000_000_000, 1_767_345_600_000
    lunch = "Had lunch with Bob at the corner cafe."
    same = [await _store(memory, lunch, type="episodic", event_time=monday) for _ in range(2)]
    await _store(memory, lunch, type="episodic", event_time=friday)
    await _store(memory, lunch, type="episodic", event_time=monday, location="Lyon")
    await _store(memory, "Nervous about the exam.", type="emotional", sentiment="negative")
    await _store(memory, "Nervous about the exam.", type="emotional", sentiment="positive")
    procedure = await memory.remember(
        {"agent_id": "a", "type": "procedural", "content": json.dumps(
            {"name": "p", "initial": "a", "states": ["a", "b"],
             "transitions": [{"trigger": "go", "source": "a", "dest": "b"}]})}
    )  # fmt: skip
    for _ in range(2):  # two runs of one procedure are two episodes, never one said twice
        await memory.run_start({"agent_id": "a", "procedure_id": procedure.id})
    plan = await memory.consolidate({"agent_id": "a"})
    assert _groups(plan) == [set(same)]


async def test_merge_content_over_procedures_is_refused_before_any_merge(memory: Memory) -> None:
    """Two state machines do not concatenate: the request fails whole, the semantic group
    planned with them included, instead of failing part way."""
    go = {"trigger": "go", "source": "a", "dest": "b"}
    machine = json.dumps({"name": "p", "initial": "a", "states": ["a", "b"], "transitions": [go]})
    ids = [await _store(memory, machine, type="procedural") for _ in range(2)]
    ids += [await _store(memory, t) for t in ("Zoe swims at dawn.", "zoe swims at dawn")]
    request = {"agent_id": "a", "dry_run": False, "strategy": "merge_content"}
    plan = await memory.consolidate({"agent_id": "a"})
    assert len(plan.groups) == 2
    sent = [
        {"canonical": g.canonical, "duplicates": g.duplicates,
         "expected_versions": g.expected_versions.root}
        for g in plan.groups
    ]  # fmt: skip
    for attempt in (request, {**request, "plan": sent}):
        with pytest.raises(RequestError, match="--strategy keep_canonical") as refused:
            await memory.consolidate(attempt)
        assert refused.value.details[0]["path"] == "/strategy"
        active = await memory.get({"agent_id": "a", "ids": ids})
        assert [r.id for r in active.records] == ids
    semantic = await memory.consolidate({**request, "types": ["semantic"]})
    assert [str(g.status) for g in semantic.groups] == ["merged"]
