"""Which capabilities a request needs (docs/spec/v0.md#store.capabilities): the one table a
router routes by and a store refuses by, so the two can never disagree."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mnemowire.errors import UnsupportedError
from mnemowire.models import EXPIRE_REQUEST_DEFAULTS, Capabilities, Capability, ExpireAction

__all__ = ["missing_reason", "needs", "refuse_undeclared"]


#: per operation, the request options that need a capability when asked for (set, not null,
#: not false, not an empty filter), and that capability
_OPTIONS: dict[str, tuple[tuple[str, Capability], ...]] = {
    "remember": (
        ("user_id", Capability.USER_SCOPE),
        ("approval_required", Capability.GOVERNANCE),
        ("expires_at", Capability.EXPIRY),
        ("seal", Capability.SEALS),
    ),
    "recall": (
        ("user_id", Capability.USER_SCOPE),
        ("filter", Capability.METADATA_FILTER),
        ("fresher_than_days", Capability.FRESHNESS),
        ("query_vector", Capability.QUERY_VECTOR),
    ),
    "forget": (
        ("hard_delete", Capability.HARD_DELETE),
        ("filter", Capability.METADATA_FILTER),
        ("user_id", Capability.USER_SCOPE),
    ),
    "merge": (),
    "expire": (("user_id", Capability.USER_SCOPE),),
    "get": (("user_id", Capability.USER_SCOPE),),
    "list": (("user_id", Capability.USER_SCOPE), ("filter", Capability.METADATA_FILTER)),
    "restore": (("user_id", Capability.USER_SCOPE),),
    "update": (
        ("user_id", Capability.USER_SCOPE),
        ("expires_at", Capability.EXPIRY),
        ("seal", Capability.SEALS),
    ),
    "remember_batch": (),
}


def needs(operation: str, payload: Mapping[str, Any]) -> list[str]:
    """The capabilities serving ``operation`` with this request (wire JSON) needs.

    A remember needs its memory type and ``client_ids`` (a store that cannot keep a router's
    id would hold a copy that forget and merge never reach); forget, merge and expire need the
    operation; an expire whose policy names a type only concerns stores holding that type. A
    recall's types are not needs: a type a store does not hold matches nothing there (a router
    routes types separately)."""
    if operation == "remember":
        out = [str(payload["type"]), Capability.CLIENT_IDS.value]
    elif operation == "remember_batch":  # what any of its remembers needs, and the operation
        each = (need for request in payload["requests"] for need in needs("remember", request))
        out = [operation, *dict.fromkeys(each)]
    else:
        out = [] if operation == "recall" else [operation]
    out += [c.value for option, c in _OPTIONS[operation] if _asked(payload.get(option))]
    if operation == "expire":
        policy = payload["policy"]
        if policy.get("type") is not None:
            out.append(str(policy["type"]))
        if policy.get("no_recall_in_days") is not None:
            out.append(Capability.RECALL_TRACKING.value)
        action = payload.get("action", EXPIRE_REQUEST_DEFAULTS["action"])
        if action in (ExpireAction.DEMOTE, ExpireAction.ARCHIVE):
            out.append(str(action))
    return out


def _asked(value: Any) -> bool:
    return value is not None and value is not False and value != {}


def missing_reason(capabilities: Iterable[str], needed: Iterable[str]) -> str | None:
    """Why a store cannot serve (the capabilities it lacks), or None when it can."""
    held = set(capabilities)
    lacking = sorted({need for need in needed if need not in held})
    if not lacking:
        return None
    noun = "capability" if len(lacking) == 1 else "capabilities"
    return f"lacks {noun}: {', '.join(lacking)}"


def refuse_undeclared(declared: Capabilities, operation: str, payload: Mapping[str, Any]) -> None:
    """Fail with ``unsupported`` when the request needs a capability the store does not declare
    ([store.capabilities]: a store never half-serves a request)."""
    reason = missing_reason(declared.capabilities, needs(operation, payload))
    if reason is not None:
        raise UnsupportedError(
            f"{declared.store} {reason}, which this {operation} needs; send it to a store "
            "that declares it (see its capabilities)"
        )
