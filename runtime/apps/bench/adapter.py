"""``mnemowire bench adapter``: what an adapter adds over calling its backend's own API for the
same operation, side by side in one run.

For each memory of the dev corpus (310), a remember through the adapter (``Memory`` over the
store: the caller's path, boundary included) and the backend's own write of the same memory,
in turns; then for each of the 165 queries, ``rounds`` times, a recall of k=5 through the
adapter and the backend's own search for the same 5, in turns, so the machine's drift lands on
both alike. Each side has a store of its own in a fresh folder, holding the same memories.

The backend's own calls are the ones its documentation shows (a third party's baseline, not
the adapter's internals): for mem0, ``Memory.add(text, agent_id=..., metadata=...,
infer=False)`` and ``Memory.search(query, filters={"agent_id": ...}, top_k=5,
threshold=0.0)``; for cognee, ``cognee.add([DataItem(text, literal_text=True)], dataset)``
and ``cognee.search(query, query_type=CHUNKS, datasets=[dataset], top_k=5)``; for Letta,
letta-client's ``agents.passages.create(agent, text=...)`` and ``agents.passages.search(agent,
query=..., top_k=5)`` on an agent of its own on the same server.

Last, the same memories moved as an archive: exported, imported as ``import_records`` pages
of 100 through the adapter, against the backend's own writes of them one by one (what a
program using the library writes; the adapter writes a page in one call where the library
has a bulk write that keeps each item's metadata, as cognee's ``add`` of a list), each side
timed whole.
"""

from __future__ import annotations

import asyncio
import functools
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from mnemowire.apps.bench._timing import percentiles
from mnemowire.apps.bench.quality import load_corpus, load_queries
from mnemowire.errors import ConfigError
from mnemowire.kit import to_wire
from mnemowire.layers.memory import Memory
from mnemowire.registry import open_store

__all__ = ["BACKENDS", "run_adapter"]

Progress = Callable[[str, int, int], None]
AGENT = "bench-adapter"
#: the agent the import phase writes the same memories under
IMPORTED = "bench-adapter-imported"
K = 5


class Native(Protocol):
    """A backend's own API for the two operations measured."""

    description: str

    def remember(self, memory: dict[str, Any]) -> None: ...

    def recall(self, query: str) -> None: ...

    def close(self) -> None: ...


class Mem0Native:
    """mem0ai's ``Memory``, configured as the mem0 store configures it, in its own folder."""

    description = "mem0ai Memory.add(infer=False) / Memory.search(threshold=0.0)"

    def __init__(self, folder: Path, url: str) -> None:
        from mnemowire.adapters.mem0 import open_memory

        self.memory = open_memory(folder)

    def remember(self, memory: dict[str, Any]) -> None:
        self.memory.add(
            memory["content"],
            agent_id=AGENT,
            metadata=memory.get("metadata") or None,
            infer=False,
        )

    def recall(self, query: str) -> None:
        self.memory.search(query, filters={"agent_id": AGENT}, top_k=K, threshold=0.0)

    def close(self) -> None:
        from mnemowire.adapters.mem0 import close_memory

        close_memory(self.memory)


class CogneeNative:
    """cognee's own calls on the process's cognee. Its configuration is the process's, so the
    baseline is a dataset of its own beside the store's, in the store's folder; like the store,
    it chunks and embeds what was added before its first search (cognee's offline pipeline)."""

    description = (
        "cognee 1.6.5 add(DataItem, literal_text=True) / search(CHUNKS, top_k=5), the offline "
        "chunk pipeline before the first search"
    )
    dataset = "bench_native"

    def __init__(self, folder: Path, url: str) -> None:
        from mnemowire.adapters.cognee import COGNEE

        self._cognee = COGNEE
        self._user = self._call(COGNEE.user)
        self._stale = True

    def _call(self, work: Callable[[], Any]) -> Any:
        return self._cognee.worker.submit(work).result()

    def remember(self, memory: dict[str, Any]) -> None:
        import uuid

        import cognee
        from cognee.tasks.ingestion.data_item import DataItem

        item = DataItem(
            data=memory["content"],
            data_id=uuid.uuid4(),
            external_metadata=memory.get("metadata") or None,
            literal_text=True,
        )
        add = cognee.add([item], dataset_name=self.dataset, user=self._user)
        self._call(lambda: self._cognee.run(add))
        self._stale = True

    def recall(self, query: str) -> None:
        import cognee
        from cognee.modules.search.types import SearchType

        from mnemowire.adapters.cognee import offline_tasks

        if self._stale:
            chunk = cognee.run_custom_pipeline(
                tasks=offline_tasks(), dataset=self.dataset, user=self._user,
                incremental_loading=True, pipeline_name="bench_native",
            )  # fmt: skip
            self._call(lambda: self._cognee.run(chunk))
            self._stale = False
        search = cognee.search(
            query, query_type=SearchType.CHUNKS, datasets=[self.dataset], user=self._user, top_k=K
        )
        self._call(lambda: self._cognee.run(search))

    def close(self) -> None:
        import cognee

        forget = cognee.forget(dataset=self.dataset, user=self._user)
        self._call(lambda: self._cognee.run(forget))


class LettaNative:
    """letta-client on the store's server: an agent of its own, configured as the store
    configures its agents (the same embedding endpoint and model), deleted at the end."""

    description = (
        "letta-client 1.12.1 agents.passages.create(text) / agents.passages.search(top_k=5) "
        "on letta 0.16.8"
    )

    def __init__(self, folder: Path, url: str) -> None:
        import secrets

        from letta_client import Letta

        from mnemowire.adapters.letta import LettaStore

        # the store's settings (server, endpoint, model), not its calls: a throwaway store
        # that is never written to
        settings = LettaStore.from_url(f"{url}&ids=:memory:")
        config = settings.agent_config(f"bench-native-{secrets.token_hex(6)}")
        self._client = Letta(base_url=settings.base_url, api_key="unused")
        asyncio.run(settings.aclose())
        self._agent = self._client.agents.create(**config).id

    def remember(self, memory: dict[str, Any]) -> None:
        self._client.agents.passages.create(self._agent, text=memory["content"])

    def recall(self, query: str) -> None:
        self._client.agents.passages.search(self._agent, query=query, top_k=K)

    def close(self) -> None:
        for passage in self._client.agents.passages.list(self._agent, limit=1000):
            self._client.agents.passages.delete(str(passage.id), agent_id=self._agent)
        self._client.agents.delete(self._agent)
        self._client.close()


#: URL scheme -> the backend's own API for the same operations
BACKENDS: dict[str, Callable[[Path, str], Native]] = {
    "mem0": Mem0Native,
    "cognee": CogneeNative,
    "letta": LettaNative,
}


async def _import(
    memory: Memory,
    native: Native,
    memories: Sequence[Mapping[str, Any]],
    off_loop: Callable[..., Awaitable[None]],
    progress: Progress | None,
) -> dict[str, Any]:
    """The agent's memories exported, then imported as archive pages (100 a page, new ids,
    under another agent) through the adapter, against the backend's own writes of the same
    memories one by one: the adapter's cost over the backend's own path, each timed whole."""
    lines: list[dict[str, Any]] = []
    request: dict[str, Any] = {"agent_id": AGENT, "limit": 1000}
    while True:
        page = await memory.export_records(request)
        lines += [to_wire(line) for line in page.records]
        if page.next_cursor is None:
            break
        request = {**request, "cursor": page.next_cursor}
    moved = [{**line, "record": {**line["record"], "agent_id": IMPORTED}} for line in lines]
    started = time.perf_counter()
    for start in range(0, len(moved), 100):
        await memory.import_records(
            {"agents": [IMPORTED], "records": moved[start : start + 100], "id_policy": "new"}
        )
        if progress is not None:
            progress("import", min(start + 100, len(moved)), len(moved))
    adapter_s = time.perf_counter() - started
    started = time.perf_counter()
    for fields in memories:
        await off_loop(native.remember, fields)
    native_s = time.perf_counter() - started
    return {
        "records": len(moved),
        "adapter_seconds": round(adapter_s, 2),
        "native_seconds": round(native_s, 2),
        "adapter_records_per_s": round(len(moved) / adapter_s, 1),
        "native_records_per_s": round(len(memories) / native_s, 1),
        "overhead_pct": round((adapter_s / native_s * len(memories) / len(moved) - 1) * 100, 1),
    }


async def _timed(call: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


def _overhead(adapter: dict[str, Any], native: dict[str, Any]) -> float:
    return round((float(adapter["p50_ms"]) / float(native["p50_ms"]) - 1) * 100, 1)


async def _run(url: str, folder: Path, rounds: int, progress: Progress | None) -> dict[str, Any]:
    scheme = url.partition("://")[0]
    store = open_store(
        url.replace("{tmp}", str(folder))
    )  # first: cognee's baseline uses its folder
    native: Native = await asyncio.to_thread(BACKENDS[scheme], folder / "native", url)
    samples: dict[str, list[float]] = {
        "remember_adapter": [], "remember_native": [], "recall_adapter": [], "recall_native": []
    }  # fmt: skip

    def off_loop(call: Callable[..., None], *args: Any) -> Awaitable[None]:
        return asyncio.get_running_loop().run_in_executor(None, call, *args)

    async def in_turns(
        turn: int,
        adapter: Callable[[], Awaitable[Any]],
        native_call: Callable[[], Awaitable[Any]],
        operation: str,
    ) -> None:
        pair = [(f"{operation}_adapter", adapter), (f"{operation}_native", native_call)]
        for name, call in pair if turn % 2 == 0 else pair[::-1]:
            samples[name].append(await _timed(call))

    try:
        async with Memory(store) as memory:
            memories = [m.remember for m in load_corpus()]
            for i, fields in enumerate(memories):
                request = {**fields, "agent_id": AGENT}
                await in_turns(
                    i,
                    functools.partial(memory.remember, request),
                    functools.partial(off_loop, native.remember, fields),
                    "remember",
                )
                if progress is not None and (i + 1) % 50 == 0:
                    progress("remember", i + 1, len(memories))
            queries = [q.recall["query"] for q in load_queries()]
            total = rounds * len(queries)
            for turn in range(total):
                query = queries[turn % len(queries)]
                recall = {"agent_id": AGENT, "query": query, "k": K}
                await in_turns(
                    turn,
                    functools.partial(memory.recall, recall),
                    functools.partial(off_loop, native.recall, query),
                    "recall",
                )
                if progress is not None and (turn + 1) % 50 == 0:
                    progress("recall", turn + 1, total)
            imported = await _import(memory, native, memories, off_loop, progress)
    finally:
        await asyncio.to_thread(native.close)
    measured = {name: percentiles(values) for name, values in samples.items()}
    return {
        "store": url,
        "backend": native.description,
        "memories": len(memories),
        "queries": len(queries),
        "rounds": rounds,
        "k": K,
        "import": imported,
        **{
            operation: {
                "adapter": measured[f"{operation}_adapter"],
                "native": measured[f"{operation}_native"],
                "overhead_p50_pct": _overhead(
                    measured[f"{operation}_adapter"], measured[f"{operation}_native"]
                ),
            }
            for operation in ("remember", "recall")
        },
    }


def run_adapter(url: str, *, rounds: int = 2, progress: Progress | None = None) -> dict[str, Any]:
    """Measure the adapter at ``url`` (``{tmp}`` becomes a fresh folder) against its backend's
    own API; see the module's docstring."""
    scheme = url.partition("://")[0]
    if scheme not in BACKENDS:
        raise ConfigError(
            f"no baseline for {scheme}:// stores; this benchmark knows {', '.join(BACKENDS)}"
        )
    folder = Path(tempfile.mkdtemp(prefix="mnemowire-bench-adapter-"))
    try:
        return asyncio.run(_run(url, folder, rounds, progress))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
