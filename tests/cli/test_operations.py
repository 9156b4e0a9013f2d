"""``mnemowire remember|recall|forget|merge|expire`` through click's runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
from click.testing import CliRunner

from mnemowire import spec
from mnemowire.apps.cli import Exit, cli
from mnemowire.apps.cli._render import render_pretty


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


def test_a_refused_request_from_flags_is_a_usage_error_naming_the_flags(
    store: list[str],
) -> None:
    """Flags are the user's command line: the spec refusing what they built is a usage error
    (exit 2), and the message speaks of flags. The envelope still goes to stdout."""
    result = CliRunner().invoke(cli, ["recall", *store, "--agent", "a", "-k", "0", "tea"])
    assert result.exit_code == Exit.USAGE
    [envelope] = [json.loads(line) for line in result.stdout.splitlines()]
    assert envelope["details"] == [
        {
            "path": "/k",
            "rule": "minimum",
            "message": "0 is less than the minimum of 1",
            "flag": "-k",
        }
    ]
    assert spec.validate("error", envelope) is None
    assert "-k 0 is less than the minimum of 1" in result.stderr
    missing = CliRunner().invoke(cli, ["remember", *store, "--type", "semantic", "tea"])
    assert missing.exit_code == Exit.USAGE
    assert "--agent is required" in missing.stderr
    scope = CliRunner().invoke(cli, ["forget", *store, "--agent", "a"])
    assert scope.exit_code == Exit.USAGE
    assert "IDS, --filter or --all needs at least one of" in scope.stderr
    policy = CliRunner().invoke(cli, ["expire", *store, "--agent", "a"])
    assert policy.exit_code == Exit.USAGE
    assert "--older-than-days, --policy-type, --confidence-below or --no-recall-in-days" in (
        policy.stderr
    )
    assert "/policy" not in policy.stderr


def test_remember_is_a_fact_unless_told_otherwise(store: list[str]) -> None:
    """Flags leave the type to the short path's default (semantic); --json sends the wire's
    request as it is, where type is required."""
    code, [stored] = run("remember", *store, "--agent", "a", "Alice likes tea")
    assert code == Exit.OK
    code, [episode] = run(
        "remember", *store, "--agent", "a", "--type", "episodic", "Alice ran a marathon"
    )
    code, [got] = run(
        "get", *store, "--agent", "a", cast(str, stored["id"]), cast(str, episode["id"])
    )
    assert {r["content"]: r["type"] for r in cast(list[dict[str, str]], got["records"])} == {
        "Alice likes tea": "semantic",
        "Alice ran a marathon": "episodic",
    }
    code, [refused] = run(
        "remember", *store, "--json", "-", input_='{"agent_id": "a", "content": "no type"}\n'
    )
    assert code == Exit.REJECTED
    assert refused["code"] == "invalid_request"
    assert "type" in cast(str, refused["message"])


def test_a_refused_request_from_json_exits_one(store: list[str]) -> None:
    code, [envelope] = run(
        "recall", *store, "--json", "-", input_='{"agent_id": "a", "query": "q", "k": 0}'
    )
    assert code == Exit.REJECTED
    [detail] = cast(list[dict[str, Any]], envelope["details"])
    assert detail["path"] == "/k"
    assert "flag" not in detail


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


def test_every_json_line_gets_exactly_one_answer(store: list[str]) -> None:
    """Broken JSON, bytes that are not UTF-8, nesting too deep for any parser, a JSON value that
    is not an object: each line gets its own envelope, and the good lines around them (before
    and after) their responses. Blank lines hold no request and get none."""
    good = json.dumps({"agent_id": "a", "type": "semantic", "content": "tea"}).encode()
    lines = [
        good,
        b'{"agent_id": "a", "type": "semantic", "content": "\xff\xfe broken"}',
        b"",
        b"   ",
        b"{not json",
        b"[" * 100_000 + b"]" * 100_000,
        b"[1, 2]",
        json.dumps({"agent_id": "a", "type": "semantic", "content": "x\u0000y"}).encode(),
        good,
    ]
    result = CliRunner().invoke(cli, ["remember", *store, "--json", "-"], input=b"\n".join(lines))
    assert result.exit_code == Exit.REJECTED, result.output
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(out) == 7
    assert "Traceback" not in result.output
    assert [line.get("code") for line in out] == [
        None,
        "invalid_request",
        "invalid_request",
        "invalid_request",
        "invalid_request",
        "invalid_request",
        None,
    ]
    assert "line 2" in out[1]["message"]
    assert "not UTF-8" in out[1]["message"]
    assert out[2]["details"][0]["rule"] == "json"
    assert "nested too deeply" in out[3]["message"]
    assert out[4]["details"][0]["rule"] == "type"
    assert out[5]["details"][0] == {
        "path": "/content",
        "rule": "text",
        "message": "contains U+0000 (NUL), which stores cannot keep as text; remove it",
    }
    for envelope in out[1:6]:
        assert spec.validate("error", envelope) is None


@pytest.mark.parametrize("text", [b"", b"\n", b"  \n\n"])
def test_json_input_with_no_request_is_a_usage_error(store: list[str], text: bytes) -> None:
    result = CliRunner().invoke(cli, ["recall", *store, "--json", "-"], input=text)
    assert result.exit_code == Exit.USAGE
    assert "--json read no request" in result.stderr


def test_a_broken_multiline_document_is_answered_line_by_line(store: list[str]) -> None:
    text = '{\n  "agent_id": "a",\n  "query": \n'
    code, out = run("recall", *store, "--json", "-", input_=text)
    assert code == Exit.REJECTED
    assert len(out) == 3
    assert all(line["code"] == "invalid_request" for line in out)


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


def test_pretty_recall_shows_each_hits_relevance_not_its_fusion_score(store: list[str]) -> None:
    """The score is a rank-fusion number (about 0.016 to 0.033 under rrf) that means nothing
    outside its answer; the relevance (cosine, comparable across queries) is what a person
    reads."""
    run("remember", *store, "--agent", "a", "--type", "semantic", "green tea at noon")
    run("remember", *store, "--agent", "a", "--type", "semantic", "black coffee at dawn")
    _, [found] = run("recall", *store, "--agent", "a", "tea")
    hits = cast(list[dict[str, Any]], found["results"])
    result = CliRunner().invoke(cli, ["recall", *store, "--agent", "a", "--pretty", "tea"])
    assert result.stdout.splitlines()[0].split()[0] == "relevance"
    for hit, line in zip(hits, result.stdout.splitlines()[2:], strict=False):
        assert line.split()[0] == f"{hit['relevance']:.2f}"
        assert f"{hit['score']:.4f}" not in result.stdout
    assert "score" not in result.stdout


def test_a_hit_without_relevance_shows_its_score_labelled() -> None:
    """Relevance is optional in the spec: a store that measures none leaves only the score."""
    hit = {"type": "semantic", "metadata": {}, "created_at": 0, "supporting": ["s"],
           "source_store": "s"}  # fmt: skip
    found = {
        "results": [
            {**hit, "id": "01JD0000000000000000000000", "content": "tea", "score": 0.0328,
             "relevance": 0.58},
            {**hit, "id": "01JD0000000000000000000001", "content": "cake", "score": 0.0161},
        ],
        "fusion_used": "rrf",
        "stores_queried": ["s"],
        "latency_ms": 1.0,
    }  # fmt: skip
    assert spec.validate("recall.response", found) is None
    rows = render_pretty(found).splitlines()
    assert rows[2].split()[0] == "0.58"
    assert rows[3].split()[:2] == ["score", "0.0161"]
    assert "score: the rrf ranking, comparable only within this answer" in rows[-1]


def test_pretty_output_never_sends_a_stored_escape_sequence_to_the_terminal(
    store: list[str],
) -> None:
    """OSC 52 would write the operator's clipboard; a bidi override would disguise text."""
    hostile = "note \x1b]52;c;ZXZpbA==\x07 and \u202eevil\u202c, \x9b31m"
    run(
        "remember",
        *store,
        "--json",
        "-",
        input_=json.dumps(
            {"agent_id": "a", "type": "semantic", "content": hostile, "metadata": {"k": hostile}}
        ),
    )
    # wide enough for the escaped content whole (an xdist worker's COLUMNS is 80)
    wide = CliRunner(env={"COLUMNS": "200"})
    found = wide.invoke(cli, ["recall", *store, "--agent", "a", "--pretty", "note"])
    refused = wide.invoke(  # the error message quotes the id it refuses
        cli,
        ["remember", *store, "--pretty", "--json", "-"],
        input=json.dumps({"agent_id": "a", "type": "semantic", "content": "y", "id": hostile}),
    )
    assert found.exit_code == Exit.OK
    assert refused.exit_code == Exit.REJECTED
    for result in (found, refused):
        assert "ZXZpbA" in result.stdout
        assert not any(ch in result.stdout for ch in "\x1b\x07\x9b\u202e\u202c")
    assert "\\x1b]52;c;ZXZpbA==\\x07" in found.stdout
    assert "\\u202eevil\\u202c" in found.stdout


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


def test_forget_dry_run_lists_what_it_would_forget_and_forgets_nothing(
    store: list[str],
) -> None:
    _, [tea] = run("remember", *store, "--agent", "a", "--user", "alice", "Alice likes tea")
    _, [bob] = run("remember", *store, "--agent", "a", "--user", "bob", "Bob likes coffee")
    scope = ["--agent", "a", "--user", "alice", "--filter", "{}"]
    code, _ = run("forget", *store, *scope, "--dry-run")
    assert code == Exit.USAGE  # an empty filter names no scope, preview or not
    code, [preview] = run(
        "forget", *store, "--agent", "a", "--user", "alice", "--hard", "--dry-run",
        str(tea["id"]), str(bob["id"]),
    )  # fmt: skip
    assert code == Exit.OK
    assert (preview["forgotten_ids"], preview["dry_run"]) == ([tea["id"]], True)
    _, [found] = run("get", *store, "--agent", "a", str(tea["id"]))
    assert found["missing"] == []  # still there


def test_forget_all_of_a_user_previews_then_forgets_that_users_memories(
    store: list[str],
) -> None:
    _, [tea] = run("remember", *store, "--agent", "a", "--user", "alice", "Alice likes tea")
    _, [bob] = run("remember", *store, "--agent", "a", "--user", "bob", "Bob likes coffee")
    scope = ["--agent", "a", "--user", "alice", "--all"]
    code, [preview] = run("forget", *store, *scope, "--dry-run")
    assert (code, preview["forgotten_ids"], preview["dry_run"]) == (Exit.OK, [tea["id"]], True)
    code, [done] = run("forget", *store, *scope, "--hard")
    assert (code, done["forgotten_ids"]) == (Exit.OK, [tea["id"]])
    _, [found] = run("get", *store, "--agent", "a", str(tea["id"]), str(bob["id"]))
    assert found["missing"] == [tea["id"]]
    result = CliRunner().invoke(cli, ["forget", *store, *scope, str(bob["id"])])
    assert result.exit_code == Exit.USAGE
    assert "IDS" in result.stderr  # the flag the caller gave beside --all
