"""The HTTP binding as a client sees it: routes, statuses, envelopes, limits and headers, on a
real server (uvicorn, a real socket) over a real sqlite-vec store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mnemowire import spec
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import Limits, MemoryServer
from mnemowire.embedders import HashEmbedder
from tests.server._serving import serving

REMEMBER = {"agent_id": "a", "type": "semantic", "content": "Alice likes tea"}


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    limits = Limits(max_body_bytes=4096, body_timeout_s=0.5, request_timeout_s=5)
    with serving(MemoryServer(store, limits=limits)) as base:
        yield base


def post(url: str, path: str, body: Any, **headers: str) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(
        url + path, content=content, headers={"content-type": "application/json", **headers}
    )


def envelope(answer: httpx.Response, status: int) -> dict[str, Any]:
    """The answer's body, once it is the spec's error envelope with ``status``."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert spec.validate("error", body) is None, body
    return dict(body)


def test_every_operation_of_every_version_has_its_route(url: str) -> None:
    stored = post(url, "/v0/remember", REMEMBER).json()
    assert spec.validate("remember.response", stored, version="v0") is None
    for version in spec.available_versions():
        found = post(url, f"/{version}/recall", {"agent_id": "a", "query": "tea"})
        assert found.status_code == 200
        assert [hit["id"] for hit in found.json()["results"]] == [stored["id"]]
        for message in ("capabilities", "health"):
            answer = httpx.get(f"{url}/{version}/{message}")
            assert answer.status_code == 200
            assert spec.validate(message, answer.json(), version=version) is None
    got = post(url, "/v0.1/get", {"agent_id": "a", "ids": [stored["id"]]})
    assert got.json()["records"][0]["content"] == "Alice likes tea"


def test_an_invalid_request_is_400_with_every_broken_rule_and_stores_nothing(url: str) -> None:
    body = envelope(post(url, "/v0.1/remember", {**REMEMBER, "confidence": 2, "tpye": "x"}), 400)
    assert body["code"] == "invalid_request"
    assert body["operation"] == "remember"
    assert {(d["path"], d["rule"]) for d in body["details"]} == {
        ("/confidence", "maximum"),
        ("/tpye", "additionalProperties"),
    }
    listed = post(url, "/v0.1/list", {"agent_id": "a"}).json()
    assert listed["records"] == []


@pytest.mark.parametrize("route", ["/v0.1/remember", "/v0/remember"])
def test_a_key_that_is_not_unicode_is_400_naming_the_text_rule(url: str, route: str) -> None:
    """A lone surrogate escaped in a key: JSON allows the escape, no UTF-8 text holds it, and
    the schema validator cannot read the object; once a 500 with a traceback in the log."""
    raw = json.dumps(REMEMBER)[:-1] + ', "metadata": {"\\ud800": 1}}'
    body = envelope(post(url, route, raw.encode()), 400)
    assert [(d["path"][:10], d["rule"]) for d in body["details"]] == [("/metadata/", "text")]
    assert post(url, "/v0.1/list", {"agent_id": "a"}).json()["records"] == []


def test_a_field_of_a_newer_version_is_refused_by_the_older_route_by_name(url: str) -> None:
    seal = {"alg": "hmac-sha256", "key_id": "k1", "mac": "0" * 64}
    body = envelope(post(url, "/v0/remember", {**REMEMBER, "seal": seal}), 400)
    assert [d["path"] for d in body["details"]] == ["/seal"]
    assert "/v0.1/" in body["message"]


def test_an_operation_of_a_newer_version_is_not_routed_in_the_older_one(url: str) -> None:
    body = envelope(post(url, "/v0/get", {"agent_id": "a", "ids": ["x"]}), 404)
    assert body["details"][0]["rule"] == "route"
    assert "/v0.1/get" in body["message"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{not json", "Expecting"),
        (b'{"agent_id": "a", "query": "tea", "k": NaN}', "NaN"),
        (b"\xff\xfe{}", "UTF-8"),
        (b"", "no body"),
    ],
)
def test_a_body_that_is_not_json_is_400(url: str, body: bytes, reason: str) -> None:
    answer = envelope(post(url, "/v0.1/recall", body), 400)
    assert answer["details"][0]["rule"] == "json"
    assert reason in answer["message"]


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin-1", ""],
)
def test_a_body_not_declared_json_is_415(url: str, content_type: str) -> None:
    answer = httpx.post(
        url + "/v0.1/remember",
        content=json.dumps(REMEMBER).encode(),
        headers={"content-type": content_type},
    )
    assert envelope(answer, 415)["details"][0]["rule"] == "contentType"


def test_json_with_a_charset_parameter_is_accepted(url: str) -> None:
    answer = post(
        url, "/v0.1/remember", REMEMBER, **{"content-type": "application/json; charset=UTF-8"}
    )
    assert answer.status_code == 200


def test_a_body_over_the_limit_is_413_declared_or_streamed(url: str) -> None:
    big = {**REMEMBER, "content": "x" * 5000}
    assert envelope(post(url, "/v0.1/remember", big), 413)["details"][0]["rule"] == "maxBytes"

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        data = json.dumps(big).encode()
        for start in range(0, len(data), 1000):
            yield data[start : start + 1000]

    streamed = httpx.post(
        url + "/v0.1/remember", content=chunks(), headers={"content-type": "application/json"}
    )
    assert envelope(streamed, 413)["details"][0]["rule"] == "maxBytes"
    assert post(url, "/v0.1/list", {"agent_id": "a"}).json()["records"] == []


def test_unknown_routes_and_methods_are_json_errors(url: str) -> None:
    body = envelope(httpx.get(url + "/v9/recall"), 404)
    assert "/v0/" in body["message"]
    assert "/v0.1/" in body["message"]
    wrong_method = httpx.get(url + "/v0.1/recall")
    assert envelope(wrong_method, 405)["details"][0]["rule"] == "method"
    assert wrong_method.headers["allow"] == "POST"
    assert envelope(httpx.delete(url + "/v0.1/capabilities"), 405)


def test_every_kind_of_answer_is_not_cached_and_not_sniffed(tmp_path: Path) -> None:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    with serving(MemoryServer(store), ui=True) as url:
        answers = {
            "operation": post(url, "/v0.1/remember", REMEMBER),
            "refused operation": post(url, "/v0.1/remember", {}),
            "capabilities": httpx.get(url + "/v0.1/capabilities"),
            "index": httpx.get(url + "/"),
            "openapi": httpx.get(url + "/openapi.json"),
            "404": httpx.get(url + "/nowhere"),
            "405": httpx.get(url + "/v0.1/recall"),
            "trailing-slash redirect": httpx.get(url + "/v0.1/capabilities/"),
            "static file": httpx.get(url + "/ui/static/htmx.min.js"),
            "static 404": httpx.get(url + "/ui/static/nowhere.js"),
            "ui redirect": httpx.get(url + "/ui"),
            "ui sign-in redirect": httpx.get(url + "/ui/"),
            "ui page": httpx.get(url + "/ui/login"),
            "foreign host": httpx.get(url + "/", headers={"host": "attacker.example"}),
        }
    assert answers["trailing-slash redirect"].status_code == 307
    assert answers["static file"].status_code == 200
    for kind, answer in answers.items():
        assert answer.headers.get_list("cache-control") == ["no-store"], kind
        assert answer.headers.get_list("x-content-type-options") == ["nosniff"], kind
        assert "server" not in answer.headers, kind


def test_a_store_error_code_maps_to_its_status(url: str) -> None:
    stored = post(url, "/v0.1/remember", {**REMEMBER, "id": "r1"}).json()
    conflict = post(url, "/v0.1/remember", {**REMEMBER, "id": "r1", "content": "other"})
    assert envelope(conflict, 409)["code"] == "conflict"
    missing = post(
        url, "/v0.1/merge", {"agent_id": "a", "canonical": stored["id"], "duplicates": ["nope"]}
    )
    assert envelope(missing, 404)["code"] == "not_found"
    foreign = post(
        url,
        "/v0.1/recall",
        {
            "agent_id": "a",
            "query": "tea",
            "query_vector": {"embedder": "other", "vector": [1.0, 0.0]},
        },
    )
    assert envelope(foreign, 422)["code"] == "unsupported"


def test_the_index_and_the_openapi_document(url: str) -> None:
    index = httpx.get(url + "/").json()
    assert index["spec_versions"] == ["v0", "v0.1", "v0.2", "v0.3", "v0.4"]
    served = httpx.get(url + "/openapi.json").json()
    assert served == spec.openapi_document([spec.read_spec(v) for v in spec.available_versions()])


def whole_response(sock: Any) -> bytes:
    """An HTTP response read to its end: the server writes the status line and headers, then
    the body, and they may arrive apart."""
    data = b""
    while True:
        head, blank, body = data.partition(b"\r\n\r\n")
        if blank:
            length = head.lower().partition(b"content-length: ")[2].split(b"\r\n")[0]
            if len(body) >= int(length or 0):
                return data
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def test_the_slow_body_is_408_and_the_server_keeps_serving(url: str) -> None:
    import socket
    import time

    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as slow:
        slow.sendall(
            f"POST /v0.1/remember HTTP/1.1\r\nHost: {host}:{port}\r\n".encode()
            + b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"agent_id"'
        )
        started = time.monotonic()
        slow.settimeout(5)
        answer = whole_response(slow)
        assert time.monotonic() - started < 3
    assert answer.startswith(b"HTTP/1.1 408")
    assert b'"rule":"timeout"' in answer
    assert post(url, "/v0.1/remember", REMEMBER).status_code == 200
