"""CI certifies the Letta store against the real server: every check at small example counts,
with nothing failing and every skip explained; and a router over sqlite-vec and Letta passes
the checks its fan-out decides (``ROUTER_CHECKS`` in tests/adapters/_certified.py: one
identity for both copies, a forget that reaches each, ...; its whole battery took ~350 s of
the session). The longer run is ``nox -s letta -- certify``, committed in
docs/conformance/letta/ and docs/conformance/router-sqlite-vec-letta/: every check on both."""

from __future__ import annotations

import pytest

from mnemowire.adapters.letta import LettaStore
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.conformance import certify, url_factory
from mnemowire.embedders import default_embedder
from mnemowire.layers.memory import Memory
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import RecallRequest
from mnemowire.protocol import MemoryStore
from tests.adapters._certified import QUICK, ROUTER_CHECKS, assert_certified, shards
from tests.adapters.letta.conftest import server_url


@pytest.mark.parametrize("only", shards("letta", 2))
async def test_the_store_is_certified_with_every_skip_explained(only: list[str]) -> None:
    report = await certify(url_factory(f"{server_url()}&ids=:memory:"), options=QUICK, only=only)
    assert_certified(report, "letta", only)


def patient_router(stores: list[MemoryStore]) -> MemoryStore:
    """A router that waits for Letta: every check opens fresh stores, so each first write
    creates a Letta agent and its first passage (0.7-1.2 s idle, more on a busy machine:
    docs/adapters/letta.md#router)."""
    return MemoryRouter(stores, deadline_s=30.0)


@pytest.mark.parametrize("only", shards("router-sqlite-vec-letta", 1, keep=ROUTER_CHECKS))
async def test_a_router_over_sqlite_vec_and_letta_is_certified(only: list[str]) -> None:
    urls = ["sqlite-vec://:memory:?name=sqlite-vec", f"{server_url()}&ids=:memory:&name=letta"]
    report = await certify(url_factory(urls, combine=patient_router), options=QUICK, only=only)
    assert_certified(report, "router-sqlite-vec-letta", only)
    fidelity = report.data["header"]["adapter"]["fidelity"]
    assert fidelity["content"] == "native"
    assert fidelity["metadata"] == "encoded"


async def test_one_identity_in_both_children_and_a_forget_reaches_each() -> None:
    """The router's id is each child's id, and a hard forget by it erases both copies."""
    sqlite = SqliteVecStore(":memory:", embedder=default_embedder(), name="sqlite-vec")
    letta = LettaStore.from_url(f"{server_url()}&ids=:memory:&name=letta")
    children: list[MemoryStore] = [sqlite, letta]
    async with Memory(patient_router(children)) as memory:
        written = await memory.remember(
            {"agent_id": "a", "type": "semantic", "content": "Alice likes tea"}
        )
        for child in children:
            hits = (await child.recall(RecallRequest(agent_id="a", query="tea"))).results
            assert [h.id for h in hits] == [written.id], child.name
        answer = await memory.recall({"agent_id": "a", "query": "tea"})
        assert [s.status for s in answer.stores or ()] == ["ok", "ok"], answer.stores
        fused = answer.results
        assert [(h.id, sorted(h.supporting)) for h in fused] == [
            (written.id, ["letta", "sqlite-vec"])
        ]
        await memory.forget({"agent_id": "a", "ids": [written.id], "hard_delete": True})
        for child in children:
            assert (await child.recall(RecallRequest(agent_id="a", query="tea"))).results == []
        assert letta._ids.get(written.id) is not None  # the id is kept, never reused
