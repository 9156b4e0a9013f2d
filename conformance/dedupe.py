"""The checks of spec v0.4's dedupe on write (docs/spec/v0.4.md#remember.dedupe): a remember
that repeats an active record is answered by it and writes nothing (``existing``) or waits for
a reviewer beside it (``review``); one that says something else, or the same of another user,
is written as asked. Repeats are planted as the same text but for case and punctuation, which
the judge calls one memory whatever the store embeds with."""

from __future__ import annotations

from mnemowire.conformance._harness import Harness, check, expect

__all__: list[str] = []


@check("remember.dedupe", section="remember.dedupe", needs=["dedupe", "get"], spec="v0.4")
async def existing(h: Harness) -> None:
    """dedupe existing answers a repeat with the record it repeats and writes nothing; a near
    miss (one value replaced) and another user's repeat are written."""
    agent = h.agent()
    first = await h.remember(agent, "Ravi parks on level 3.", user_id="ravi")
    body = {"agent_id": agent, "type": "semantic", "user_id": "ravi", "dedupe": "existing"}
    again = await h.call("remember", {**body, "content": "ravi parks on level 3"})
    expect(again.id == first, f"a repeat was answered with {again.id}, not {first}")
    expect(again.duplicate_of == first, f"a repeat says duplicate_of {again.duplicate_of}")
    expect(all(s.count == 0 for s in again.stores), "a repeat answered by a record counts a write")
    near = await h.call("remember", {**body, "content": "Ravi parks on level 5."})
    other = await h.call(
        "remember", {**body, "user_id": "uma", "content": "Ravi parks on level 3."}
    )
    written = {near.id, other.id}
    expect(first not in written and len(written) == 2, "a near miss or another user's was answered")
    expect(near.duplicate_of is None, "a near miss says duplicate_of")
    got = await h.call("get", {"agent_id": agent, "ids": [first, *written]})
    expect(len(got.records) == 3, f"{len(got.records)} records are stored, not 3")


@check(
    "remember.dedupe-review",
    section="remember.dedupe",
    needs=["dedupe", "reviews", "governance"],
    spec="v0.4",
)
async def review(h: Harness) -> None:
    """dedupe review stages a repeat for a reviewer, with the record it repeats among the
    related records of its diff."""
    agent = h.agent()
    first = await h.remember(agent, "Ravi parks on level 3.")
    body = {"agent_id": agent, "type": "semantic", "dedupe": "review"}
    staged = await h.call("remember", {**body, "content": "ravi parks on level 3!"})
    expect(staged.pending_approval is True, "a repeat under review was not staged")
    expect(staged.duplicate_of == first, f"a staged repeat says duplicate_of {staged.duplicate_of}")
    reviews = (await h.call("reviews", {"agent_id": agent})).reviews
    expect([r.review_id for r in reviews] == [staged.id], "the staged repeat is not in the queue")
    related = [r.record.id for r in reviews[0].diff.related or []]
    expect(first in related, f"the repeated record is not among the related: {related}")
