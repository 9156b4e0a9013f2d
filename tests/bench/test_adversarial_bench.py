"""The fusion-under-attack sweep, small: RRF must hold with one malicious store of three."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemowire import spec
from mnemowire.apps.bench.adversarial import InjectingStore, make_corpus, markdown, run_adversarial
from mnemowire.apps.bench.report import load_report
from mnemowire.apps.cli import cli
from mnemowire.kit import to_wire
from mnemowire.models import (
    ExpireRequest,
    ForgetRequest,
    MergeRequest,
    RecallRequest,
    RememberRequest,
)


def test_the_corpus_is_seeded() -> None:
    assert make_corpus(7) == make_corpus(7)
    assert make_corpus(7) != make_corpus(8)
    corpus = make_corpus(1337)
    assert (len(corpus.facts), len(corpus.queries)) == (50, 20)
    assert all(len(gold) == 2 and gold <= set(corpus.facts) for _, gold in corpus.queries)


async def test_rrf_keeps_the_honest_recall_with_one_adversary() -> None:
    report = await run_adversarial(
        budgets=(0, 5, 20), adversaries=(1,), quorums=(None, 2), queries=10
    )
    rows = {(r["fusion"], r["quorum"], r["K"]): r for r in report["results"]}
    honest = rows["rrf", None, 0]["recall_at_k"]
    assert honest >= 0.9  # the stores find the gold records: the test below is not vacuous
    for budget in (5, 20):
        assert rows["rrf", None, budget]["recall_at_k"] == honest
        assert rows["rrf", None, budget]["leak_rate"] == 0.0
        # the attack is real: score-trusting fusion lets it in
        assert rows["max", None, budget]["leak_rate"] > 0.5
        assert rows["weighted", None, budget]["leak_rate"] > 0.5
        # and a quorum of two keeps every method clean
        for fusion in ("rrf", "max", "weighted"):
            assert rows[fusion, 2, budget]["recall_at_k"] == honest
            assert rows[fusion, 2, budget]["leak_rate"] == 0.0


def test_the_command_writes_json_and_a_plot(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "bench",
            "adversarial",
            "--budgets",
            "5",
            "--seed",
            "3",
            "--queries",
            "4",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    report = load_report(tmp_path / "adversarial.json")  # valid under the report schema
    assert {"date", "command", "python", "cpus"} <= set(report["environment"])
    results = report["results"]
    assert (results["config"]["seed"], results["config"]["queries"]) == (3, 4)
    assert results["config"]["embedders"] == [
        "mnemowire-hash-v1/64 (64-d)",
        "mnemowire-hash-v1/48 (48-d)",
    ]
    assert {(r["adversaries"], r["quorum"]) for r in results["results"]} == {
        (1, None),
        (1, 2),
        (2, None),
        (2, 2),
    }
    assert (tmp_path / "adversarial.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert markdown(results["results"], adversaries=1, quorum=None) in result.output


def test_budgets_must_be_integers() -> None:
    result = CliRunner().invoke(cli, ["bench", "adversarial", "--budgets", "0,five"])
    assert result.exit_code == 2
    assert "comma-separated list of integers" in result.output
    result = CliRunner().invoke(cli, ["bench", "adversarial", "--budgets", "-1"])
    assert result.exit_code == 2


async def test_the_attacker_speaks_valid_memorywire() -> None:
    """Its answers to every operation are valid messages: the router cannot tell it apart by
    shape, only fusion (or a quorum) can keep it out."""
    attacker = InjectingStore("malicious-1", 3, ["semantic", "forget", "merge", "expire"])
    recalled = await attacker.recall(RecallRequest(agent_id="a", query="x"))
    assert [h.id for h in recalled.results] == ["attacker-000", "attacker-001", "attacker-002"]
    answers = {
        "remember.response": await attacker.remember(
            RememberRequest(agent_id="a", type="semantic", content="x")
        ),
        "recall.response": recalled,
        "forget.response": await attacker.forget(ForgetRequest(agent_id="a", ids=["x"])),
        "merge.response": await attacker.merge(
            MergeRequest(agent_id="a", canonical="x", duplicates=["y"])
        ),
        "expire.response": await attacker.expire(
            ExpireRequest.model_validate({"agent_id": "a", "policy": {"older_than_days": 1}})
        ),
        "health": await attacker.health(),
        "capabilities": attacker.capabilities(),
    }
    for message, answer in answers.items():
        assert spec.validate(message, to_wire(answer)) is None, message
    await attacker.aclose()


def test_the_command_says_how_to_get_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    result = CliRunner().invoke(cli, ["bench", "adversarial", "--budgets", "0"])
    assert result.exit_code == 1
    assert "pip install 'mnemowire[bench]'" in result.output
