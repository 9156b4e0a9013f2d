"""A smoke run of the validation benchmark, so its code cannot rot (no timing is asserted)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mnemowire.cli import cli


def test_validation_benchmark_writes_a_report(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["bench", "validation", "--seconds", "0.01", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "validation.json").read_text())
    assert {"date", "command", "python", "cpus"} <= set(report["environment"])
    assert report["validation"][0]["case"] == "remember (typical)"
    assert all(row["mnemowire"]["p50_us"] > 0 for row in report["validation"])
