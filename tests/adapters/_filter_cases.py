"""Generated metadata and filters, and hand-picked edge cases, for checking that an adapter's
filter compiler means exactly what ``mnemowire.filters.matches`` means. Each adapter's
test_filters.py evaluates them in its own database."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from mnemowire.models import FILTER_OPERATORS_FIELDS

__all__ = ["EDGE_CASES", "FILTERS", "METADATA", "SAFE"]

#: the largest filter number the spec accepts (common.json FilterScalar): 2^53 - 1
SAFE = 2**53 - 1
KEYS = ["a", "b", "odd key.with 'quotes' and \"more\"", "ключ", "back\\slash", "a.b[0]"]
# the spec refuses NUL and lone surrogates in every string ([messages.wellformed])
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"), max_size=6)
METADATA_NUMBERS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, 1, 1.0, -0.0, 2.5, 2**53, 2**53 + 1, float(2**53), SAFE]),
)
FILTER_NUMBERS = st.one_of(
    st.integers(min_value=-SAFE, max_value=SAFE),
    st.floats(min_value=-SAFE, max_value=SAFE, allow_nan=False),
    st.sampled_from([0, 1, 1.0, -0.0, 2.5, SAFE, -SAFE, float(2**52)]),
)
SCALARS = st.one_of(st.none(), st.booleans(), METADATA_NUMBERS, TEXT, st.sampled_from(["m", "é"]))
FILTER_SCALARS = st.one_of(
    st.none(), st.booleans(), FILTER_NUMBERS, TEXT, st.sampled_from(["m", "z", "é"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
METADATA = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4)


def _operator(op: str) -> st.SearchStrategy[Any]:
    if op == "$exists":
        return st.booleans()
    if op in ("$in", "$nin"):
        return st.lists(FILTER_SCALARS, min_size=1, max_size=4)
    return FILTER_SCALARS


CONDITIONS = st.one_of(
    FILTER_SCALARS,
    st.sets(st.sampled_from(FILTER_OPERATORS_FIELDS), min_size=1, max_size=3).flatmap(
        lambda ops: st.fixed_dictionaries({op: _operator(op) for op in sorted(ops)})
    ),
)
FILTERS = st.dictionaries(st.sampled_from(KEYS), CONDITIONS, min_size=1, max_size=3)

#: (metadata, filter, whether it matches)
EDGE_CASES: list[tuple[dict[str, Any], dict[str, Any], bool]] = [
    ({"n": 1}, {"n": 1.0}, True),
    ({"n": 1}, {"n": True}, False),
    ({"n": True}, {"n": 1}, False),
    ({"n": [1]}, {"n": 1}, False),
    ({"n": {"x": 1}}, {"n": {"$ne": 1}}, True),
    ({}, {"n": {"$ne": 1}}, True),
    ({}, {"n": {"$nin": [1]}}, True),
    ({}, {"n": {"$lt": 5}}, False),
    ({"n": None}, {"n": {"$exists": True}}, True),
    ({"n": None}, {"n": None}, True),
    ({}, {"n": None}, False),
    ({"s": "é"}, {"s": {"$gt": "z"}}, True),  # code point order, whatever the collation
    ({"s": "10"}, {"s": {"$lt": 9}}, False),
    ({"n": 2**53 + 1}, {"n": {"$gt": SAFE}}, True),
    ({"n": 2**70}, {"n": {"$gt": SAFE}}, True),  # past int64 in the metadata
    ({"n": -(2**70)}, {"n": {"$lt": -SAFE}}, True),
    ({"n": "b"}, {"n": {"$in": ["a", "b", 1, None]}}, True),
    ({"n": 1.0}, {"n": {"$in": ["1", 1]}}, True),
    ({"n": False}, {"n": {"$in": [0, True]}}, False),
    ({"n": False}, {"n": {"$nin": [0, None, True]}}, True),
    ({'q"uote': "x"}, {'q"uote': "x"}, True),
    ({"back\\slash": 2}, {"back\\slash": {"$gte": 2}}, True),
    ({"a.b": 1, "a": {"b": 2}}, {"a.b": 1}, True),  # a key, never a path
    ({"a": {"b": 2}}, {"a.b": {"$exists": True}}, False),
    ({"n": "x"}, {"n": {"$in": [f"v{i}" for i in range(1000)] + ["x"]}}, True),
]
