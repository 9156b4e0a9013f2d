"""Record seals (docs/spec/v0.1.md#seals.digest): canonical bytes as RFC 8785 has them, a MAC
only the key holder can make, and every kind of tampering caught."""

from __future__ import annotations

import json
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemowire.errors import ConfigError
from mnemowire.seals import SealKeys, canonical, sealed_payload

KEY = bytes(range(32))
RECORD = {
    "id": "m-1",
    "agent_id": "assistant",
    "user_id": "alice",
    "type": "semantic",
    "content": "Alice is allergic to peanuts",
    "metadata": {"topic": "health", "score": 0.5},
}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=["Cs"])),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(st.characters(exclude_categories=["Cs"])), inner, max_size=4)
    ),
    max_leaves=12,
)


def _reference(value: Any) -> bytes:
    """RFC 8785 by the reference library, integers past 2^53 read as the doubles they are."""
    text = json.dumps(value)  # through JSON text and back: what a peer parsing it would hold
    parsed = json.loads(text, parse_int=lambda s: int(s) if abs(int(s)) <= 2**53 else float(s))
    return rfc8785.dumps(parsed)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_canonical_bytes_are_rfc_8785(value: Any) -> None:
    assert canonical(value) == _reference(value)


@pytest.mark.parametrize(
    "value",
    [1.0, -0.0, 1e21, 1e-7, 123456789012345680.0, 2**60, {"\U0001f600": 1, "\ue000": 2}, "\u2028"],
)
def test_the_cases_a_plain_json_dump_gets_wrong(value: Any) -> None:
    assert canonical(value) == _reference(value)


def test_a_seal_verifies_and_any_change_breaks_it() -> None:
    keys = SealKeys({"k1": KEY})
    seal = keys.seal(RECORD)
    assert seal.alg == "hmac-sha256"
    assert seal.key_id == "k1"
    assert len(seal.mac) == 64
    assert keys.verify(seal, RECORD)
    assert keys.verify(seal.model_dump(), RECORD)
    for field, value in [
        ("id", "m-2"),
        ("agent_id", "intruder"),
        ("user_id", None),
        ("type", "episodic"),
        ("content", "Alice is not allergic to peanuts"),
        ("metadata", {"topic": "health", "score": 0.25}),
    ]:
        assert not keys.verify(seal, {**RECORD, field: value}), field


def test_fields_outside_the_seal_do_not_matter() -> None:
    keys = SealKeys({"k1": KEY})
    seal = keys.seal(RECORD)
    assert keys.verify(seal, {**RECORD, "confidence": 0.1, "score": 3.0, "created_at": 5})
    assert sealed_payload({"id": "x"}) == {
        "id": "x", "agent_id": None, "user_id": None, "type": None, "content": None,
        "metadata": {},
    }  # fmt: skip


def test_a_missing_forged_or_foreign_seal_does_not_verify() -> None:
    keys = SealKeys({"k1": KEY})
    seal = keys.seal(RECORD).model_dump()
    assert not keys.verify(None, RECORD)
    assert not keys.verify({**seal, "mac": "0" * 64}, RECORD)
    assert not keys.verify({**seal, "key_id": "k2"}, RECORD)
    assert not keys.verify({**seal, "alg": "hmac-sha512"}, RECORD)
    other = SealKeys({"k1": bytes(32)})
    assert not other.verify(seal, RECORD)


def test_keys_rotate_old_seals_still_verify() -> None:
    old = SealKeys({"k1": KEY}).seal(RECORD)
    rotated = SealKeys({"k1": KEY, "k2": bytes(range(1, 33))}, current="k2")
    assert rotated.seal(RECORD).key_id == "k2"
    assert rotated.verify(old, RECORD)


def test_keys_are_parsed_and_weak_ones_refused() -> None:
    keys = SealKeys.parse(f"k1={KEY.hex()},k0={bytes(32).hex()}")
    assert keys.current == "k1"
    for text in ("", "k1", "k1=zz", f"k1={bytes(16).hex()}"):
        with pytest.raises(ConfigError):
            SealKeys.parse(text)
    with pytest.raises(ConfigError, match="name the current"):
        SealKeys({"a": KEY, "b": KEY})
