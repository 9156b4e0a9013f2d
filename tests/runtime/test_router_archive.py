"""The router's spec v0.3 operations (docs/portability.md#router): an import writes every child
under one id per record (new ids minted once for all copies), an export and a scope listing are
one child's, remap is refused, and a page a child fails is failed whole and healed by running
it again."""

from __future__ import annotations

from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.errors import StoreError, UnsupportedError
from mnemowire.kit import to_wire
from mnemowire.models import ImportRecordsRequest, ImportRecordsResponse
from tests.adapters._archive import every_state, import_request
from tests.runtime.conftest import RouterFactory, StoreFactory


class FailsOnce(SqliteVecStore):
    """A store whose first import fails after it was asked (a child lost mid-migration)."""

    failed = False

    async def import_records(self, request: ImportRecordsRequest) -> ImportRecordsResponse:
        if not FailsOnce.failed:
            FailsOnce.failed = True
            raise OSError("disk unplugged")
        return await super().import_records(request)


async def exported(store: Any, agent: str = "a") -> dict[str, Any]:
    """Every page of an agent's export, as plain JSON (``Parsing`` children answer raw)."""
    request: dict[str, Any] = {"agent_id": agent, "include_vectors": True, "limit": 3}
    out: dict[str, Any] = {"records": [], "tombstones": []}
    while True:
        page = to_wire(await store.export_records(request))
        out["records"] += page["records"]
        out["tombstones"] += page["tombstones"]
        out["embedder"] = page.get("embedder")
        if "next_cursor" not in page:
            return out
        request["cursor"] = page["next_cursor"]


async def test_an_import_reaches_every_child_and_the_export_is_one_childs(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    source, a, b = make_store("source"), make_store("a"), make_store("b")
    await every_state(source)
    archive = await exported(source)
    router = make_router([a, b])
    assert {"export_records", "import_records", "scopes"} <= set(router.capabilities().capabilities)
    answer = await router.import_records(import_request(archive))
    assert {r.outcome for r in answer.results} == {"imported"}
    assert [(s.store, s.count) for s in answer.stores] == [("a", 6), ("b", 6)]
    for child in (a, b):
        assert (await exported(child))["records"] == archive["records"]
    assert await exported(router) == archive  # one child's pages, each record once
    scopes = await router.scopes({})
    assert [(s.agent_id, s.records) for s in scopes.agents] == [("a", 6)]


async def test_new_ids_are_minted_once_for_every_copy_and_remap_is_refused(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    source, a, b = make_store("source"), make_store("a"), make_store("b")
    ids = await every_state(source)
    archive = await exported(source)
    router = make_router([a, b])
    answer = await router.import_records(import_request(archive, id_policy="new"))
    minted = {r.id: r.new_id for r in answer.results}
    assert all(new and new != old for old, new in minted.items())
    first, second = await exported(a), await exported(b)
    assert first["records"] == second["records"]
    merged = next(r for r in first["records"] if r["record"]["id"] == minted[ids["merged"]])
    assert merged["merged_into"] == minted[ids["active"]]  # follows its canonical record
    with pytest.raises(UnsupportedError, match="remap"):
        await router.import_records(import_request(archive, id_policy="remap"))


async def test_a_page_one_child_fails_is_failed_and_healed_by_running_it_again(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    FailsOnce.failed = False
    source, a, b = make_store("source"), make_store("a"), make_store("b", cls=FailsOnce)
    await every_state(source)
    archive = await exported(source)
    router = make_router([a, b])
    resumable = import_request(archive, on_conflict="skip")
    with pytest.raises(StoreError, match="disk unplugged"):
        await router.import_records(resumable)
    assert len((await exported(a))["records"]) == 6  # a took the page, b did not
    again = await router.import_records(resumable)
    assert {r.outcome for r in again.results} == {"imported"}  # b's copies are new
    assert [(s.store, s.count) for s in again.stores] == [("a", 0), ("b", 6)]
    assert (await exported(b))["records"] == archive["records"]


async def test_new_ids_take_the_versions_a_line_carries_along_in_every_child(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    source, a, b = make_store("source"), make_store("a"), make_store("b")
    kept = await source.remember({"agent_id": "a", "type": "semantic", "content": "Kim likes figs"})
    await source.update({"agent_id": "a", "id": kept.id, "expected_version": 1,
                         "content": "Kim likes dried figs"})  # fmt: skip
    page = to_wire(await source.export_records({"agent_id": "a", "include_history": True}))
    router = make_router([a, b])
    answer = await router.import_records(
        {"agents": ["a"], "records": page["records"], "id_policy": "new"}
    )
    [copy] = [r.new_id for r in answer.results]
    for child in (a, b):
        got = await child.history({"agent_id": "a", "id": copy})
        assert [(e.operation, e.imported, e.record.id) for e in got.entries] == [
            ("remember", True, copy), ("update", True, copy), ("import_records", None, copy),
        ]  # fmt: skip
