"""``mnemowire serve`` as an operator runs it: a real process, a real port, a real signal."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from mnemowire.apps.cli import Exit, cli
from mnemowire.apps.transport import Binding, check_binding, is_loopback
from mnemowire.errors import ConfigError

MNEMOWIRE = shutil.which("mnemowire") or str(Path(sys.executable).with_name("mnemowire"))
TOKEN = "cli-test-token-0123456789abcdef"


def start(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """``mnemowire serve ARGS`` on a free port; the process and the URL it announced."""
    process = subprocess.Popen(
        [MNEMOWIRE, "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        process.wait(10)
        assert process.stderr is not None
        raise AssertionError(f"serve did not start: {process.stderr.read()}")
    url = line.split(" at ", 1)[1].split()[0]
    return process, url


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"sqlite-vec://{tmp_path / 'memory.db'}?embedder=hash:64"


def test_serve_announces_its_port_serves_and_stops_on_sigterm(store_url: str) -> None:
    process, url = start("--store", store_url)
    try:
        assert url.startswith("http://127.0.0.1:")
        stored = httpx.post(
            url + "/v0.1/remember", json={"agent_id": "a", "type": "semantic", "content": "tea"}
        )
        assert stored.status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=20)
    # uvicorn re-raises the signal it got: mnemowire's handler turns it into exit 128 + 15
    assert process.returncode in (0, 128 + signal.SIGTERM)
    assert "no tokens: serving without authentication, on loopback only" in err
    assert "store closed" in err


def test_serve_ui_announces_and_serves_the_reviewer_pages(store_url: str) -> None:
    process = subprocess.Popen(
        [MNEMOWIRE, "serve", "--port", "0", "--store", store_url, "--ui"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "reviewer UI at http://127.0.0.1:" in line
        ui = line.rsplit(" at ", 1)[1].rstrip(")\n")
        assert ui.endswith("/ui/")
        login = httpx.get(ui, follow_redirects=True)
        assert login.status_code == 200
        assert "Sign in to review" in login.text
        assert httpx.get(ui.replace("/ui/", "/ui/static/htmx.min.js")).status_code == 200
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_serve_without_ui_serves_no_pages(store_url: str) -> None:
    process, url = start("--store", store_url)
    try:
        assert httpx.get(url + "/ui/").status_code == 404
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_serve_with_tokens_from_the_environment(store_url: str) -> None:
    tokens = {"tokens": [{"name": "t", "token": TOKEN, "agents": ["a"]}]}
    process, url = start("--store", store_url, env={"MNEMOWIRE_SERVER_TOKENS": json.dumps(tokens)})
    try:
        assert httpx.get(url + "/v0.1/capabilities").status_code == 401
        authorized = httpx.get(
            url + "/v0.1/capabilities", headers={"authorization": f"Bearer {TOKEN}"}
        )
        assert authorized.status_code == 200
    finally:
        process.terminate()
        _, err = process.communicate(timeout=20)
    assert TOKEN not in err


def test_an_http_store_url_reaches_the_server_from_the_cli(store_url: str) -> None:
    process, url = start("--store", store_url)
    try:
        env = {**os.environ, "MNEMOWIRE_STORE": url}
        remembered = subprocess.run(
            [MNEMOWIRE, "remember", "--agent", "a", "--type", "semantic", "Alice likes tea"],
            capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        assert remembered.returncode == 0, remembered.stderr
        recalled = subprocess.run(
            [MNEMOWIRE, "recall", "--agent", "a", "tea"],
            capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        assert recalled.returncode == 0, recalled.stderr
        assert json.loads(recalled.stdout)["results"][0]["content"] == "Alice likes tea"
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_serving_beyond_loopback_without_tokens_is_a_usage_error(store_url: str) -> None:
    result = CliRunner().invoke(cli, ["serve", "--store", store_url, "--host", "0.0.0.0"])
    assert result.exit_code == Exit.USAGE
    assert "without tokens" in result.output
    assert "--tokens" in result.output


def test_a_bad_tokens_file_is_a_usage_error(tmp_path: Path, store_url: str) -> None:
    bad = tmp_path / "tokens.json"
    bad.write_text(json.dumps({"tokens": [{"name": "x", "token": "short", "agents": ["a"]}]}))
    result = CliRunner().invoke(cli, ["serve", "--store", store_url, "--tokens", str(bad)])
    assert result.exit_code == Exit.USAGE
    assert "at least 16" in result.output


def test_serve_answers_its_allowed_hosts_and_refuses_others(store_url: str) -> None:
    process, url = start("--store", store_url, "--allowed-host", "memory.example.com")
    try:
        assert httpx.get(url + "/", headers={"host": "memory.example.com"}).status_code == 200
        assert httpx.get(url + "/").status_code == 200
        refused = httpx.get(url + "/", headers={"host": "attacker.example"})
        assert refused.status_code == 421
        assert refused.json()["details"][0]["rule"] == "host"
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_a_malformed_allowed_host_is_a_usage_error(store_url: str) -> None:
    args = ["serve", "--store", store_url, "--allowed-host", "http://memory.example.com"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == Exit.USAGE
    assert "--allowed-host 'http://memory.example.com' is not a host name" in result.output


def test_a_taken_port_is_a_usage_error(store_url: str) -> None:
    process, url = start("--store", store_url)
    try:
        port = url.rsplit(":", 1)[1]
        result = CliRunner().invoke(cli, ["serve", "--store", store_url, "--port", port])
        assert result.exit_code == Exit.USAGE
        assert "cannot listen" in result.output
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_the_loopback_rule() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.1", "example.org"))
    with pytest.raises(ConfigError, match="without tokens"):
        check_binding(Binding(host="::"), authenticated=False)
    assert check_binding(Binding(host="0.0.0.0"), authenticated=True) == [
        "tokens travel in clear text without TLS: give --tls-cert and --tls-key, or put a TLS "
        "proxy in front"
    ]
    with pytest.raises(ConfigError, match="both"):
        check_binding(Binding(certfile="cert.pem"), authenticated=True)


def test_serve_stops_promptly_on_sigint(store_url: str) -> None:
    process, _ = start("--store", store_url)
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=20)
    assert time.monotonic() - started < 10


def test_serve_over_several_stores_is_a_router(tmp_path: Path) -> None:
    urls = [f"sqlite-vec://{tmp_path / n}.db?embedder=hash:64&name={n}" for n in ("a", "b")]
    process, url = start("--store", urls[0], "--store", urls[1])
    try:
        stored = httpx.post(
            url + "/v0.1/remember", json={"agent_id": "a", "type": "semantic", "content": "tea"}
        ).json()
        assert [s["store"] for s in stored["stores"]] == ["a", "b"]
        assert httpx.get(url + "/").json()["store"].startswith("router")
    finally:
        process.terminate()
        process.communicate(timeout=20)
