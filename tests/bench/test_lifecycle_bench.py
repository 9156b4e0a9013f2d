"""A smoke run of the lifecycle benchmark, so its code cannot rot (no timing is asserted): it
writes a report valid under the report schema, with both write sides measured and the
planted duplicates of a small consolidation found on both stores."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mnemowire.apps.bench.report import load_report
from mnemowire.apps.cli import cli


def test_the_lifecycle_benchmark_writes_a_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    command = ["bench", "lifecycle", "--versions", "5", "--rounds", "3", "--records", "500"]
    command += ["--held", "200", "--planned", "404"]
    result = CliRunner().invoke(cli, [*command, "--out", str(out)])
    assert result.exit_code == 0, result.output
    results = load_report(out / "lifecycle.json")["results"]  # valid under the report schema
    assert results["history"]["versions"] == 5
    assert {store: steps["n"] for store, steps in results["procedure_steps"].items()} == {
        "sqlite-vec": 3,
        "pgvector": 3,
    }
    assert "a procedure run's step" in (out / "lifecycle.md").read_text()
    assert results["write_cost"]["with_history"]["records_per_s"] > 0
    assert results["write_cost"]["without_history"]["records_per_s"] > 0
    assert "| cost of history |" in (out / "lifecycle.md").read_text()
    for store in ("sqlite-vec", "pgvector"):
        plan = results["consolidate_plan"][store]
        assert (plan["records"], plan["planted_pairs"]) == (404, 4)
        assert plan["planted_found"] == 4  # every planted copy is found, on both stores
    assert [row["file"] for row in results["duplicates"]] == [
        "duplicates-tune.jsonl",
        "duplicates-holdout.jsonl",
    ]
