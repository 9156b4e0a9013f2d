"""How a store keeps each field (docs/spec/v0.1.md#store.fidelity): what it declares, what it
refuses, and what a router over several can promise."""

from __future__ import annotations

import pytest

from mnemowire import kit, spec
from mnemowire.adapters.sqlite_vec import CAPABILITIES as SERVED
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.errors import UnsupportedError
from mnemowire.models import FIELD_FIDELITY_FIELDS, Capabilities
from tests.runtime.conftest import RouterFactory, StoreFactory

AGENT = "agent-1"
#: what sqlite-vec serves of spec v0.1, the version these stores declare
CAPABILITIES = [c for c in SERVED if c in spec.capability_names("v0.1")]


class EncodingStore(SqliteVecStore):
    """Declares its metadata encoded, its confidence lossy and location unsupported."""

    def capabilities(self) -> Capabilities:
        fidelity = {"metadata": "encoded", "confidence": "lossy", "location": "unsupported"}
        return kit.declare(self.name, "v0.1", CAPABILITIES, fidelity)


class NoEpisodic(SqliteVecStore):
    """Holds no episodic memories, and says its metadata is lossy."""

    def capabilities(self) -> Capabilities:
        kept = [c for c in CAPABILITIES if c != "episodic"]
        return kit.declare(self.name, "v0.1", kept, {"metadata": "lossy"})


def test_a_declaration_names_only_what_is_not_native() -> None:
    declared = kit.declare("s", "v0.1", ["semantic"], {"content": "native", "source": "encoded"})
    assert declared.fidelity is not None
    assert declared.fidelity.model_dump(exclude_none=True) == {"source": "encoded"}
    assert kit.declare("s", "v0.1", ["semantic"], {"content": "native"}).fidelity is None
    with pytest.raises(ValueError, match="record fields"):
        kit.declare("s", "v0.1", ["semantic"], {"colour": "native"})
    with pytest.raises(ValueError, match="lossless"):
        kit.declare("s", "v0.1", ["semantic"], {"content": "lossless"})


def test_a_field_without_its_capability_is_unsupported_whatever_the_map_says() -> None:
    declared = kit.declare("s", "v0.1", ["semantic", "user_scope"], {"location": "encoded"})
    kept = kit.fidelity_of(declared)
    assert list(kept) == list(FIELD_FIDELITY_FIELDS)
    assert kept["user_id"] == "native"
    assert kept["location"] == "unsupported"  # no episodic
    assert kept["id"] == kept["expires_at"] == kept["seal"] == "unsupported"


def test_a_field_declared_unsupported_is_refused_only_when_it_is_sent() -> None:
    declared = kit.declare("s", "v0.1", CAPABILITIES, {"location": "unsupported"})
    episode = {"agent_id": "a", "type": "episodic", "content": "x", "event_time": 1}
    kit.refuse_unkept(declared, "remember", episode)
    with pytest.raises(UnsupportedError, match="location"):
        kit.refuse_undeclared(declared, "remember", {**episode, "location": "Paris"})


def test_a_router_promises_per_field_the_worst_of_the_children_that_take_it() -> None:
    full = kit.declare("a", "v0.1", CAPABILITIES, {"metadata": "encoded", "source": "lossy"})
    no_episodic = kit.declare(
        "b", "v0.1", [c for c in CAPABILITIES if c != "episodic"], {"metadata": "lossy"}
    )
    worst = kit.worst_fidelity([full, no_episodic])
    # b never gets an episodic record: its missing capability does not make location unsupported
    assert worst == {"metadata": "lossy", "source": "lossy"}


async def test_a_router_declares_it_and_refuses_a_field_one_copy_cannot_keep(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    plain = make_store("plain")
    encoding = make_store("encoding", cls=EncodingStore)
    router = make_router([plain, encoding])
    declared = router.capabilities()
    assert kit.fidelity_of(declared) == {
        **kit.fidelity_of(plain.capabilities()),
        "metadata": "encoded",
        "confidence": "lossy",
        "location": "unsupported",
    }
    episode = {"agent_id": AGENT, "id": "e1", "type": "episodic", "content": "trip",
               "event_time": 1, "location": "Paris"}  # fmt: skip
    with pytest.raises(UnsupportedError, match="location"):
        await router.remember(episode)
    for child in (plain, encoding):  # refused before any copy was written
        got = await child.get({"agent_id": AGENT, "ids": ["e1"]})
        assert got.records == []
    episode.pop("location")
    assert (await router.remember(episode)).id == "e1"


async def test_a_router_over_a_child_without_a_type_keeps_the_others_fidelity(
    make_store: StoreFactory, make_router: RouterFactory
) -> None:
    router = make_router([make_store("plain"), make_store("no-episodic", cls=NoEpisodic)])
    declared = router.capabilities()
    assert declared.fidelity is not None
    assert declared.fidelity.model_dump(exclude_none=True) == {"metadata": "lossy"}
