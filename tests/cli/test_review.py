"""``mnemowire review list|show --pretty``: what a reviewer reads in a terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mnemowire import spec
from mnemowire.apps.cli import Exit, cli
from mnemowire.apps.cli._render import render_pretty

#: a terminal this narrow makes every long content wrap
COLUMNS = 80
STAGED = (
    "Alice now prefers black tea with lemon every single morning, says she cannot stand "
    "green tea any more, and asked the assistant to remember it before her next visit "
    "\x1b]52;c;ZXZpbA==\x07 \u202eevil\u202c"
)


DUPLICATE = "01JD0000000000000000000001"


@pytest.fixture
def store(tmp_path: Path) -> list[str]:
    return ["--store", f"sqlite-vec://{tmp_path / 'cli.db'}?embedder=hash:32"]


def _json(store: list[str], command: str, request: dict[str, Any]) -> dict[str, Any]:
    result = CliRunner().invoke(cli, [command, *store, "--json", "-"], input=json.dumps(request))
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def _pretty(*args: str) -> str:
    result = CliRunner(env={"COLUMNS": str(COLUMNS)}).invoke(cli, [*args, "--pretty"])
    assert result.exit_code == Exit.OK, result.output
    return result.stdout


def _words(text: str) -> str:
    """The output with its line breaks and indentation undone, to find wrapped text whole."""
    return " ".join(text.split())


def test_review_list_pretty_shows_each_review_with_its_diff(store: list[str]) -> None:
    def remember(content: str, **fields: Any) -> str:
        request = {"agent_id": "a", "user_id": "alice", "type": "semantic", "content": content}
        return str(_json(store, "remember", {**request, **fields})["id"])

    tea = remember("Alice likes green tea in the morning", metadata={"topic": "drinks"})
    cake = remember("Alice bakes a lemon cake on Sundays", metadata={"topic": "food"})
    staged = remember(STAGED, approval_required=True)
    merge = _json(
        store,
        "merge",
        {"agent_id": "a", "canonical": tea, "duplicates": [cake], "strategy": "merge_content",
         "approval_required": True},
    )  # fmt: skip
    forget = _json(
        store,
        "forget",
        {"agent_id": "a", "ids": [cake], "reason": "not hers", "approval_required": True},
    )
    listed = CliRunner().invoke(cli, ["review", "list", *store, "--agent", "a"])
    wire = json.loads(listed.stdout)
    assert spec.validate("reviews.response", wire) is None
    related = {r["record"]["id"]: r["relevance"] for r in wire["reviews"][0]["diff"]["related"]}

    out = _pretty("review", "list", *store, "--agent", "a")
    lines = out.splitlines()
    assert max(len(line) for line in lines if not line.startswith("  [ok]")) <= COLUMNS
    # each review: its id, operation, agent and user, who staged it and when
    heads = [line for line in lines if line.startswith("review ")]
    assert [h.split()[1:3] for h in heads] == [
        [staged, "remember"],
        [merge["review_id"], "merge"],
        [forget["review_id"], "forget"],
    ]
    assert "agent a, user alice" in heads[0]
    assert len(re.findall(r"staged by caller at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", out)) == 3
    # the staged remember: the record it adds, whole, wrapped and escaped
    assert f"+ added {staged} (semantic, user alice)" in out
    escaped = STAGED.replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    escaped = escaped.replace("\u202e", "\\u202e").replace("\u202c", "\\u202c")
    assert escaped in _words(out)
    assert not any(ch in out for ch in "\x1b\x07\u202e\u202c")
    # beside it the closest existing memories with their relevance, not a score
    for ident, relevance in related.items():
        assert f"~ related {ident} (semantic, user alice) relevance {relevance:.2f}" in out
    # the merge: the canonical before and after, the words it adds marked, the duplicate hidden
    block = out.split(f"review {merge['review_id']}")[1].split("\nreview ")[0]
    assert f"request: canonical={tea}" in block
    assert f"* modified {tea}" in block
    assert "before: Alice likes green tea in the morning\n" in block
    assert (
        "after: Alice likes green tea in the morning {+Alice bakes a lemon cake on Sundays+}"
        in _words(block)
    )
    assert f"- removed {cake} (semantic, user alice)" in block
    # the forget: what it removes and why
    block = out.split(f"review {forget['review_id']}")[1]
    assert 'reason="not hers"' in block
    assert f"- removed {cake}" in block
    assert "3 pending review(s)" in out

    shown = _pretty("review", "show", *store, "--agent", "a", forget["review_id"])
    assert shown.count("\nreview ") + shown.startswith("review ") == 1
    assert f"review {forget['review_id']}  forget" in shown
    paged = _pretty("review", "list", *store, "--agent", "a", "--limit", "1")
    assert f"more: --cursor {staged}" in paged
    assert "(no pending reviews)" in _pretty("review", "list", *store, "--agent", "nobody")
    # a forget whose filter matches nothing now: the review says so rather than show nothing
    _json(store, "forget", {"agent_id": "b", "filter": {"topic": "x"}, "approval_required": True})
    empty = _pretty("review", "list", *store, "--agent", "b")
    assert 'request: filter={"topic": "x"}\n  (nothing would change now)' in empty


def _merge(before: str, after: str, **changed: Any) -> dict[str, Any]:
    """A spec-valid reviews answer holding one staged merge that turns ``before`` into
    ``after`` (what no store here sends yet: reasoning, a requested_at past year 9999)."""
    old = {"id": "01JC0000000000000000000000", "agent_id": "a", "type": "semantic",
           "content": before, "metadata": {"topic": "drinks"}, "confidence": 0.5,
           "created_at": 0}  # fmt: skip
    change = {"id": old["id"], "before": old, "after": {**old, "content": after, **changed}}
    review = {
        "review_id": "01JD0000000000000000000000",
        "operation": "merge",
        "agent_id": "a",
        "request": {"agent_id": "a", "canonical": old["id"], "duplicates": [DUPLICATE]},
        "diff": {"added": [], "removed": [], "modified": [change]},
        "reasoning": "she said so\x1b[2J",
        "requested_at": 2**53 - 1,
    }
    reviews = {"reviews": [review], "latency_ms": 1.0}
    assert spec.validate("reviews.response", reviews) is None
    return reviews


def test_a_review_renders_its_reasoning_changed_fields_and_any_time() -> None:
    out = render_pretty(_merge("Alice likes tea", "Alice loves black tea", confidence=0.9))
    assert "staged at 9007199254740991 ms after the epoch" in out
    assert "reasoning: she said so\\x1b[2J" in out
    assert "before: Alice [-likes-] tea" in out
    assert "after:  Alice {+loves black+} tea" in out
    assert "confidence: 0.5 -> 0.9" in out
    assert "metadata" not in out.split("* modified")[1]  # unchanged fields are left out


def test_the_content_diff_shows_a_whitespace_change_and_bounds_its_work() -> None:
    out = render_pretty(_merge("Alice likes tea", "Alice likes  tea"))
    assert "before: Alice likes[- -]tea" in out
    assert "after:  Alice likes{+  +}tea" in out
    # two long contents sharing only their first and last words: the word diff would weigh
    # every pair of their 10,000 tokens; past its budget the middle is marked as one change
    old = " ".join(f"old{n}" for n in range(5_000))
    new = " ".join(f"new{n}" for n in range(5_000))
    out = _words(render_pretty(_merge(f"start {old} end", f"start {new} end")))
    assert f"before: start [-{old}-] end" in out
    assert f"after: start {{+{new}+}} end" in out


def test_a_decision_names_the_version_reviewed(store: list[str]) -> None:
    """``--expected-version``: what `review show` printed; a staged record updated since is a
    conflict (exit 1) naming the flag, and nothing is decided."""
    request = {"agent_id": "a", "type": "semantic", "content": "Alice likes tea"}
    staged = str(_json(store, "remember", {**request, "approval_required": True})["id"])
    shown = _pretty("review", "show", *store, "--agent", "a", staged)
    assert "version 1" in shown
    update = {"agent_id": "a", "id": staged, "expected_version": 1, "content": "Alice likes gin"}
    assert _json(store, "update", update)["version"] == 2
    decide = ["review", "approve", *store, "--agent", "a", "--reviewer", "dana", staged]
    for stale in ([], ["--expected-version", "1"]):
        refused = CliRunner().invoke(cli, [*decide, *stale])
        assert refused.exit_code == Exit.REJECTED, refused.output
        envelope = json.loads(refused.stdout)
        assert envelope["code"] == "conflict"
        assert "--expected-version 2" in envelope["message"]
    done = CliRunner().invoke(cli, [*decide, "--expected-version", "2"])
    assert done.exit_code == Exit.OK, done.output
    assert json.loads(done.stdout)["outcome"] == "approved"
    bad = CliRunner().invoke(cli, [*decide, "--expected-version", "0"])
    assert bad.exit_code == Exit.USAGE
    assert "--expected-version" in bad.output
