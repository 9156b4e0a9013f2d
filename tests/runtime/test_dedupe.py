"""Dedupe on write (spec v0.4's remember.dedupe, kit.dedupe) on real sqlite-vec stores with
the real embedder: a paraphrase is answered by the record it repeats, a near miss is not; the
operator's default; two writers at once; a router keeps its copies one record. The behaviour
every store shares is in tests/adapters/_semantics_lifecycle.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import Embedder, HashEmbedder, default_embedder
from mnemowire.errors import ConfigError
from mnemowire.layers.memory import Memory
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import GetRequest


@pytest.fixture(scope="module")
def model() -> Embedder:
    return default_embedder()


def _said(content: str, **fields: Any) -> dict[str, Any]:
    return {"agent_id": "a", "type": "semantic", "content": content, **fields}


async def test_a_paraphrase_is_answered_and_a_near_miss_is_written(model: Embedder) -> None:
    async with Memory(SqliteVecStore(":memory:", embedder=model)) as memory:
        first = (await memory.remember(_said("Alice is allergic to penicillin."))).id
        for repeat in ("alice is allergic to penicillin", "Allergic to penicillin: Alice."):
            answer = await memory.remember(_said(repeat, dedupe="existing"))
            assert (answer.id, answer.duplicate_of) == (first, first), repeat
        for other in (
            "Alice is allergic to amoxicillin.",
            "Alice is not allergic to penicillin.",
            "Bob is allergic to penicillin.",
        ):
            answer = await memory.remember(_said(other, dedupe="existing"))
            assert answer.duplicate_of is None, other
        listed = await memory.list({"agent_id": "a"})
        assert len(listed.records) == 4


async def test_the_operators_default_applies_to_remembers_that_do_not_say(
    tmp_path: Path,
) -> None:
    url = f"sqlite-vec://{tmp_path / 'd.db'}?embedder=hash:32&dedupe=existing"
    async with Memory.open(url) as memory:
        first = (await memory.remember(_said("Ola bikes to work."))).id
        again = await memory.remember(_said("ola bikes to work"))
        assert again.duplicate_of == first
        staged = await memory.remember(_said("OLA BIKES TO WORK!", dedupe="review"))
        assert (staged.duplicate_of, staged.pending_approval) == (first, True)
    with pytest.raises(ConfigError, match="existing, review"):
        Memory.open(f"sqlite-vec://{tmp_path / 'e.db'}?embedder=hash:32&dedupe=merge")


async def test_two_writers_at_once_store_one_record(tmp_path: Path) -> None:
    """Writers of their own on one file (as processes would be): each weighs and writes in one
    write transaction, so the second sees the first."""
    path = str(tmp_path / "race.db")
    stores = [SqliteVecStore(path, embedder=HashEmbedder(32)) for _ in range(4)]
    memories = [Memory(store) for store in stores]
    try:
        for memory in memories:
            await memory.remember(_said("warm-up"))
        body = _said("Pia swims on Tuesdays.", dedupe="existing")
        answers = await asyncio.gather(*(m.remember(dict(body)) for m in memories * 3))
        assert len({a.id for a in answers}) == 1
        assert sum(a.duplicate_of is None for a in answers) == 1
    finally:
        for memory in memories:
            await memory.aclose()


async def test_a_router_weighs_once_and_keeps_its_copies_one_record(model: Embedder) -> None:
    children = [SqliteVecStore(":memory:", embedder=model, name=n) for n in "xy"]
    async with Memory(MemoryRouter(children)) as memory:
        first = (await memory.remember(_said("Quinn plays the cello."))).id
        again = await memory.remember(_said("quinn plays the cello", dedupe="existing"))
        assert (again.id, again.duplicate_of) == (first, first)
        staged = await memory.remember(_said("Quinn plays the cello!", dedupe="review"))
        assert (staged.duplicate_of, staged.pending_approval) == (first, True)
        other = await memory.remember(_said("Quinn plays the viola.", dedupe="existing"))
        assert other.duplicate_of is None
        assert [s.count for s in other.stores] == [1, 1]
        ids = [first, staged.id, other.id]
        for child in children:
            got = await child.get(GetRequest(agent_id="a", ids=ids, states=["active", "pending"]))
            assert [(r.id, str(r.state)) for r in got.records] == [
                (first, "active"),
                (staged.id, "pending"),
                (other.id, "active"),
            ]


async def test_a_working_note_does_not_answer_a_lasting_fact() -> None:
    """A record that expires sooner than a remember would (a working note) never answers it:
    the fact would vanish with the note."""
    async with Memory(SqliteVecStore(":memory:", embedder=HashEmbedder(32))) as memory:
        soon = 4_102_444_800_000  # 2100-01-01
        note = (await memory.remember(_said("Build 118 fails on ARM.", expires_at=soon))).id
        lasting = await memory.remember(_said("build 118 fails on arm", dedupe="existing"))
        assert lasting.duplicate_of is None
        later = await memory.remember(
            _said("BUILD 118 FAILS ON ARM", expires_at=soon - 1, dedupe="existing")
        )
        assert later.duplicate_of in {note, lasting.id}


async def test_a_router_refuses_a_copy_a_store_deduped_on_its_own() -> None:
    plain = SqliteVecStore(":memory:", embedder=HashEmbedder(64), name="plain")
    deduping = SqliteVecStore(":memory:", embedder=HashEmbedder(64), name="own", dedupe="existing")
    async with Memory(MemoryRouter([plain, deduping])) as memory:
        await memory.remember(_said("Rosa keeps bees."))
        again = await memory.remember(_said("Rosa keeps bees."))  # no dedupe asked
        statuses = {s.store: (s.status, s.error or "") for s in again.stores}
        assert statuses["plain"][0] == "ok"
        assert statuses["own"][0] != "ok"
        assert "dedupes on its own" in statuses["own"][1]
