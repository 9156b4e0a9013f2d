"""Smoke runs of ``mnemowire bench quality|latency|scale|all`` at tiny sizes with the hash
embedder (what is checked is that the code runs and writes valid reports, not any number;
no timing is asserted), and the store handling they share."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemowire import registry
from mnemowire.apps.bench._stores import BenchClock, display, opened
from mnemowire.apps.bench.markdown import render
from mnemowire.apps.bench.report import load_report, make_report, validate_report
from mnemowire.apps.bench.suite import SUITE
from mnemowire.apps.cli import cli
from mnemowire.embedders import HashEmbedder
from mnemowire.layers.memory import Memory
from mnemowire.protocol import MemoryStore
from mnemowire.registry import open_store

PNG = b"\x89PNG\r\n\x1a\n"
TINY = ["--embedder", "hash", "--sizes", "60,120", "--queries", "3", "--ingest", "20"]
TINY += ["--floors", "0,0.5", "--rounds", "1", "--budgets", "0,5"]


def test_all_writes_a_valid_report_per_benchmark(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["bench", "all", *TINY, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    names = {path.name for path in tmp_path.iterdir()}
    for benchmark in SUITE:
        assert {f"{benchmark}.json", f"{benchmark}.md"} <= names
        report = load_report(tmp_path / f"{benchmark}.json")  # validates against the schema
        assert report["benchmark"] == benchmark
        env = report["environment"]
        assert env["embedder"]["name"] == "mnemowire-hash-v1/64"
        assert env["stores"] == ["sqlite-vec://{tmp}/bench.db"]
        assert len(env["load_average"]["end"]) in (0, 3)
        assert (tmp_path / f"{benchmark}.md").read_text() == render(report)
    for png in ("quality-floor", "quality-classes", "latency", "scale", "adversarial"):
        assert (tmp_path / f"{png}.png").read_bytes()[:8] == PNG
    summary = (tmp_path / "summary.md").read_text()
    assert "| class | queries | R@1 |" in summary
    assert "| K | R@5 rrf |" in summary

    quality = load_report(tmp_path / "quality.json")["results"]
    run, holdout = quality["stores"]
    assert (run["corpus"], holdout["corpus"]) == ("dev", "holdout")
    assert run["backdated"] is True
    assert run["skipped"] == []
    assert quality["config"]["corpora"]["dev"]["memories"] == 310
    assert quality["config"]["corpora"]["holdout"]["memories"] == 360
    assert len(holdout["queries"]) == 163
    for move in quality["transfer"]:  # every recommended floor judged on the other corpus
        assert {move["tuned_on"], move["judged_on"]} == {"dev", "holdout"}
    assert [c["class"] for c in run["classes"]][-1] == "no_match"
    assert [p["floor"] for p in run["floor"]["curve"]] == [0.0, 0.5]
    assert len(run["queries"]) == 165
    assert not any(label.startswith("unknown:") for q in run["queries"] for label in q["returned"])
    latency = load_report(tmp_path / "latency.json")["results"]["stores"][0]
    assert latency["single"]["ingest"]["n"] == 310
    assert latency["fused"]["recall"]["n"] == 165
    assert latency["fused"]["stores"] == 2
    scale = load_report(tmp_path / "scale.json")["results"]["stores"][0]
    assert [(row["memories"], row["agents"]) for row in scale["layouts"]] == [
        (60, 1),
        (120, 1),
        (120, 10),
    ]
    for row in scale["layouts"]:  # 3 probes: 1 question, 2 template sentences
        questions, templates = (
            row["vector_recall_at_10_questions"],
            row["vector_recall_at_10_templates"],
        )
        assert row["vector_recall_at_10"] == pytest.approx((questions + 2 * templates) / 3, 1e-3)
    adversarial = load_report(tmp_path / "adversarial.json")["results"]
    assert {row["K"] for row in adversarial["results"]} == {0, 5}


@pytest.mark.parametrize(
    ("command", "extra", "files"),
    [
        ("quality", ["--floors", "0.3"], ["quality.json", "quality-floor.png"]),
        ("store", ["--sizes", "30", "--spread-agents", "1"], ["scale.json", "scale.png"]),
    ],
)
def test_each_benchmark_runs_on_its_own(
    tmp_path: Path, command: str, extra: list[str], files: list[str]
) -> None:
    url = "sqlite-vec://:memory:"
    args = ["bench", command, "--embedder", "hash", "--store", url, *extra]
    if command == "store":
        args += ["--queries", "2", "--ingest", "10"]
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    for name in files:
        assert (tmp_path / name).exists()
    assert f"wrote {', '.join(sorted(p.name for p in tmp_path.iterdir()))}" in result.output


def test_bad_numbers_are_usage_errors() -> None:
    for args in (["quality", "--floors", "0.2,high"], ["scale", "--sizes", "-5"]):
        result = CliRunner().invoke(cli, ["bench", *args])
        assert result.exit_code == 2, result.output


def test_the_report_schema_refuses_what_it_does_not_describe() -> None:
    env = {
        "date": "2026-11-29T12:00:00+00:00",
        "command": "mnemowire bench latency",
        "mnemowire": "0",
        "commit": None,
        "python": "3.11.7",
        "platform": "Linux",
        "machine": "x86_64",
        "cpu": "test",
        "cpus": 2,
        "load_average": {"start": [0.5, 0.5, 0.5]},
        "versions": {},
    }
    with pytest.raises(ValueError, match="unknown benchmark"):
        make_report("speed", env, {})
    report = make_report("validation", env, [{"case": "x"}])
    assert report["environment"]["load_average"]["start"] == [0.5, 0.5, 0.5]
    import jsonschema

    with pytest.raises(jsonschema.ValidationError):
        validate_report({**report, "benchmark": "latency"})  # results are not latency's shape
    with pytest.raises(jsonschema.ValidationError):
        validate_report({**report, "surprise": 1})


def test_urls_lose_their_password_in_reports() -> None:
    assert display("pgvector://bench:s3cret@db:5432/mem") == "pgvector://bench:***@db:5432/mem"
    assert display("sqlite-vec://{tmp}/bench.db") == "sqlite-vec://{tmp}/bench.db"


async def test_backdated_memories_fall_out_of_a_freshness_window() -> None:
    clock = BenchClock()
    async with opened("sqlite-vec://:memory:", HashEmbedder(), clock=clock) as handle:
        assert handle.backdates
        agent = handle.agent("a")
        clock.age_days = 10
        await Memory(handle.store).remember(
            {"agent_id": agent, "type": "semantic", "content": "old tea"}
        )
        clock.age_days = 0
        await Memory(handle.store).remember(
            {"agent_id": agent, "type": "semantic", "content": "new tea"}
        )
        found = await Memory(handle.store).recall(
            {"agent_id": agent, "query": "tea", "fresher_than_days": 5}
        )
        assert [hit.content for hit in found.results] == ["new tea"]


async def test_a_store_without_a_clock_is_measured_without_backdating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose factory takes no clock still runs; a store that outlives the run forgets
    what the benchmark wrote in it."""
    path = tmp_path / "kept.db"

    def factory(url: str, *, embedder: HashEmbedder) -> MemoryStore:
        return open_store(f"sqlite-vec://{path}", embedder=embedder)

    monkeypatch.setitem(registry._registered, "clockless", factory)
    async with opened("clockless://x", HashEmbedder(), clock=BenchClock()) as handle:
        assert not handle.backdates
        agent = handle.agent("a")
        stored = await Memory(handle.store).remember(
            {"agent_id": agent, "type": "semantic", "content": "tea"}
        )
        handle.written.append((agent, stored.id))
    async with opened(f"sqlite-vec://{path}", HashEmbedder()) as again:
        found = await Memory(again.store).recall({"agent_id": agent, "query": "tea"})
        assert found.results == []
