"""``mnemowire bench http``: its load generator, and a whole (small) run with real servers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.bench._load import Connection, Request, closed_loop, open_loop
from mnemowire.apps.bench.report import load_report
from mnemowire.apps.cli import Exit, cli
from mnemowire.apps.server import MemoryServer
from mnemowire.embedders import HashEmbedder
from tests.server._serving import serving

RECALL = Request("/v0.1/recall", json.dumps({"agent_id": "a", "query": "tea"}).encode())


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    with serving(MemoryServer(store)) as base:
        yield base


async def test_a_connection_is_kept_alive_and_reads_every_answer(url: str) -> None:
    connection = Connection(url)
    try:
        for _ in range(3):
            status, body = await connection.send(RECALL)
            assert status == 200
            assert json.loads(body)["results"] == []
        status, body = await connection.send(Request("/v0.1/recall", b"{", expect=400))
        assert status == 400
        assert json.loads(body)["code"] == "invalid_request"
    finally:
        await connection.close()


async def test_open_loop_keeps_its_pace_and_counts_unexpected_answers(url: str) -> None:
    def requests(i: int) -> Request:
        return RECALL if i % 4 else Request("/v0.1/recall", b"{")  # expects 200: wrong

    run = await open_loop(url, requests, rate=40, seconds=1.0, clients=4)
    assert len(run.latencies_ms) == 40
    assert len(run.errors) == 10
    assert "HTTP 400" in run.errors[0]
    assert run.seconds >= 0.95


async def test_closed_loop_sends_exactly_the_total_and_ticks(url: str) -> None:
    ticks: list[int] = []
    run = await closed_loop(url, lambda _: RECALL, total=50, clients=4, every=10, tick=ticks.append)
    assert len(run.latencies_ms) == 50
    assert not run.errors
    assert ticks == [10, 20, 30, 40, 50]


def test_a_small_run_publishes_a_valid_report_with_its_plot(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli,
        [
            "bench", "http", "--embedder", "hash:64", "--rounds", "1", "--rate", "40",
            "--seconds", "1", "--clients", "4", "--requests", "300", "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == Exit.OK, result.output
    report = load_report(out / "http.json")  # validated against spec/bench/report.schema.json
    results = report["results"]
    assert results["latency"]["http"]["n"] == 165
    assert results["sustained"]["open_loop"]["errors"] == 0
    assert results["sustained"]["open_loop"]["requests"] == 40
    memory = results["memory"]
    assert memory["errors"] == 0  # the bad tenth were answered 400, as expected
    assert memory["requests"] == 300
    assert [point["requests"] for point in memory["rss_mb"]][-1] == 300
    assert (out / "http.md").read_text().startswith("Measured")
    assert (out / "http.png").stat().st_size > 10_000
