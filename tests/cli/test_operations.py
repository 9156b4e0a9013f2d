"""``mnemowire remember|recall|forget|merge|expire`` through click's runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mnemowire import spec
from mnemowire.cli import Exit, cli


@pytest.fixture
def store(tmp_path: Path) -> list[str]:
    return ["--store", f"sqlite-vec://{tmp_path / 'cli.db'}?embedder=hash:32"]


def run(*args: str, input_: str | None = None) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(cli, list(args), input=input_)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return result.exit_code, lines


def test_each_operation_from_flags_prints_its_spec_response(store: list[str]) -> None:
    code, [stored] = run(
        "remember",
        *store,
        "--agent",
        "a",
        "--user",
        "alice",
        "--type",
        "semantic",
        "--metadata",
        '{"topic": "health"}',
        "--confidence",
        "0.9",
        "Alice is allergic to peanuts",
    )
    assert code == Exit.OK
    assert spec.validate("remember.response", stored) is None
    code, [dup] = run("remember", *store, "--agent", "a", "--type", "semantic", "peanut allergy")
    code, [found] = run(
        "recall",
        *store,
        "--agent",
        "a",
        "-k",
        "1",
        "--user",
        "alice",
        "--filter",
        '{"topic": "health"}',
        "peanuts",
    )
    assert spec.validate("recall.response", found) is None
    results: Any = found["results"]
    assert [h["id"] for h in results] == [stored["id"]]
    code, [merged] = run("merge", *store, "--agent", "a", str(stored["id"]), str(dup["id"]))
    assert (code, merged["merged_count"]) == (Exit.OK, 1)
    code, [expired] = run(
        "expire", *store, "--agent", "a", "--confidence-below", "0.95", "--action", "demote"
    )
    assert (code, expired["matched_count"]) == (Exit.OK, 1)
    code, [forgotten] = run("forget", *store, "--agent", "a", "--hard", str(stored["id"]))
    assert (code, forgotten["forgotten_ids"]) == (Exit.OK, [stored["id"]])


def test_rejected_request_prints_the_envelope_and_exits_one(store: list[str]) -> None:
    code, [envelope] = run("recall", *store, "--agent", "a", "-k", "0", "tea")
    assert code == Exit.REJECTED
    assert envelope["details"] == [
        {"path": "/k", "rule": "minimum", "message": "0 is less than the minimum of 1"}
    ]
    code, [envelope] = run("forget", *store, "--agent", "a")
    assert code == Exit.REJECTED
    assert envelope["details"][0]["rule"] == "anyOf"  # type: ignore[index]


def test_json_lines_stream_one_response_per_line(store: list[str]) -> None:
    lines = "\n".join(
        [
            json.dumps({"agent_id": "a", "type": "semantic", "content": "one"}),
            json.dumps({"agent_id": "a", "type": "semantic", "content": ""}),
            "not json",
            json.dumps({"agent_id": "a", "type": "episodic", "content": "two", "event_time": 5}),
        ]
    )
    code, out = run("remember", *store, "--json", "-", input_=lines)
    assert code == Exit.REJECTED  # any rejected line makes the exit code 1
    assert [("id" in line, line.get("code")) for line in out] == [
        (True, None),
        (False, "invalid_request"),
        (False, "invalid_request"),
        (True, None),
    ]
    code, [found] = run(
        "recall",
        *store,
        "--json",
        "-",
        input_=json.dumps({"agent_id": "a", "query": "two", "k": 10}, indent=2),
    )
    assert code == Exit.OK
    assert len(found["results"]) == 2  # type: ignore[arg-type]


def test_json_and_flags_together_is_a_usage_error(store: list[str]) -> None:
    result = CliRunner().invoke(cli, ["recall", *store, "--json", "-", "--agent", "a"], input="{}")
    assert result.exit_code == Exit.USAGE
    assert "--json replaces" in result.output


def test_pretty_output(store: list[str]) -> None:
    run("remember", *store, "--agent", "a", "--type", "semantic", "green tea at noon")
    result = CliRunner().invoke(cli, ["recall", *store, "--agent", "a", "--pretty", "tea"])
    assert result.exit_code == Exit.OK
    assert "green tea at noon" in result.stdout
    assert "1 result(s)" in result.stdout
    bad = CliRunner().invoke(cli, ["recall", *store, "--agent", "a", "--pretty", "-k", "0", "x"])
    assert "/k  [minimum]" in bad.stdout


def test_bad_json_flag_is_a_usage_error(store: list[str]) -> None:
    result = CliRunner().invoke(
        cli, ["remember", *store, "--agent", "a", "--type", "semantic", "--metadata", "{nope", "x"]
    )
    assert result.exit_code == Exit.USAGE
    assert "--metadata must be JSON" in result.output


def test_every_operation_has_help() -> None:
    for command in ("remember", "recall", "forget", "merge", "expire", "demo"):
        result = CliRunner().invoke(cli, [command, "--help"])
        assert result.exit_code == 0
        assert "--store" in result.output or command == "demo"


def test_demo_runs_end_to_end_with_the_test_embedder() -> None:
    result = CliRunner().invoke(cli, ["demo", "--embedder", "hash:64"])
    assert result.exit_code == Exit.OK, result.output
    assert "remembered 33 memories" in result.output
    assert "procedure book_flight" in result.output
    assert "recall p50" in result.output
