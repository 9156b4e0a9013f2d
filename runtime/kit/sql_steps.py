"""Database work written once for a synchronous and an asynchronous SQL driver.

A SQL store's logic that must be the same on SQLite (``sqlite3``, run in a worker thread) and
PostgreSQL (``psycopg``, async) is written as a generator of *steps* (sans-I/O): it yields a
:class:`Query` and is sent back the rows it asked for, or yields a request of its own kind
(for what only the store can answer, such as a vector search) and is sent back the store's
answer. :func:`run` drives such a generator on a DB-API connection or cursor, :func:`arun`
on an async one; both run every step on the connection they are given, so the steps take part
in the caller's transaction and keep its crash-safety.

Example::

    def count(agent_id: str) -> Steps[int]:
        row = yield Query("SELECT count(*) FROM memories WHERE agent_id = ?", [agent_id], "one")
        return int(row[0])

    total = run(tx, count("a"))                   # sqlite3
    total = await arun(conn, count("a"))          # psycopg (spelled with ``%s``)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

__all__ = ["AsyncConnection", "Query", "Steps", "SyncConnection", "arun", "run"]

T = TypeVar("T")

#: a generator of steps: yields a Query (or a store-specific request), is sent back the
#: answer, and returns its result
Steps = Generator[Any, Any, T]


@dataclass(frozen=True)
class Query:
    """One statement and its parameters, and what the step wants back: every row (``all``;
    also for ``RETURNING``, so the statement runs to its end), the first row or None
    (``one``), or nothing (``none``)."""

    sql: str
    args: Sequence[Any] = ()
    rows: Literal["all", "one", "none"] = "all"


class SyncConnection(Protocol):
    """What :func:`run` needs: ``sqlite3.Connection`` and DB-API cursors have it."""

    def execute(self, sql: str, args: Any, /) -> Any: ...


class AsyncConnection(Protocol):
    """What :func:`arun` needs: ``psycopg.AsyncConnection`` has it."""

    def execute(self, query: Any, params: Any = ..., /) -> Awaitable[Any]: ...


def run(
    connection: SyncConnection,
    steps: Steps[T],
    answer: Callable[[Any, Any], Any] | None = None,
) -> T:
    """Drive ``steps`` on a synchronous connection; ``answer(connection, request)`` answers
    what is not a :class:`Query`."""
    sent: Any = None
    while True:
        try:
            step = steps.send(sent)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        if not isinstance(step, Query):
            sent = _asked(answer, step)(connection, step)
            continue
        cursor = connection.execute(step.sql, step.args)
        sent = None
        if step.rows == "all":
            sent = cursor.fetchall()
        elif step.rows == "one":
            sent = cursor.fetchone()


async def arun(
    connection: AsyncConnection,
    steps: Steps[T],
    answer: Callable[[Any, Any], Awaitable[Any]] | None = None,
) -> T:
    """Drive ``steps`` on an asynchronous connection; ``await answer(connection, request)``
    answers what is not a :class:`Query`."""
    sent: Any = None
    while True:
        try:
            step = steps.send(sent)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        if not isinstance(step, Query):
            sent = await _asked(answer, step)(connection, step)
            continue
        cursor = await connection.execute(step.sql, step.args)
        sent = None
        if step.rows == "all":
            sent = await cursor.fetchall()
        elif step.rows == "one":
            sent = await cursor.fetchone()


def _asked(answer: T | None, step: Any) -> T:
    if answer is None:
        raise TypeError(f"a step asked for {type(step).__name__}, and nothing answers it")
    return answer
