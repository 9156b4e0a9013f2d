"""Every spec example validates exactly as annotated, under both validators."""

from __future__ import annotations

import pytest

from mnemowire import spec
from mnemowire.spec.lint import reference_validator

EXAMPLES = list(spec.read_spec().examples())


def test_every_message_has_examples() -> None:
    messages = {e.message for e in EXAMPLES}
    assert messages == set(spec.read_spec().messages)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.message}/{e.name}")
def test_example_validates_as_annotated(example: spec.Example) -> None:
    validator = spec.validator(example.message)
    found = {(d["path"], d["rule"]) for d in validator.errors(example.instance)}
    assert validator.is_valid(example.instance) is example.valid
    assert found == set(example.errors)
    oracle = reference_validator(spec.read_spec(), example.message)
    assert oracle.is_valid(example.instance) is validator.schema_valid(example.instance)


@pytest.mark.parametrize(
    "example", [e for e in EXAMPLES if not e.valid], ids=lambda e: f"{e.message}/{e.name}"
)
def test_invalid_example_envelope_is_a_valid_error_message(example: spec.Example) -> None:
    envelope = spec.validate(example.message, example.instance)
    assert envelope is not None
    assert spec.validate("error", envelope) is None
    assert envelope["code"] == "invalid_request"
    first_path = envelope["details"][0]["path"]
    assert (f"`{first_path}`" if first_path else "the message") in envelope["message"]


def test_remember_examples_cover_every_memory_type() -> None:
    types = {e.instance["type"] for e in EXAMPLES if e.message == "remember.request" and e.valid}
    assert types == {"semantic", "episodic", "procedural", "emotional"}
