"""The staging policy (docs/spec/v0.2.md#review.policy): validated against the spec when
configured, each rule's predicates all holding, record predicates never matching a forget or
merge, the first matching rule named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mnemowire.errors import ConfigError
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
