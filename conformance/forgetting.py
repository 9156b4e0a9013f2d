"""The checks of spec v0.4's forget of a whole scope and its dry run (docs/spec/v0.4.md#forget.all,
#forget.dry-run): ``all`` reaches exactly the agent's, or the user's, records; a dry run names
what the same forget would reach and leaves every record where it was. A store that speaks an
older version refuses both fields, so it skips them."""

from __future__ import annotations

from mnemowire import spec
from mnemowire.conformance._harness import Harness, Skip, check, expect

__all__: list[str] = []


def _speaks_v0_4(h: Harness) -> None:
    if spec.version_key(h.version) < spec.version_key("v0.4"):
        raise Skip(f"the store speaks {h.version}; a forget's all and dry_run are v0.4's")


async def _visible(h: Harness, agent: str, ids: list[str]) -> set[str]:
    if "get" in h.capabilities:
        found = await h.call("get", {"agent_id": agent, "ids": ids})
        return {r.id for r in found.records}
    return set(await h.recall_ids(agent, "note")) & set(ids)


@check("forget.all", section="forget.all", needs=["forget", "user_scope"], spec="v0.4")
async def forget_all(h: Harness) -> None:
    """A forget with all and a user_id reaches exactly that user's records of the agent; with
    all alone, every record of the agent; never another agent's."""
    _speaks_v0_4(h)
    agent, other = h.agent(), h.agent("other")
    alices = [await h.remember(agent, f"a note about Alice {n}", user_id="cf-alice")
              for n in range(2)]  # fmt: skip
    bobs = await h.remember(agent, "a note about Bob", user_id="cf-bob")
    nobody = await h.remember(agent, "a note about no one")
    theirs = await h.remember(other, "another agent's note about Alice", user_id="cf-alice")
    done = await h.call("forget", {"agent_id": agent, "user_id": "cf-alice", "all": True})
    expect(sorted(done.forgotten_ids) == sorted(alices), f"forgot {done.forgotten_ids}")
    left = await _visible(h, agent, [*alices, bobs, nobody])
    expect(left == {bobs, nobody}, f"after forgetting all of one user, {sorted(left)} remain")
    rest = await h.call("forget", {"agent_id": agent, "all": True})
    expect(sorted(rest.forgotten_ids) == sorted([bobs, nobody]), f"forgot {rest.forgotten_ids}")
    expect(await _visible(h, other, [theirs]) == {theirs}, "another agent's record was forgotten")


@check("forget.dry-run", section="forget.dry-run", needs=["forget"], spec="v0.4")
async def forget_dry_run(h: Harness) -> None:
    """A dry run names what the same forget would reach (by ids, by filter, all) and forgets
    nothing: every record stays visible, and the forget that follows reaches the same ids."""
    _speaks_v0_4(h)
    agent = h.agent()
    kept = [await h.remember(agent, f"a note to keep {n}", metadata={"topic": "t"})
            for n in range(3)]  # fmt: skip
    for scope in ({"ids": kept[:1]}, {"filter": {"topic": "t"}}, {"all": True}):
        preview = await h.call("forget", {"agent_id": agent, **scope, "dry_run": True})
        expect(preview.dry_run is True, f"a dry run answered dry_run {preview.dry_run}")
        want = kept[:1] if "ids" in scope else kept
        expect(sorted(preview.forgotten_ids) == sorted(want),
               f"a dry run by {sorted(scope)} named {preview.forgotten_ids}")  # fmt: skip
        expect(await _visible(h, agent, kept) == set(kept), "a dry run forgot a record")
    done = await h.call("forget", {"agent_id": agent, "all": True})
    expect(sorted(done.forgotten_ids) == sorted(kept), "the forget reached other ids")
