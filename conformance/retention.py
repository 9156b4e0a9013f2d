"""The scenario checks of forget, merge and expire: named invariants of docs/spec/v0.md, each
citing its section."""

from __future__ import annotations

import asyncio
from typing import Any

from mnemowire.conformance._harness import TIME_WINDOWS_S, Harness, check, expect, too_slow
from mnemowire.conformance.checks import rules
from mnemowire.kit import now_ms

__all__: list[str] = []


# -- forget ------------------------------------------------------------------------------------


@check("forget.by-ids", section="forget.scope", needs=["forget"])
async def forget_by_ids(h: Harness) -> None:
    """forget by ids forgets exactly those of the agent, and says so."""
    agent, other = h.agent(), h.agent("other")
    keep = await h.remember(agent, "tea at noon")
    drop = await h.remember(agent, "tea at five")
    foreign = await h.remember(other, "tea at five")
    response = await h.call("forget", {"agent_id": agent, "ids": [drop, foreign]})
    expect(response.forgotten_ids == [drop], f"forgotten_ids {response.forgotten_ids}")
    expect(await h.recall_ids(agent, "tea") == [keep], "a forgotten record came back")
    expect(await h.recall_ids(other, "tea") == [foreign], "another agent's record was forgotten")


@check("forget.by-filter", section="forget.scope", needs=["forget", "metadata_filter"])
async def forget_by_filter(h: Harness) -> None:
    """forget by filter forgets the matching records."""
    agent = h.agent()
    travel = await h.remember(agent, "trip", metadata={"topic": "travel"})
    health = await h.remember(agent, "checkup", metadata={"topic": "health"})
    response = await h.call("forget", {"agent_id": agent, "filter": {"topic": "travel"}})
    expect(response.forgotten_ids == [travel], f"forgotten_ids {response.forgotten_ids}")
    expect(await h.recall_ids(agent, "trip checkup") == [health], "wrong records remain")


@check("forget.ids-and-filter", section="forget.scope", needs=["forget", "metadata_filter"])
async def forget_both(h: Harness) -> None:
    """With ids and a filter, a record must be listed and match."""
    agent = h.agent()
    a = await h.remember(agent, "trip a", metadata={"topic": "travel"})
    b = await h.remember(agent, "trip b", metadata={"topic": "health"})
    response = await h.call(
        "forget", {"agent_id": agent, "ids": [a, b], "filter": {"topic": "travel"}}
    )
    expect(response.forgotten_ids == [a], f"forgotten_ids {response.forgotten_ids}")


@check("forget.scope-required", section="forget.scope")
async def scope_required(h: Harness) -> None:
    """A forget without ids or filter, or with an empty filter, is rejected."""
    agent = h.agent()
    record = await h.remember(agent, "keep me")
    refused: list[tuple[dict[str, Any], tuple[str, str]]] = [
        ({"agent_id": agent}, ("", "anyOf")),
        ({"agent_id": agent, "filter": {}}, ("/filter", "minProperties")),
    ]
    for request, rule in refused:
        error = await h.rejected("forget", request)
        expect(rule in rules(error), f"{request} gave {error.details}")
    expect(await h.recall_ids(agent, "keep") == [record], "a rejected forget forgot something")


@check("forget.user-scope", section="forget.scope", needs=["forget", "user_scope"])
async def forget_user_scope(h: Harness) -> None:
    """A user-scoped forget only forgets that user's records."""
    agent = h.agent()
    alice = await h.remember(agent, "likes tea", user_id="alice")
    bob = await h.remember(agent, "likes tea", user_id="bob")
    response = await h.call("forget", {"agent_id": agent, "user_id": "alice", "ids": [alice, bob]})
    expect(response.forgotten_ids == [alice], f"forgotten_ids {response.forgotten_ids}")
    expect(await h.recall_ids(agent, "tea") == [bob], "bob's record was forgotten")


@check("forget.hard", section="forget.soft", needs=["forget", "hard_delete"])
async def forget_hard(h: Harness) -> None:
    """hard_delete erases the record and says so."""
    agent = h.agent()
    record = await h.remember(agent, "passport number")
    response = await h.call("forget", {"agent_id": agent, "ids": [record], "hard_delete": True})
    expect(response.hard_delete is True and response.forgotten_ids == [record], "not reported")
    expect(await h.recall_ids(agent, "passport") == [], "an erased record came back")


@check("forget.idempotent", section="forget.response", needs=["forget"])
async def forget_idempotent(h: Harness) -> None:
    """Forgetting a forgotten record is not an error and reports nothing new."""
    agent = h.agent()
    record = await h.remember(agent, "tea")
    await h.call("forget", {"agent_id": agent, "ids": [record]})
    again = await h.call("forget", {"agent_id": agent, "ids": [record]})
    expect(again.forgotten_ids == [], f"forgot again: {again.forgotten_ids}")


# -- merge -------------------------------------------------------------------------------------


@check("merge.keep-canonical", section="merge.strategies", needs=["merge"])
async def merge_keep_canonical(h: Harness) -> None:
    """keep_canonical keeps the canonical record as it was and hides the duplicates."""
    agent = h.agent()
    canonical = await h.remember(agent, "Alice is allergic to peanuts")
    duplicate = await h.remember(agent, "Alice has a peanut allergy")
    response = await h.call(
        "merge", {"agent_id": agent, "canonical": canonical, "duplicates": [duplicate]}
    )
    expect((response.merged_count, response.strategy_used) == (1, "keep_canonical"), "response")
    [hit] = await h.recall(agent, "peanut allergy")
    expect((hit.id, hit.content) == (canonical, "Alice is allergic to peanuts"), "changed")


@check("merge.merge-content", section="merge.strategies", needs=["merge"])
async def merge_content(h: Harness) -> None:
    """merge_content joins the contents with newlines, canonical first."""
    agent = h.agent()
    canonical = await h.remember(agent, "Alice lives in Lisbon")
    duplicate = await h.remember(agent, "Alice owns a yellow bicycle")
    await h.call(
        "merge",
        {
            "agent_id": agent,
            "canonical": canonical,
            "duplicates": [duplicate],
            "strategy": "merge_content",
        },
    )
    [hit] = await h.recall(agent, "yellow bicycle")
    expected = "Alice lives in Lisbon\nAlice owns a yellow bicycle"
    expect((hit.id, hit.content) == (canonical, expected), f"got {hit.id} {hit.content!r}")


@check("merge.highest-confidence", section="merge.strategies", needs=["merge"])
async def merge_highest_confidence(h: Harness) -> None:
    """keep_highest_confidence takes the most confident record's content."""
    agent = h.agent()
    canonical = await h.remember(agent, "meeting at 3pm", confidence=0.4)
    better = await h.remember(agent, "meeting at 4pm", confidence=0.9)
    await h.call(
        "merge",
        {
            "agent_id": agent,
            "canonical": canonical,
            "duplicates": [better],
            "strategy": "keep_highest_confidence",
        },
    )
    [hit] = await h.recall(agent, "meeting")
    got = (hit.id, hit.content, hit.confidence)
    expect(got == (canonical, "meeting at 4pm", 0.9), f"got {got}")


@check("merge.ownership", section="merge.ownership", needs=["merge"])
async def merge_ownership(h: Harness) -> None:
    """Merging another agent's record fails with not_found and changes nothing."""
    agent, other = h.agent(), h.agent("other")
    mine = await h.remember(agent, "tea")
    theirs = await h.remember(other, "their tea")
    error = await h.rejected(
        "merge", {"agent_id": agent, "canonical": mine, "duplicates": [theirs]}
    )
    expect(error.code == "not_found", f"expected not_found, got {error.code}")
    expect(await h.recall_ids(other, "tea") == [theirs], "the other agent's record changed")
    expect(await h.recall_ids(agent, "tea") == [mine], "the merge changed something")


@check("merge.into-itself", section="merge.ownership", needs=["merge"])
async def merge_into_itself(h: Harness) -> None:
    """A record cannot be merged into itself."""
    agent = h.agent()
    record = await h.remember(agent, "tea")
    other = await h.remember(agent, "cake")
    error = await h.rejected(
        "merge", {"agent_id": agent, "canonical": record, "duplicates": [other, record]}
    )
    expect(error.code in ("conflict", "invalid_request"), f"unexpected {error.code}")
    expect(len(await h.recall(agent, "tea cake")) == 2, "the failed merge changed something")


@check("merge.duplicates-gone", section="merge.duplicates", needs=["merge", "forget"])
async def merge_duplicates_gone(h: Harness) -> None:
    """Merged duplicates never come back, and are no longer visible to forget."""
    agent = h.agent()
    canonical = await h.remember(agent, "Alice likes tea")
    duplicate = await h.remember(agent, "Alice enjoys tea")
    await h.call("merge", {"agent_id": agent, "canonical": canonical, "duplicates": [duplicate]})
    expect(await h.recall_ids(agent, "Alice tea") == [canonical], "a duplicate came back")
    response = await h.call("forget", {"agent_id": agent, "ids": [duplicate]})
    expect(response.forgotten_ids == [], "a merged duplicate was still forgettable")


# -- expire ------------------------------------------------------------------------------------


@check("expire.empty-policy", section="expire.policy")
async def empty_policy(h: Harness) -> None:
    """An expire with an empty (or missing) policy is rejected and matches nothing."""
    agent = h.agent()
    record = await h.remember(agent, "keep me")
    refused: list[tuple[dict[str, Any], tuple[str, str]]] = [
        ({"agent_id": agent, "policy": {}}, ("/policy", "minProperties")),
        ({"agent_id": agent}, ("/policy", "required")),
    ]
    for request, rule in refused:
        error = await h.rejected("expire", request)
        expect(rule in rules(error), f"{request} gave {error.details}")
    expect(await h.recall_ids(agent, "keep") == [record], "a rejected expire changed something")


@check("expire.type", section="expire.policy", needs=["expire", "episodic"])
async def expire_type(h: Harness) -> None:
    """The type predicate matches that type only."""
    agent = h.agent()
    await h.remember(agent, "a fact")
    episode = await h.remember(agent, "an episode", type="episodic")
    response = await h.call("expire", {"agent_id": agent, "policy": {"type": "episodic"}})
    expect(
        response.matched_count == 1 and response.matched_ids in (None, [episode]),
        f"matched {response.matched_count} {response.matched_ids}",
    )


@check("expire.confidence-below", section="expire.policy", needs=["expire"])
async def expire_confidence(h: Harness) -> None:
    """confidence_below matches strictly lower confidence."""
    agent = h.agent()
    low = await h.remember(agent, "rumour", confidence=0.2)
    await h.remember(agent, "edge", confidence=0.5)
    response = await h.call("expire", {"agent_id": agent, "policy": {"confidence_below": 0.5}})
    expect(response.matched_count == 1 and response.matched_ids in (None, [low]), "matched")


@check("expire.older-than", section="expire.policy", needs=["expire"])
async def expire_older(h: Harness) -> None:
    """older_than_days matches records created before the cut-off."""
    agent = h.agent()
    record = await h.remember(agent, "old note")
    await asyncio.sleep(0.05)
    none = await h.call("expire", {"agent_id": agent, "policy": {"older_than_days": 1}})
    expect(none.matched_count == 0, "a brand-new record is older than a day?")
    some = await h.call("expire", {"agent_id": agent, "policy": {"older_than_days": 0}})
    expect(some.matched_count == 1 and some.matched_ids in (None, [record]), "not matched")


@check("expire.no-recall", section="recall.tracking", needs=["expire", "recall_tracking"])
async def expire_no_recall(h: Harness) -> None:
    """no_recall_in_days matches records nobody recalled within the window."""
    for window_s in TIME_WINDOWS_S:
        agent = h.agent()
        used = await h.remember(agent, "weekly standup notes")
        unused = await h.remember(agent, "expense policy")
        await asyncio.sleep(window_s + 0.7)  # both records are now older than the window
        probed = now_ms()
        response = await h.call("recall", {"agent_id": agent, "query": "standup", "k": 1})
        expect([hit.id for hit in response.results] == [used], "the probe recall missed")
        policy = {"no_recall_in_days": window_s / 86_400}
        matched = await h.call("expire", {"agent_id": agent, "action": "demote", "policy": policy})
        if now_ms() - probed < window_s * 1000:  # the probe was inside the window it asked about
            break
    else:
        raise too_slow("a recall and an expire")
    expect(
        matched.matched_ids in (None, [unused]) and matched.matched_count == 1,
        f"matched {matched.matched_ids}",
    )


@check("expire.predicates-anded", section="expire.policy", needs=["expire", "episodic"])
async def expire_anded(h: Harness) -> None:
    """Predicates are ANDed."""
    agent = h.agent()
    target = await h.remember(agent, "weak episode", type="episodic", confidence=0.1)
    await h.remember(agent, "strong episode", type="episodic", confidence=0.9)
    await h.remember(agent, "weak fact", confidence=0.1)
    response = await h.call(
        "expire", {"agent_id": agent, "policy": {"type": "episodic", "confidence_below": 0.5}}
    )
    expect(response.matched_count == 1 and response.matched_ids in (None, [target]), "matched")


@check("expire.forget", section="expire.actions", needs=["expire"])
async def expire_forget(h: Harness) -> None:
    """The forget action hides the matches."""
    agent = h.agent()
    await h.remember(agent, "rumour", confidence=0.1)
    keep = await h.remember(agent, "fact")
    await h.call("expire", {"agent_id": agent, "policy": {"confidence_below": 0.5}})
    expect(await h.recall_ids(agent, "rumour fact") == [keep], "an expired record came back")


@check("expire.archive", section="expire.actions", needs=["expire", "archive"])
async def expire_archive(h: Harness) -> None:
    """The archive action hides the matches from recall."""
    agent = h.agent()
    await h.remember(agent, "rumour", confidence=0.1)
    keep = await h.remember(agent, "fact")
    response = await h.call(
        "expire", {"agent_id": agent, "action": "archive", "policy": {"confidence_below": 0.5}}
    )
    expect(response.action_taken == "archive", "action_taken")
    expect(await h.recall_ids(agent, "rumour fact") == [keep], "an archived record came back")


@check("expire.demote", section="expire.demote", needs=["expire", "demote"])
async def expire_demote(h: Harness) -> None:
    """Demotion multiplies the recall score by the factor, and never compounds."""
    agent = h.agent()
    record = await h.remember(agent, "printer toner order", confidence=0.1)

    async def score() -> float:
        [hit] = await h.recall(agent, "printer toner order")
        return float(hit.score)

    full = await score()
    for _ in range(2):
        await h.call(
            "expire",
            {
                "agent_id": agent,
                "action": "demote",
                "demote_factor": 0.5,
                "policy": {"confidence_below": 0.5},
            },
        )
        expect(
            abs(await score() - full * 0.5) <= 1e-9 * max(1.0, full),
            f"score {await score()} is not half of {full} (record {record})",
        )


@check("expire.user-scope", section="expire.policy", needs=["expire", "user_scope"])
async def expire_user_scope(h: Harness) -> None:
    """An expire with user_id matches only that user's records."""
    agent = h.agent()
    alice = await h.remember(agent, "rumour about tea", user_id="alice", confidence=0.1)
    bob = await h.remember(agent, "rumour about tea", user_id="bob", confidence=0.1)
    response = await h.call(
        "expire",
        {"agent_id": agent, "user_id": "alice", "policy": {"confidence_below": 0.5}},
    )
    expect(
        response.matched_count == 1 and response.matched_ids in (None, [alice]),
        f"matched {response.matched_count} {response.matched_ids}, not only alice's",
    )
    expect(await h.recall_ids(agent, "tea") == [bob], "bob's record was expired")
