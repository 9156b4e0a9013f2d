"""What is the http:// store's own: opening (discovery, tokens, URL options), faults (a server
that is gone, slow, or not a mnemowire server), query vectors, and a router across servers."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from pathlib import Path

import pytest

from mnemowire.adapters.http import HttpStore
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.adapters.sqlite_vec.store import IMPLEMENTS
from mnemowire.apps.server import MemoryServer
from mnemowire.apps.transport import Tokens
from mnemowire.embedders import HashEmbedder, Vectors
from mnemowire.errors import (
    ConfigError,
    MnemowireError,
    StoreError,
    UnauthorizedError,
    UnavailableError,
)
from mnemowire.kit import json_bytes, to_wire
from mnemowire.layers.memory import Memory
from mnemowire.models import RecallRequest, RememberRequest
from mnemowire.protocol import QueryEmbedding
from tests.server._serving import serving

TOKEN = "http-store-token-0123456789abcdef"


def _store(tmp_path: Path, name: str = "memory", **options: object) -> SqliteVecStore:
    embedder = options.pop("embedder", HashEmbedder(64))
    return SqliteVecStore(str(tmp_path / f"{name}.db"), embedder=embedder, name=name)  # type: ignore[arg-type]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_opening_a_server_that_is_not_there_says_where_and_what_to_do() -> None:
    port = _free_port()
    with pytest.raises(UnavailableError, match=f"127.0.0.1:{port}.*mnemowire serve"):
        HttpStore.from_url(f"http://127.0.0.1:{port}")


def test_credentials_never_go_in_the_url() -> None:
    with pytest.raises(ConfigError, match="MNEMOWIRE_TOKEN"):
        HttpStore.from_url("http://user:secret@127.0.0.1:1")
    with pytest.raises(ConfigError, match="http://host:port"):
        HttpStore.from_url("http://")


@contextlib.contextmanager
def _not_mnemowire() -> Iterator[str]:
    """An HTTP server that answers every request 404 with an HTML page."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(404)
            self.send_header("content-type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html>nope</html>")

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_server_that_is_not_mnemowire_is_a_config_error() -> None:
    with _not_mnemowire() as url, pytest.raises(ConfigError, match="is it a mnemowire server"):
        HttpStore.from_url(url)


async def test_tokens_come_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens = Tokens([("test", TOKEN, ["a"])])
    with serving(MemoryServer(_store(tmp_path), tokens=tokens)) as url:
        with pytest.raises(UnauthorizedError, match="bearer token"):
            HttpStore.from_url(url)
        monkeypatch.setenv("ELSEWHERE", TOKEN)
        store = HttpStore.from_url(f"{url}?token_env=ELSEWHERE")
        async with Memory(store) as memory:
            stored = await memory.remember({"agent_id": "a", "type": "semantic", "content": "x"})
            assert stored.stores[0].status == "ok"


async def test_health_of_a_server_that_went_away_is_down(tmp_path: Path) -> None:
    with serving(MemoryServer(_store(tmp_path))) as url:
        store = HttpStore.from_url(url)
        assert (await store.health()).status == "ok"
    health = await store.health()
    assert health.status == "down"
    assert "cannot reach" in str(health.details)
    with pytest.raises(UnavailableError):
        await Memory(store).recall({"agent_id": "a", "query": "x"})
    await store.aclose()


class _Slow(HashEmbedder):
    def embed(self, texts: Sequence[str]) -> Vectors:
        time.sleep(0.5)
        return super().embed(texts)


async def test_a_slow_server_is_a_timeout_within_the_urls_timeout(tmp_path: Path) -> None:
    with serving(MemoryServer(_store(tmp_path, embedder=_Slow(64)))) as url:
        async with Memory(HttpStore.from_url(f"{url}?timeout=0.2")) as memory:
            started = time.monotonic()
            with pytest.raises(MnemowireError) as caught:
                await memory.recall({"agent_id": "a", "query": "tea"})
            assert time.monotonic() - started < 0.45
    assert caught.value.code == "timeout"
    assert "timeout option" in str(caught.value)


async def test_a_router_embeds_once_and_sends_the_vector(tmp_path: Path) -> None:
    embedded: list[int] = []

    class Counting(HashEmbedder):
        def embed(self, texts: Sequence[str]) -> Vectors:
            embedded.append(len(texts))
            return super().embed(texts)

    servers = [MemoryServer(_store(tmp_path, n, embedder=Counting(64))) for n in ("a", "b")]
    with serving(servers[0]) as one, serving(servers[1]) as two:
        async with Memory.open([one, two], embedder=HashEmbedder(64)) as memory:
            await memory.remember({"agent_id": "x", "type": "semantic", "content": "tea"})
            embedded.clear()
            found = await memory.recall({"agent_id": "x", "query": "tea"})
    assert found.results[0].supporting == ["a", "b"]
    assert embedded == []  # the servers searched with the router's vector


async def test_a_server_with_another_embedder_gets_the_query_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    mine = HashEmbedder(64)
    with serving(MemoryServer(_store(tmp_path, embedder=HashEmbedder(48)))) as url:
        store = HttpStore.from_url(url, embedder=mine)  # not the server's embedder
        remember = RememberRequest(agent_id="x", type="semantic", content="tea")
        await store.remember(remember)
        vector = QueryEmbedding(mine.name, mine.embed(["tea"]))
        request = RecallRequest(agent_id="x", query="tea")
        answers = [await store.recall(request, query_vector=vector) for _ in range(2)]
        await store.aclose()
    assert [a.results[0].content for a in answers] == ["tea", "tea"]
    refusals = [r for r in caplog.records if "refused query vectors" in r.getMessage()]
    assert len(refusals) == 1  # the second recall did not offer the vector again


async def test_a_router_across_servers_writes_and_forgets_every_copy(tmp_path: Path) -> None:
    stores = [_store(tmp_path, n) for n in ("a", "b")]
    with serving(MemoryServer(stores[0])) as one, serving(MemoryServer(stores[1])) as two:
        async with Memory.open([one, two]) as memory:
            stored = await memory.remember({"agent_id": "x", "type": "semantic", "content": "tea"})
            assert [s.store for s in stored.stores] == ["a", "b"]
            forgotten = await memory.forget({"agent_id": "x", "ids": [stored.id]})
            assert forgotten.forgotten_ids == [stored.id]
            got = await memory.get({"agent_id": "x", "ids": [stored.id]})
            assert got.records == []
        with pytest.raises(ConfigError, match=r"\?name="):
            Memory.open([one, f"{one}?timeout=5"])  # the same store twice: one name


def test_the_served_name_is_the_stores(tmp_path: Path) -> None:
    with serving(MemoryServer(_store(tmp_path, "kitchen"))) as url:
        assert HttpStore.from_url(url).name == "kitchen"
        renamed = HttpStore.from_url(f"{url}?name=pantry")
        assert renamed.name == "pantry"
        assert renamed.capabilities().store == "pantry"
        served = json.loads(json.dumps(renamed.capabilities().spec_version))
        assert served == IMPLEMENTS.spec_version  # the served store's, sqlite-vec's


@contextlib.contextmanager
def _answering_too_much(
    tmp_path: Path, size: int, *, declared: bool = False, on: str = "recall"
) -> Iterator[str]:
    """A server named ``hostile`` whose answer to ``on`` (a POST, or ``capabilities``) is
    ``size`` bytes, sent at once, and then never ends: a client that reads an answer whole
    before it counts waits for ever. ``declared``: with a Content-Length of its full size."""
    capabilities = json_bytes(to_wire(_store(tmp_path, "hostile").capabilities()))
    done = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def answer(self, body: bytes, endless: bool) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            if declared or not endless:
                self.send_header("content-length", str(size + 1 if endless else len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            if endless:
                done.wait(60)

        def do_GET(self) -> None:
            endless = on == "capabilities"
            self.answer(b" " * size if endless else capabilities, endless)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            self.answer(b'{"results": [' + b" " * size, endless=True)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        done.set()
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("declared", [False, True], ids=["streamed", "declared"])
async def test_an_answer_over_max_answer_fails_as_it_streams(
    tmp_path: Path, declared: bool
) -> None:
    with _answering_too_much(tmp_path, 2**20, declared=declared) as url:
        store = HttpStore.from_url(f"{url}?max_answer=65536&timeout=30")
        with pytest.raises(StoreError) as caught:
            await store.recall(RecallRequest(agent_id="a", query="tea"))
        await store.aclose()
    assert "hostile answered more than 65536 bytes" in str(caught.value)
    assert "max_answer" in str(caught.value)


def test_capabilities_over_max_answer_fail_the_opening(tmp_path: Path) -> None:
    with (
        _answering_too_much(tmp_path, 2**20, on="capabilities") as url,
        pytest.raises(StoreError, match="max_answer"),
    ):
        HttpStore.from_url(f"{url}?max_answer=65536&timeout=30")


async def test_a_router_reports_a_child_answering_too_much_and_serves_the_others(
    tmp_path: Path,
) -> None:
    """The default cap: a child sending 20 MB (more than any answer of 1,000 records at the
    sizes a server accepts) is that child's error, not 40 MB more in the router."""
    with (
        serving(MemoryServer(_store(tmp_path, "good"))) as good,
        _answering_too_much(tmp_path, 20 * 2**20) as hostile,
    ):
        async with Memory.open([good, hostile]) as memory:
            await memory.remember({"agent_id": "a", "type": "semantic", "content": "tea"})
            found = await memory.recall({"agent_id": "a", "query": "tea"})
    assert [hit.content for hit in found.results] == ["tea"]
    report = {s.store: s for s in found.stores or []}
    assert report["good"].status == "ok"
    assert report["hostile"].status == "error"
    assert "more than 16777216 bytes" in str(report["hostile"].error)
    assert "max_answer" in str(report["hostile"].error)


def test_max_answer_must_be_a_byte_count() -> None:
    with pytest.raises(ConfigError, match="max_answer='lots' must be a whole number"):
        HttpStore.from_url("http://127.0.0.1:1?max_answer=lots")
    with pytest.raises(ConfigError, match="max_answer='10' must be between 1024"):
        HttpStore.from_url("http://127.0.0.1:1?max_answer=10")
