"""Faults around the server: a stop while writes run, a caller that vanishes mid-request, an
operation slower than the request timeout, and a load with bad requests mixed in. A write is
never cut in half, nothing a bad request sends is stored, and the server keeps serving."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import socket
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import Limits, MemoryServer
from mnemowire.apps.transport import Tokens
from mnemowire.embedders import HashEmbedder, Vectors
from mnemowire.models import ListRequest
from tests.server._serving import serving


class SlowEmbedder(HashEmbedder):
    """The hash embedder, taking ``delay`` seconds per call: every write it serves is slow."""

    def __init__(self, delay: float) -> None:
        super().__init__(64)
        self.delay = delay

    def embed(self, texts: Sequence[str]) -> Vectors:
        time.sleep(self.delay)
        return super().embed(texts)


def batch(n: int, agent: str = "a") -> dict[str, Any]:
    return {
        "requests": [
            {"agent_id": agent, "type": "semantic", "content": f"fact {i}"} for i in range(n)
        ]
    }


async def count(path: Path, agent: str = "a") -> int:
    """How many records ``agent`` has in the store file, read by a store of its own."""
    async with SqliteVecStore(str(path), embedder=HashEmbedder(64)) as store:
        page = await store.list(ListRequest(agent_id=agent, limit=1000))
        return len(page.records)


def stored(path: Path, agent: str = "a") -> int:
    return asyncio.run(count(path, agent))


def post(url: str, path: str, body: Any, timeout: float = 30) -> httpx.Response:
    return httpx.post(url + path, json=body, timeout=timeout)


def test_a_stop_lets_the_writes_in_flight_finish_and_then_closes_the_store(
    tmp_path: Path,
) -> None:
    path = tmp_path / "memory.db"
    store = SqliteVecStore(str(path), embedder=SlowEmbedder(1.0))
    answers: list[httpx.Response] = []
    with serving(MemoryServer(store)) as url:
        writer = threading.Thread(
            target=lambda: answers.append(post(url, "/v0.1/remember_batch", batch(20)))
        )
        writer.start()
        time.sleep(0.3)  # the batch is being embedded; the block's exit stops the server
    writer.join()
    assert answers[0].status_code == 200
    assert len(answers[0].json()["results"]) == 20
    assert stored(path) == 20
    closed = asyncio.run(store.health())  # closed after the write, not during it
    assert closed.status == "down"
    assert "closed" in str(closed.details)


def send_and_vanish(url: str, body: bytes, sent: int, *, linger: float = 0.0) -> None:
    """POST ``body`` to remember_batch declaring its whole length, send its first ``sent``
    bytes, wait ``linger`` seconds and close the connection without reading an answer."""
    host, port = url.removeprefix("http://").split(":")
    head = (
        f"POST /v0.1/remember_batch HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    with socket.create_connection((host, int(port))) as gone:
        gone.sendall(head.encode() + body[:sent])
        time.sleep(linger)


def test_a_caller_gone_mid_body_stores_nothing(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteVecStore(str(path), embedder=HashEmbedder(64))
    body = json.dumps(batch(50)).encode()
    with serving(MemoryServer(store)) as url:
        send_and_vanish(url, body, len(body) // 2)
        time.sleep(0.3)
        other = {"agent_id": "b", "type": "semantic", "content": "x"}
        assert post(url, "/v0.1/remember", other).status_code == 200  # still serving
    assert stored(path) == 0


def test_a_caller_gone_mid_body_is_one_debug_line_in_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Any caller can hang up mid-body at will: an ordinary event, not a bug with tracebacks."""
    caplog.set_level(logging.DEBUG, logger="mnemowire.server")
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    body = json.dumps(batch(50)).encode()
    uvicorn_log = logging.getLogger("uvicorn.error")  # uvicorn's own: not propagated
    try:
        with serving(MemoryServer(store)) as url:
            uvicorn_log.addHandler(caplog.handler)
            send_and_vanish(url, body, len(body) // 2)
            deadline = time.monotonic() + 10
            while not caplog.records and time.monotonic() < deadline:
                time.sleep(0.05)
    finally:  # stopped first: every line the disconnect caused is in
        uvicorn_log.removeHandler(caplog.handler)
    logged = [r for r in caplog.records if not r.getMessage().startswith("store closed")]
    assert [r.getMessage() for r in logged if r.levelno >= logging.WARNING] == []
    assert [r.exc_info for r in logged] == [None]
    (gone,) = logged
    assert gone.levelno == logging.DEBUG
    assert gone.getMessage() == "POST /v0.1/remember_batch: the caller went away mid-request"


def test_a_caller_gone_mid_operation_leaves_the_write_whole(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteVecStore(str(path), embedder=SlowEmbedder(0.5))
    body = json.dumps(batch(30)).encode()
    with serving(MemoryServer(store)) as url:
        send_and_vanish(url, body, len(body), linger=0.1)  # gone while the batch is embedded
        time.sleep(1.0)
    assert stored(path) == 30


def test_an_operation_slower_than_the_timeout_answers_timeout_and_still_ends_whole(
    tmp_path: Path,
) -> None:
    path = tmp_path / "memory.db"
    store = SqliteVecStore(str(path), embedder=SlowEmbedder(0.8))
    limits = Limits(request_timeout_s=0.2)
    with serving(MemoryServer(store, limits=limits)) as url:
        started = time.monotonic()
        answer = post(url, "/v0.1/remember_batch", batch(5))
        assert time.monotonic() - started < 0.7
        assert answer.status_code == 504
        body = answer.json()
        assert body["code"] == "timeout"
        assert "read before you retry" in body["message"]
        time.sleep(1.0)
    assert stored(path) == 5


TOKENS = {"tokens": [{"name": "load", "token": "load-test-token-0123456789", "agents": ["a", "b"]}]}


def _requests(rng: random.Random, n: int) -> list[tuple[str, bytes, dict[str, str], int]]:
    """``n`` requests, a quarter of them bad in one way each: (path, body, headers, status)."""
    good_headers = {
        "content-type": "application/json",
        "authorization": "Bearer load-test-token-0123456789",
    }
    out = []
    for i in range(n):
        agent = rng.choice("ab")
        remember = {"agent_id": agent, "type": "semantic", "content": f"fact {i} of {agent}"}
        recall = {"agent_id": agent, "query": f"fact {rng.randrange(n)}"}
        kind = rng.randrange(12)
        if kind == 0:
            out.append(("/v0.1/remember", b'{"agent_id": "a", "type"', good_headers, 400))
        elif kind == 1:
            out.append(("/v0.1/remember", json.dumps(remember).encode(),
                        {**good_headers, "content-type": "text/plain"}, 415))  # fmt: skip
        elif kind == 2:
            big = {**remember, "content": "x" * 70_000}
            out.append(("/v0.1/remember", json.dumps(big).encode(), good_headers, 413))
        elif kind == 3:
            foreign = {**remember, "agent_id": "c"}
            out.append(("/v0.1/remember", json.dumps(foreign).encode(), good_headers, 403))
        elif kind == 4:
            out.append(("/v9/remember", json.dumps(remember).encode(), good_headers, 404))
        elif kind == 5:
            out.append(("/v0.1/remember", json.dumps(remember).encode(),
                        {"content-type": "application/json"}, 401))  # fmt: skip
        elif kind < 9:
            out.append(("/v0.1/remember", json.dumps(remember).encode(), good_headers, 200))
        else:
            out.append(("/v0.1/recall", json.dumps(recall).encode(), good_headers, 200))
    return out


async def test_a_load_with_bad_requests_mixed_in(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = SqliteVecStore(str(path), embedder=HashEmbedder(64))
    tokens = Tokens.parse(json.dumps(TOKENS), "test")
    planned = _requests(random.Random(7), 960)
    statuses: list[tuple[int, int]] = []
    with serving(MemoryServer(store, tokens=tokens, limits=Limits(max_body_bytes=65_536))) as url:
        queue: asyncio.Queue[tuple[str, bytes, dict[str, str], int]] = asyncio.Queue()
        for item in planned:
            queue.put_nowait(item)

        async def client() -> None:
            async with httpx.AsyncClient(base_url=url, timeout=30) as http:
                while not queue.empty():
                    where, body, headers, expected = queue.get_nowait()
                    answer = await http.post(where, content=body, headers=headers)
                    statuses.append((expected, answer.status_code))
                    assert answer.headers["content-type"] == "application/json"
                    if answer.status_code != 200:
                        assert answer.json()["details"] is not None

        await asyncio.gather(*(client() for _ in range(16)))
        assert httpx.get(url + "/v0.1/capabilities", headers={"authorization": planned[0][2].get(
            "authorization", "Bearer load-test-token-0123456789")}).status_code == 200  # fmt: skip
    wrong = [(e, s) for e, s in statuses if e != s]
    assert not wrong, wrong[:10]
    assert len(statuses) == len(planned)
    good_writes = sum(1 for p, _, _, s in planned if p == "/v0.1/remember" and s == 200)
    assert await count(path, "a") + await count(path, "b") == good_writes
    assert await count(path, "c") == 0


async def test_concurrent_recalls_share_embedder_batches(tmp_path: Path) -> None:
    """16 recalls at once through the server embed in a few batches, not 16 calls."""
    calls: list[int] = []

    class Counting(SlowEmbedder):
        def embed(self, texts: Sequence[str]) -> Vectors:
            calls.append(len(texts))
            return super().embed(texts)

    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=Counting(0.05))
    with serving(MemoryServer(store)) as url:
        async with httpx.AsyncClient(base_url=url) as http:
            await http.post(
                "/v0.1/remember", json={"agent_id": "a", "type": "semantic", "content": "tea"}
            )
            calls.clear()
            answers = await asyncio.gather(
                *(
                    http.post("/v0.1/recall", json={"agent_id": "a", "query": f"q{i}"})
                    for i in range(16)
                )
            )
    assert all(a.status_code == 200 for a in answers)
    assert sum(calls) == 16
    assert len(calls) <= 4, calls  # one call starts at once, the rest join the next batches
