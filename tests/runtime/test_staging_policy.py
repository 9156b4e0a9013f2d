"""The staging policy (docs/spec/v0.2.md#review.policy): validated against the spec when
configured, each rule's predicates all holding, record predicates never matching a forget or
merge, the first matching rule named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mnemowire.errors import ConfigError, ForbiddenError
from mnemowire.kit.staging import StagingRules

POLICY = {
    "rules": [
        {"name": "secrets", "content_pattern": r"pass(word)?|api[ _-]?key"},
        {"name": "health", "operations": ["remember"], "filter": {"topic": "health"}},
        {"name": "imports", "types": ["episodic"], "sources": ["import"], "user_ids": ["alice"]},
        {"name": "erasures", "operations": ["forget"], "user_ids": ["bob"]},
        {"name": "merges", "operations": ["merge"]},
    ]
}


def remember(**fields: object) -> dict[str, object]:
    return {"agent_id": "a", "type": "semantic", "content": "tea", **fields}


@pytest.mark.parametrize(
    ("operation", "payload", "expected"),
    [
        ("remember", remember(content="my API-key is 42"), "policy:secrets"),
        ("remember", remember(content="The PASSWORD is x"), "policy:secrets"),  # any case
        ("remember", remember(metadata={"topic": "health"}), "policy:health"),
        ("remember", remember(metadata={"topic": "food"}), None),
        ("remember", remember(type="episodic", source="import", user_id="alice"), "policy:imports"),
        ("remember", remember(type="episodic", source="import", user_id="carol"), None),
        ("remember", remember(type="semantic", source="import", user_id="alice"), None),
        ("forget", {"agent_id": "a", "user_id": "bob", "ids": ["x"]}, "policy:erasures"),
        ("forget", {"agent_id": "a", "user_id": "carol", "ids": ["x"]}, None),
        # a rule about a record's content never matches a forget, whatever its fields say
        ("forget", {"agent_id": "a", "content": "password", "ids": ["x"]}, None),
        ("merge", {"agent_id": "a", "canonical": "x", "duplicates": ["y"]}, "policy:merges"),
    ],
)
def test_a_write_is_staged_by_the_first_rule_whose_every_predicate_holds(
    operation: str, payload: dict[str, object], expected: str | None
) -> None:
    assert StagingRules.of(POLICY).staged_by(operation, payload) == expected


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"rules": []}, "/rules"),
        ({"rules": [{"operations": ["forget"]}]}, "/rules/0/name"),
        ({"rules": [{"name": "x", "operations": ["recall"]}]}, "/rules/0/operations/0"),
        ({"rules": [{"name": "x", "colour": "red"}]}, "/rules/0/colour"),
        ({"rules": [{"name": "x", "content_pattern": "(unclosed"}]}, "/rules/0/content_pattern"),
        # what a linear-time engine cannot run is refused when the policy is read
        ({"rules": [{"name": "x", "content_pattern": r"(ab)\1"}]}, "/rules/0/content_pattern"),
        ({"rules": [{"name": "x", "content_pattern": "pass(?=word)"}]}, "lookaround"),
    ],
)
def test_a_bad_policy_is_refused_naming_the_field(document: object, message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        StagingRules.of(document)
    assert message in str(refused.value)


def test_a_policy_file_is_read_and_a_missing_one_named(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(POLICY))
    assert StagingRules.load(path).document == POLICY
    with pytest.raises(ConfigError, match=r"nowhere\.json"):
        StagingRules.load(tmp_path / "nowhere.json")


def test_a_pattern_takes_time_linear_in_the_content_whatever_the_pattern() -> None:
    """Nested quantifiers and content an agent chose to make a backtracking engine try every
    split (2^60 ways here): matched at once, so one agent's write cannot stall a server's
    event loop for others. In a process of its own, bounded by a generous timeout, not a
    clock: a backtracking engine holds the GIL, so no thread of this process could stop it."""
    probe = (
        "from mnemowire.kit.staging import StagingRules\n"
        "policy = StagingRules.of({'rules': [{'name': 'n', 'content_pattern': '(a+)+$'}]})\n"
        "print(policy.staged_by('remember', {'content': 'a' * 60 + '!'}),"
        " policy.staged_by('remember', {'content': 'AAAA'}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["None", "policy:n"]  # any case, as before


def test_a_policy_nested_past_any_parser_is_refused_as_a_config_error(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"rules": [{"name": "x", "filter": ' + "[" * 100_000 + "]" * 100_000 + "}]}")
    with pytest.raises(ConfigError, match=r"deep\.json.*nested too deeply"):
        StagingRules.load(deep)
    within = tmp_path / "within.json"  # parsed, then refused by the schema, naming the field
    within.write_text('{"rules": [{"name": "x", "filter": {"k": ' + "[" * 500 + "]" * 500 + "}}]}")
    with pytest.raises(ConfigError, match="/rules/0/filter"):
        StagingRules.load(within)


RECORD = {"agent_id": "a", "type": "semantic", "content": "tea", "metadata": {}, "state": "active"}


@pytest.mark.parametrize(
    ("record", "changes", "refused_by"),
    [
        (RECORD, {"metadata": {"topic": "health"}}, "health"),  # into what a rule stages
        (RECORD, {"content": "my password is 42"}, "secrets"),
        ({**RECORD, "metadata": {"topic": "health"}}, {"confidence": 0.5}, "health"),
        (RECORD, {"content": "green tea"}, None),  # still matches no rule
        ({**RECORD, "state": "pending"}, {"content": "my password"}, None),  # its review shows it
        ({**RECORD, "metadata": {"topic": "health"}}, {}, None),  # changes nothing
    ],
)
def test_an_update_into_what_a_rule_stages_is_refused(
    record: dict[str, object], changes: dict[str, object], refused_by: str | None
) -> None:
    """An update writes the record it leaves: asked as that record's remember ([review.policy]),
    so writing something plain and updating it into what a rule stages cannot bypass review."""
    policy = StagingRules.of(POLICY)
    if refused_by is None:
        policy.refuse_update(record, changes)
        return
    with pytest.raises(ForbiddenError, match=f"rule '{refused_by}'") as refused:
        policy.refuse_update(record, changes)
    assert refused.value.details == [
        {"path": "", "rule": "policy", "message": f"matched by policy:{refused_by}"}
    ]
