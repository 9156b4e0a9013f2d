"""Store operations that end whole, whatever happens to the caller waiting for them.

A transport's handler is cancelled when its caller goes away (a closed connection, an MCP
client that hangs up) or its deadline passes. Cancelling a store operation there could cut a
router's fan-out between two children, or a batch between two records. So each operation runs
in a task of its own that only its own end finishes; the handler waits for it behind a shield,
and a server drains the ones still running before it closes the store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

__all__ = ["InFlight"]

T = TypeVar("T")


class InFlight:
    """The operations a server has started and not yet seen end."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    async def finish(self, work: Awaitable[T], *, timeout_s: float | None = None) -> T:
        """``work``'s result, run in a task of its own; TimeoutError after ``timeout_s``
        (the work still runs to its end, and :meth:`drain` waits for it)."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._settled)
        async with asyncio.timeout(timeout_s):
            return await asyncio.shield(task)

    def _settled(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a caller that went away does not leave it unread

    def __len__(self) -> int:
        return len(self._tasks)

    async def drain(self) -> None:
        """Wait for every operation still running (before the store is closed)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
