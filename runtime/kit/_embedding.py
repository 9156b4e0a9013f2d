"""Embedding off the event loop, with concurrent small requests sharing one batch.

A model embeds a batch of 16 short texts in far less than 16 times one text's time (one
matrix product instead of 16, measured in docs/benchmarks.md#http), so when requests arrive
together (a server's concurrent recalls, a router's fan-out) they should not queue one by one
for the embedder. ``embed`` therefore coalesces: the first call starts a batch at once (no
waiting, so a lone request pays nothing), and every call that arrives while that batch runs
joins the next one, which starts as soon as the embedder is free. Large calls (a bulk import's
batches) go straight to the embedder: they are batches already.

One coalescer per embedder and event loop; it keeps no thread of its own (the batches run in
the loop's default executor, as before). A batch that fails is retried call by call, so one
caller's bad text fails that caller alone.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass, field

import numpy as np

from mnemowire.embedders import Embedder, Vectors

__all__ = ["BATCH_AT_MOST", "COALESCE_AT_MOST", "embed"]

#: calls with at most this many texts are coalesced (queries, single remembers)
COALESCE_AT_MOST = 8
#: the most texts one coalesced batch carries (more wait for the next)
BATCH_AT_MOST = 64


@dataclass
class _Call:
    texts: list[str]
    answer: asyncio.Future[Vectors]


@dataclass
class _Coalescer:
    embedder: Embedder
    waiting: list[_Call] = field(default_factory=list)
    worker: asyncio.Task[None] | None = None

    async def embed(self, texts: list[str]) -> Vectors:
        call = _Call(texts, asyncio.get_running_loop().create_future())
        self.waiting.append(call)
        if self.worker is None:
            self.worker = asyncio.create_task(self._drain())
        return await call.answer

    async def _drain(self) -> None:
        try:
            while self.waiting:
                batch = self._next_batch()
                try:
                    await self._run(batch)
                except asyncio.CancelledError:
                    for call in batch:
                        call.answer.cancel()
                    raise
        finally:
            self.worker = None
            for call in self.waiting:  # only when cancelled (the loop is closing)
                call.answer.cancel()
            self.waiting.clear()

    def _next_batch(self) -> list[_Call]:
        batch: list[_Call] = []
        size = 0
        while self.waiting and (not batch or size + len(self.waiting[0].texts) <= BATCH_AT_MOST):
            call = self.waiting.pop(0)
            if call.answer.done():  # its caller gave up waiting
                continue
            batch.append(call)
            size += len(call.texts)
        return batch

    async def _run(self, batch: list[_Call]) -> None:
        if not batch:
            return
        texts = [text for call in batch for text in call.texts]
        try:
            vectors = await _embed_now(self.embedder, texts)
        except Exception as exc:
            if len(batch) == 1:
                _settle(batch[0], exc)
                return
            for call in batch:  # one caller's bad text fails that caller alone
                try:
                    _settle(call, await _embed_now(self.embedder, call.texts))
                except Exception as own:
                    _settle(call, own)
            return
        start = 0
        for call in batch:
            _settle(call, vectors[start : start + len(call.texts)])
            start += len(call.texts)


def _settle(call: _Call, outcome: Vectors | Exception) -> None:
    if call.answer.done():
        return
    if isinstance(outcome, Exception):
        call.answer.set_exception(outcome)
    else:
        call.answer.set_result(outcome)


async def _embed_now(embedder: Embedder, texts: list[str]) -> Vectors:
    vectors = await asyncio.to_thread(embedder.embed, texts)
    matrix = np.ascontiguousarray(vectors, dtype=np.float32)
    if matrix.shape != (len(texts), embedder.dimension):
        raise ValueError(
            f"embedder {embedder.name} returned shape {matrix.shape} for {len(texts)} texts"
        )
    return matrix


#: event loop -> coalescers of the embedders used on it (gone with the loop)
_COALESCERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, _Coalescer]] = (
    weakref.WeakKeyDictionary()
)


async def embed(embedder: Embedder, texts: list[str]) -> Vectors:
    """``texts`` embedded off the event loop, as one contiguous float32 matrix; calls of a few
    texts that arrive together share one batch."""
    if len(texts) > COALESCE_AT_MOST:
        return await _embed_now(embedder, texts)
    loop = asyncio.get_running_loop()
    per_loop = _COALESCERS.setdefault(loop, {})
    coalescer = per_loop.get(id(embedder))
    if coalescer is None or coalescer.embedder is not embedder:
        coalescer = per_loop[id(embedder)] = _Coalescer(embedder)
    return await coalescer.embed(texts)
