"""`mnemowire capabilities` prints what a store declares (where an `unsupported` error sends a
person), with the staging policy a store URL or `--policy` gives; a bad policy is a usage
error naming the field."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mnemowire import spec
from mnemowire.apps.cli import Exit, cli

POLICY = {"rules": [{"name": "health", "filter": {"topic": "health"}}]}


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["capabilities", *args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def test_a_store_and_its_policy_are_declared_as_the_spec_says(tmp_path: Path) -> None:
    store = f"sqlite-vec://{tmp_path / 'a.db'}?embedder=hash:32"
    code, out = run("--store", store)
    assert code == Exit.OK
    plain = json.loads(out)
    assert spec.validate("capabilities", plain) is None
    assert {"reviews", "decide"} <= set(plain["capabilities"])
    assert "staging_policy" not in plain
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(POLICY))
    for args in (
        ["--store", f"{store}&policy={policy}"],
        ["--store", store, "--policy", str(policy)],
    ):
        code, out = run(*args)
        declared = json.loads(out)
        assert code == Exit.OK
        assert declared["staging_policy"] == POLICY
        assert "staging_policy" in declared["capabilities"]


def test_a_bad_policy_is_a_usage_error_naming_the_field(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"name": "x", "typ": ["semantic"]}]}))
    store = f"sqlite-vec://{tmp_path / 'a.db'}?embedder=hash:32"
    code, out = run("--store", store, "--policy", str(policy))
    assert code == Exit.USAGE
    assert "--policy" in out
    assert "/rules/0/typ" in out
    code, out = run("--store", f"{store}&policy={tmp_path / 'missing.json'}")
    assert code == Exit.USAGE
    assert "missing.json" in out


def test_a_policy_nested_too_deeply_is_a_usage_error_not_a_traceback(tmp_path: Path) -> None:
    policy = tmp_path / "deep.json"
    policy.write_text("[" * 100_000 + "]" * 100_000)
    store = f"sqlite-vec://{tmp_path / 'a.db'}?embedder=hash:32"
    for args in (
        ["--store", store, "--policy", str(policy)],
        ["--store", f"{store}&policy={policy}"],
    ):
        code, out = run(*args)
        assert code == Exit.USAGE
        assert "deep.json" in out
        assert "nested too deeply" in out
