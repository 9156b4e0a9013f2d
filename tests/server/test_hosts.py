"""DNS rebinding and cross-site requests (docs/transports.md#http.hosts): a server answers only
the Host names it is reached by and refuses a browser's foreign Origin, before anything reaches
the store or the reviewer UI, on a real server over a real sqlite-vec store."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import Hosts, MemoryServer
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import ConfigError
from tests.server._serving import serving

REMEMBER = {"agent_id": "a", "type": "semantic", "content": "Alice likes tea"}
STAGED = {**REMEMBER, "approval_required": True}


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    """A server without tokens, as the README's first example runs it (loopback only)."""
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    with serving(MemoryServer(store), ui=True) as base:
        yield base


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def refusal(answer: httpx.Response, status: int, rule: str) -> str:
    """The refusal's message, once it is the spec's error envelope with ``status`` and ``rule``."""
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert spec.validate("error", body) is None, body
    assert body["code"] == "invalid_request"
    assert [d["rule"] for d in body["details"]] == [rule]
    assert answer.headers["cache-control"] == "no-store"
    return str(body["message"])


def records(url: str) -> list[Any]:
    listed = httpx.post(url + "/v0.2/list", json={"agent_id": "a", "states": ["active"]}).json()
    return list(listed["records"])


def test_a_rebound_name_reads_and_writes_nothing(url: str) -> None:
    stored = httpx.post(url + "/v0.2/remember", json=REMEMBER).json()
    rebound = {"host": f"attacker.example:{port_of(url)}"}
    read = httpx.post(url + "/v0.2/get", json={"agent_id": "a", "ids": [stored["id"]]},
                      headers=rebound)  # fmt: skip
    message = refusal(read, 421, "host")
    assert "attacker.example" in message
    assert "--allowed-host" in message
    write = httpx.post(url + "/v0.2/remember", json={**REMEMBER, "content": "x"}, headers=rebound)
    refusal(write, 421, "host")
    assert [r["content"] for r in records(url)] == ["Alice likes tea"]
    for path in ("/", "/openapi.json", "/v0.2/health", "/nowhere"):
        refusal(httpx.get(url + path, headers=rebound), 421, "host")


def test_a_rebound_name_cannot_approve_a_staged_write_in_the_ui(url: str) -> None:
    review = httpx.post(url + "/v0.2/remember", json=STAGED).json()["id"]
    rebound = {"host": f"attacker.example:{port_of(url)}"}
    with httpx.Client(base_url=url, headers=rebound) as page:
        refusal(page.get("/ui/login"), 421, "host")
        refusal(page.post("/ui/login", data={"nonce": "x", "name": "eve"}), 421, "host")
        refusal(page.post(f"/ui/reviews/{review}/decide", data={"decision": "approve"}),
                421, "host")  # fmt: skip
    decided = httpx.post(url + "/v0.2/decide", headers=rebound,
                         json={"agent_id": "a", "review_id": review, "decision": "approve",
                               "reviewer": "eve"})  # fmt: skip
    refusal(decided, 421, "host")
    pending = httpx.post(url + "/v0.2/reviews", json={"agent_id": "a"}).json()["reviews"]
    assert [r["review_id"] for r in pending] == [review]


def test_the_loopback_names_at_the_servers_port_are_answered(url: str) -> None:
    port = port_of(url)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        answer = httpx.post(url + "/v0.2/remember", json=REMEMBER, headers={"host": host})
        assert answer.status_code == 200, (host, answer.text)
    for host in ("127.0.0.1", f"127.0.0.1:{port + 1}", f"localhost.attacker.example:{port}", ""):
        refusal(httpx.get(url + "/", headers={"host": host}), 421, "host")


def test_a_browsers_foreign_origin_is_refused(url: str) -> None:
    port = port_of(url)
    for origin in ("http://attacker.example", f"http://localhost:{port + 1}", "null"):
        answer = httpx.post(url + "/v0.2/remember", json=REMEMBER, headers={"origin": origin})
        assert "--allowed-host" in refusal(answer, 403, "origin")
    assert records(url) == []
    own = httpx.post(url + "/v0.2/remember", json=REMEMBER, headers={"origin": url})
    assert own.status_code == 200
    localhost = f"http://localhost:{port}"
    assert httpx.get(url + "/", headers={"origin": localhost}).status_code == 200


def test_allowed_hosts_add_names_at_any_port_or_at_one(tmp_path: Path) -> None:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    hosts = Hosts.of("127.0.0.1", ["memory.example.com", "other.example:8443"])
    with serving(MemoryServer(store), hosts=hosts) as url:
        for host in ("memory.example.com", "Memory.Example.com:443", f"127.0.0.1:{port_of(url)}",
                     "other.example:8443"):  # fmt: skip
            assert httpx.get(url + "/", headers={"host": host}).status_code == 200, host
        refusal(httpx.get(url + "/", headers={"host": "other.example"}), 421, "host")
        refusal(httpx.get(url + "/", headers={"host": "attacker.example"}), 421, "host")
        behind_tls = {"host": "memory.example.com", "origin": "https://memory.example.com"}
        assert httpx.get(url + "/", headers=behind_tls).status_code == 200
        foreign = {"host": "memory.example.com", "origin": "https://attacker.example"}
        refusal(httpx.get(url + "/", headers=foreign), 403, "origin")


def test_on_every_address_with_no_names_any_host_is_answered_but_origins_still_checked(
    tmp_path: Path,
) -> None:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    with serving(MemoryServer(store), hosts=Hosts.of("0.0.0.0", [])) as url:
        reached = {"host": "memhost.lan:8765"}
        assert httpx.get(url + "/", headers=reached).status_code == 200
        own = {**reached, "origin": "http://memhost.lan:8765"}
        assert httpx.get(url + "/", headers=own).status_code == 200
        foreign = {**reached, "origin": "http://attacker.example:8765"}
        refusal(httpx.get(url + "/", headers=foreign), 403, "origin")


@pytest.mark.parametrize(
    "name", ["", "http://memory.example.com", "memory.example.com:port", "a b", "x:99999"]
)
def test_a_malformed_allowed_host_is_a_config_error_naming_the_flag(name: str) -> None:
    with pytest.raises(ConfigError, match=re.escape("--allowed-host")):
        Hosts.of("127.0.0.1", [name])
