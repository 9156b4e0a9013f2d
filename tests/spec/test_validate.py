"""Validation at the boundary: what a memorywire v0 client sends passes, every mistake is named."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from mnemowire import spec
from mnemowire.errors import MnemowireError, RequestError
from mnemowire.spec._validate import integral_bounds

# Requests exactly as the published memorywire v0 describes them (preprint section 3.2).
V0_CLIENT_REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("remember.request", {"agent_id": "a", "type": "semantic", "content": "Alice likes tea"}),
    (
        "remember.request",
        {
            "agent_id": "a",
            "user_id": "alice",
            "type": "episodic",
            "content": "On 2026-05-20 Alice told me she was nervous about her flight",
            "metadata": {"k": [1, {"nested": True}]},
            "confidence": 0.5,
            "source": "chat",
            "expires_at": 1800000000000,
            "approval_required": True,
        },
    ),
    (
        "remember.request",
        {
            "agent_id": "a",
            "type": "procedural",
            "content": json.dumps(
                {
                    "name": "book",
                    "initial": "s",
                    "states": ["s", "t"],
                    "transitions": [{"trigger": "go", "source": "s", "dest": "t"}],
                }
            ),
        },
    ),
    ("recall.request", {"agent_id": "a", "query": "tea"}),
    (
        "recall.request",
        {
            "agent_id": "a",
            "user_id": "alice",
            "query": "tea",
            "k": 1000,
            "types": ["semantic", "emotional"],
            "hops": 3,
            "fusion": "weighted",
            "filter": {"topic": "drinks"},
            "fresher_than_days": 7,
        },
    ),
    ("forget.request", {"agent_id": "a", "ids": ["01HX"], "hard_delete": True, "reason": "gdpr"}),
    ("forget.request", {"agent_id": "a", "user_id": "alice", "filter": {"topic": "drinks"}}),
    ("merge.request", {"agent_id": "a", "canonical": "x", "duplicates": ["y", "z"]}),
    (
        "merge.request",
        {"agent_id": "a", "canonical": "x", "duplicates": ["y"], "strategy": "merge_content"},
    ),
    (
        "expire.request",
        {
            "agent_id": "a",
            "policy": {
                "older_than_days": 30,
                "type": "episodic",
                "confidence_below": 0.3,
                "no_recall_in_days": 14,
            },
            "action": "demote",
        },
    ),
]


@pytest.mark.parametrize(("message", "payload"), V0_CLIENT_REQUESTS)
def test_v0_client_requests_validate(message: str, payload: dict[str, Any]) -> None:
    assert spec.validate(message, payload) is None


@pytest.mark.parametrize(
    ("message", "payload", "path", "rule"),
    [
        (
            "remember.request",
            {"agent_id": "a", "type": "semantic", "content": "x", "approval_requried": True},
            "/approval_requried",
            "additionalProperties",
        ),
        ("recall.request", {"agent_id": "a", "query": "q", "k": 0}, "/k", "minimum"),
        (
            "remember.request",
            {"agent_id": "a", "type": "semantic", "content": "x", "confidence": 1.5},
            "/confidence",
            "maximum",
        ),
        ("remember.request", {"agent_id": "a", "type": "fact", "content": "x"}, "/type", "enum"),
        ("forget.request", {"agent_id": "a"}, "", "anyOf"),
        ("forget.request", {"agent_id": "a", "filter": {}}, "/filter", "minProperties"),
        ("expire.request", {"agent_id": "a", "policy": {}}, "/policy", "minProperties"),
        (
            "merge.request",
            {"agent_id": "a", "canonical": "x", "duplicates": []},
            "/duplicates",
            "minItems",
        ),
    ],
)
def test_mistakes_are_named_by_field_and_rule(
    message: str, payload: dict[str, Any], path: str, rule: str
) -> None:
    envelope = spec.validate(message, payload)
    assert envelope is not None
    assert envelope["details"] == [
        {"path": path, "rule": rule, "message": envelope["details"][0]["message"]}
    ]
    assert spec.validate("error", envelope) is None


def test_scope_less_forget_message_names_both_fields() -> None:
    envelope = spec.validate("forget.request", {"agent_id": "a"})
    assert envelope is not None
    assert "`ids`" in envelope["message"]
    assert "`filter`" in envelope["message"]


def test_misspelt_field_suggests_the_real_one() -> None:
    envelope = spec.validate(
        "remember.request",
        {"agent_id": "a", "type": "semantic", "content": "x", "approval_requried": True},
    )
    assert envelope is not None
    assert "did you mean `approval_required`?" in envelope["details"][0]["message"]


def test_every_error_is_reported_at_once() -> None:
    envelope = spec.validate(
        "recall.request", {"query": "", "k": 0, "hops": 9, "fusion": "borda", "extra": 1}
    )
    assert envelope is not None
    assert {(d["path"], d["rule"]) for d in envelope["details"]} == {
        ("/agent_id", "required"),
        ("/query", "minLength"),
        ("/k", "minimum"),
        ("/hops", "maximum"),
        ("/fusion", "enum"),
        ("/extra", "additionalProperties"),
    }


def test_conditional_rule_is_explained_in_words() -> None:
    envelope = spec.validate(
        "remember.request", {"agent_id": "a", "type": "semantic", "content": "x", "valence": 0.2}
    )
    assert envelope is not None
    [detail] = envelope["details"]
    assert (detail["path"], detail["rule"]) == ("/type", "const")
    assert "belong to emotional memories only" in detail["message"]


def test_procedural_content_names_the_inner_problem() -> None:
    machine = {
        "name": "m",
        "initial": "a",
        "states": ["a"],
        "transitions": [{"trigger": "t", "source": "a", "dest": "a", "after": "os.system"}],
    }
    envelope = spec.validate(
        "remember.request", {"agent_id": "a", "type": "procedural", "content": json.dumps(machine)}
    )
    assert envelope is not None
    [detail] = envelope["details"]
    assert (detail["path"], detail["rule"]) == ("/content", "contentSchema")
    assert "/transitions/0/after" in detail["message"]


def test_non_procedural_content_is_free_text() -> None:
    payload = {"agent_id": "a", "type": "semantic", "content": "{not json"}
    assert spec.validate("remember.request", payload) is None


def test_check_raises_a_request_error_carrying_the_envelope() -> None:
    with pytest.raises(RequestError) as caught:
        spec.check("recall.request", {"agent_id": "a", "query": "q", "k": 0})
    assert isinstance(caught.value, MnemowireError)
    assert caught.value.code == "invalid_request"
    assert caught.value.details[0]["path"] == "/k"
    assert json.loads(caught.value.to_json()) == caught.value.envelope


def test_unknown_message_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match=r"remember\.request"):
        spec.validate("remember", {})


def test_unknown_version_is_a_spec_error() -> None:
    with pytest.raises(MnemowireError, match="unknown spec version"):
        spec.read_spec("v9")


def test_pointer_escapes_per_rfc_6901() -> None:
    assert spec.pointer(["a/b", "m~n", 0]) == "/a~1b/m~0n/0"
    assert spec.pointer([]) == ""


def test_inlined_schema_has_no_references_and_validates_the_same() -> None:
    for message in spec.read_spec().messages:
        inlined = spec.inlined_schema(message)
        assert "$ref" not in json.dumps(inlined)
        checker = jsonschema.Draft202012Validator(inlined)
        for example in spec.read_spec().examples(message):
            if "contentSchema" not in json.dumps(inlined):
                assert checker.is_valid(example.instance) is example.valid


def test_integral_float_bounds_are_compiled_as_integers_and_nothing_else_changes() -> None:
    """jsonschema-rs compares against a float bound ~20x slower than against an integer one;
    the rewrite must keep every verdict (JSON Schema compares numbers by value)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "maximum": {"type": "number", "maximum": 1000000.0, "minimum": -1000000.0},
            "half": {"type": "number", "exclusiveMaximum": 0.5, "multipleOf": 0.25},
            "many": {"enum": [1.0, 2.5]},
        },
    }
    rewritten = integral_bounds(schema)
    limits = rewritten["properties"]["maximum"]
    assert (limits["maximum"], limits["minimum"]) == (1000000, -1000000)
    assert type(limits["maximum"]) is int
    assert type(limits["minimum"]) is int
    assert rewritten["properties"]["half"] == schema["properties"]["half"]  # fractional: kept
    assert rewritten["properties"]["many"] == {"enum": [1.0, 2.5]}  # not a bound: kept
    assert schema["properties"]["maximum"]["maximum"] == 1000000.0  # the input is not touched


@pytest.mark.parametrize(
    ("value", "valid"),
    [(1000000.0, True), (1000000, True), (-1000000.0, True), (1000000.0000001, False),
     (-1000000.5, False), (1e300, False)],
)  # fmt: skip
def test_the_query_vector_bounds_keep_their_verdicts(value: float, valid: bool) -> None:
    request = {
        "agent_id": "a",
        "query": "tea",
        "query_vector": {"embedder": "e", "vector": [0.25, value]},
    }
    envelope = spec.validate("recall.request", request, version="v0.1")
    assert (envelope is None) == valid
    if not valid:
        assert envelope is not None
        assert envelope["details"][0]["path"] == "/query_vector/vector/1"
        assert envelope["details"][0]["rule"] in {"maximum", "minimum"}


@pytest.mark.parametrize(
    "payload",
    [
        {"agent_id": "a", "query": "tea", "\ud800": 1},
        {"agent_id": "a", "query": "tea", "filters": {"metadata": {"\udfff": "x"}}},
    ],
)
def test_a_lone_surrogate_in_a_key_is_named_not_a_crash(payload: dict[str, Any]) -> None:
    """jsonschema-rs cannot read an object whose key has no UTF-8 encoding: the text rule
    is reported alone, as for any value the schema cannot be read against."""
    envelope = spec.validate("recall.request", payload)
    assert envelope is not None
    assert any(d["rule"] == "text" for d in envelope["details"])


def test_procedural_content_with_a_lone_surrogate_key_is_named_not_a_crash() -> None:
    content = '{"name": "n", "initial": "s", "states": ["s"], "\\ud800": 1}'
    request = {"agent_id": "a", "type": "procedural", "content": content}
    envelope = spec.validate("remember.request", request)
    assert envelope is not None
    assert envelope["details"][0]["path"] == "/content"
