"""Record seals (docs/spec/v0.1.md#seals.digest): a keyed digest a writer attaches to a record,
which stores keep and return unchanged, and which only a holder of the key can make or check.

A router holding the keys seals every remember it fans out and drops every recalled hit whose
seal does not verify, which is how it refuses another agent's record or a copy a lying child
rewrote. The digest is HMAC-SHA256 over the RFC 8785 (JSON Canonicalization Scheme) form of
the record's id, agent, user, type, content and metadata, so any language can check it.

>>> keys = SealKeys({"k1": b"0" * 32})
>>> record = {"id": "m-1", "agent_id": "a", "type": "semantic", "content": "tea"}
>>> keys.verify(keys.seal(record), record)
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any, Final

import rfc8785

from mnemowire.errors import ConfigError
from mnemowire.models import Seal

__all__ = ["ALGORITHM", "SEALED_FIELDS", "SealKeys", "canonical", "sealed_payload"]

ALGORITHM: Final = "hmac-sha256"
#: what a seal covers, in the order the spec lists them
SEALED_FIELDS = ("id", "agent_id", "user_id", "type", "content", "metadata")
#: the shortest key accepted: HMAC-SHA256 keys shorter than its output weaken it
MIN_KEY_BYTES = 32
_BMP_END = 0xFFFF


def sealed_payload(record: Mapping[str, Any]) -> dict[str, Any]:
    """The object a seal is computed over: exactly the sealed fields, ``user_id`` null and
    ``metadata`` ``{}`` when the record has none."""
    return {
        "id": record.get("id"),
        "agent_id": record.get("agent_id"),
        "user_id": record.get("user_id"),
        "type": record.get("type"),
        "content": record.get("content"),
        "metadata": record.get("metadata") or {},
    }


def canonical(value: Any) -> bytes:
    """``value`` as RFC 8785 bytes. ``json.dumps`` with sorted keys already writes most values
    that way, in half the time of a full canonicaliser; the rest (a float that is integral or
    would be written with an exponent, a key outside the Basic Multilingual Plane, which
    RFC 8785 sorts by UTF-16 units) go through ``rfc8785``."""
    if _plain(value):
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
            "utf-8"
        )
    return rfc8785.dumps(_doubles(value))


def _plain(value: Any) -> bool:
    """Whether ``json.dumps`` writes ``value`` as RFC 8785 does (a walk by exact type: this
    runs on every seal check, and ``isinstance`` against the ABCs costs more than the MAC)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if -(2**53) <= item <= 2**53:
                continue
            return False
        if kind is float:
            if item.is_integer() or "e" in repr(item):
                return False
            continue
        if kind is dict:
            for key in item:
                if type(key) is not str or not (key.isascii() or max(map(ord, key)) <= _BMP_END):
                    return False
            stack.extend(item.values())
            continue
        if kind is list or kind is tuple:
            stack.extend(item)
            continue
        return False
    return True


def _doubles(value: Any) -> Any:
    """``value`` with integers beyond ±2^53 as the doubles RFC 8785 (I-JSON) reads them as."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and abs(value) > 2**53:
        return float(value)
    if isinstance(value, Mapping):
        return {key: _doubles(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_doubles(item) for item in value]
    return value


class SealKeys:
    """The keys a writer seals with and a verifier checks against, by key id. ``current``
    names the key new seals use (default: the only key); the others still verify, so keys
    rotate without invalidating what was sealed before."""

    def __init__(self, keys: Mapping[str, bytes], *, current: str | None = None) -> None:
        if not keys:
            raise ConfigError("seal keys: give at least one key")
        for key_id, key in keys.items():
            if len(key) < MIN_KEY_BYTES:
                raise ConfigError(
                    f"seal key {key_id!r} has {len(key)} bytes; use at least {MIN_KEY_BYTES} "
                    "random bytes (e.g. `openssl rand -hex 32`)"
                )
        if current is None:
            if len(keys) != 1:
                raise ConfigError("seal keys: several keys, so name the current one")
            current = next(iter(keys))
        if current not in keys:
            raise ConfigError(f"seal keys: no key {current!r} among {sorted(keys)}")
        self._keys = dict(keys)
        self.current = current

    @classmethod
    def parse(cls, text: str) -> SealKeys:
        """``KEY_ID=HEX[,KEY_ID=HEX...]`` (the first is current), as the CLI and the
        ``MNEMOWIRE_SEAL_KEYS`` variable take them."""
        keys: dict[str, bytes] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key_id, sep, hex_key = part.partition("=")
            try:
                if not sep or not key_id:
                    raise ValueError
                keys[key_id] = bytes.fromhex(hex_key)
            except ValueError:
                raise ConfigError(
                    f"seal key {part[:24]!r}…: write KEY_ID=HEX (hex of at least 32 bytes)"
                ) from None
        return cls(keys, current=next(iter(keys), None))

    def mac(self, key_id: str, record: Mapping[str, Any]) -> str:
        message = canonical(sealed_payload(record))
        return hmac.digest(self._keys[key_id], message, hashlib.sha256).hex()

    def seal(self, record: Mapping[str, Any]) -> Seal:
        """A seal over ``record`` (wire fields) with the current key."""
        return Seal(alg=ALGORITHM, key_id=self.current, mac=self.mac(self.current, record))

    def verify(self, seal: Seal | Mapping[str, Any] | None, record: Mapping[str, Any]) -> bool:
        """Whether ``seal`` is a seal over ``record`` by one of these keys; a missing seal, an
        unknown key or another algorithm does not verify."""
        if seal is None:
            return False
        fields: Mapping[str, Any] = seal.__dict__ if isinstance(seal, Seal) else seal
        alg, key_id, mac = fields.get("alg"), fields.get("key_id"), fields.get("mac")
        if alg != ALGORITHM or key_id not in self._keys or not isinstance(mac, str):
            return False
        return hmac.compare_digest(self.mac(str(key_id), record), mac)
