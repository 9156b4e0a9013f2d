"""``mnemowire bench adapter`` on the real mem0: the adapter and mem0's own API, side by side
(remember, recall, and an import of the same memories as archive pages)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mnemowire.apps.bench.report import load_report
from mnemowire.apps.cli import cli
from mnemowire.apps.cli._app import Exit


def test_a_run_publishes_a_valid_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    command = ["bench", "adapter", "--store", "mem0://{tmp}/mem0", "--rounds", "1"]
    result = CliRunner().invoke(cli, [*command, "--out", str(out)])
    assert result.exit_code == Exit.OK, result.output
    results = load_report(out / "adapter.json")["results"]  # validated against its schema
    assert results["backend"].startswith("mem0ai")
    for operation, n in (("remember", 310), ("recall", 165)):
        assert results[operation]["adapter"]["n"] == results[operation]["native"]["n"] == n
    moved = results["import"]
    assert moved["records"] == 310
    assert moved["adapter_records_per_s"] > 0
    assert moved["native_records_per_s"] > 0
    text = (out / "adapter.md").read_text()
    assert "Adapter overhead at p50" in text
    assert "Import of the 310 memories as archive pages" in text


def test_a_store_without_a_baseline_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["bench", "adapter", "--store", "sqlite-vec://:memory:"])
    assert result.exit_code == Exit.USAGE
    assert "mem0://" in result.output
