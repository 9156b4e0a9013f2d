"""The Memory facade: the validated boundary in front of any store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mnemowire import registry, spec
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConfigError, MnemowireError, RequestError, StoreError
from mnemowire.kit import declare
from mnemowire.layers.memory import Memory, SyncMemory
from mnemowire.models import Capabilities, Health, RecallResponse, RememberResponse
from mnemowire.protocol import QueryEmbedding


def url(tmp_path: Path) -> str:
    return f"sqlite-vec://{tmp_path / 'facade.db'}?embedder=hash:32"


async def test_round_trip_through_the_facade(tmp_path: Path) -> None:
    async with Memory.open(url(tmp_path)) as memory:
        stored = await memory.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
        found = await memory.recall({"agent_id": "a", "query": "tea"})
        assert isinstance(stored, RememberResponse)
        assert isinstance(found, RecallResponse)
        assert [h.id for h in found.results] == [stored.id]
        assert (await memory.call("forget", {"agent_id": "a", "ids": [stored.id]})).model_dump()[
            "forgotten_ids"
        ] == [stored.id]
        assert isinstance(await memory.health(), Health)
        assert isinstance(memory.capabilities(), Capabilities)


async def test_recall_with_an_embedding_the_caller_already_has(tmp_path: Path) -> None:
    embedder = HashEmbedder(32)
    async with Memory.open(url(tmp_path), embedder=embedder) as memory:
        tea = await memory.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
        cake = await memory.remember({"agent_id": "a", "type": "semantic", "content": "cake"})
        # the text matches nothing; the vector given is cake's, so cake comes first
        vector = QueryEmbedding(embedder.name, embedder.embed(["cake"])[0])
        found = await memory.recall({"agent_id": "a", "query": "zzz"}, query_vector=vector)
        assert [h.id for h in found.results] == [cake.id, tea.id]
        with pytest.raises(RequestError):  # the request is still validated
            await memory.recall({"agent_id": "a", "query": ""}, query_vector=vector)


async def test_invalid_requests_never_reach_the_store(tmp_path: Path) -> None:
    class Recording:
        """A store that fails the test if any request reaches it (the boundary may ask which
        spec version it speaks, nothing else)."""

        name = "recording"

        def capabilities(self) -> Capabilities:
            return declare(self.name, spec.LATEST, [])

        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"the store was called: {name}")

    memory = Memory(Recording())
    cases: list[tuple[str, dict[str, Any]]] = [
        ("remember", {"agent_id": "a", "type": "semantic", "content": "x", "typo": 1}),
        ("recall", {"agent_id": "a", "query": "q", "k": 0}),
        ("forget", {"agent_id": "a"}),
        ("merge", {"agent_id": "a", "canonical": "x", "duplicates": []}),
        ("expire", {"agent_id": "a", "policy": {}}),
    ]
    for operation, request in cases:
        with pytest.raises(RequestError) as caught:
            await memory.call(operation, request)
        assert caught.value.code == "invalid_request"
        assert caught.value.details


async def test_a_store_bug_surfaces_as_a_spec_error() -> None:
    class Broken:
        name = "broken"

        def capabilities(self) -> Capabilities:
            return declare(self.name, spec.LATEST, [])

        async def recall(self, request: Any, **kwargs: Any) -> Any:
            raise ZeroDivisionError("oops")

        async def remember(self, request: Any) -> Any:
            return RememberResponse.model_construct(
                id="has space", stored_at=-1, stores=[], pending_approval=False
            )

    memory = Memory(Broken())  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="ZeroDivisionError"):
        await memory.recall({"agent_id": "a", "query": "q"})
    with pytest.raises(StoreError, match=r"invalid remember\.response") as caught:
        await memory.remember({"agent_id": "a", "type": "semantic", "content": "x"})
    assert {d["path"] for d in caught.value.details} == {"/id", "/stored_at"}


def test_sync_memory_for_scripts(tmp_path: Path) -> None:
    with SyncMemory.open(url(tmp_path)) as memory:
        stored = memory.remember({"agent_id": "a", "type": "semantic", "content": "cake"})
        assert [h.id for h in memory.recall({"agent_id": "a", "query": "cake"}).results] == [
            stored.id
        ]
        assert (
            memory.expire(
                {"agent_id": "a", "policy": {"type": "semantic"}, "action": "archive"}
            ).matched_count
            == 1
        )
        assert memory.health().status == "ok"
        bulk = [{"agent_id": "b", "type": "semantic", "content": f"tea {i}"} for i in range(3)]
        assert len(memory.remember_many(bulk, batch_size=2)) == 3
        assert len(memory.recall({"agent_id": "b", "query": "tea", "k": 10}).results) == 3


async def test_sync_memory_in_a_running_event_loop_says_to_await_memory(tmp_path: Path) -> None:
    """Inside a running loop (Jupyter, an async app) SyncMemory cannot block on its own loop:
    it says what to use instead before it opens anything, so nothing is left open."""
    with pytest.raises(MnemowireError, match=r"async Memory.*await") as caught:
        SyncMemory.open(url(tmp_path))
    assert isinstance(caught.value, RuntimeError)  # what asyncio raised here before
    assert not (tmp_path / "facade.db").exists()  # no store was opened
    async with Memory.open(url(tmp_path)) as memory:
        with pytest.raises(MnemowireError, match=r"async Memory.*await"):
            SyncMemory(memory)
        # the Memory handed in is untouched and still the caller's to use
        stored = await memory.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
        assert stored.pending_approval is False


def test_registry_knows_our_scheme_and_explains_unknown_ones() -> None:
    assert "sqlite-vec" in registry.schemes()
    with pytest.raises(ConfigError, match="sqlite-vec"):
        registry.open_store("nosuch://x")
    with pytest.raises(ConfigError, match="scheme://location"):
        registry.open_store("just-a-path.db")


async def test_third_party_stores_plug_in_by_registration(tmp_path: Path) -> None:
    from mnemowire.adapters.sqlite_vec import SqliteVecStore

    def factory(location: str, **options: Any) -> SqliteVecStore:
        return SqliteVecStore(str(tmp_path / "custom.db"), embedder=HashEmbedder(16), name=location)

    registry.register("custom", factory)
    async with Memory.open("custom://anything") as memory:
        stored = await memory.remember({"agent_id": "a", "type": "semantic", "content": "x"})
        assert stored.stores[0].store == "custom://anything"


def test_default_store_url_honours_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MNEMOWIRE_STORE", "sqlite-vec://:memory:")
    assert registry.default_store_url() == "sqlite-vec://:memory:"
    monkeypatch.delenv("MNEMOWIRE_STORE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert registry.default_store_url() == f"sqlite-vec://{tmp_path}/mnemowire/memory.db"
