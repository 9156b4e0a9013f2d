"""Spec v0.3's archive operations on a store over a memory library (kit.documents: mem0, Cognee,
Letta), tested once and run in each one's session (tests/adapters/<adapter>/test_archive_ops.py
imports these tests, with that adapter's ``document_store`` fixture: a factory of fresh
stores). What an embedded store exported comes back from the library as it went in, but for
what the import's ``kept`` says it does not keep (vectors it makes itself, recall times,
demotion); reruns, conflicts, erased ids and scopes hold as on the table stores
(tests/adapters/_archive.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConflictError, RequestError, StoreError, UnsupportedError
from mnemowire.kit.documents import IdMap
from mnemowire.layers.memory import Memory
from mnemowire.protocol import MemoryStore
from tests.adapters._archive import every_state, export_all, import_request

#: the adapter's ``document_store`` fixture: a fresh store of that adapter, closed by the caller
DocumentStore = Callable[[], MemoryStore]
#: the adapter's ``library_rows`` fixture: how many rows the library itself holds for an agent
#: (read on the store's worker), named by the id map or not: what a failed page must not leave
LibraryRows = Callable[[Any, str], Awaitable[int]]

#: what an export line carries that mem0 does not keep (the import's ``kept`` names each)
NOT_KEPT = ("vector", "last_recalled_at", "recall_count", "demote", "history", "history_dropped")


def _without(exported: dict[str, Any], names: tuple[str, ...] = NOT_KEPT) -> list[Any]:
    return [{k: v for k, v in line.items() if k not in names} for line in exported["records"]]


async def test_an_embedded_stores_export_comes_back_but_for_what_kept_names(
    document_store: DocumentStore,
) -> None:
    source = Memory(SqliteVecStore(":memory:", embedder=HashEmbedder(32)))
    target = Memory(document_store())
    async with source, target:
        ids = await every_state(source)
        await source.expire({"agent_id": "a", "policy": {"confidence_below": 0.5},
                             "action": "demote", "demote_factor": 0.5})  # fmt: skip
        await source.recall({"agent_id": "a", "query": "tea fact"})
        exported = await export_all(source, include_history=True)
        answer = await target.import_records(import_request(exported))
        assert {r.outcome for r in answer.results} == {"imported"}
        assert answer.kept is not None
        assert {name: how.as_ for name, how in answer.kept.items()} == {
            "vector": "transformed", "last_recalled_at": "dropped", "recall_count": "dropped",
            "demote": "dropped", "history": "dropped",
        }  # fmt: skip
        # none to carry on: refused by a store of spec v0.4 as unsupported, of v0.3 as a field
        # its spec does not have
        with pytest.raises((UnsupportedError, RequestError), match="history"):
            await export_all(target, include_history=True)
        back = await export_all(target)
        assert _without(back) == _without(exported)
        assert back["tombstones"] == exported["tombstones"]
        assert back["embedder"] is None  # the library hands out no vectors of its own
        [review] = (await target.reviews({"agent_id": "a"})).reviews
        assert review.review_id == ids["pending"]
        with pytest.raises(ConflictError, match="never reused"):
            await target.remember(
                {"agent_id": "a", "id": ids["erased"], "type": "semantic", "content": "x"}
            )
        hits = {h.id for h in (await target.recall({"agent_id": "a", "query": "tea"})).results}
        assert ids["active"] in hits
        assert not hits & {ids["archived"], ids["forgotten"], ids["merged"], ids["pending"]}
        # and back into an embedded store: what the library kept is what arrives
        again = Memory(SqliteVecStore(":memory:", embedder=HashEmbedder(32)))
        async with again:
            await again.import_records(import_request(back))
            assert _without(await export_all(again)) == _without(exported)


async def test_a_rerun_skips_and_audits_nothing_conflicts_and_overwrites_hold(
    document_store: DocumentStore,
) -> None:
    source = Memory(SqliteVecStore(":memory:", embedder=HashEmbedder(32)))
    target = Memory(document_store())
    async with source, target:
        ids = await every_state(source)
        exported = await export_all(source)
        request = import_request(exported, on_conflict="skip")
        await target.import_records(request)
        log = await target.store.audit_entries()  # type: ignore[attr-defined]
        again = await target.import_records(request)
        assert {r.outcome for r in again.results} == {"skipped"}
        assert (again.tombstones.added, again.tombstones.known) == (0, 1)
        assert await target.store.audit_entries() == log  # type: ignore[attr-defined]
        assert [e["operation"] for e in log][-1] == "import_records"
        with pytest.raises(ConflictError, match="on_conflict is fail"):
            await target.import_records(import_request(exported, on_conflict="fail"))
        edited = [dict(r, record={**r["record"], "content": "edited"}) for r in exported["records"]]
        over = await target.import_records(
            import_request({**exported, "records": edited}, on_conflict="overwrite")
        )
        assert {r.outcome for r in over.results} == {"overwritten"}
        got = await target.get({"agent_id": "a", "ids": [ids["active"]]})
        assert got.records[0].content == "edited"
        # one row per record: the overwritten rows are gone from the library
        scope = (await target.scopes({"agent_ids": ["a"]})).agents[0]
        assert scope.records == len(exported["records"])
        assert scope.erased == 1
        assert scope.by_state == {"active": 2, "archived": 1, "forgotten": 1, "merged": 1,
                                  "pending": 1}  # fmt: skip
        copied = await target.import_records(import_request(exported, id_policy="new"))
        assert all(r.new_id and r.new_id != r.id for r in copied.results)


async def test_a_page_that_fails_after_its_rows_leaves_nothing_and_a_rerun_writes_it_whole(
    document_store: DocumentStore, library_rows: LibraryRows, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library's rows are written first (one bulk write where the backend has one), the
    id map's entries after: a page failing between the two erases its rows, shows nothing,
    audits nothing, and the same page again is written whole."""
    source = Memory(SqliteVecStore(":memory:", embedder=HashEmbedder(32)))
    target = Memory(document_store())
    async with source, target:
        await every_state(source)
        exported = await export_all(source)
        log = await target.store.audit_entries()  # type: ignore[attr-defined]

        def full(*_: Any) -> None:
            raise OSError("disk full")

        with monkeypatch.context() as patched:
            patched.setattr(IdMap, "append_entry", full)
            with pytest.raises(StoreError, match="disk full"):
                await target.import_records(import_request(exported))
        assert await target.store.audit_entries() == log  # type: ignore[attr-defined]
        assert (await export_all(target))["records"] == []
        assert (await target.scopes({"agent_ids": ["a"]})).agents == []
        assert await library_rows(target.store, "a") == 0
        again = await target.import_records(import_request(exported))
        assert {r.outcome for r in again.results} == {"imported"}
        assert _without(await export_all(target)) == _without(exported)
        assert await library_rows(target.store, "a") == len(exported["records"])
