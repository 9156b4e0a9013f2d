"""``mnemowire spec ...`` through click's runner: exit codes and JSON on stdout."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mnemowire import spec
from mnemowire.apps.cli import Exit, cli

SOURCE = Path(__file__).parents[2] / "spec" / "v0"


def test_validate_valid_message_exits_zero(tmp_path: Path) -> None:
    path = tmp_path / "req.json"
    path.write_text(json.dumps({"agent_id": "a", "query": "tea"}))
    result = CliRunner().invoke(cli, ["spec", "validate", "recall.request", str(path)])
    assert result.exit_code == Exit.OK
    assert result.stdout == ""


def test_validate_invalid_message_prints_the_envelope_and_exits_one() -> None:
    result = CliRunner().invoke(
        cli,
        ["spec", "validate", "recall.request", "-"],
        input='{"agent_id": "a", "query": "q", "k": 0}',
    )
    assert result.exit_code == Exit.REJECTED
    envelope = json.loads(result.stdout)
    assert envelope["details"][0]["path"] == "/k"
    assert spec.validate("error", envelope) is None


def test_validate_text_that_is_not_json_is_rejected_not_crashed() -> None:
    result = CliRunner().invoke(cli, ["spec", "validate", "health", "-"], input="{oops")
    assert result.exit_code == Exit.REJECTED
    assert json.loads(result.stdout)["details"][0]["rule"] == "json"


def test_validate_unknown_message_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["spec", "validate", "remember", "-"], input="{}")
    assert result.exit_code == Exit.USAGE
    assert "remember.request" in result.output


def test_lint_source_tree_is_clean() -> None:
    result = CliRunner().invoke(cli, ["spec", "lint", "--dir", str(SOURCE)])
    assert result.exit_code == Exit.OK, result.output
    assert "clean" in result.stderr


def test_lint_reports_problems_and_exits_one(tmp_path: Path) -> None:
    (tmp_path / "v0").mkdir()
    for file in SOURCE.glob("*.json"):
        (tmp_path / "v0" / file.name).write_text(file.read_text())
    doc = json.loads((tmp_path / "v0" / "health.json").read_text())
    doc["format"] = "uri"
    (tmp_path / "v0" / "health.json").write_text(json.dumps(doc, indent=2) + "\n")
    result = CliRunner().invoke(
        cli, ["spec", "lint", "--dir", str(tmp_path / "v0"), "--no-examples"]
    )
    assert result.exit_code == Exit.REJECTED
    assert "forbidden-keyword" in result.stdout


def test_list_names_every_message() -> None:
    result = CliRunner().invoke(cli, ["spec", "list"])
    assert result.stdout.split() == list(spec.read_spec().messages)


def test_every_command_has_help() -> None:
    for args in (
        ["--help"],
        ["spec", "--help"],
        ["spec", "lint", "--help"],
        ["spec", "validate", "--help"],
        ["spec", "fmt", "--help"],
        ["spec", "list", "--help"],
    ):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0
        assert "Usage:" in result.output
