"""``mnemowire bench http``: what the HTTP transport costs and what a server sustains.

Real processes on one machine: each server is ``mnemowire serve`` in a process of its own over
a copy of the same sqlite-vec file (the dev corpus, 310 memories, all-MiniLM-L6-v2), and the
benchmark's process is the client. Four measurements:

- **latency**: every corpus query recalled in-process (``Memory`` over the store), through one
  server (``Memory`` over ``http://``: the Python client), through a router over two servers
  (the router embeds each query once and sends the vector: spec v0.1 ``query_vector``), and as
  bare HTTP (a minimal keep-alive client: what the server alone adds). Measured in turns, query
  by query, so the machine's drift lands on every setup alike.
- **sustained**: ``rate`` recalls per second spread over ``clients`` connections for
  ``seconds`` (open loop: latency counted from when each request was due, so a server that
  falls behind shows it), then the most those clients get with no pacing (closed loop). The
  server's and the load generator's CPU are reported beside.
- **memory**: the server's resident memory before and after ``requests`` requests (recalls
  with and without a query vector, gets, lists, remembers and a tenth of bad requests).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.bench._load import Connection, LoadRun, Request, closed_loop, open_loop
from mnemowire.apps.bench._timing import load_average, percentiles
from mnemowire.apps.bench.quality import load_corpus, load_queries
from mnemowire.embedders import Embedder, load_embedder
from mnemowire.layers.memory import Memory
from mnemowire.models import RememberRequest

__all__ = ["run_http"]

Progress = Callable[[str, int, int], None]
AGENT = "bench-http"
_PATH = "/v0.1/recall"


@dataclass
class _Server:
    process: subprocess.Popen[str]
    url: str

    @property
    def pid(self) -> int:
        return self.process.pid

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
        return 0.0

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def _serving(store_url: str, embedder: str) -> Iterator[_Server]:
    """``mnemowire serve`` in a process of its own; stopped as on Ctrl-C."""
    command = [sys.executable, "-c", "from mnemowire.apps.cli import main; main()"]
    process = subprocess.Popen(
        [*command, "serve", "--store", store_url, "--embedder", embedder, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if " at " not in line:
            raise RuntimeError(f"the server did not start: {line!r}")
        yield _Server(process, line.split(" at ", 1)[1].split()[0])
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


async def _load_corpus(path: Path, embedder: Embedder) -> None:
    requests = [
        RememberRequest.model_validate({**memory.remember, "agent_id": AGENT})
        for memory in load_corpus()
    ]
    async with Memory(SqliteVecStore(str(path), embedder=embedder)) as memory:
        await memory.remember_many(requests)


def _queries() -> list[dict[str, Any]]:
    return [{**query.recall, "agent_id": AGENT} for query in load_queries()]


async def _latency(
    embedder: Embedder,
    in_process: Path,
    servers: tuple[_Server, _Server],
    *,
    rounds: int,
    progress: Progress | None,
) -> dict[str, Any]:
    one, two = servers
    queries = _queries()
    samples: dict[str, list[float]] = {
        "in_process": [], "http": [], "http_bare": [], "router_2x_http": []
    }  # fmt: skip
    async with contextlib.AsyncExitStack() as stack:
        local = await stack.enter_async_context(
            Memory(SqliteVecStore(str(in_process), embedder=embedder))
        )
        remote = await stack.enter_async_context(Memory.open(one.url))
        router = await stack.enter_async_context(Memory.open([one.url, two.url], embedder=embedder))
        bare = Connection(one.url)
        stack.push_async_callback(bare.close)

        async def bare_recall(query: dict[str, Any]) -> None:
            status, body = await bare.send(Request(_PATH, json.dumps(query).encode()))
            if status != 200:
                raise RuntimeError(f"bare recall answered {status}: {body[:200]!r}")

        setups: dict[str, Callable[[dict[str, Any]], Any]] = {
            "in_process": local.recall,
            "http": remote.recall,
            "http_bare": bare_recall,
            "router_2x_http": router.recall,
        }
        for query in queries[:10]:  # warm up: model, connections, caches
            for call in setups.values():
                await call(query)
        total = rounds * len(queries)
        for turn in range(total):
            query = queries[turn % len(queries)]
            names = list(setups)
            names = names[turn % len(names) :] + names[: turn % len(names)]  # rotate who goes first
            for name in names:
                started = time.perf_counter()
                await setups[name](query)
                samples[name].append((time.perf_counter() - started) * 1000)
            if progress is not None and (turn + 1) % 50 == 0:
                progress("latency", turn + 1, total)
    out: dict[str, Any] = {name: percentiles(values) for name, values in samples.items()}
    out["http_minus_in_process_p50_ms"] = round(
        out["http"]["p50_ms"] - out["in_process"]["p50_ms"], 3
    )
    out["router_over_http_p50_ratio"] = round(
        out["router_2x_http"]["p50_ms"] / out["http"]["p50_ms"], 3
    )
    return out


def _recall_requests() -> Callable[[int], Request]:
    bodies = [json.dumps(query).encode() for query in _queries()]
    return lambda i: Request(_PATH, bodies[i % len(bodies)])


def _summary(run: LoadRun, server_cpu_s: float) -> dict[str, Any]:
    out: dict[str, Any] = {
        "requests": len(run.latencies_ms) + len(run.errors),
        "errors": len(run.errors),
        "seconds": round(run.seconds, 2),
        "per_second": round(run.per_second, 1),
        "server_cpu_s": round(server_cpu_s, 2),
        "client_cpu_s": round(run.client_cpu_s, 2),
    }
    if run.latencies_ms:
        out["latency"] = percentiles(run.latencies_ms)
    if run.errors:
        out["first_errors"] = run.errors[:3]
    return out


async def _sustained(
    server: _Server, *, rate: float, seconds: float, clients: int
) -> dict[str, Any]:
    requests = _recall_requests()
    await closed_loop(server.url, requests, total=clients * 4, clients=clients)  # warm up
    cpu = server.cpu_s()
    paced = await open_loop(server.url, requests, rate=rate, seconds=seconds, clients=clients)
    paced_summary = _summary(paced, server.cpu_s() - cpu)
    cpu = server.cpu_s()
    flat_out = await closed_loop(
        server.url, requests, total=max(1, int(rate * min(seconds, 20.0))), clients=clients
    )
    return {
        "clients": clients,
        "offered_per_second": rate,
        "open_loop": paced_summary,
        "closed_loop": _summary(flat_out, server.cpu_s() - cpu),
    }


def _mixed_requests(vectors: list[list[float]], embedder_name: str) -> Callable[[int], Request]:
    """Twenty kinds of request in turn: recalls (embedded by the server, or with the query's
    vector), gets, lists, a remember, and two bad ones (broken JSON, an unknown field). The
    remembers cycle through a hundred client ids, so after the first hundred they are replays
    and the store holds as much at the end as after the first thousand requests: memory that
    grows then is the server's, not the data's."""
    queries = _queries()

    def make(i: int) -> Request:
        query = queries[i % len(queries)]
        kind = i % 20
        if kind < 6:
            return Request(_PATH, json.dumps(query).encode())
        if kind < 12:
            vector = {"embedder": embedder_name, "vector": vectors[i % len(vectors)]}
            with_vector = {**query, "query_vector": vector}
            return Request(_PATH, json.dumps(with_vector).encode())
        if kind < 15:
            return Request("/v0.1/get", json.dumps({"agent_id": AGENT, "ids": [f"r{i}"]}).encode())
        if kind < 17:
            return Request("/v0.1/list", json.dumps({"agent_id": AGENT, "limit": 20}).encode())
        if kind == 17:  # a hundred records, written again and again: replays, no growth
            n = (i // 20) % 100
            remember = {"agent_id": f"{AGENT}-w", "id": f"w{n}", "type": "semantic",
                        "content": f"note {n}"}  # fmt: skip
            return Request("/v0.1/remember", json.dumps(remember).encode())
        if kind == 18:
            return Request(_PATH, b'{"agent_id": "a", "query":', expect=400)
        return Request(_PATH, json.dumps({**query, "qeury": "x"}).encode(), expect=400)

    return make


async def _memory(
    server: _Server, embedder: Embedder, *, total: int, clients: int, progress: Progress | None
) -> dict[str, Any]:
    texts = [str(query["query"]) for query in _queries()]
    vectors: list[list[float]] = embedder.embed(texts).tolist()
    requests = _mixed_requests(vectors, embedder.name)
    await closed_loop(server.url, requests, total=200, clients=clients)  # warm up
    samples = [(0, server.rss_mb())]
    every = max(1, total // 10)

    def tick(done: int) -> None:
        samples.append((done, server.rss_mb()))
        if progress is not None:
            progress("memory", done, total)

    cpu = server.cpu_s()
    run = await closed_loop(
        server.url, requests, total=total, clients=clients, every=every, tick=tick
    )
    samples.append((total, server.rss_mb()))
    summary = _summary(run, server.cpu_s() - cpu)
    halfway = min(samples, key=lambda sample: abs(sample[0] - total // 2))
    return {
        **summary,
        "rss_mb_before": samples[0][1],
        "rss_mb_halfway": halfway[1],
        "rss_mb_after": samples[-1][1],
        "rss_mb": [{"requests": n, "mb": mb} for n, mb in samples],
    }


@contextlib.asynccontextmanager
async def _folder() -> AsyncIterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="mnemowire-bench-http-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class _Settings:
    embedder: str
    rounds: int
    rate: float
    seconds: float
    clients: int
    requests: int


async def _run(settings: _Settings, progress: Progress | None) -> dict[str, Any]:
    embedder_name, clients = settings.embedder, settings.clients
    embedder = load_embedder(embedder_name)
    loads = {"start": load_average()}
    async with _folder() as folder:
        source = folder / "corpus.db"
        await _load_corpus(source, embedder)
        copies = [folder / f"{name}.db" for name in ("in-process", "one", "two")]
        for copy in copies:
            shutil.copy(source, copy)
        with (
            _serving(f"sqlite-vec://{copies[1]}?name=one", embedder_name) as one,
            _serving(f"sqlite-vec://{copies[2]}?name=two", embedder_name) as two,
        ):
            latency = await _latency(
                embedder, copies[0], (one, two), rounds=settings.rounds, progress=progress
            )
            loads["after_latency"] = load_average()
            sustained = await _sustained(
                one, rate=settings.rate, seconds=settings.seconds, clients=clients
            )
            loads["after_sustained"] = load_average()
            memory = await _memory(
                two, embedder, total=settings.requests, clients=clients, progress=progress
            )
    loads["end"] = load_average()
    return {
        "store": "sqlite-vec (file), dev corpus (310 memories), one server process each",
        "embedder": embedder.name,
        "queries": len(load_queries()),
        "rounds": settings.rounds,
        "latency": latency,
        "sustained": sustained,
        "memory": memory,
        "load_average": loads,
    }


def run_http(
    *,
    embedder: str = "minilm",
    rounds: int = 3,
    rate: float = 250.0,
    seconds: float = 60.0,
    clients: int = 16,
    requests: int = 100_000,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Measure the transport; see the module's docstring."""
    settings = _Settings(embedder, rounds, rate, seconds, clients, requests)
    return asyncio.run(_run(settings, progress))
