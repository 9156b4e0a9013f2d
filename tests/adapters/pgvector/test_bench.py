"""``mnemowire bench pgvector`` end to end, at a size that takes seconds (the numbers are the
benchmark's business; this checks the command runs, reports every measure and cleans up)."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from mnemowire.apps.cli import cli


def test_the_benchmark_runs_against_a_given_server(
    pg_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEMOWIRE_BENCH_CACHE", str(tmp_path / "cache"))
    args = ["bench", "pgvector", "--size", "300", "--queries", "5", "--live-rows", "40"]
    args += ["--embedder", "hash:32", "--dsn", pg_dsn, "--out", str(tmp_path)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "| vector recall@10 vs exact |" in result.output
    report = json.loads((tmp_path / "pgvector.json").read_text())
    assert report["memories"] == 300
    assert report["small_tenant"] == {
        "records": 10,
        "k": 10,
        "returned": 10,
        "all_its_own": True,
    }
    assert 0 < report["recall"]["vector_recall_at_10"] <= 1
    assert report["bulk_ingest"]["per_second"] > 0
    assert report["live_index_ingest"]["memories"] == 40
    with psycopg.connect(pg_dsn) as conn:  # its schema is gone
        left = conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'bench_%'")
        assert left.fetchone() == (0,)
