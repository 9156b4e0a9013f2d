"""The checks of spec v0.4's promotion (docs/spec/v0.4.md#promote.rules), the recall count it
weighs (docs/spec/v0.4.md#recall.count) and expire's ``records`` it applies archivals and
demotions with (docs/spec/v0.4.md#expire.records): a plan promotes what was said twice or
recalled, demotes the weak and archives the cold, and changes nothing; applying it writes one
long-term record per group and merges the group into it, once; a group changed since is left
alone. Ages are taken out of play by the rules (``min_age_ms`` 0), so the checks need no clock;
repetitions are planted as exact copies, which the judge groups whatever the store embeds
with."""

from __future__ import annotations

from typing import Any

from mnemowire.conformance._harness import Harness, check, expect

__all__: list[str] = []

_SAID = ("Omar keeps spare keys under the blue pot.", "omar keeps spare keys under the blue pot")
#: judge at any age; archive only what a check asks to
_NOW = {"min_age_ms": 0, "archive_after_ms": 315_360_000_000}


async def _planted(h: Harness, agent: str) -> tuple[list[str], str, str]:
    said = [await h.remember(agent, text, type="episodic") for text in _SAID]
    weak = await h.remember(agent, "Omar may be moving to Porto.", type="episodic", confidence=0.1)
    fact = await h.remember(agent, "Omar's team meets on Mondays.")
    return said, weak, fact


def _moves(answer: Any) -> list[tuple[str, set[str]]]:
    return [(str(a.action), set(a.ids)) for a in answer.actions]


async def _active(h: Harness, agent: str, ids: list[str]) -> set[str]:
    return {r.id for r in (await h.call("get", {"agent_id": agent, "ids": ids})).records}


@check("promote.plan", section="promote.rules", needs=["promote", "episodic", "get"], spec="v0.4")
async def plan(h: Harness) -> None:
    """A dry run promotes the fact said twice, demotes the weak record, leaves the long-term
    fact alone, names the versions it read, and changes nothing."""
    agent = h.agent()
    said, weak, fact = await _planted(h, agent)
    answer = await h.call("promote", {"agent_id": agent, "rules": _NOW})
    expect(answer.dry_run is True, "promote without dry_run is not a dry run")
    expect(answer.scanned == 3, f"the plan read {answer.scanned} short-term records, not 3")
    moves = _moves(answer)
    expect(moves == [("promote", set(said)), ("demote", {weak})], f"the plan was {moves}")
    promoted = answer.actions[0]
    expect(promoted.repetitions == 2, f"two copies count {promoted.repetitions} repetitions")
    expect(promoted.into is not None, "a promotion names no long-term record")
    expect(set(promoted.expected_versions.root) == set(said), "expected_versions names others")
    expect({str(a.status) for a in answer.actions} == {"planned"}, "a dry run's action applied")
    active = await _active(h, agent, [*said, weak, fact])
    expect(active == {*said, weak, fact}, "a dry run changed a record's state")


@check("promote.apply", section="promote.apply", needs=["promote", "episodic", "get"], spec="v0.4")
async def apply(h: Harness) -> None:
    """Applying writes one long-term (semantic) record with the group's words and merges the
    group into it, demotes the weak record, and a second run finds nothing."""
    agent = h.agent()
    said, weak, _ = await _planted(h, agent)
    answer = await h.call("promote", {"agent_id": agent, "rules": _NOW, "dry_run": False})
    statuses = [str(a.status) for a in answer.actions]
    expect(statuses == ["promoted", "demoted"], f"applying answered {statuses}")
    into = answer.actions[0].into
    kept = (await h.call("get", {"agent_id": agent, "ids": [into]})).records
    expect(len(kept) == 1, "the long-term record is not active")
    expect(str(kept[0].type) == "semantic", f"the long-term record is {kept[0].type}")
    expect(kept[0].content.lower().rstrip(".") == _SAID[1], "the long-term record's words")
    expect(not await _active(h, agent, said), "a promoted short-term record is still active")
    expect(await _active(h, agent, [weak]) == {weak}, "a demoted record is no longer active")
    again = await h.call("promote", {"agent_id": agent, "rules": _NOW})
    expect(not again.actions, f"a second run still plans {_moves(again)}")


@check(
    "promote.archive",
    section="promote.rules",
    needs=["promote", "episodic", "get", "archive", "restore"],
    spec="v0.4",
)
async def archive(h: Harness) -> None:
    """A short-term record older and unused for longer than archive_after_ms is archived:
    hidden, and restorable."""
    agent = h.agent()
    note = await h.remember(agent, "The lunch order went to the wrong desk.", type="episodic")
    rules = {"min_age_ms": 0, "archive_after_ms": 0}
    answer = await h.call("promote", {"agent_id": agent, "rules": rules, "dry_run": False})
    moves = [(str(a.action), a.ids, str(a.status)) for a in answer.actions]
    expect(moves == [("archive", [note], "archived")], f"applying answered {moves}")
    expect(not await _active(h, agent, [note]), "an archived record is still active")
    restored = await h.call("restore", {"agent_id": agent, "ids": [note]})
    expect(restored.restored == [note], "an archived record could not be restored")


@check(
    "promote.changed",
    section="promote.apply",
    needs=["promote", "episodic", "get", "update"],
    spec="v0.4",
)
async def changed(h: Harness) -> None:
    """A plan applied after one of its records was updated leaves that group whole, writes no
    long-term record for it, and reports it changed."""
    agent = h.agent()
    said, _, _ = await _planted(h, agent)
    answer = await h.call("promote", {"agent_id": agent, "rules": _NOW})
    promoted = answer.actions[0]
    sent = [{"action": "promote", "ids": promoted.ids,
             "expected_versions": promoted.expected_versions.root}]  # fmt: skip
    update = {"agent_id": agent, "id": said[1], "expected_version": 1, "confidence": 0.9}
    await h.call("update", update)
    checked = await h.call("promote", {"agent_id": agent, "plan": sent})
    expect([str(a.status) for a in checked.actions] == ["changed"], "a stale plan checks fresh")
    applied = await h.call("promote", {"agent_id": agent, "plan": sent, "dry_run": False})
    expect([str(a.status) for a in applied.actions] == ["changed"], "a stale group was applied")
    expect(await _active(h, agent, said) == set(said), "a stale group was merged")
    written = await _active(h, agent, [promoted.into])
    expect(not written, "a long-term record was left for a group that changed")


@check(
    "promote.recalls",
    section="recall.count",
    needs=["promote", "episodic", "export_records"],
    spec="v0.4",
)
async def recalls(h: Harness) -> None:
    """A recall is counted (the export line's recall_count) and a record recalled as often as
    min_recalls asks is promoted, though said once."""
    agent = h.agent()
    event = await h.remember(agent, "Release 4.2 shipped on a Friday.", type="episodic")
    hits = await h.recall(agent, "Release 4.2 shipped on a Friday.", k=1)
    expect([hit.id for hit in hits] == [event], "the recall did not return the record")
    lines = (await h.call("export_records", {"agent_id": agent})).records
    counts = [line.recall_count for line in lines]
    expect(counts == [1], f"one recall was counted as {counts}")
    rules = {**_NOW, "min_recalls": 1}
    answer = await h.call("promote", {"agent_id": agent, "rules": rules})
    moves = _moves(answer)
    expect(moves == [("promote", {event})], f"a recalled record's plan was {moves}")
    expect(answer.actions[0].recalls == 1, f"the plan counted {answer.actions[0].recalls}")


@check("expire.records", section="expire.records", needs=["expire", "promote"], spec="v0.4")
async def records(h: Harness) -> None:
    """An expire naming records at versions matches only those still at them."""
    agent = h.agent()
    kept = await h.remember(agent, "Pia likes plums.")
    gone = await h.remember(agent, "Pia likes pears.")
    policy: dict[str, Any] = {"records": {kept: 2, gone: 1}}
    answer = await h.call("expire", {"agent_id": agent, "policy": policy, "dry_run": True})
    expect(answer.matched_ids == [gone], f"the policy matched {answer.matched_ids}")
    applied = await h.call("expire", {"agent_id": agent, "policy": policy})
    expect(applied.matched_ids == [gone], f"the expire matched {applied.matched_ids}")
    remaining = {hit.id for hit in await h.recall(agent, "Pia likes")}
    expect(remaining == {kept}, f"after the expire {remaining} remain")
