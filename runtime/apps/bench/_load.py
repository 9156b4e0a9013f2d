"""A load generator that leaves the cores to the server it measures.

On a two-core machine the client of a throughput benchmark competes with the server for CPU: a
full HTTP client (httpx) spends ~1.4 ms of CPU per request here (measured), a third of what the
server spends on a recall. So the load comes from keep-alive HTTP/1.1 connections driven by h11
(the protocol state machine httpx and uvicorn are built on) over asyncio streams, and each run
reports its own CPU time beside the server's.

Two ways to load a server: ``open_loop`` sends at a fixed rate whatever the answers' pace (each
latency is measured from when the request was due, so a server that falls behind shows it:
no coordinated omission), ``closed_loop`` keeps every client busy (the most it can serve).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import h11

__all__ = ["Connection", "LoadRun", "Request", "closed_loop", "open_loop"]


@dataclass(frozen=True)
class Request:
    """One request to send: a path and its JSON body (bytes), and the status it should get."""

    path: str
    body: bytes
    expect: int = 200
    content_type: str = "application/json"


@dataclass
class LoadRun:
    """What a load run saw: one latency per request, and the ones that went wrong."""

    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: this process's CPU seconds during the run (the load generator's own cost)
    client_cpu_s: float = 0.0

    @property
    def per_second(self) -> float:
        return len(self.latencies_ms) / self.seconds if self.seconds else 0.0


class Connection:
    """One kept-alive HTTP/1.1 connection."""

    def __init__(self, url: str, headers: Sequence[tuple[str, str]] = ()) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.headers = [("host", f"{self.host}:{self.port}"), *headers]
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._h11 = h11.Connection(h11.CLIENT)

    async def send(self, request: Request) -> tuple[int, bytes]:
        """The status and body of the answer to ``request`` (reconnecting when needed)."""
        if self._writer is None or self._h11.our_state is not h11.IDLE:
            await self._connect()
        reader, writer = self._reader, self._writer
        if reader is None or writer is None:
            raise ConnectionError("not connected")
        head = h11.Request(
            method="POST",
            target=request.path,
            headers=[
                *self.headers,
                ("content-type", request.content_type),
                ("content-length", str(len(request.body))),
            ],
        )
        data = self._h11.send(head) + self._h11.send(h11.Data(data=request.body))
        writer.write(data + self._h11.send(h11.EndOfMessage()))
        status, body = 0, bytearray()
        while True:
            event = self._h11.next_event()
            if event is h11.NEED_DATA:
                self._h11.receive_data(await reader.read(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise ConnectionError("the server closed the connection")
        if self._h11.our_state is h11.MUST_CLOSE:
            await self.close()
        else:
            self._h11.start_next_cycle()
        return status, bytes(body)

    async def _connect(self) -> None:
        await self.close()
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        self._h11 = h11.Connection(h11.CLIENT)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(ConnectionError):
                await self._writer.wait_closed()
        self._reader = self._writer = None


async def _one(connection: Connection, request: Request, due: float, run: LoadRun) -> None:
    try:
        status, body = await connection.send(request)
    except (OSError, h11.ProtocolError) as exc:
        run.errors.append(f"{type(exc).__name__}: {exc}")
        return
    run.latencies_ms.append((time.perf_counter() - due) * 1000)
    if status != request.expect:
        run.errors.append(
            f"{request.path}: HTTP {status} (expected {request.expect}): {body[:200]!r}"
        )


async def open_loop(
    url: str,
    requests: Callable[[int], Request],
    *,
    rate: float,
    seconds: float,
    clients: int,
    headers: Sequence[tuple[str, str]] = (),
) -> LoadRun:
    """Send ``requests(i)`` at ``rate`` per second for ``seconds``, spread over ``clients``
    connections (each sends its share on a fixed schedule)."""
    run = LoadRun()
    started = time.perf_counter()
    cpu = time.process_time()
    interval = clients / rate

    async def client(index: int) -> None:
        connection = Connection(url, headers)
        sent = 0
        try:
            while True:
                due = started + index / rate + sent * interval
                if due - started >= seconds:
                    return
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                await _one(connection, requests(sent * clients + index), due, run)
                sent += 1
        finally:
            await connection.close()

    await asyncio.gather(*(client(i) for i in range(clients)))
    run.seconds = time.perf_counter() - started
    run.client_cpu_s = time.process_time() - cpu
    return run


async def closed_loop(
    url: str,
    requests: Callable[[int], Request],
    *,
    total: int,
    clients: int,
    headers: Sequence[tuple[str, str]] = (),
    every: int = 0,
    tick: Callable[[int], None] | None = None,
) -> LoadRun:
    """Send ``total`` requests as fast as ``clients`` connections can; ``tick(done)`` is called
    every ``every`` answers (the caller samples the server meanwhile)."""
    run = LoadRun()
    started = time.perf_counter()
    cpu = time.process_time()
    taken = 0

    async def client() -> None:
        nonlocal taken
        connection = Connection(url, headers)
        try:
            while taken < total:
                index = taken
                taken += 1
                await _one(connection, requests(index), time.perf_counter(), run)
                done = len(run.latencies_ms) + len(run.errors)
                if tick is not None and every and done % every == 0:
                    tick(done)
        finally:
            await connection.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    run.seconds = time.perf_counter() - started
    run.client_cpu_s = time.process_time() - cpu
    return run
