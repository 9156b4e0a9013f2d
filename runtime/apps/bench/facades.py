"""``mnemowire bench facades``: what each facade adds to the call it wraps, side by side in one
run (target: <= 5 % at p50).

A facade is measured against the request it sends, sent straight to ``Memory`` (the
validating boundary): the short path's ``remember("...", agent=...)`` against the same request
as a dict; mem0's ``add(text, user_id=..., infer=False)`` and ``search(query,
filters={"user_id": ...}, top_k=5)`` against the ``remember`` and ``recall`` they build; and
LangGraph's ``aput``/``asearch`` on MnemowireStore against a remember and a recall of the same
memory and query (what a mnemowire program writes for the same job). For
each memory of the dev corpus (310) the two writes, in turns; then for each of the 165 queries,
``rounds`` times, the two recalls, in turns, so the machine's drift lands on both alike. Each
side writes a store of its own (the same URL in a fresh folder), holding the same memories.
"""

from __future__ import annotations

import abc
import asyncio
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from mnemowire.apps.bench._timing import percentiles
from mnemowire.apps.bench.quality import load_corpus, load_queries
from mnemowire.compat.langgraph import MnemowireStore
from mnemowire.compat.mem0 import AsyncMemory
from mnemowire.layers.memory import Memory

__all__ = ["FACADES", "run_facades"]

Progress = Callable[[str, int, int], None]
Call = Callable[[], Awaitable[Any]]
AGENT = "bench-facades"
USER = "bench-user"
K = 5


class Facade(abc.ABC):
    """A facade over one store and ``Memory`` over another: the calls timed in turns."""

    name = ""
    wraps = ""

    def __init__(self, facade_url: str, wrapped_url: str) -> None:
        self.wrapped = Memory.open(wrapped_url)

    @abc.abstractmethod
    def remember(self, fields: Mapping[str, Any]) -> tuple[Call, Call]:
        """The facade's write of a corpus memory, and the wrapped call it is timed against."""

    @abc.abstractmethod
    def recall(self, query: str) -> tuple[Call, Call]:
        """The facade's search for a query, and the wrapped call it is timed against."""

    async def close(self) -> None:
        await self.wrapped.aclose()


class Keywords(Facade):
    """``Memory.remember(content, agent=..., **fields)`` against the same request as a dict."""

    name = "keywords"
    wraps = "Memory.remember(dict) / Memory.recall(dict)"

    def __init__(self, facade_url: str, wrapped_url: str) -> None:
        super().__init__(facade_url, wrapped_url)
        self.facade = Memory.open(facade_url)

    def remember(self, fields: Mapping[str, Any]) -> tuple[Call, Call]:
        rest = {k: v for k, v in fields.items() if k not in ("content", "user_id", "agent_id")}
        user = fields.get("user_id")
        request = {**fields, "agent_id": AGENT}
        return (
            lambda: self.facade.remember(fields["content"], agent=AGENT, user=user, **rest),
            lambda: self.wrapped.remember(request),
        )

    def recall(self, query: str) -> tuple[Call, Call]:
        request = {"agent_id": AGENT, "query": query, "k": K}
        return (
            lambda: self.facade.recall(query, agent=AGENT, k=K),
            lambda: self.wrapped.recall(request),
        )

    async def close(self) -> None:
        await self.facade.aclose()
        await super().close()


class Mem0(Facade):
    """mem0's ``add(infer=False)`` / ``search`` against the remember and recall they send."""

    name = "mem0"
    wraps = "Memory.remember / Memory.recall of the requests the facade builds"

    def __init__(self, facade_url: str, wrapped_url: str) -> None:
        super().__init__(facade_url, wrapped_url)
        self.facade = AsyncMemory(facade_url, agent=AGENT)

    def remember(self, fields: Mapping[str, Any]) -> tuple[Call, Call]:
        metadata = dict(fields.get("metadata") or {})
        request = {
            "agent_id": AGENT,
            "type": "semantic",
            "content": fields["content"],
            "metadata": {**metadata, "role": "user"},
            "user_id": USER,
        }
        return (
            lambda: self.facade.add(
                fields["content"], user_id=USER, metadata=metadata or None, infer=False
            ),
            lambda: self.wrapped.remember(request),
        )

    def recall(self, query: str) -> tuple[Call, Call]:
        request = {"agent_id": AGENT, "user_id": USER, "query": query, "k": K, "min_relevance": 0.1}
        return (
            lambda: self.facade.search(query, filters={"user_id": USER}, top_k=K),
            lambda: self.wrapped.recall(request),
        )

    async def close(self) -> None:
        await self.facade.close()
        await super().close()


class LangGraph(Facade):
    """LangGraph's ``aput`` / ``asearch`` on MnemowireStore against the boundary's remember and
    recall of the same memory (the store's own lookup by key, its metadata and its loop
    thread are what it adds)."""

    name = "langgraph"
    wraps = "Memory.remember / Memory.recall of the same memory and query"

    def __init__(self, facade_url: str, wrapped_url: str) -> None:
        super().__init__(facade_url, wrapped_url)
        self.facade = MnemowireStore(
            facade_url, agent=AGENT, user_label=1, index={"fields": ["text"]}
        )
        self.written = 0

    def remember(self, fields: Mapping[str, Any]) -> tuple[Call, Call]:
        self.written += 1
        key, text = f"m{self.written}", fields["content"]
        request = {
            "agent_id": AGENT,
            "user_id": USER,
            "type": "semantic",
            "content": text,
            "metadata": {"text": text},
        }
        return (
            lambda: self.facade.aput(("memories", USER), key, {"text": text}),
            lambda: self.wrapped.remember(request),
        )

    def recall(self, query: str) -> tuple[Call, Call]:
        request = {"agent_id": AGENT, "user_id": USER, "query": query, "k": K}
        return (
            lambda: self.facade.asearch(("memories", USER), query=query, limit=K),
            lambda: self.wrapped.recall(request),
        )

    async def close(self) -> None:
        await self.facade.__aexit__()
        await super().close()


FACADES: dict[str, type[Facade]] = {"keywords": Keywords, "mem0": Mem0, "langgraph": LangGraph}


async def _timed(call: Call) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


async def _measure(facade: Facade, rounds: int, progress: Progress | None) -> dict[str, Any]:
    samples: dict[str, list[float]] = {
        "remember_facade": [], "remember_wrapped": [], "recall_facade": [], "recall_wrapped": []
    }  # fmt: skip

    async def in_turns(turn: int, calls: tuple[Call, Call], operation: str) -> None:
        pair = [(f"{operation}_facade", calls[0]), (f"{operation}_wrapped", calls[1])]
        for name, call in pair if turn % 2 == 0 else pair[::-1]:
            samples[name].append(await _timed(call))

    memories = [m.remember for m in load_corpus()]
    for i, fields in enumerate(memories):
        await in_turns(i, facade.remember(fields), "remember")
        if progress is not None and (i + 1) % 50 == 0:
            progress(f"{facade.name} remember", i + 1, len(memories))
    queries = [q.recall["query"] for q in load_queries()]
    total = rounds * len(queries)
    for turn in range(total):
        await in_turns(turn, facade.recall(queries[turn % len(queries)]), "recall")
        if progress is not None and (turn + 1) % 50 == 0:
            progress(f"{facade.name} recall", turn + 1, total)
    measured = {name: percentiles(values) for name, values in samples.items()}
    return {
        "facade": facade.name,
        "wraps": facade.wraps,
        **{
            operation: {
                "facade": measured[f"{operation}_facade"],
                "wrapped": measured[f"{operation}_wrapped"],
                "overhead_p50_pct": round(
                    (
                        float(measured[f"{operation}_facade"]["p50_ms"])
                        / float(measured[f"{operation}_wrapped"]["p50_ms"])
                        - 1
                    )
                    * 100,
                    1,
                ),
            }
            for operation in ("remember", "recall")
        },
    }


async def _run(url: str, folder: Path, rounds: int, progress: Progress | None) -> list[Any]:
    measured = []
    for name, kind in FACADES.items():
        sides = [url.replace("{tmp}", str(folder / f"{name}-{side}")) for side in ("f", "w")]
        for side in ("f", "w"):
            (folder / f"{name}-{side}").mkdir()
        facade = kind(*sides)
        try:
            measured.append(await _measure(facade, rounds, progress))
        finally:
            await facade.close()
    return measured


def run_facades(
    url: str = "sqlite-vec://{tmp}/memory.db", *, rounds: int = 2, progress: Progress | None = None
) -> dict[str, Any]:
    """Measure every facade over ``url`` (``{tmp}`` becomes a fresh folder per side)."""
    folder = Path(tempfile.mkdtemp(prefix="mnemowire-bench-facades-"))
    try:
        facades = asyncio.run(_run(url, folder, rounds, progress))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "store": url,
        "memories": len(load_corpus()),
        "queries": len(load_queries()),
        "rounds": rounds,
        "k": K,
        "facades": facades,
    }
