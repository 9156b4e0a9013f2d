"""A pytest plugin that runs LangGraph's own store tests, unchanged, against MnemowireStore.

langgraph-checkpoint-sqlite's test modules (from its sdist on PyPI, as `nox -s langgraph`
fetches them) open every store through ``SqliteStore.from_conn_string`` and
``AsyncSqliteStore.from_conn_string``. This plugin, loaded before they are imported, puts
mnemowire's store in those two names: each connection string becomes a sqlite-vec file of
its own (``:memory:`` a fresh one per store, a file path the same one each time it is opened),
the index's ``text_fields`` the store's ``fields``, and its ``embed`` the store's embedder.
Nothing else in the tests changes; the tests of SQLite's own internals are deselected by name
in the nox session, each with its reason."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, cast

import langgraph.store.sqlite as sqlite_stores  # type: ignore[import-not-found,unused-ignore]
from langgraph.store.base import IndexConfig

from mnemowire.compat.langgraph import MnemowireStore

#: the deterministic embedder for an index without an ``embed`` of its own (logic, not quality)
URL = "sqlite-vec://{path}"
NO_MODEL = "?embedder=hash:64"


def _index(index: Any) -> IndexConfig | None:
    """A SQLite index config as LangGraph's: ``text_fields`` are the ``fields``."""
    if index is None:
        return None
    given = dict(index)
    fields = given.pop("text_fields", None) or given.pop("fields", None)
    given.pop("distance_type", None)
    if fields:
        given["fields"] = fields
    return cast(IndexConfig, given)


@contextmanager
def _file_for(conn_string: str, index: Any) -> Iterator[tuple[str, IndexConfig | None]]:
    """The store URL and index config a connection string and SQLite index stand for; a
    ``:memory:`` store's folder is removed after it."""
    config = _index(index)
    own = config is not None and "embed" in config
    folder = None
    if conn_string == ":memory:":
        folder = Path(tempfile.mkdtemp(prefix="mnemowire-langgraph-"))
        path = folder / "store.db"
    else:
        path = Path(f"{conn_string}.mnemowire.db")
    try:
        yield URL.format(path=path) + ("" if own else NO_MODEL), config
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


class SqliteStore(MnemowireStore):
    """MnemowireStore as ``SqliteStore``'s constructor path opens it."""

    @classmethod
    @contextmanager
    def from_conn_string(
        cls, conn_string: str, *, index: Any = None, ttl: Any = None, **_: Any
    ) -> Iterator[SqliteStore]:
        with _file_for(conn_string, index) as (url, config):
            store = cls(url, index=config, ttl=ttl)
            try:
                yield store
            finally:
                store.close()

    def setup(self) -> None:
        """Nothing to migrate: the store made its tables when it opened."""


class AsyncSqliteStore(MnemowireStore):
    """MnemowireStore as ``AsyncSqliteStore``'s constructor path opens it."""

    @classmethod
    @asynccontextmanager
    async def from_conn_string(
        cls, conn_string: str, *, index: Any = None, ttl: Any = None, **_: Any
    ) -> AsyncIterator[AsyncSqliteStore]:
        with _file_for(conn_string, index) as (url, config):
            store = cls(url, index=config, ttl=ttl)
            try:
                yield store
            finally:
                await store.__aexit__()

    async def setup(self) -> None:
        """Nothing to migrate: the store made its tables when it opened."""

    async def sweep_ttl(self) -> int:  # type: ignore[override]
        """``AsyncSqliteStore``'s name for the async sweep."""
        return await self.asweep_ttl()

    async def start_ttl_sweeper(  # type: ignore[override]
        self, sweep_interval_minutes: float | None = None
    ) -> asyncio.Future[None]:
        return asyncio.wrap_future(MnemowireStore.start_ttl_sweeper(self, sweep_interval_minutes))

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:  # type: ignore[override]
        return await asyncio.to_thread(MnemowireStore.stop_ttl_sweeper, self, timeout)


sqlite_stores.SqliteStore = SqliteStore
sqlite_stores.AsyncSqliteStore = AsyncSqliteStore
