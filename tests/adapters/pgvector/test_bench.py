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


def test_bench_scale_reports_the_vacuum_a_maintained_store_gets(
    pg_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store's VACUUM after each load is timed apart and is part of the report (the report
    schema once refused it, so `bench scale` over pgvector failed after measuring)."""
    monkeypatch.setenv("MNEMOWIRE_BENCH_CACHE", str(tmp_path / "cache"))
    store = pg_dsn.replace("postgresql://", "pgvector://", 1)
    store += f"{'&' if '?' in store else '?'}schema=bench_scale"
    args = ["bench", "scale", "--embedder", "hash", "--sizes", "40", "--queries", "4"]
    args += ["--ingest", "10", "--spread-agents", "1", "--store", store, "--out", str(tmp_path)]
    try:
        result = CliRunner().invoke(cli, args)
    finally:  # the store outlives the run (a given URL): its schema is this test's to drop
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute("DROP SCHEMA IF EXISTS bench_scale CASCADE")
    assert result.exit_code == 0, result.output
    (layout,) = json.loads((tmp_path / "scale.json").read_text())["results"]["stores"][0]["layouts"]
    assert layout["vacuum_seconds"] >= 0
    assert layout["vector_recall_at_10_questions"] is not None
