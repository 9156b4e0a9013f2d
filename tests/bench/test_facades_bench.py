"""A smoke run of the facades benchmark, so its code cannot rot (no timing is asserted): every
facade and the call it wraps, on stores of their own, or it fails."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mnemowire.apps.bench.report import load_report
from mnemowire.apps.cli import cli
from mnemowire.apps.cli._app import Exit


def test_the_facades_benchmark_writes_a_report(tmp_path: Path) -> None:
    store = "sqlite-vec://{tmp}/memory.db?embedder=hash:64"
    out = tmp_path / "out"
    command = ["bench", "facades", "--store", store, "--rounds", "1", "--out", str(out)]
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == Exit.OK, result.output
    results = load_report(out / "facades.json")["results"]  # valid under the report schema
    assert [run["facade"] for run in results["facades"]] == ["keywords", "mem0", "langgraph"]
    for run in results["facades"]:
        for operation, n in (("remember", 310), ("recall", 165)):
            assert run[operation]["facade"]["n"] == run[operation]["wrapped"]["n"] == n
    assert "| mem0 | recall |" in (out / "facades.md").read_text()
