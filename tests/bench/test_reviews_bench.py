"""A smoke run of the review-queue benchmark, so its code cannot rot (no timing is asserted):
it lists full pages with every diff and decides through the boundary, or it fails."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mnemowire.apps.bench.report import load_report
from mnemowire.apps.cli import cli


def test_the_reviews_benchmark_writes_a_report(tmp_path: Path) -> None:
    args = ["--pending", "300", "--existing", "300", "--pages", "3", "--decisions", "5"]
    result = CliRunner().invoke(cli, ["bench", "reviews", *args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = load_report(tmp_path / "reviews.json")  # valid under the report schema
    assert report["benchmark"] == "reviews"
    results = report["results"]
    assert results["list_page"]["n"] == 3
    assert results["decision"]["remember"]["decide"]["n"] == 5
    assert (tmp_path / "reviews.md").read_text() in result.output + "\n"


def test_more_decisions_than_records_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["bench", "reviews", "--pending", "10", "--decisions", "11"])
    assert result.exit_code == 2
    assert "--decisions" in result.output
