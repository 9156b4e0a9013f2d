"""Connections that never finish their request (slowloris) on a real server with real sockets:
the request line and headers must arrive within ``--header-timeout`` and 64 KiB, a body nobody
reads cannot hold its connection either, and authenticated callers get through while such
connections hold every file descriptor the server may open (docs/transports.md#http.limits)."""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import Limits, MemoryServer
from mnemowire.embedders import HashEmbedder
from tests.server._serving import serving

MNEMOWIRE = shutil.which("mnemowire") or str(Path(sys.executable).with_name("mnemowire"))
TOKEN = "slow-callers-token-0123456789abcdef"
#: long enough for a test's own requests, short enough to wait for
BOUND_S = 0.5
#: what a test waits for the server to close a connection before it calls the server stuck
STUCK_S = 15


@pytest.fixture
def address(tmp_path: Path) -> Iterator[tuple[str, int]]:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    with serving(MemoryServer(store, limits=Limits(header_timeout_s=BOUND_S))) as url:
        host, port = url.removeprefix("http://").split(":")
        yield host, int(port)


def head(address: tuple[str, int], method: str, path: str, **headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {address[0]}:{address[1]}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def closed_by_server(sock: socket.socket, trickle: bytes = b"") -> bytes:
    """Send ``trickle`` a byte every 0.1 s, or nothing, until the server closes the connection;
    what it sent before closing. Fails when it is still open after STUCK_S."""
    sock.setblocking(False)
    received = b""
    deadline = time.monotonic() + STUCK_S
    while time.monotonic() < deadline:
        readable, _, _ = select.select([sock], [], [], 0.1)
        if readable:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                return received
            if not chunk:
                return received
            received += chunk
        elif trickle:
            try:
                sock.send(trickle[:1])
            except (BrokenPipeError, ConnectionResetError):
                return received
            trickle = trickle[1:]
    raise AssertionError(f"the server still held the connection after {STUCK_S} s")


def test_a_partial_request_line_is_closed_within_the_bound(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as sock:
        sock.sendall(b"GET /v0.2/hea")
        assert closed_by_server(sock) == b""


def test_a_connection_that_sends_nothing_is_closed_within_the_bound(
    address: tuple[str, int],
) -> None:
    with socket.create_connection(address) as sock:
        assert closed_by_server(sock) == b""


def test_headers_trickled_a_byte_at_a_time_are_cut_off(address: tuple[str, int]) -> None:
    request = head(address, "GET", "/v0.2/health", **{"X-Slow": "a" * 400})
    with socket.create_connection(address) as sock:
        assert closed_by_server(sock, trickle=request) == b""


def test_a_kept_alive_connection_must_send_its_next_request_whole(
    address: tuple[str, int],
) -> None:
    with socket.create_connection(address) as sock:
        sock.sendall(head(address, "GET", "/v0.2/health"))
        first = b""
        while b"}" not in first:  # the whole JSON answer, which may arrive in two writes
            first += sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /v0.2/hea")
        assert closed_by_server(sock) == b""


def test_a_body_nobody_reads_cannot_hold_the_connection(address: tuple[str, int]) -> None:
    request = head(address, "POST", "/nowhere", **{"Content-Length": "1000000"})
    with socket.create_connection(address) as sock:
        sock.sendall(request)
        answer = closed_by_server(sock, trickle=b"x" * 1000)
    assert answer.startswith(b"HTTP/1.1 404")


def test_headers_still_coming_past_64_kib_are_431_and_the_server_keeps_serving(
    address: tuple[str, int],
) -> None:
    filler = {f"X-Filler-{i}": "a" * 1000 for i in range(70)}
    endless = head(address, "GET", "/v0.2/health", **filler).removesuffix(b"\r\n")
    with socket.create_connection(address) as sock:
        try:
            for start in range(0, len(endless), 8192):
                sock.sendall(endless[start : start + 8192])
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before all of it was sent
        answer = closed_by_server(sock)
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 431")
    envelope = json.loads(body)
    assert spec.validate("error", envelope) is None
    assert envelope["details"][0]["rule"] == "maxBytes"
    url = f"http://{address[0]}:{address[1]}"
    assert httpx.get(url + "/v0.2/health").status_code == 200


@pytest.mark.skipif(not hasattr(resource, "prlimit"), reason="prlimit is Linux's")
def test_callers_get_through_once_held_connections_are_cut(tmp_path: Path) -> None:
    """A server allowed 64 file descriptors, 100 connections holding a request line open: the
    authenticated caller retries until it is served (before the bound, it never was)."""
    tokens = {"tokens": [{"name": "ops", "token": TOKEN, "agents": ["*"]}]}
    store = f"sqlite-vec://{tmp_path / 'memory.db'}?embedder=hash:64"
    process = subprocess.Popen(
        [MNEMOWIRE, "serve", "--port", "0", "--store", store, "--header-timeout", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "MNEMOWIRE_SERVER_TOKENS": json.dumps(tokens)},
    )
    held: list[socket.socket] = []
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split(" at ", 1)[1].split()[0]
        resource.prlimit(process.pid, resource.RLIMIT_NOFILE, (64, 64))  # it serves: now a few
        host, port = url.removeprefix("http://").split(":")
        for _ in range(100):
            sock = socket.create_connection((host, int(port)))
            sock.sendall(b"GET /v0.2/hea")
            held.append(sock)
        served = None
        deadline = time.monotonic() + STUCK_S
        while served is None and time.monotonic() < deadline:
            try:
                served = httpx.get(
                    url + "/v0.2/health", headers={"authorization": f"Bearer {TOKEN}"}, timeout=2
                )
            except httpx.HTTPError:
                time.sleep(0.2)
        assert served is not None, f"no caller got through in {STUCK_S} s"
        assert served.status_code == 200
        assert all(closed_by_server(sock) == b"" for sock in held[:5])
    finally:
        for sock in held:
            sock.close()
        process.terminate()
        process.communicate(timeout=20)
