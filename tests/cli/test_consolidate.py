"""``mnemowire consolidate``: a dry run prints the plan, ``--apply --plan FILE`` applies a
reviewed plan exactly, and the mistakes a person makes name the flag to fix."""

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


def test_a_reviewed_plan_is_applied_exactly(store: list[str], tmp_path: Path) -> None:
    ids = remember_all(store, "Ivy paints on Sundays.", "ivy paints on sundays", "Ivy paints.")
    result = CliRunner().invoke(cli, ["consolidate", *store, "--agent", "a"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert spec.validate("consolidate.response", plan) is None
    assert plan["dry_run"] is True
    assert [{g["canonical"], *g["duplicates"]} for g in plan["groups"]] == [set(ids[:2])]
    saved = tmp_path / "plan.json"
    saved.write_text(result.stdout)
    pretty = CliRunner().invoke(cli, ["consolidate", *store, "--agent", "a", "--pretty"])
    assert "[planned] keep" in pretty.stdout
    assert "exact, similarity 1.00" in pretty.stdout
    applied = CliRunner().invoke(
        cli, ["consolidate", *store, "--agent", "a", "--apply", "--plan", str(saved)]
    )
    assert applied.exit_code == 0, applied.output
    assert [g["status"] for g in json.loads(applied.stdout)["groups"]] == ["merged"]
    again = CliRunner().invoke(
        cli, ["consolidate", *store, "--agent", "a", "--apply", "--plan", str(saved), "--pretty"]
    )
    assert "[changed]" in again.stdout  # its duplicate is merged: nothing left to apply


def test_mistakes_name_the_flag(store: list[str], tmp_path: Path) -> None:
    missing = CliRunner().invoke(cli, ["consolidate", *store])
    assert missing.exit_code == 2
    assert "--agent" in missing.output
    empty = tmp_path / "empty.json"
    empty.write_text('{"groups": []}')
    result = CliRunner().invoke(cli, ["consolidate", *store, "--agent", "a", "--plan", str(empty)])
    assert result.exit_code == 2
    assert "--plan" in result.output
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    result = CliRunner().invoke(cli, ["consolidate", *store, "--agent", "a", "--plan", str(broken)])
    assert result.exit_code == 2
    assert "--plan" in result.output
    limit = CliRunner().invoke(cli, ["consolidate", *store, "--agent", "a", "--limit", "0"])
    assert limit.exit_code == 2
    assert "--limit" in limit.output
