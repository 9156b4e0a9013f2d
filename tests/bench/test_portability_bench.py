"""A smoke run of the portability benchmark, so its code cannot rot (no timing is asserted):
it exports, verifies the archive, imports into sqlite-vec and PostgreSQL, migrates, and every
move reads back faithful, or it fails."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mnemowire.apps.bench.report import load_report
from mnemowire.apps.cli import cli


def test_the_portability_benchmark_writes_a_report(tmp_path: Path, pg_dsn: str) -> None:
    args = ["--records", "300", "--dsn", pg_dsn, "--out", str(tmp_path)]
    result = CliRunner().invoke(cli, ["bench", "portability", *args])
    assert result.exit_code == 0, result.output
    report = load_report(tmp_path / "portability.json")  # valid under the report schema
    results = report["results"]
    assert results["loaded"] == {"records": 297, "erased": 3}
    assert (results["export"]["records"], results["export"]["tombstones"]) == (297, 3)
    for name in ("import_sqlite_vec", "import_pgvector"):
        moved = results[name]
        assert moved["outcomes"] == {"imported": 297}, name
        assert moved["rerun_with_verify"]["outcomes"] == {"skipped": 297}
        assert moved["rerun_with_verify"]["faithful"]
        assert moved["verified"]["differences"] == 0
    assert results["migrate_sqlite_vec_to_pgvector"]["outcomes"] == {"imported": 297}
    assert results["export"]["history"] is True  # as the CLI exports, with the side without
    without = results["without_history"]
    assert without["import_sqlite_vec"]["outcomes"] == {"imported": 297}
    assert without["export"]["archive_mb"] <= results["export"]["archive_mb"]
    assert (tmp_path / "portability.md").read_text() in result.output + "\n"
