"""A smoke run of the validation benchmark, so its code cannot rot (no timing is asserted)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mnemowire.apps.bench.report import load_report
from mnemowire.apps.cli import cli


def test_validation_benchmark_writes_a_report(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["bench", "validation", "--seconds", "0.01", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    report = load_report(tmp_path / "validation.json")  # valid under the report schema
    assert {"date", "command", "python", "cpus", "load_average"} <= set(report["environment"])
    assert report["benchmark"] == "validation"
    assert report["results"][0]["case"] == "remember (typical)"
    assert all(row["mnemowire"]["p50_us"] > 0 for row in report["results"])
    assert (tmp_path / "validation.md").read_text() in result.output + "\n"
