"""The round-trip matrix (docs/portability.md#matrix): every pair of the stores that run in
the main suite, sqlite-vec, pgvector, a sqlite-vec store served over HTTP and a router over
sqlite-vec and pgvector, each as source and as target. A -> B -> A' (a fresh store of A's
kind) through ``migrate`` leaves every record line and tombstone byte-identical: ids,
timestamps, versions, states, reviews, recall times, seals and vectors; each leg's own
verification pass finds nothing changed."""

from __future__ import annotations

import contextlib
import itertools
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from mnemowire.adapters.http import HttpStore
from mnemowire.adapters.pgvector import PgVectorStore
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import MemoryServer
from mnemowire.embedders import HashEmbedder
from mnemowire.layers.memory import Memory
from mnemowire.layers.router import MemoryRouter
from mnemowire.portability import migrate
from tests.adapters._archive import every_state, export_all
from tests.server._serving import serving

KINDS = ("sqlite-vec", "pgvector", "http", "router")


class Stores:
    """Fresh stores of each kind, on storage of their own, all closed (and dropped) at the
    end."""

    def __init__(self, tmp_path: Path, pg_dsn: str, exits: contextlib.AsyncExitStack) -> None:
        self.tmp_path, self.pg_dsn, self.exits = tmp_path, pg_dsn, exits
        self.schemas: list[str] = []

    async def open(self, kind: str) -> Memory:
        embedder = HashEmbedder(32)
        name = uuid.uuid4().hex[:12]
        if kind == "pgvector":
            self.schemas.append(f"t_{name}")
            store = PgVectorStore(self.pg_dsn, embedder=embedder, schema=self.schemas[-1])
            return await self.exits.enter_async_context(Memory(store))
        served = SqliteVecStore(str(self.tmp_path / f"{name}.db"), embedder=embedder)
        if kind == "router":  # over sqlite-vec and PostgreSQL
            self.schemas.append(f"t_{name}")
            other = PgVectorStore(self.pg_dsn, embedder=embedder, schema=self.schemas[-1])
            return await self.exits.enter_async_context(Memory(MemoryRouter([served, other])))
        if kind == "sqlite-vec":
            return await self.exits.enter_async_context(Memory(served))
        url = self.exits.enter_context(serving(MemoryServer(served)))
        return await self.exits.enter_async_context(Memory(HttpStore(url)))

    def drop(self) -> None:
        with psycopg.connect(self.pg_dsn, autocommit=True) as connection:
            for schema in self.schemas:
                connection.execute(
                    sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
                )


@pytest.fixture
async def stores(tmp_path: Path, pg_dsn: str) -> AsyncIterator[Stores]:
    async with contextlib.AsyncExitStack() as exits:
        made = Stores(tmp_path, pg_dsn, exits)
        exits.callback(made.drop)
        yield made


@pytest.mark.parametrize(("first", "second"), list(itertools.permutations(KINDS, 2)))
async def test_a_round_trip_leaves_every_record_and_tombstone_byte_identical(
    stores: Stores, first: str, second: str
) -> None:
    source, middle, back = (
        await stores.open(first), await stores.open(second), await stores.open(first)
    )  # fmt: skip
    await every_state(source)
    await source.recall({"agent_id": "a", "query": "tea fact"})  # a recall time to carry
    there = await migrate(source, middle, page_size=3)
    assert there.faithful, there.as_json()
    assert not there.kept  # one embedder: vectors reused, nothing transformed
    home = await migrate(middle, back, page_size=4)
    assert home.faithful, home.as_json()
    for agent in ("a", "b"):
        assert await export_all(back, agent) == await export_all(source, agent)


@pytest.mark.parametrize(("target", "builds"), [("pgvector", True), ("sqlite-vec", False)])
async def test_progress_says_when_the_target_builds_the_indexes_it_deferred(
    stores: Stores, target: str, builds: bool
) -> None:
    source, moved_to = await stores.open("sqlite-vec"), await stores.open(target)
    await every_state(source)
    seen: list[tuple[int, int, str]] = []
    report = await migrate(source, moved_to, page_size=3, progress=lambda *a: seen.append(a))
    stages = [stage for _done, _total, stage in seen]
    moved = sum(report.outcomes.values())
    if builds:  # a fresh PostgreSQL store builds its indexes once the last page is in
        assert stages == ["records"] * (len(seen) - 1) + ["indexes"]
        assert seen[-1][0] == seen[-2][0] >= moved
        assert report.indexing_seconds is not None
    else:
        assert set(stages) == {"records"}
        assert report.indexing_seconds is None
    assert [done for done, _t, _s in seen] == sorted(done for done, _t, _s in seen)


async def test_no_index_build_is_announced_when_the_target_kept_its_indexes(
    stores: Stores,
) -> None:
    source, target = await stores.open("sqlite-vec"), await stores.open("pgvector")
    await every_state(source)
    for n in range(20):  # holds more active records than are coming: nothing is deferred
        await target.remember({"agent_id": "z", "type": "semantic", "content": f"fact {n}"})
    seen: list[tuple[int, int, str]] = []
    report = await migrate(source, target, progress=lambda *a: seen.append(a))
    assert {stage for _d, _t, stage in seen} == {"records"}
    assert report.indexing_seconds is None
