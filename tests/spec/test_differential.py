"""The run-time validator (jsonschema-rs) and the reference (python-jsonschema) never disagree.

Cases come from the schemas themselves (hypothesis-jsonschema), so they reach every branch, and
from arbitrary JSON objects, so they reach the rejections.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from mnemowire import spec
from mnemowire.spec.lint import reference_validator

MESSAGES = spec.read_spec().messages
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    # JSON has no NaN or infinities: the parser refuses them, and the validators' well-formed
    # pass reports them (rule json) before any schema is read
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None
)


@functools.cache
def _oracle(message: str) -> Any:
    return reference_validator(spec.read_spec(), message)


def _agree(message: str, payload: Any) -> None:
    fast = spec.validator(message)
    oracle = _oracle(message)
    assert fast.schema_valid(payload) is oracle.is_valid(payload), payload
    assert bool(fast.errors(payload)) is not fast.is_valid(payload)


def _generated(message: str) -> st.SearchStrategy[Any]:
    """Cases drawn from the message's own schema.

    review-request nests a whole request schema under an if/then per operation, which
    hypothesis-jsonschema canonicalises into a search that takes minutes; it is composed from
    the parts instead (the operation, that operation's request, a diff), and so is
    reviews.response, a list of them. remember_batch.request is a list of remember requests,
    whose whole schema took 90 s to search: its list is drawn here, each item from the
    remember request's own schema.
    """
    if message == "review-request":
        return _reviews()
    if message == "remember_batch.request":
        requests = spec.inlined_schema(message)["properties"]["requests"]
        one = from_schema(_without_extras(requests["items"]))
        return st.fixed_dictionaries(
            {"requests": st.lists(one, min_size=requests["minItems"], max_size=3)}
        )
    if message == "reviews.response":
        return st.fixed_dictionaries(
            {
                "reviews": st.lists(_reviews(), max_size=1),
                "latency_ms": st.floats(min_value=0, max_value=1e6),
            },
            optional={"next_cursor": st.just("01JD3Y8A1B2C3D4E5F6G7H8J9K")},
        )
    return from_schema(_without_extras(spec.inlined_schema(message)))


@functools.cache
def _reviews() -> st.SearchStrategy[Any]:
    review = _without_extras(spec.inlined_schema("review-request"))
    diff = from_schema(review["properties"]["diff"])
    staged = [
        st.fixed_dictionaries(
            {
                "review_id": st.just("01JD3Y8A1B2C3D4E5F6G7H8J9K"),
                "operation": st.just(operation),
                "agent_id": st.just("a"),
                "request": from_schema(spec.inlined_schema(f"{operation}.request")),
                "diff": diff,
                "requested_at": st.integers(min_value=0, max_value=2**53),
            }
        )
        for operation in ("remember", "forget", "merge")
    ]
    return st.one_of(staged)


def _without_extras(schema: Any) -> Any:
    """Close the extensible objects: unknown fields are what test_arbitrary_objects_agree adds,
    and generating arbitrary extra members here only makes the cases huge and slow."""
    if isinstance(schema, list):
        return [_without_extras(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _without_extras(v) for k, v in schema.items()}
    if "properties" in out and out.get("additionalProperties") is True:
        out["additionalProperties"] = False
    return out


@pytest.mark.parametrize("message", MESSAGES)
def test_generated_valid_cases_agree(message: str) -> None:
    @SETTINGS
    @given(_generated(message))
    def run(payload: Any) -> None:
        _agree(message, payload)

    run()


@pytest.mark.parametrize("message", MESSAGES)
def test_arbitrary_objects_agree(message: str) -> None:
    base = next(e.instance for e in spec.read_spec().examples(message) if e.valid)

    keys = st.text(max_size=6)  # a message whose example is {} (scopes.request) has no others
    if base:
        keys = st.sampled_from(sorted(base)) | keys

    @SETTINGS
    @given(st.dictionaries(keys, JSON))
    def run(changes: dict[str, Any]) -> None:
        _agree(message, {**base, **changes})

    run()
