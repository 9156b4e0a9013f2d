"""Spec v0.4's lifecycle operations every store here serves over its own others (procedure
runs, promotion), tested once and run against each like tests/adapters/_semantics.py: on the
store itself and, for http://, across the wire."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mnemowire.errors import ConflictError, NotFoundError, RequestError
from tests.adapters._semantics import StoreFactory, recalled, remember
from tests.adapters._support import Clock


async def test_a_procedure_run_steps_and_hands_back_its_intents(make_store: StoreFactory) -> None:
    """Spec v0.4's procedure runs on the store itself (and, for http://, across the wire):
    a run starts, steps with the host's facts, answers its intents and reads back."""
    store = make_store()
    machine = {
        "name": "onboarding",
        "initial": "invited",
        "states": ["invited", "active"],
        "transitions": [
            {"trigger": "accept", "source": "invited", "dest": "active",
             "conditions": "email_verified", "intents": [{"name": "welcome", "args": {"n": 1}}]},
        ],
    }  # fmt: skip
    procedure = await store.remember(
        {"agent_id": "a", "type": "procedural", "content": json.dumps(machine)}
    )
    run = (await store.run_start({"agent_id": "a", "procedure_id": procedure.id})).run
    fire = {"agent_id": "a", "id": run.id, "event": "accept"}
    with pytest.raises(RequestError, match="email_verified"):
        await store.run_fire(fire)
    with pytest.raises(ConflictError):
        await store.run_fire({**fire, "facts": {"email_verified": True}, "expected_version": 2})
    moved = await store.run_fire({**fire, "facts": {"email_verified": True}})
    assert (moved.run.state, moved.run.status, moved.run.version) == ("active", "finished", 2)
    assert [(i.name, i.args) for i in moved.fired.intents] == [("welcome", {"n": 1})]
    assert (await store.run_get({"agent_id": "a", "id": run.id})).run == moved.run
    with pytest.raises(NotFoundError):
        await store.run_get({"agent_id": "b", "id": run.id})


async def test_promotion_moves_what_proved_itself_and_retires_the_rest(
    make_store: StoreFactory, clock: Clock
) -> None:
    """A fact said on two occasions and an event recalled on three are promoted into one
    long-term record each (the group merged into it); a weak record is demoted, and once old
    and unused, archived with what else went cold; a fact, and a record too new to judge, are
    left alone; a rerun finds nothing more."""
    store = make_store()
    said = [
        await remember(store, "Alice takes her coffee black.", type="episodic", event_time=day)
        for day in (1, 2)
    ]
    shipped = await remember(store, "Release 4.2 shipped on Friday.", type="episodic")
    weak = await remember(store, "Bob might be moving to Oslo.", type="episodic", confidence=0.2)
    cold = await remember(store, "Lunch order went to the wrong desk.", type="episodic")
    fact = await remember(store, "Alice's team ships on Fridays.")
    for _ in range(3):  # three recalls, a minute or more apart: three recall counts
        clock.advance(ms=61_000)
        assert shipped in await recalled(store, "Release 4.2 shipped on Friday.", k=1)
    clock.advance(days=2)
    young = await remember(store, "Carol joined the call late.", type="episodic")
    plan = await store.promote({"agent_id": "a"})
    assert plan.dry_run
    got = {(str(a.action), tuple(a.ids)): a for a in plan.actions}
    assert list(got) == [("promote", tuple(said)), ("promote", (shipped,)), ("demote", (weak,))]
    assert got["promote", tuple(said)].repetitions == 2
    assert got["promote", (shipped,)].recalls == 3
    assert {str(a.status) for a in plan.actions} == {"planned"}
    unchanged = (await store.get({"agent_id": "a", "ids": [*said, shipped, weak]})).records
    assert {(str(r.state), r.version) for r in unchanged} == {("active", 1)}
    applied = await store.promote({"agent_id": "a", "dry_run": False})
    assert [str(a.status) for a in applied.actions] == ["promoted", "promoted", "demoted"]
    into = applied.actions[0].into
    [kept] = (await store.get({"agent_id": "a", "ids": [into]})).records
    assert (str(kept.type), kept.content, kept.expires_at) == (
        "semantic",
        "Alice takes her coffee black.",
        None,
    )
    assert (await store.get({"agent_id": "a", "ids": said})).records == []  # merged into it
    folded = (await store.history({"agent_id": "a", "id": said[0]})).entries
    assert (str(folded[-1].operation), folded[-1].merged_into) == ("merge", into)
    assert (await store.promote({"agent_id": "a"})).actions == []  # converged
    clock.advance(days=31)
    retired = await store.promote({"agent_id": "a", "dry_run": False})
    assert [(str(a.action), a.ids[0], str(a.status)) for a in retired.actions] == [
        ("archive", i, "archived") for i in sorted([weak, cold, young])
    ]  # the long-term records and the fact are not short-term
    assert cold not in await recalled(store, "Lunch order went to the wrong desk.")
    assert (await store.restore({"agent_id": "a", "ids": [cold]})).restored == [cold]
    again = await store.promote({"agent_id": "a"})
    assert [tuple(a.ids) for a in again.actions] == [(cold,)]  # restored, and still cold
    assert fact not in {i for a in [*plan.actions, *retired.actions] for i in a.ids}


async def test_a_promotion_plan_applied_later_leaves_what_changed_since(
    make_store: StoreFactory, clock: Clock
) -> None:
    store = make_store()
    said = [
        await remember(store, "Dana prefers window seats.", type="episodic", event_time=day)
        for day in (1, 2)
    ]
    clock.advance(days=2)
    plan = await store.promote({"agent_id": "a"})
    [action] = plan.actions
    changed = {"id": said[1], "expected_version": 1, "content": "Dana prefers aisle seats."}
    await store.update({"agent_id": "a", **changed})
    sent = [
        {"action": "promote", "ids": action.ids, "expected_versions": action.expected_versions.root}
    ]
    applied = await store.promote({"agent_id": "a", "dry_run": False, "plan": sent})
    assert [str(a.status) for a in applied.actions] == ["changed"]
    assert (await store.get({"agent_id": "a", "ids": [action.into]})).records == []
    records = (await store.get({"agent_id": "a", "ids": said})).records
    assert {str(r.state) for r in records} == {"active"}
    twice = [*sent, {"action": "archive", "ids": [said[0]], "expected_versions": {said[0]: 1}}]
    with pytest.raises(RequestError, match="earlier action") as refused:
        await store.promote({"agent_id": "a", "dry_run": False, "plan": twice})
    assert [(d["path"], d["rule"]) for d in refused.value.details] == [("/plan/1", "promote.apply")]


async def test_dedupe_answers_with_the_record_a_remember_repeats(make_store: StoreFactory) -> None:
    """With dedupe existing, a remember saying what an active record of its agent, user and
    type says is answered by that record and writes nothing; another value, user, type or
    episode is written as asked; a remember that adds a detail is not answered by it."""
    store = make_store()
    first = await remember(store, "Kai takes the 7:40 train to work.", user_id="kai")
    again = await store.remember(
        {"agent_id": "a", "user_id": "kai", "type": "semantic",
         "content": "kai takes the 7:40 train to work", "dedupe": "existing"}
    )  # fmt: skip
    assert (again.id, again.duplicate_of, again.stores[0].count) == (first, first, 0)
    cases: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
        ("Kai takes the 8:10 train to work.", "kai", "semantic", {}),
        ("Kai takes the 7:40 train to work.", "lea", "semantic", {}),
        ("Kai takes the 7:40 train to work.", "kai", "episodic", {"event_time": 1}),
        ("Kai takes the 7:40 train to work.", "kai", "episodic", {"event_time": 2}),
        ("Kai takes the 7:40 train to work, with his bike.", "kai", "semantic", {}),
    )
    written = [
        await remember(store, text, user_id=user, type=kind, dedupe="existing", **more)
        for text, user, kind, more in cases
    ]
    assert len(set(written)) == 5
    assert first not in written
    listed = await store.list({"agent_id": "a", "user_id": "kai", "types": ["semantic"]})
    assert len(listed.records) == 3


async def test_dedupe_review_stages_the_repeat_for_a_reviewer(make_store: StoreFactory) -> None:
    store = make_store()
    first = await remember(store, "Mia is vegetarian.")
    staged = await store.remember(
        {"agent_id": "a", "type": "semantic", "content": "mia is vegetarian!", "dedupe": "review"}
    )
    assert (staged.pending_approval, staged.duplicate_of) == (True, first)
    [review] = (await store.reviews({"agent_id": "a"})).reviews
    assert review.review_id == staged.id
    assert "dedupe" not in review.request
    assert first in [related.record.id for related in review.diff.related or []]
    decided = {"agent_id": "a", "review_id": staged.id, "approved": True, "reviewer": "ops"}
    await store.decide({**decided, "merge_into": first})
    got = await store.get({"agent_id": "a", "ids": [first, staged.id]})
    assert [r.id for r in got.records] == [first]
    batch = {
        "requests": [{"agent_id": "a", "type": "semantic", "content": "x", "dedupe": "review"}]
    }
    with pytest.raises(RequestError) as refused:
        await store.remember_batch(batch)
    assert refused.value.details[0]["path"] == "/requests/0/dedupe"
