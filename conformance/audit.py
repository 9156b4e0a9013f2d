"""The checks of the audit log, for a store that lets mnemowire read it (``AuditedStore``; a
router whose children all do, each child's):
append-only and hash-chained, one entry per mutation, no content in it, and a decision's entry
naming who decided what. A store that keeps no log mnemowire can read skips them (the log is a
SHOULD, [store.audit])."""

from __future__ import annotations

import json
from typing import Any

from mnemowire.conformance._harness import Harness, Skip, check, expect
from mnemowire.kit.audit import verify
from mnemowire.protocol import AuditedStore, RoutingStore

__all__: list[str] = []


async def _logs(h: Harness) -> list[list[dict[str, Any]]]:
    """The store's audit log; a router's, each child's (every copy is audited where it is
    kept), when every child keeps one mnemowire can read."""
    store = getattr(h.store, "inner", h.store)
    if isinstance(store, AuditedStore):
        return [await store.audit_entries()]
    if isinstance(store, RoutingStore) and all(isinstance(c, AuditedStore) for c in store.stores):
        return [await c.audit_entries() for c in store.stores if isinstance(c, AuditedStore)]
    raise Skip(
        "the store keeps no audit log mnemowire can read (protocol AuditedStore; a router: "
        "every child)"
    )


def _mine(entries: list[dict[str, Any]], agent: str) -> list[dict[str, Any]]:
    return [e for e in entries if e["agent_id"] == agent]


@check("audit.chain", section="store.audit", strength="SHOULD")
async def chained(h: Harness) -> None:
    """Every mutation appends one entry, in order, the entries before stay as they were, and
    the whole log verifies as a hash chain."""
    logs = await _logs(h)
    agent = h.agent()
    kept = await h.remember(agent, "The boiler is serviced every March")
    gone = await h.remember(agent, "The old wifi password")
    await h.call("forget", {"agent_id": agent, "ids": [gone]})
    wanted = [("remember", [kept]), ("remember", [gone]), ("forget", [gone])]
    for before, after in zip(logs, await _logs(h), strict=True):
        expect(after[: len(before)] == before, "an entry written before was changed or removed")
        mine = [(e["operation"], e["ids"]) for e in _mine(after[len(before) :], agent)]
        expect(mine == wanted, f"the new entries are {mine}, not {wanted}")
        verdict = verify(after)
        expect(verdict.ok, f"the audit chain does not verify: {verdict.problem}")


@check("audit.no-content", section="store.audit")
async def no_content(h: Harness) -> None:
    """An entry says what was done to which records, never what they hold: a hard-forgotten
    record's content and metadata leave no trace in the log."""
    before = [len(log) for log in await _logs(h)]
    agent = h.agent()
    secret, tag = "Dana's PIN is 8265-cf", "cf-private-tag-3141"
    record = await h.remember(agent, secret, metadata={"label": tag})
    request: dict[str, Any] = {"agent_id": agent, "ids": [record]}
    if "hard_delete" in h.capabilities:
        request["hard_delete"] = True
    await h.call("forget", request)
    for count, log in zip(before, await _logs(h), strict=True):
        written = json.dumps(log[count:], ensure_ascii=False)
        expect(secret not in written, "a record's content is in the audit log")
        expect(tag not in written, "a record's metadata is in the audit log")


@check("audit.decision", section="review.audit", needs=("reviews", "decide"), spec="v0.2")
async def decision(h: Harness) -> None:
    """A staged write is audited when staged and again when decided: the decision's entry
    names the review, the outcome, the reviewer and the reason."""
    await _logs(h)  # skip first when the log cannot be read
    agent = h.agent()
    staged = await h.remember(agent, "Erin moved to Porto", approval_required=True)
    await h.call(
        "decide",
        {"agent_id": agent, "review_id": staged, "approved": True, "reviewer": "cf-reviewer",
         "reason": "confirmed by Erin"},
    )  # fmt: skip
    wanted = {"review_id": staged, "outcome": "approved", "reviewer": "cf-reviewer",
              "reason": "confirmed by Erin"}  # fmt: skip
    for log in await _logs(h):
        mine = _mine(log, agent)
        expect([e["operation"] for e in mine][-1:] == ["decide"], "the decision was not audited")
        detail = mine[-1].get("detail") or {}
        got = {k: detail.get(k) for k in wanted}
        expect(got == wanted, f"the decision's entry holds {got}, not {wanted}")
        expect(staged in mine[-1]["ids"], "the decision's entry does not name the record")
        expect(any((e.get("detail") or {}).get("pending") for e in mine), "staging not audited")
