"""The checks of spec v0.3's archive operations (docs/spec/v0.3.md): what a store declares it
keeps comes back identical through export and import into a fresh store, a second import of
the same page changes nothing, an erased id stays taken on the target, a refused page writes
nothing, and a scope listing counts what the store holds. Each needs the operations it uses,
so a store without them skips it; what a record carries is chosen by the capabilities the
store declares (a user only with ``user_scope``, a seal only with ``seals``, ...)."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import numpy as np

from mnemowire.conformance._harness import CheckFailed, Harness, check, expect
from mnemowire.errors import MnemowireError
from mnemowire.kit import to_wire

__all__: list[str] = []

MOVES = ("export_records", "import_records")
SEAL = {"alg": "hmac-sha256", "key_id": "cf-key", "mac": "7" * 64}


async def _every_state(h: Harness, agent: str) -> dict[str, str]:
    """Records of the agent in every state the store declares it can hold; their ids."""
    ids = {
        "plain": await h.remember(agent, "Alice keeps bees on the roof",
                                  metadata={"k": [1, {"x": None}], "n": 2}, confidence=0.7),
    }  # fmt: skip
    if "user_scope" in h.capabilities:
        ids["user"] = await h.remember(agent, "Bob rides to work", user_id="cf-user")
    if "seals" in h.capabilities:
        ids["sealed"] = await h.remember(agent, "a sealed fact about tea", seal=SEAL)
    if "episodic" in h.capabilities:
        request = {"agent_id": agent, "type": "episodic", "content": "the Lisbon trip",
                   "event_time": 1_700_000_000_000, "location": "Lisbon"}  # fmt: skip
        ids["episode"] = str((await h.call("remember", request)).id)
    if "archive" in h.capabilities and "expire" in h.capabilities:
        ids["archived"] = await h.remember(agent, "an old fact about kites", confidence=0.05)
        policy = {"confidence_below": 0.1}
        await h.call("expire", {"agent_id": agent, "policy": policy, "action": "archive"})
    if "forget" in h.capabilities:
        ids["forgotten"] = await h.remember(agent, "a fact to forget about maps")
        await h.call("forget", {"agent_id": agent, "ids": [ids["forgotten"]]})
    if "hard_delete" in h.capabilities:
        ids["erased"] = await h.remember(agent, "a fact to erase about owls")
        await h.call("forget", {"agent_id": agent, "ids": [ids["erased"]], "hard_delete": True})
    if "governance" in h.capabilities:
        ids["pending"] = await h.remember(agent, "a staged fact about ferns",
                                          approval_required=True)  # fmt: skip
    await h.recall(agent, "bees")  # a recall time, where the store tracks them
    return ids


async def _export(h: Harness, store: Any, agent: str, **request: Any) -> dict[str, Any]:
    """Every page of the agent's export (limit 2, so it pages), as wire JSON."""
    body: dict[str, Any] = {"agent_id": agent, "limit": 2, **request}
    out: dict[str, Any] = {"records": [], "tombstones": [], "embedder": None}
    for _ in range(1000):
        page = to_wire(await store.export_records(body))
        out["records"] += page["records"]
        out["tombstones"] += page["tombstones"]
        out["embedder"] = page.get("embedder", out["embedder"])
        if "next_cursor" not in page:
            ordered = [line["record"]["id"] for line in out["records"]]
            expect(ordered == sorted(ordered), f"export pages are not in id order: {ordered}")
            return out
        body = {**body, "cursor": page["next_cursor"]}
    raise AssertionError("the export did not end after 1000 pages")


@contextlib.asynccontextmanager
async def _fresh(h: Harness) -> AsyncIterator[Any]:
    """Another store from the certification's factory (requests as spec JSON)."""
    async with h.factory() as store:
        yield store


def _request(agent: str, exported: dict[str, Any], **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "agents": [agent],
        "records": exported["records"],
        "tombstones": exported["tombstones"],
        **extra,
    }
    if exported["embedder"] is not None:
        body["embedder"] = exported["embedder"]
    return body


@check("archive.round-trip", section="import.fidelity", needs=MOVES, spec="v0.3")
async def round_trip(h: Harness) -> None:
    """Exported with vectors and imported into a fresh store, every record comes back as the
    export had it (ids, fields, times, versions, states, reviews, recall times, vectors) and
    every erased id as a tombstone, unless the import says in ``kept`` what it changed. (Where
    the certification's stores share their storage, the copy is imported with new ids and
    compared under them.)"""
    agent = h.agent()
    await _every_state(h, agent)
    exported = await _export(h, h.store, agent, include_vectors=True)
    async with _fresh(h) as fresh:
        shared = bool((await _export(h, fresh, agent))["records"])
        policy = "new" if shared else "keep"
        answer = await fresh.import_records(_request(agent, exported, id_policy=policy))
        outcomes = {r.outcome for r in answer.results}
        expect(outcomes == {"imported"}, f"a fresh target answered {sorted(outcomes)}")
        moved = {r.id: r.new_id or r.id for r in answer.results}
        back = {
            line["record"]["id"]: line
            for line in (await _export(h, fresh, agent, include_vectors=True))["records"]
        }
        kept = set((answer.kept or {}).keys())
        for sent in exported["records"]:
            got = back.get(moved[sent["record"]["id"]])
            if got is None:
                raise CheckFailed(f"record {sent['record']['id']} did not come back")
            _same(_under(sent, moved), got, kept)
        if not shared:
            expect(len(back) == len(exported["records"]), "the target exports other records")
            tombstones = (await _export(h, fresh, agent))["tombstones"]
            expect(tombstones == exported["tombstones"], "the tombstones did not come back")


def _under(line: dict[str, Any], moved: dict[str, str]) -> dict[str, Any]:
    """An archive line as it reads under the ids the import gave (``moved``: old -> new)."""
    out = {**line, "record": {**line["record"], "id": moved[line["record"]["id"]]}}
    if "merged_into" in line:
        out["merged_into"] = moved.get(line["merged_into"], line["merged_into"])
    if "review" in line:
        out["review"] = {**line["review"], "review_id": out["record"]["id"]}
    return out


def _same(sent: dict[str, Any], got: dict[str, Any], kept: set[str]) -> None:
    """``got`` is ``sent`` but for what the import's ``kept`` names."""
    record_id = sent["record"]["id"]
    fields = {*sent["record"], *got["record"]} - kept
    changed = sorted(k for k in fields if sent["record"].get(k) != got["record"].get(k))
    expect(not changed, f"record {record_id} came back with other {', '.join(changed)}, and "
           "the import's kept does not say so")  # fmt: skip
    extra = sorted(k for k in ({*sent, *got} - {"record"} - kept) if sent.get(k) != got.get(k))
    expect(not extra, f"record {record_id} came back with other {', '.join(extra)}")


#: the parts of a record line beside the record whose keeping differs between stores, as the
#: fidelity tables name them (docs/portability.md#fidelity)
PARTS = ("vector", "last_recalled_at", "demote")
#: a vector no store here makes (the probe a store without vectors of its own is sent)
PROBE_DIMENSION = 8
PROBE = {"name": "conformance-probe", "dimension": PROBE_DIMENSION}


@check("archive.fidelity", section="import.fidelity", needs=MOVES, spec="v0.3")
async def fidelity(h: Harness) -> None:
    """A line carrying every part an archive can (a recall time, a demotion factor, a vector:
    of the store's own embedder when its export names one, else of another), imported into a
    fresh store, comes back exactly in every part the import's ``kept`` does not name. What
    the store's export then carries and how it kept each part go into the report, for the
    fidelity tables of docs/portability.md#fidelity."""
    agent = h.agent()
    await h.remember(agent, "Alice waters the ferns on Sundays", metadata={"day": "Sunday"})
    own = await _export(h, h.store, agent, include_vectors=True)
    [line] = own["records"]
    probe = [0.125 * (i + 1) for i in range(PROBE_DIMENSION)]
    full = {**line, "last_recalled_at": line["record"]["created_at"] + 1, "demote": 0.5,
            "recall_count": 3, "vector": line.get("vector", probe)}  # fmt: skip
    body = {"agents": [agent], "records": [full], "embedder": own["embedder"] or PROBE}
    async with _fresh(h) as fresh:
        shared = bool((await _export(h, fresh, agent))["records"])
        answer = await fresh.import_records({**body, "id_policy": "new" if shared else "keep"})
        [result] = answer.results
        expect(result.outcome == "imported", f"a fresh target answered {result.outcome}")
        moved = {result.id: result.new_id or result.id}
        back = {
            got["record"]["id"]: got
            for got in (await _export(h, fresh, agent, include_vectors=True))["records"]
        }
        got = back.get(moved[result.id])
        if got is None:
            raise CheckFailed("the imported record did not come back")
        kept = to_wire(answer).get("kept", {})
        _same(_under(full, moved), got, set(kept))
        keeps = {part: kept.get(part, {"as": "exact"}) for part in PARTS}
        h.found.update(exports=[part for part in PARTS if part in got], keeps=keeps)


@check("archive.vector-forms", section="archive.vector", needs=MOVES, spec="v0.3")
async def vector_forms(h: Harness) -> None:
    """An export with ``vector_encoding`` base64 is the float export but for its vectors,
    each the base64 of the same float32 values; imported into a fresh store, the base64
    form comes back as the float one (unless the import's ``kept`` names the vector)."""
    agent = h.agent()
    await _every_state(h, agent)
    floats = await _export(h, h.store, agent, include_vectors=True)
    encoded = await _export(h, h.store, agent, include_vectors=True, vector_encoding="base64")
    expect(len(floats["records"]) == len(encoded["records"]), "the two exports differ in length")
    for plain, packed in zip(floats["records"], encoded["records"], strict=True):
        record_id = plain["record"]["id"]
        rest = {k: v for k, v in packed.items() if k != "vector_base64"}
        expect(rest == {k: v for k, v in plain.items() if k != "vector"},
               f"record {record_id}: the base64 export differs beyond its vector")  # fmt: skip
        expect("vector" not in packed, f"record {record_id}: the base64 export has vector")
        if "vector" in plain:
            raw = base64.b64decode(packed.get("vector_base64", ""))
            same = np.array_equal(np.frombuffer(raw, "<f4"), np.asarray(plain["vector"], "<f4"))
            expect(same, f"record {record_id}: vector_base64 is not its vector's float32 bytes")
    async with _fresh(h) as fresh:
        shared = bool((await _export(h, fresh, agent))["records"])
        answer = await fresh.import_records(
            _request(agent, encoded, id_policy="new" if shared else "keep")
        )
        moved = {r.id: r.new_id or r.id for r in answer.results}
        back = {
            line["record"]["id"]: line
            for line in (await _export(h, fresh, agent, include_vectors=True))["records"]
        }
        if "vector" in (answer.kept or {}):
            return
        for plain in floats["records"]:
            got = back.get(moved[plain["record"]["id"]], {})
            record_id = plain["record"]["id"]
            expect(got.get("vector") == plain.get("vector"),
                   f"record {record_id}: its base64 vector came back changed")  # fmt: skip


@check("archive.rerun", section="import.conflict", needs=MOVES, spec="v0.3")
async def rerun(h: Harness) -> None:
    """The same page imported again with on_conflict skip skips every record and changes
    nothing the export shows; with fail it is refused whole as a conflict."""
    agent = h.agent()
    await _every_state(h, agent)
    exported = await _export(h, h.store, agent, include_vectors=True)
    again = await h.call("import_records", _request(agent, exported, on_conflict="skip"))
    expect({r.outcome for r in again.results} <= {"skipped"}, "a rerun wrote records again")
    after = await _export(h, h.store, agent, include_vectors=True)
    expect(after == exported, "a rerun that skips everything changed the export")
    error = await h.rejected("import_records", _request(agent, exported, on_conflict="fail"))
    expect(error.code == "conflict", f"on_conflict fail answered {error.code}, not conflict")


@check("archive.erased", section="import.erased", needs=(*MOVES, "hard_delete"), spec="v0.3")
async def erased(h: Harness) -> None:
    """A tombstone imported keeps its id taken: a record with that id is never written,
    by import or remember."""
    agent = h.agent()
    gone = await h.remember(agent, "a note to erase about moths")
    exported = await _export(h, h.store, agent)
    await h.call("forget", {"agent_id": agent, "ids": [gone], "hard_delete": True})
    tombstone = {"kind": "tombstone", "id": gone, "agent_id": agent}
    async with _fresh(h) as fresh:
        await fresh.import_records({"agents": [agent], "tombstones": [tombstone]})
        answer = await fresh.import_records(_request(agent, exported, on_conflict="skip"))
        expect([r.outcome for r in answer.results] == ["erased"], "an erased id was written")
        try:
            await fresh.remember({"agent_id": agent, "id": gone, "type": "semantic",
                                  "content": "reused"})  # fmt: skip
        except MnemowireError as exc:
            expect(exc.code == "conflict", f"refused as {exc.code}: {exc}")
        else:
            raise AssertionError("an erased id was reused by remember")


@check("archive.atomic", section="import.ids", needs=MOVES, spec="v0.3")
async def atomic(h: Harness) -> None:
    """A page that breaks a rule (an id twice) is refused naming the rule, and writes none of
    its records."""
    agent = h.agent()
    await h.remember(agent, "a record to copy about wrens")
    exported = await _export(h, h.store, agent)
    async with _fresh(h) as fresh:
        before = await _export(h, fresh, agent)
        twice = {**exported, "records": exported["records"] * 2}
        try:
            await fresh.import_records(_request(agent, twice))
        except MnemowireError as exc:
            details = exc.envelope.get("details") or [{}]
            expect(details[0].get("rule") == "uniqueIds", f"refused as {exc.code}: {exc}")
        else:
            raise AssertionError("a page with an id twice was accepted")
        expect(await _export(h, fresh, agent) == before, "a refused page wrote records")


@check("scopes.counts", section="scopes.list", needs=("scopes",), spec="v0.3")
async def scope_counts(h: Harness) -> None:
    """scopes lists the agent with its records counted by type and kept state, its users,
    and only the agents asked for."""
    agent, other = h.agent("a"), h.agent("b")
    await h.remember(agent, "one fact about larks")
    await h.remember(agent, "two facts about larks")
    await h.remember(other, "another agent's fact")
    page = await h.call("scopes", {"agent_ids": [agent]})
    expect([s.agent_id for s in page.agents] == [agent], "scopes listed other agents")
    [scope] = page.agents
    expect(scope.records == 2, f"{scope.records} records counted, not 2")
    expect(scope.by_type == {"semantic": 2}, f"by_type is {scope.by_type}")
    expect(scope.by_state == {"active": 2}, f"by_state is {scope.by_state}")
