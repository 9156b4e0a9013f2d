"""The checks of spec v0.2's review queue: staging remember, forget and merge, listing with
diffs, deciding once, and scope. Each cites its section of docs/spec/v0.2.md and needs
``reviews`` and ``decide``, so a store without the queue skips them all."""

from __future__ import annotations

import asyncio
from typing import Any

from mnemowire.conformance._harness import Harness, check, expect
from mnemowire.errors import MnemowireError

__all__: list[str] = []

QUEUE = ("reviews", "decide")


async def _queue(h: Harness, agent: str, **request: Any) -> list[Any]:
    """Every pending review of the agent, page by page."""
    body: dict[str, Any] = {"agent_id": agent, **request}
    found: list[Any] = []
    for _ in range(1000):
        page = await h.call("reviews", body)
        found += page.reviews
        if page.next_cursor is None:
            return found
        body = {**body, "cursor": page.next_cursor}
    raise AssertionError("the review queue did not end after 1000 pages")


async def _decide(h: Harness, agent: str, review_id: str, **decision: Any) -> Any:
    body = {"agent_id": agent, "review_id": review_id, "reviewer": "cf-reviewer", **decision}
    return await h.call("decide", body)


async def _code(h: Harness, operation: str, request: dict[str, Any], code: str) -> None:
    error = await h.rejected(operation, request)
    expect(error.code == code, f"{operation} failed with {error.code}, not {code}: {error}")


@check("review.remember", section="review.diff", needs=QUEUE, spec="v0.2")
async def staged_remember(h: Harness) -> None:
    """A staged remember is listed with the record it adds and the closest existing memories,
    stays out of recall until approved, and is recalled once approved."""
    agent = h.agent()
    near = await h.remember(agent, "Alice is allergic to peanuts")
    await h.remember(agent, "The office closes at six on Fridays")
    staged = await h.remember(agent, "Alice has a severe peanut allergy", approval_required=True)
    expect(staged not in await h.recall_ids(agent, "peanut allergy"), "a staged write recalled")
    [review] = await _queue(h, agent)
    expect(review.review_id == staged, f"the review id is {review.review_id}, not the record's")
    expect(review.operation == "remember", f"operation is {review.operation}")
    expect([r.id for r in review.diff.added] == [staged], "diff.added is not the staged record")
    related = [r.record.id for r in review.diff.related or []]
    expect(related[:1] == [near], f"the closest existing memory is not first: {related}")
    expect(review.request["content"] == "Alice has a severe peanut allergy", "request altered")
    answer = await _decide(h, agent, staged, approved=True, reason="confirmed")
    expect(answer.outcome == "approved", f"outcome {answer.outcome}")
    expect(answer.decision.reviewer == "cf-reviewer", "the reviewer was not recorded")
    expect(staged in await h.recall_ids(agent, "peanut allergy"), "approved but not recalled")
    expect(await _queue(h, agent) == [], "a decided review is still listed")


@check("review.forget", section="review.staging", needs=(*QUEUE, "forget"), spec="v0.2")
async def staged_forget(h: Harness) -> None:
    """A staged forget changes nothing until approved; its diff lists what it would remove."""
    agent = h.agent()
    kept = await h.remember(agent, "Bob's locker code is 4711")
    staged = await h.call("forget", {"agent_id": agent, "ids": [kept], "approval_required": True})
    expect(staged.pending_approval is True and staged.review_id, "not staged, or no review id")
    expect(kept in await h.recall_ids(agent, "locker code"), "a staged forget forgot")
    [review] = await _queue(h, agent)
    expect(review.review_id == staged.review_id, "the listed review is not the staged one")
    expect([r.id for r in review.diff.removed] == [kept], "diff.removed is not the target")
    expect("approval_required" not in review.request, "approval_required was not lifted out")
    await _decide(h, agent, staged.review_id, approved=True)
    expect(kept not in await h.recall_ids(agent, "locker code"), "approved forget kept it")


@check("review.merge", section="review.diff", needs=(*QUEUE, "merge"), spec="v0.2")
async def staged_merge(h: Harness) -> None:
    """A staged merge shows the canonical before and after and the duplicates it hides, and
    merges only when approved."""
    agent = h.agent()
    canonical = await h.remember(agent, "Carol lives in Lyon")
    duplicate = await h.remember(agent, "Carol moved to Lyon in 2019")
    merge = {"agent_id": agent, "canonical": canonical, "duplicates": [duplicate]}
    staged = await h.call(
        "merge", {**merge, "strategy": "merge_content", "approval_required": True}
    )
    expect(staged.pending_approval is True and staged.merged_count == 0, "merged while staged")
    expect(duplicate in await h.recall_ids(agent, "Carol Lyon"), "a staged merge hid a record")
    [review] = await _queue(h, agent)
    [modified] = review.diff.modified
    expect(modified.before.content == "Carol lives in Lyon", "before is not the canonical")
    expect(
        modified.after.content == "Carol lives in Lyon\nCarol moved to Lyon in 2019",
        f"after is {modified.after.content!r}",
    )
    expect([r.id for r in review.diff.removed] == [duplicate], "duplicates not in removed")
    await _decide(h, agent, staged.review_id, approved=True)
    expect(await h.recall_ids(agent, "Carol Lyon") == [canonical], "the merge did not apply")


@check("review.reject", section="review.decide", needs=QUEUE, spec="v0.2")
async def rejected(h: Harness) -> None:
    """A rejected remember never becomes visible; a rejected forget forgets nothing."""
    agent = h.agent()
    staged = await h.remember(agent, "Dave's password is hunter2", approval_required=True)
    answer = await _decide(h, agent, staged, approved=False, reason="a secret")
    expect(answer.outcome == "rejected", f"outcome {answer.outcome}")
    expect(staged not in await h.recall_ids(agent, "password"), "a rejected write is recalled")
    if "forget" in h.capabilities:
        kept = await h.remember(agent, "Dave likes jazz")
        forget = await h.call(
            "forget", {"agent_id": agent, "ids": [kept], "approval_required": True}
        )
        await _decide(h, agent, forget.review_id, approved=False)
        expect(kept in await h.recall_ids(agent, "jazz"), "a rejected forget forgot")
    expect(await _queue(h, agent) == [], "a rejected review is still listed")


@check("review.merge-into", section="review.decide", needs=(*QUEUE, "merge"), spec="v0.2")
async def merge_into(h: Harness) -> None:
    """Approving a staged remember into an existing record keeps that record's id with both
    contents and hides the staged one (co-memorize)."""
    agent = h.agent()
    existing = await h.remember(agent, "Erin drinks tea")
    staged = await h.remember(agent, "Erin takes her tea with lemon", approval_required=True)
    answer = await _decide(h, agent, staged, approved=True, merge_into=existing)
    expect(answer.outcome == "merged", f"outcome {answer.outcome}")
    hits = await h.recall(agent, "Erin tea lemon")
    expect([hit.id for hit in hits] == [existing], f"recalled {[hit.id for hit in hits]}")
    expect("lemon" in hits[0].content, "the staged content did not reach the record")


@check("review.version", section="review.decide", needs=(*QUEUE, "update"), spec="v0.2")
async def decided_as_reviewed(h: Harness) -> None:
    """A decision applies the staged write at the version its reviewer saw: a staged record
    updated after the listing is a conflict for a decision naming the version listed, or none
    (version 1); the version now applies it, as updated."""
    agent = h.agent()
    staged = await h.remember(agent, "Hana parks on level 2", approval_required=True)
    [listed] = await _queue(h, agent, ids=[staged])
    expect(listed.diff.added[0].version == 1, "a staged record's diff shows no version 1")
    changed = {"agent_id": agent, "id": staged, "expected_version": 1}
    await h.call("update", {**changed, "content": "Hana parks on level 7"})
    for stale in ({"expected_version": 1}, {}):
        error = await h.rejected(
            "decide",
            {"agent_id": agent, "review_id": staged, "reviewer": "r", "approved": True, **stale},
        )
        expect(error.code == "conflict", f"a decision on what nobody saw failed {error.code}")
    expect(await _queue(h, agent, ids=[staged]) != [], "a refused decision ended the review")
    await _decide(h, agent, staged, approved=True, expected_version=2)
    hits = await h.recall(agent, "Hana parks level")
    expect([(hit.id, hit.content) for hit in hits][:1] == [(staged, "Hana parks on level 7")],
           "the approved record is not the version approved")  # fmt: skip


@check("review.once", section="review.once", needs=QUEUE, spec="v0.2")
async def decided_once(h: Harness) -> None:
    """Of two decisions racing on one review exactly one lands; a later one is a conflict."""
    agent = h.agent()
    staged = await h.remember(agent, "Frank's birthday is in May", approval_required=True)
    body = {"agent_id": agent, "review_id": staged, "reviewer": "cf-reviewer"}
    outcomes = await asyncio.gather(
        h.call("decide", {**body, "approved": True}),
        h.call("decide", {**body, "approved": False}),
        return_exceptions=True,
    )
    landed = [o for o in outcomes if not isinstance(o, BaseException)]
    lost = [o for o in outcomes if isinstance(o, MnemowireError)]
    expect(len(landed) == 1 and len(lost) == 1, f"outcomes: {outcomes}")
    expect(lost[0].code == "conflict", f"the losing decision failed with {lost[0].code}")
    await _code(h, "decide", {**body, "approved": True}, "conflict")
    recalled = staged in await h.recall_ids(agent, "birthday")
    expect(recalled == (landed[0].outcome == "approved"), "the state is not the winner's")


@check("review.withdrawn", section="review.once", needs=(*QUEUE, "forget"), spec="v0.2")
async def withdrawn(h: Harness) -> None:
    """A staged remember whose record was forgotten leaves the queue and cannot be decided."""
    agent = h.agent()
    staged = await h.remember(agent, "Gina's flight lands at nine", approval_required=True)
    await h.call("forget", {"agent_id": agent, "ids": [staged]})
    expect(await _queue(h, agent) == [], "a withdrawn review is listed")
    body = {"agent_id": agent, "review_id": staged, "reviewer": "r", "approved": True}
    await _code(h, "decide", body, "conflict")
    expect(staged not in await h.recall_ids(agent, "flight"), "the forgotten write came back")


@check("review.scope", section="review.list", needs=QUEUE, spec="v0.2")
async def scoped(h: Harness) -> None:
    """An agent's queue never shows another agent's reviews, and a decision naming another
    agent's review is not_found and changes nothing."""
    owner, other = h.agent("a"), h.agent("b")
    staged = await h.remember(owner, "Hal's salary is private", approval_required=True)
    expect(await _queue(h, other) == [], "another agent's review was listed")
    body = {"agent_id": other, "review_id": staged, "reviewer": "r", "approved": True}
    await _code(h, "decide", body, "not_found")
    expect([r.review_id for r in await _queue(h, owner)] == [staged], "the review was touched")


@check("review.pages", section="review.list", needs=QUEUE, spec="v0.2")
async def paged(h: Harness) -> None:
    """Pages list every pending review once, in review id order, and a review staged while
    paging is listed when it sorts after the cursor."""
    agent = h.agent()
    staged = [
        await h.remember(agent, f"note {i} about the garden", approval_required=True)
        for i in range(5)
    ]
    first = await h.call("reviews", {"agent_id": agent, "limit": 2, "related": 0})
    expect(first.next_cursor is not None, "a first page of 2 out of 5 has no cursor")
    late = await h.remember(agent, "a late note about the garden", approval_required=True)
    rest = await _queue(h, agent, limit=2, related=0, cursor=first.next_cursor)
    listed = [r.review_id for r in [*first.reviews, *rest]]
    expect(listed == sorted([*staged, late]), f"pages listed {listed}")
    only = await _queue(h, agent, ids=[staged[3]])
    expect([r.review_id for r in only] == [staged[3]], "ids did not select the review")
