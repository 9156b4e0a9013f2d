"""The checks of what spec v0.1 added: get, list, restore, update, batch remember, recall with a
query vector, and record seals. Each cites its section of docs/spec/v0.1.md and needs the
capability that promises the operation, so a v0 store skips them all."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from mnemowire.conformance._harness import Harness, check, expect
from mnemowire.errors import MnemowireError

__all__: list[str] = []

SEAL = {"alg": "hmac-sha256", "key_id": "cf-key", "mac": "5e" * 32}


async def _records(h: Harness, agent: str, ids: list[str], **request: Any) -> dict[str, Any]:
    answer = await h.call("get", {"agent_id": agent, "ids": ids, **request})
    return {record.id: record for record in answer.records}


async def _listed(h: Harness, agent: str, **request: Any) -> list[str]:
    """Every id a listing returns, page by page."""
    body: dict[str, Any] = {"agent_id": agent, **request}
    ids: list[str] = []
    for _ in range(1000):
        page = await h.call("list", body)
        ids += [record.id for record in page.records]
        if page.next_cursor is None:
            return ids
        body = {**body, "cursor": page.next_cursor}
    raise AssertionError("the listing did not end after 1000 pages")


async def _expect_code(h: Harness, operation: str, request: dict[str, Any], code: str) -> Any:
    error = await h.rejected(operation, request)
    expect(error.code == code, f"{operation} failed with {error.code}, not {code}: {error}")
    return error


# -- get ---------------------------------------------------------------------------------------


@check("get.by-id", section="get.scope", needs=["get"], spec="v0.1")
async def get_by_id(h: Harness) -> None:
    """get returns the records asked for in request order, and lists every other id missing."""
    agent = h.agent()
    first = await h.remember(agent, "Alice likes green tea", metadata={"topic": "drinks"})
    second = await h.remember(agent, "Bob likes coffee")
    answer = await h.call("get", {"agent_id": agent, "ids": [second, "cf-never-stored", first]})
    expect([r.id for r in answer.records] == [second, first], "records not in request order")
    expect(answer.missing == ["cf-never-stored"], f"missing is {answer.missing}")
    record = answer.records[1]
    got = (record.content, record.metadata, record.state, record.version)
    expect(got == ("Alice likes green tea", {"topic": "drinks"}, "active", 1), f"got {got}")


@check("get.scope", section="get.scope", needs=["get", "user_scope"], spec="v0.1")
async def get_scope(h: Harness) -> None:
    """get never returns another agent's record, nor another user's when a user_id is given."""
    agent, other = h.agent("a"), h.agent("b")
    theirs = await h.remember(other, "the other agent's secret")
    alices = await h.remember(agent, "Alice's note", user_id="alice")
    answer = await h.call("get", {"agent_id": agent, "ids": [theirs, alices], "user_id": "bob"})
    expect(answer.records == [], "get returned a record out of the request's scope")
    expect(sorted(answer.missing) == sorted([theirs, alices]), f"missing: {answer.missing}")
    found = await _records(h, agent, [alices], user_id="alice")
    expect(list(found) == [alices], "get did not return the user's own record")


@check("get.states", section="records.state", needs=["get", "expire", "archive"], spec="v0.1")
async def get_states(h: Harness) -> None:
    """An archived record is missing from a default get and shown, as archived, when asked."""
    agent = h.agent()
    record = await h.remember(agent, "an old note", confidence=0.1)
    await h.call(
        "expire", {"agent_id": agent, "policy": {"confidence_below": 0.5}, "action": "archive"}
    )
    expect(await _records(h, agent, [record]) == {}, "an archived record was shown as active")
    found = await _records(h, agent, [record], states=["archived"])
    expect(record in found and found[record].state == "archived", f"got {found}")


# -- list --------------------------------------------------------------------------------------


@check("list.pages", section="list.cursor", needs=["list"], spec="v0.1")
async def list_pages(h: Harness) -> None:
    """Paging with next_cursor lists every record exactly once, newest first."""
    agent = h.agent()
    ids = [await h.remember(agent, f"note number {n}") for n in range(7)]
    listed = await _listed(h, agent, limit=3)
    expect(sorted(listed) == sorted(ids), f"listed {listed}, stored {ids}")
    page = await h.call("list", {"agent_id": agent, "limit": 1000})
    created = [(r.created_at, r.id) for r in page.records]
    expect(created == sorted(created, reverse=True), "not newest first")
    expect([r.id for r in page.records] == listed, "pages differ from one big page")


@check("list.by-id", section="list.order", needs=["list"], spec="v0.1")
async def list_by_id(h: Harness) -> None:
    """order=id lists by id ascending in code-point order."""
    agent = h.agent()
    ids = [await h.remember(agent, f"note {name}", id=f"{agent}-{name}") for name in "cBaA"]
    listed = await _listed(h, agent, order="id", limit=2)
    expect(listed == sorted(ids), f"listed {listed}")


@check("list.while-adding", section="list.cursor", needs=["list"], spec="v0.1")
async def list_while_adding(h: Harness) -> None:
    """Records added while a listing runs never make it repeat or skip a record."""
    agent = h.agent()
    before = [await h.remember(agent, f"before {n}") for n in range(5)]
    page = await h.call("list", {"agent_id": agent, "limit": 2})
    seen = [r.id for r in page.records]
    for n in range(4):
        await h.remember(agent, f"added meanwhile {n}")
    seen += await _listed(h, agent, limit=2, cursor=page.next_cursor)
    expect(len(seen) == len(set(seen)), f"a record was listed twice: {seen}")
    expect(set(before) <= set(seen), "a record that existed all along was skipped")


@check("list.cursor-bound", section="list.cursor-binding", needs=["list"], spec="v0.1")
async def list_cursor_bound(h: Harness) -> None:
    """A cursor sent with another agent, another filter or altered is refused at /cursor."""
    agent = h.agent("a")
    for n in range(3):
        await h.remember(agent, f"note {n}")
    cursor = (await h.call("list", {"agent_id": agent, "limit": 1})).next_cursor
    expect(cursor is not None, "a first page of one record out of three has no next_cursor")
    raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    flipped = bytes([raw[0] ^ 1]) + raw[1:]
    tampered = base64.urlsafe_b64encode(flipped).rstrip(b"=").decode()
    for request in (
        {"agent_id": h.agent("b"), "limit": 1, "cursor": cursor},
        {"agent_id": agent, "limit": 1, "cursor": cursor, "filter": {"topic": "x"}},
        {"agent_id": agent, "limit": 1, "cursor": tampered},
    ):
        error = await _expect_code(h, "list", request, "invalid_request")
        paths = [d["path"] for d in error.envelope["details"]]
        expect(paths == ["/cursor"], f"the error names {paths}, not /cursor")


# -- restore -----------------------------------------------------------------------------------


@check("restore.archived", section="restore.archived", needs=["restore", "archive"], spec="v0.1")
async def restore_archived(h: Harness) -> None:
    """restore brings an archived record back into recall and lists only what it restored."""
    agent = h.agent()
    old = await h.remember(agent, "passport renewal form", confidence=0.1)
    kept = await h.remember(agent, "passport photo booth", confidence=0.9)
    await h.call(
        "expire", {"agent_id": agent, "policy": {"confidence_below": 0.5}, "action": "archive"}
    )
    expect(old not in await h.recall_ids(agent, "passport"), "an archived record was recalled")
    answer = await h.call("restore", {"agent_id": agent, "ids": [kept, old, "cf-none"]})
    expect(answer.restored == [old], f"restored {answer.restored}, not only the archived one")
    expect(old in await h.recall_ids(agent, "passport"), "a restored record is not recalled")
    other = await h.call("restore", {"agent_id": h.agent("b"), "ids": [old]})
    expect(other.restored == [], "another agent restored the record")


# -- update ------------------------------------------------------------------------------------


@check("update.version", section="update.version", needs=["update"], spec="v0.1")
async def update_version(h: Harness) -> None:
    """An update at the current version succeeds and moves it; a stale one is a conflict."""
    agent = h.agent()
    record = await h.remember(agent, "the meeting is on monday")
    done = await h.call(
        "update",
        {"agent_id": agent, "id": record, "expected_version": 1, "content": "it is on tuesday"},
    )
    expect((done.version, done.updated) == (2, ["content"]), f"answered {done}")
    stale = {"agent_id": agent, "id": record, "expected_version": 1, "content": "wednesday"}
    await _expect_code(h, "update", stale, "conflict")
    hit = next(x for x in await h.recall(agent, "meeting day") if x.id == record)
    expect(hit.content == "it is on tuesday", f"the stale update changed the record: {hit}")


@check("update.race", section="update.version", needs=["update"], spec="v0.1")
async def update_race(h: Harness) -> None:
    """Of two updates racing from the same version, exactly one succeeds."""
    agent = h.agent()
    record = await h.remember(agent, "the launch is on friday")

    async def attempt(word: str) -> bool:
        request = {"agent_id": agent, "id": record, "expected_version": 1, "content": word}
        try:
            await h.call("update", request)
        except MnemowireError as exc:
            expect(exc.code == "conflict", f"the losing update failed with {exc.code}")
            return False
        return True

    won = await asyncio.gather(attempt("launch moved to monday"), attempt("launch moved to may"))
    expect(sorted(won) == [False, True], f"{sum(won)} of two racing updates succeeded")


@check("update.fields", section="update.fields", needs=["update"], spec="v0.1")
async def update_fields(h: Harness) -> None:
    """New content is searched by (embedded again); metadata is replaced; id and type stay."""
    agent = h.agent()
    record = await h.remember(agent, "Alice owns a red bicycle", metadata={"a": 1, "b": 2})
    request = {
        "agent_id": agent,
        "id": record,
        "expected_version": 1,
        "content": "Alice sold her bicycle and bought a kayak",
        "metadata": {"c": 3},
        "confidence": 0.4,
    }
    done = await h.call("update", request)
    expect(done.updated == ["content", "metadata", "confidence"], f"updated {done.updated}")
    hit = next((x for x in await h.recall(agent, "kayak") if x.id == record), None)
    expect(hit is not None, "the new content is not recalled")
    assert hit is not None
    got = (hit.type, hit.content, hit.metadata, hit.confidence)
    expected = ("semantic", request["content"], {"c": 3}, 0.4)
    expect(got == expected, f"the record holds {got}")


@check("update.scope", section="update.version", needs=["update"], spec="v0.1")
async def update_scope(h: Harness) -> None:
    """An update of another agent's record fails with not_found and changes nothing."""
    owner, intruder = h.agent("owner"), h.agent("intruder")
    record = await h.remember(owner, "the owner's note")
    request = {"agent_id": intruder, "id": record, "expected_version": 1, "content": "rewritten"}
    await _expect_code(h, "update", request, "not_found")
    hit = next(x for x in await h.recall(owner, "owner's note") if x.id == record)
    expect(hit.content == "the owner's note", "another agent changed the record")


# -- batch remember ----------------------------------------------------------------------------


@check("batch.results", section="batch.atomic", needs=["remember_batch"], spec="v0.1")
async def batch_results(h: Harness) -> None:
    """A batch answers one remember response per request, in order, each record recallable."""
    agent = h.agent()
    contents = ["Alice likes tea", "Bob likes coffee", "Carol likes juice"]
    requests = [{"agent_id": agent, "type": "semantic", "content": c} for c in contents]
    answer = await h.call("remember_batch", {"requests": requests})
    expect(len(answer.results) == 3, f"{len(answer.results)} results for 3 requests")
    for content, result in zip(contents, answer.results, strict=True):
        hits = await h.recall(agent, content)
        expect(any(x.id == result.id and x.content == content for x in hits), content)


@check("batch.atomic", section="batch.atomic", needs=["remember_batch", "client_ids"], spec="v0.1")
async def batch_atomic(h: Harness) -> None:
    """A batch with one failing request stores none of them, and the error names it."""
    agent = h.agent()
    taken = await h.remember(agent, "the first write of this id", id=f"{agent}-taken")
    requests = [
        {"agent_id": agent, "type": "semantic", "content": "zebra crossing at the school"},
        {"agent_id": agent, "type": "semantic", "content": "another text", "id": taken},
    ]
    error = await _expect_code(h, "remember_batch", {"requests": requests}, "conflict")
    paths = [str(d["path"]) for d in error.envelope["details"]]
    expect(paths and all(p.startswith("/requests/1") for p in paths), f"details at {paths}")
    hits = await h.recall(agent, "zebra crossing")
    expect(not any("zebra" in x.content for x in hits), "part of a failed batch was stored")


# -- query vectors and seals -------------------------------------------------------------------


@check("recall.query-vector", section="recall.query-vector", needs=["query_vector"], spec="v0.1")
async def recall_query_vector(h: Harness) -> None:
    """A query vector from another embedder is refused (unsupported), never compared."""
    agent = h.agent()
    await h.remember(agent, "Alice likes green tea")
    request = {
        "agent_id": agent,
        "query": "tea",
        "query_vector": {"embedder": "cf-no-such-embedder", "vector": [0.5, 0.5, 0.5]},
    }
    await _expect_code(h, "recall", request, "unsupported")


@check("seals.kept", section="seals.store", needs=["seals", "client_ids"], spec="v0.1")
async def seals_kept(h: Harness) -> None:
    """A remember's seal comes back unchanged with the record, in recall, get and list."""
    agent = h.agent()
    record = await h.remember(agent, "sealed note about tea", id=f"{agent}-s", seal=SEAL)
    hit = next(x for x in await h.recall(agent, "sealed note tea") if x.id == record)
    found = [hit.seal]
    if "get" in h.capabilities:
        found.append((await _records(h, agent, [record]))[record].seal)
    if "list" in h.capabilities:
        page = await h.call("list", {"agent_id": agent})
        found += [r.seal for r in page.records if r.id == record]
    for seal in found:
        expect(seal is not None and seal.model_dump() == SEAL, f"the seal came back as {seal}")
