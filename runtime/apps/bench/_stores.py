"""Opening the stores a benchmark measures, from the URLs given on the command line.

A benchmark writes to the stores it measures, so each phase needs fresh ones: ``{tmp}`` in a
URL is replaced by a new temporary folder per opened store (the default,
``sqlite-vec://{tmp}/bench.db``, is a sqlite-vec file on disk, as users run it). A URL without
``{tmp}`` is opened as given: every phase then writes under its own agent ids, so runs never see
each other's records, and a store that outlives the run (not ``{tmp}``, not ``:memory:``) is
made to forget what the phase wrote.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from mnemowire.embedders import Embedder
from mnemowire.kit import new_id, now_ms
from mnemowire.models import ForgetRequest
from mnemowire.protocol import MemoryStore
from mnemowire.registry import open_store

__all__ = ["DAY_MS", "DEFAULT_STORE", "TMP", "BenchClock", "OpenedStore", "display", "opened"]

TMP = "{tmp}"
#: what ``mnemowire bench`` measures unless given ``--store``: the default store, on disk
DEFAULT_STORE = "sqlite-vec://{tmp}/bench.db"
DAY_MS = 86_400_000


class BenchClock:
    """A store clock that can be set back, so a memory can be written "N days ago" (for
    ``fresher_than_days``). ``age_days`` is how far back the next writes land; 0 is now."""

    def __init__(self) -> None:
        self.age_days = 0.0

    def __call__(self) -> int:
        return now_ms() - round(self.age_days * DAY_MS)


@dataclass
class OpenedStore:
    """A store opened for one benchmark phase."""

    store: MemoryStore
    #: the URL as given (credentials removed): what reports show
    url: str
    #: whether the store took the benchmark's clock, so memories can be backdated
    backdates: bool
    #: agent ids of this phase are ``prefix + name`` (unique per phase)
    prefix: str
    #: (agent, id) of every record written, forgotten on close unless the store was temporary
    written: list[tuple[str, str]]

    def agent(self, name: str) -> str:
        return self.prefix + name


def display(url: str) -> str:
    """The URL without a password, for reports and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def _with_name(url: str, name: str) -> str:
    """Give the store a name (the ``name`` URL option every store in mnemowire reads): a
    router needs distinct names, and two ``:memory:`` stores would otherwise share one."""
    # string surgery, not urlunsplit: that drops the "//" of a URL with an empty host
    # (sqlite-vec:///abs/path.db), which changes what the URL means
    return f"{url}{'&' if '?' in url else '?'}name={name}"


@contextlib.asynccontextmanager
async def opened(
    url: str,
    embedder: Embedder,
    *,
    clock: BenchClock | None = None,
    name: str | None = None,
) -> AsyncIterator[OpenedStore]:
    """Open a fresh store for one phase; with ``clock``, ask the store to use it (a store
    whose factory takes no ``clock`` is opened without, and reports ``backdates=False``)."""
    with tempfile.TemporaryDirectory(prefix="mnemowire-bench-") as folder:
        concrete = url.replace(TMP, folder)
        if name is not None:
            concrete = _with_name(concrete, name)
        store, backdates = _open(concrete, embedder, clock)
        # a fresh prefix per phase: a persistent store may hold an earlier run's records
        handle = OpenedStore(store, display(url), backdates, f"bench-{new_id()[-10:]}/", [])
        try:
            yield handle
        finally:
            try:
                if TMP not in url and ":memory:" not in url:  # the store outlives the run
                    await _forget(handle)
            finally:
                await store.aclose()


def _open(url: str, embedder: Embedder, clock: BenchClock | None) -> tuple[MemoryStore, bool]:
    if clock is not None:
        try:
            return open_store(url, embedder=embedder, clock=clock), True
        except TypeError:  # this store's factory takes no clock: it cannot backdate
            pass
    return open_store(url, embedder=embedder), False


async def _forget(handle: OpenedStore) -> None:
    """Erase what the phase wrote (hard when the store can), grouped by agent."""
    declared = {str(c) for c in handle.store.capabilities().capabilities}
    if "forget" not in declared:
        return
    by_agent: dict[str, list[str]] = {}
    for agent, record in handle.written:
        by_agent.setdefault(agent, []).append(record)
    for agent, ids in by_agent.items():
        for chunk in _chunks(ids, 500):
            hard = "hard_delete" in declared
            await handle.store.forget(ForgetRequest(agent_id=agent, ids=chunk, hard_delete=hard))


def _chunks(items: Sequence[str], size: int) -> list[list[str]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]
