"""``mnemowire promote``: a dry run prints the plan with the rules that decided it, ``--apply
--plan FILE`` applies a reviewed plan exactly, and a rule given wrong names its flag."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemowire import spec
from mnemowire.apps.cli import cli
from tests.cli._support import remember_all


@pytest.fixture
def store(tmp_path: Path) -> list[str]:
    return ["--store", f"sqlite-vec://{tmp_path / 'cli.db'}?embedder=hash:32"]


def test_a_reviewed_promotion_plan_is_applied_exactly(store: list[str], tmp_path: Path) -> None:
    said = remember_all(store, "Ivy paints on Sundays.", "ivy paints on sundays", kind="episodic")
    remember_all(store, "Ivy sold a painting.", kind="episodic")  # said once: stays
    now = ["promote", *store, "--agent", "a", "--min-age-days", "0"]
    result = CliRunner().invoke(cli, now)
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert spec.validate("promote.response", plan) is None
    assert [(a["action"], set(a["ids"])) for a in plan["actions"]] == [("promote", set(said))]
    saved = tmp_path / "plan.json"
    saved.write_text(result.stdout)
    pretty = CliRunner().invoke(cli, [*now, "--pretty"])
    assert "[planned] promote" in pretty.stdout
    assert "because said 2 times, at least 2" in pretty.stdout
    assert "because" in pretty.stdout
    stricter = CliRunner().invoke(cli, [*now, "--min-repetitions", "3"])
    assert json.loads(stricter.stdout)["actions"] == []
    applied = CliRunner().invoke(cli, [*now, "--apply", "--plan", str(saved)])
    assert applied.exit_code == 0, applied.output
    [action] = json.loads(applied.stdout)["actions"]
    assert (action["status"], action["into"]) == ("promoted", plan["actions"][0]["into"])
    again = CliRunner().invoke(cli, [*now, "--apply", "--plan", str(saved), "--pretty"])
    assert "[changed]" in again.stdout  # its records are merged: nothing left to apply


def test_rules_given_wrong_name_their_flag(store: list[str], tmp_path: Path) -> None:
    base = ["promote", *store, "--agent", "a"]
    for flags, named in (
        (["--min-confidence", "2"], "--min-confidence"),
        (["--min-repetitions", "1"], "--min-repetitions"),
        (["--min-age-days", "-1"], "--min-age-days"),
        (["--short-term", "semantic"], "--short-term"),
        (["--limit", "0"], "--limit"),
    ):
        result = CliRunner().invoke(cli, [*base, *flags])
        assert result.exit_code == 2, (flags, result.output)
        assert named in result.output, (flags, result.output)
    twice = tmp_path / "twice.json"
    entry = {"action": "archive", "ids": ["m1"], "expected_versions": {"m1": 1}}
    twice.write_text(json.dumps({"actions": [entry, entry]}))
    result = CliRunner().invoke(cli, [*base, "--apply", "--plan", str(twice)])
    assert result.exit_code == 2
    assert "--plan" in result.output
