"""CI certifies the cognee store on the real cognee: every check at small example counts, with
nothing failing and every skip explained; and a router over sqlite-vec, mem0 and Cognee passes
the checks its fan-out decides (``ROUTER_CHECKS`` in tests/adapters/_certified.py: one
identity for the three copies, a forget that reaches each, ...). The longer run is ``nox -s
cognee -- certify``, committed in docs/conformance/cognee/ and docs/conformance/router-*:
every check on both.

The router's run here is ``ROUTER_CHECKS`` alone: its whole battery took ~570 s of the
session's ~1,600 s of test time (each check writes through three stores, Cognee's the
slowest), and what the rest tests is each child's (certified on its own here and in the mem0
session) or the router's validation and fusion, certified whole on a router over two
sqlite-vec stores in the main suite."""

from __future__ import annotations

import pytest

from mnemowire.adapters.cognee import CogneeStore
from mnemowire.adapters.mem0 import Mem0Store
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.conformance import certify, url_factory
from mnemowire.embedders import load_embedder
from mnemowire.errors import UnsupportedError
from mnemowire.layers.memory import Memory
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import RecallRequest
from mnemowire.protocol import MemoryStore
from tests.adapters._certified import QUICK, ROUTER_CHECKS, assert_certified, shards

#: the three stores in one process: sqlite-vec on torch (cognee holds transformers below 5,
#: which the ONNX export needs), the same all-MiniLM-L6-v2 vectors
ROUTED = [
    "sqlite-vec://:memory:?name=sqlite-vec&embedder=minilm-torch",
    "mem0://:memory:?name=mem0",
    "cognee://:memory:?name=cognee",
]


@pytest.mark.parametrize("only", shards("cognee", 4))
async def test_the_store_is_certified_with_every_skip_explained(only: list[str]) -> None:
    report = await certify(url_factory("cognee://:memory:"), options=QUICK, only=only)
    assert_certified(report, "cognee", only)


def patient_router(stores: list[MemoryStore]) -> MemoryStore:
    """A router that waits for Cognee: every check opens fresh stores, so each first recall
    after writes runs cognee's first chunking of a new dataset, 1-5 s and more on a busy
    machine, past the router's default 5 s deadline (docs/adapters/cognee.md#router)."""
    return MemoryRouter(stores, deadline_s=60.0)


ROUTER_SHARDS = shards("router-sqlite-vec-mem0-cognee", 2, keep=ROUTER_CHECKS)


@pytest.mark.parametrize("only", ROUTER_SHARDS)
async def test_a_router_over_sqlite_vec_mem0_and_cognee_is_certified(only: list[str]) -> None:
    report = await certify(url_factory(ROUTED, combine=patient_router), options=QUICK, only=only)
    assert_certified(report, "router-sqlite-vec-mem0-cognee", only)
    fidelity = report.data["header"]["adapter"]["fidelity"]
    assert fidelity["content"] == "native"
    assert fidelity["metadata"] == "encoded"


async def test_one_identity_in_three_children_and_a_forget_reaches_each() -> None:
    """The router's id is every child's id, and a forget by it reaches each copy."""
    sqlite = SqliteVecStore(":memory:", embedder=load_embedder("minilm-torch"), name="sqlite-vec")
    mem0, cognee = Mem0Store(":memory:", name="mem0"), CogneeStore(":memory:", name="cognee")
    children: list[MemoryStore] = [sqlite, mem0, cognee]
    async with Memory(patient_router(children)) as memory:
        written = await memory.remember(
            {"agent_id": "a", "type": "semantic", "content": "Alice likes tea"}
        )
        for child in children:
            hits = (await child.recall(RecallRequest(agent_id="a", query="tea"))).results
            assert [h.id for h in hits] == [written.id], child.name
        fused = (await memory.recall({"agent_id": "a", "query": "tea"})).results
        assert [(h.id, sorted(h.supporting)) for h in fused] == [
            (written.id, ["cognee", "mem0", "sqlite-vec"])
        ]
        # cognee cannot erase (docs/adapters/cognee.md#erasure): a hard forget is refused
        # whole, before any copy changes, and a forget reaches every copy
        with pytest.raises(UnsupportedError, match="hard_delete"):
            await memory.forget({"agent_id": "a", "ids": [written.id], "hard_delete": True})
        assert [h.id for h in (await memory.recall({"agent_id": "a", "query": "tea"})).results]
        await memory.forget({"agent_id": "a", "ids": [written.id]})
        for child in children:
            assert (await child.recall(RecallRequest(agent_id="a", query="tea"))).results == []
