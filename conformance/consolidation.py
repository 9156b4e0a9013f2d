"""The checks of spec v0.4's consolidation (docs/spec/v0.4.md#consolidate.duplicates) and of
merge's expected_versions (docs/spec/v0.4.md#merge.versions): a plan groups records that say
the same thing and nothing else, changes nothing, and names the versions it read; applying it
merges each group once, and leaves a group whose record changed since untouched. Records are
planted as exact duplicates (the same text but for case and punctuation) and near misses (one
value replaced), which any embedder the store uses brings forward and the judge's words
decide, so the checks hold whatever model the store embeds with."""

from __future__ import annotations

from typing import Any

from mnemowire.conformance._harness import Harness, check, expect

__all__: list[str] = []

_SAME = ("Dana keeps her bike in the garden shed.", "dana keeps her bike in the garden shed")
_NEAR = ("Dana's locker code is 4417.", "Dana's locker code is 9902.")


async def _planted(h: Harness, agent: str) -> tuple[list[str], list[str]]:
    same = [await h.remember(agent, text, user_id="dana") for text in _SAME]
    near = [await h.remember(agent, text, user_id="dana") for text in _NEAR]
    return same, near


def _grouped(answer: Any) -> list[set[str]]:
    return [{g.canonical, *g.duplicates} for g in answer.groups]


async def _active(h: Harness, agent: str, ids: list[str]) -> set[str]:
    """Which of ``ids`` are active records (a merged duplicate is not: get misses it)."""
    return {r.id for r in (await h.call("get", {"agent_id": agent, "ids": ids})).records}


@check(
    "consolidate.plan",
    section="consolidate.duplicates",
    needs=["consolidate", "get"],
    spec="v0.4",
)
async def plan(h: Harness) -> None:
    """A dry run groups the records that say the same thing, names the versions it read and
    the evidence, keeps a near miss (one value replaced) out, and changes nothing."""
    agent = h.agent()
    same, near = await _planted(h, agent)
    answer = await h.call("consolidate", {"agent_id": agent})
    expect(answer.dry_run is True, "consolidate without dry_run is not a dry run")
    expect(answer.scanned == 4, f"the plan read {answer.scanned} records, not the 4 stored")
    expect(_grouped(answer) == [set(same)], f"the plan grouped {_grouped(answer)}, not {same}")
    [group] = answer.groups
    expect(str(group.status) == "planned", f"a dry run's group is {group.status}")
    expect(set(group.expected_versions.root) == set(same), "expected_versions names other ids")
    expect(all(v == 1 for v in group.expected_versions.root.values()), "versions are not 1")
    expect([e.id for e in group.evidence] == group.duplicates, "evidence for other ids")
    active = await _active(h, agent, same + near)
    expect(active == {*same, *near}, "a dry run changed a record's state")


@check(
    "consolidate.particulars",
    section="consolidate.duplicates",
    needs=["consolidate", "episodic"],
    spec="v0.4",
)
async def particulars(h: Harness) -> None:
    """The same words at another time or place are another episode: only the two copies of
    one episode are grouped."""
    agent = h.agent()
    episode = {"type": "episodic", "event_time": 1_767_000_000_000}
    same = [await h.remember(agent, _SAME[0], **episode) for _ in range(2)]
    await h.remember(agent, _SAME[0], **{**episode, "event_time": 1_767_345_600_000})
    await h.remember(agent, _SAME[0], **{**episode, "location": "Lyon"})
    answer = await h.call("consolidate", {"agent_id": agent})
    expect(_grouped(answer) == [set(same)], f"the plan grouped {_grouped(answer)}, not {same}")


@check(
    "consolidate.apply",
    section="consolidate.apply",
    needs=["consolidate", "get"],
    spec="v0.4",
)
async def apply(h: Harness) -> None:
    """Applying merges each group into its canonical record; a second run finds nothing, and
    the near miss stays as it was."""
    agent = h.agent()
    same, near = await _planted(h, agent)
    answer = await h.call("consolidate", {"agent_id": agent, "dry_run": False})
    expect(answer.dry_run is False, "an applied consolidation says dry_run")
    expect([str(g.status) for g in answer.groups] == ["merged"], "the group was not merged")
    [group] = answer.groups
    active = await _active(h, agent, same + near)
    expect(group.canonical in active, "the canonical record is not active")
    expect(not active & set(group.duplicates), "a merged duplicate is still active")
    expect(set(near) <= active, "a near miss was merged")
    again = await h.call("consolidate", {"agent_id": agent})
    expect(not again.groups, f"a second run still plans {_grouped(again)}")


@check(
    "consolidate.changed",
    section="consolidate.apply",
    needs=["consolidate", "get", "update"],
    spec="v0.4",
)
async def changed(h: Harness) -> None:
    """A plan applied after one of its records was updated leaves that group untouched and
    reports it changed: the merge never folds away a change made since the plan."""
    agent = h.agent()
    same, _ = await _planted(h, agent)
    answer = await h.call("consolidate", {"agent_id": agent})
    planned = [
        {"canonical": g.canonical, "duplicates": g.duplicates,
         "expected_versions": g.expected_versions.root}
        for g in answer.groups
    ]  # fmt: skip
    update = {"agent_id": agent, "id": same[1], "expected_version": 1,
              "content": "Dana keeps her bike in the garden shed, locked."}  # fmt: skip
    await h.call("update", update)
    checked = await h.call("consolidate", {"agent_id": agent, "plan": planned})
    expect([str(g.status) for g in checked.groups] == ["changed"], "a stale plan checks fresh")
    applied = await h.call("consolidate", {"agent_id": agent, "plan": planned, "dry_run": False})
    expect([str(g.status) for g in applied.groups] == ["changed"], "a stale group was applied")
    expect(await _active(h, agent, same) == set(same), "a stale group was merged")


@check("merge.versions", section="merge.versions", needs=["consolidate", "merge"], spec="v0.4")
async def versions(h: Harness) -> None:
    """A merge naming a version a record is no longer at is refused with conflict and changes
    nothing; one naming an id outside the merge is invalid_request."""
    agent = h.agent()
    canonical = await h.remember(agent, "Erin walks to work.")
    duplicate = await h.remember(agent, "erin walks to work")
    base: dict[str, Any] = {"agent_id": agent, "canonical": canonical, "duplicates": [duplicate]}
    stale = await h.rejected("merge", {**base, "expected_versions": {duplicate: 2}})
    expect(stale.code == "conflict", f"a stale version failed with {stale.code}, not conflict")
    stranger = await h.rejected("merge", {**base, "expected_versions": {"m-elsewhere": 1}})
    expect(stranger.code == "invalid_request", f"an outside id failed with {stranger.code}")
    merged = await h.call("merge", {**base, "expected_versions": {canonical: 1, duplicate: 1}})
    expect(merged.merged_count == 1, "a merge at the named versions did not merge")
