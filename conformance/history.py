"""The checks of spec v0.4's history (docs/spec/v0.4.md#history): every change to a record is a
version with its time, operation and state; forgotten and merged records keep theirs, an
erased record's goes with it; a request sees only its agent's (and user's) records; pages
concatenate to the whole; a read or a refused write adds no version; an archive carries the
versions and an import keeps them. Each needs ``history`` and the operations it uses, so a
store without them skips it."""

from __future__ import annotations

from typing import Any

from mnemowire.conformance._harness import Harness, check, expect
from mnemowire.conformance.archive import MOVES, _export, _fresh, _request
from mnemowire.errors import MnemowireError
from mnemowire.kit import to_wire

__all__: list[str] = []


async def _versions(h: Harness, agent: str, record_id: str, **request: Any) -> list[Any]:
    """Every version of the record, page by page (two to a page, so a longer one pages)."""
    body: dict[str, Any] = {"agent_id": agent, "id": record_id, "limit": 2, **request}
    entries: list[Any] = []
    for _ in range(1000):
        page = await h.call("history", body)
        expect(page.id == record_id, f"history answered for {page.id}, not {record_id}")
        entries += page.entries
        if page.next_cursor is None:
            revisions = [e.revision for e in entries]
            expect(revisions == sorted(set(revisions)), f"revisions out of order: {revisions}")
            return entries
        body = {**body, "cursor": page.next_cursor}
    raise AssertionError("the history did not end after 1000 pages")


async def _not_found(h: Harness, request: dict[str, Any], why: str) -> None:
    error = await h.rejected("history", request)
    expect(error.code == "not_found", f"history {why} failed with {error.code}, not not_found")


@check("history.versions", section="history.versions", needs=["history", "update"], spec="v0.4")
async def versions(h: Harness) -> None:
    """A stored record's history is one version per write, oldest first, from revision 1: the
    remember, then each update, each with the record as it stood after it (content, metadata,
    version) and the operation that made it; the newest is the record get returns."""
    agent = h.agent()
    record_id = await h.remember(agent, "Alice likes tea", metadata={"topic": "drinks"})
    contents = ["Alice likes tea", "Alice likes green tea", "Alice likes green tea, no sugar"]
    for version, content in enumerate(contents[1:], start=1):
        request = {"agent_id": agent, "id": record_id, "expected_version": version,
                   "content": content, "metadata": {"topic": "drinks", "v": version}}  # fmt: skip
        await h.call("update", request)
    entries = await _versions(h, agent, record_id)
    got = [(e.revision, e.operation, e.record.content, e.record.version) for e in entries]
    want = [(1, "remember", contents[0], 1), (2, "update", contents[1], 2),
            (3, "update", contents[2], 3)]  # fmt: skip
    expect(got == want, f"the versions are {got}, not {want}")
    expect(entries[1].record.metadata == {"topic": "drinks", "v": 1}, "version 2's metadata")
    times = [e.at for e in entries]
    expect(times == sorted(times), f"versions are not in time order: {times}")
    if "get" in h.capabilities:
        [current] = (await h.call("get", {"agent_id": agent, "ids": [record_id]})).records
        newest = entries[-1].record
        expect(
            (newest.content, newest.version, newest.metadata)
            == (current.content, current.version, current.metadata),
            "the newest version is not the record get returns",
        )


@check("history.states", section="history.states", needs=["history", "forget"], spec="v0.4")
async def states(h: Harness) -> None:
    """A forgotten record keeps its history, its newest version in state forgotten; a merge's
    duplicate ends merged, naming the record it went into, and that record's version names
    what was folded into it."""
    agent = h.agent()
    forgotten = await h.remember(agent, "Bob rides to work")
    await h.call("forget", {"agent_id": agent, "ids": [forgotten]})
    entries = await _versions(h, agent, forgotten)
    got = [(e.operation, e.record.state) for e in entries]
    expect(got == [("remember", "active"), ("forget", "forgotten")], f"got {got}")
    if "merge" not in h.capabilities:
        return
    canonical = await h.remember(agent, "Carol plays the cello")
    duplicate = await h.remember(agent, "Carol plays cello")
    await h.call("merge", {"agent_id": agent, "canonical": canonical, "duplicates": [duplicate]})
    kept = (await _versions(h, agent, canonical))[-1]
    expect(kept.operation == "merge", f"the merge made a {kept.operation} version")
    expect(kept.merged_from == [duplicate], f"merged_from is {kept.merged_from}")
    folded = (await _versions(h, agent, duplicate))[-1]
    last = (folded.operation, folded.record.state, folded.merged_into)
    expect(last == ("merge", "merged", canonical), f"the duplicate's last version is {last}")


@check("history.scope", section="history.scope", needs=["history"], spec="v0.4")
async def scope(h: Harness) -> None:
    """history answers not_found for an id the store never held, for another agent's record
    and (with user_scope) for a record of another user, saying nothing of what it holds."""
    agent, other = h.agent(), h.agent("other")
    record_id = await h.remember(agent, "Dana keeps bees", user_id="cf-dana")
    await _not_found(h, {"agent_id": agent, "id": "cf-never-stored"}, "of an unknown id")
    await _not_found(h, {"agent_id": other, "id": record_id}, "for another agent")
    if "user_scope" in h.capabilities:
        await _not_found(h, {"agent_id": agent, "user_id": "cf-eve", "id": record_id},
                         "for another user")  # fmt: skip
        mine = await _versions(h, agent, record_id, user_id="cf-dana")
        expect(len(mine) == 1, f"the user's own record has {len(mine)} versions")


@check("history.erased", section="history.erase", needs=["history", "hard_delete"], spec="v0.4")
async def erased(h: Harness) -> None:
    """A hard forget erases the record's history with it: history answers not_found."""
    agent = h.agent()
    record_id = await h.remember(agent, "Erin's passport number is 12345")
    await _versions(h, agent, record_id)
    await h.call("forget", {"agent_id": agent, "ids": [record_id], "hard_delete": True})
    await _not_found(h, {"agent_id": agent, "id": record_id}, "of an erased record")


@check("history.pages", section="history.pages", needs=["history", "update"], spec="v0.4")
async def pages(h: Harness) -> None:
    """Pages of any size concatenate to the whole history, and a cursor made for one record
    is refused for another (invalid_request)."""
    agent = h.agent()
    record_id = await h.remember(agent, "Frank's locker is 1")
    other = await h.remember(agent, "Grace's locker is 2")
    for version in range(1, 6):
        request = {"agent_id": agent, "id": record_id, "expected_version": version,
                   "content": f"Frank's locker is {version + 1}"}  # fmt: skip
        await h.call("update", request)
    whole = await h.call("history", {"agent_id": agent, "id": record_id})
    expect(whole.next_cursor is None and len(whole.entries) == 6, "one page of the whole")
    for size in (1, 4):
        paged = await _versions(h, agent, record_id, limit=size)
        expect([e.revision for e in paged] == [e.revision for e in whole.entries],
               f"pages of {size} do not make the whole")  # fmt: skip
    first = await h.call("history", {"agent_id": agent, "id": record_id, "limit": 2})
    expect(first.next_cursor is not None, "a 6-version history fit a page of 2")
    error = await h.rejected("history", {"agent_id": agent, "id": other, "limit": 2,
                                         "cursor": first.next_cursor})  # fmt: skip
    expect(error.code == "invalid_request", f"a foreign cursor failed with {error.code}")


@check("history.unchanged", section="history.versions", needs=["history", "update"], spec="v0.4")
async def unchanged(h: Harness) -> None:
    """Reads (recall, get, history) and a refused write (an update at a stale version) add no
    version."""
    agent = h.agent()
    record_id = await h.remember(agent, "Heidi likes plums")
    before = await _versions(h, agent, record_id)
    await h.recall(agent, "plums")
    if "get" in h.capabilities:
        await h.call("get", {"agent_id": agent, "ids": [record_id]})
    stale = {"agent_id": agent, "id": record_id, "expected_version": 7, "content": "no"}
    error = await h.rejected("update", stale)
    expect(error.code == "conflict", f"a stale update failed with {error.code}, not conflict")
    after = await _versions(h, agent, record_id)
    expect(len(after) == len(before) == 1, f"{len(after) - len(before)} versions appeared")


async def _lived(h: Harness, agent: str) -> tuple[str, list[Any]]:
    """A record with a past (a remember and two updates, the second with a reason), and its
    versions."""
    record_id = await h.remember(agent, "Ivan's locker is 12")
    for version, content in enumerate(["Ivan's locker is 14", "Ivan's locker is 41"], start=1):
        request = {"agent_id": agent, "id": record_id, "expected_version": version,
                   "content": content, "reason": f"moved, {version}"}  # fmt: skip
        await h.call("update", request)
    return record_id, await _versions(h, agent, record_id)


@check(
    "history.archived",
    section="import.history",
    needs=["history", "update", *MOVES],
    spec="v0.4",
)
async def archived(h: Harness) -> None:
    """An export with include_history carries each record's versions as history returns them;
    an import into a fresh store keeps them, marked imported and without this store's audit
    entries, with a version of the import's own after them."""
    agent = h.agent()
    record_id, before = await _lived(h, agent)
    exported = await _export(h, h.store, agent, include_history=True)
    [line] = [r for r in exported["records"] if r["record"]["id"] == record_id]
    expect(line.get("history") == [to_wire(e) for e in before],
           "the line's history is not the record's history")  # fmt: skip
    async with _fresh(h) as fresh:  # new ids: the certification's stores may share storage
        answer = await fresh.import_records(_request(agent, exported, id_policy="new"))
        copy = next(r.new_id for r in answer.results if r.id == record_id)
        page = to_wire(await fresh.history({"agent_id": agent, "id": copy, "limit": 100}))
    *carried, own = page["entries"]
    expect({e["record"]["id"] for e in page["entries"]} == {copy},
           "a carried version is not under the record's new id")  # fmt: skip
    said = [(e["revision"], e["operation"], e["record"]["content"], e.get("reason"))
            for e in carried]  # fmt: skip
    want = [(e.revision, e.operation, e.record.content, e.reason) for e in before]
    expect(said == want, f"the target's versions are {said}, not {want}")
    expect(all(e.get("imported") is True and "audit_seq" not in e for e in carried),
           "a carried version is not marked imported, or claims an audit entry here")  # fmt: skip
    expect(
        (own["revision"], own["operation"], own.get("imported"))
        == (len(before) + 1, "import_records", None),
        f"the import's own version is {own['revision']} {own['operation']}",
    )


@check("history.archived-gap", section="archive.history", needs=["history", *MOVES], spec="v0.4")
async def archived_gap(h: Harness) -> None:
    """A line whose versions do not run on from history_dropped + 1 without a gap is refused
    with invalid_request naming the revision (rule revisions), and writes nothing."""
    agent = h.agent()
    await h.remember(agent, "Judy's desk is by the window")
    exported = await _export(h, h.store, agent, include_history=True)
    for line in exported["records"]:
        line["history_dropped"] = 3  # its first version says revision 1
    async with _fresh(h) as fresh:
        before = await _export(h, fresh, agent)
        try:
            await fresh.import_records(_request(agent, exported, id_policy="new"))
        except MnemowireError as exc:
            details = exc.envelope.get("details") or [{}]
            expect(
                exc.code == "invalid_request" and details[0].get("rule") == "revisions",
                f"refused as {exc.code} {details[0]}, not invalid_request (rule revisions)",
            )
        else:
            raise AssertionError("a history with a gap was imported")
        expect(await _export(h, fresh, agent) == before, "a refused page wrote its record")
