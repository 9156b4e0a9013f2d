"""A smoke run of the embedder benchmark with tiny sizes, so its code cannot rot (no timing is
asserted: numbers from a shared 2-core machine say nothing in a test)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemowire.apps.bench.embedders import Setup, parse_setup, sentences
from mnemowire.apps.bench.report import load_report
from mnemowire.apps.cli import cli
from mnemowire.embedders import ENV_CACHE
from tests.models import shared_model_cache


def test_embedder_benchmark_writes_a_report(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_CACHE, str(shared_model_cache(request)))  # reuse the tests' export
    args = ["bench", "embedders", "--setup", "onnx:1", "--setup", "hash", "--single", "3"]
    args += ["--batch-size", "4", "--rounds", "1", "--busy", "0", "--busy", "1"]
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = load_report(tmp_path / "embedders.json")  # valid under the report schema
    assert {"date", "command", "python", "cpus"} <= set(report["environment"])
    rows = report["results"]
    assert [(row["setup"], row["busy"]) for row in rows] == [
        ("onnx:1", 0),
        ("hash:auto", 0),
        ("onnx:1", 1),
        ("hash:auto", 1),
    ]
    assert rows[0]["name"] == "sentence-transformers/all-MiniLM-L6-v2"
    for row in rows:
        assert row["load_s"] > 0
        assert set(row["single_ms"]) == {"p50", "p95", "p99"}
        assert set(row["batch_per_s"]) == {"4"}
    assert "| onnx:1 | 0 |" in result.output


def test_setup_names() -> None:
    assert parse_setup("onnx:1") == Setup("onnx", 1)
    assert parse_setup("torch:auto") == Setup("torch", None)
    assert parse_setup("Torch:2:spin") == Setup("torch", 2, spin=True)
    assert parse_setup("torch:2:spin").label == "torch:2:spin"
    for bad in ("gpu", "onnx:0", "onnx:fast"):
        with pytest.raises(ValueError, match=r"bad setup|unknown backend"):
            parse_setup(bad)
    result = CliRunner().invoke(cli, ["bench", "embedders", "--setup", "gpu"])
    assert result.exit_code == 2
    assert "unknown backend 'gpu'" in result.output


def test_benchmark_sentences_are_fixed() -> None:
    assert sentences(20) == sentences(20)
    assert len(set(sentences(50))) > 30
