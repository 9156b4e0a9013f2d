"""Which capabilities a request needs (docs/spec/v0.md#store.capabilities): the one table a
router routes by and a store refuses by, so the two can never disagree."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from mnemowire.errors import UnsupportedError
from mnemowire.models import EXPIRE_REQUEST_DEFAULTS, Capabilities, Capability, ExpireAction

__all__ = [
    "expire_needs",
    "forget_needs",
    "missing_reason",
    "needs",
    "recall_needs",
    "refuse_undeclared",
    "remember_needs",
]


def remember_needs(payload: Mapping[str, Any]) -> list[str]:
    """What holding this write needs: its memory type, ``client_ids`` (a store that cannot keep
    a router's id would hold a copy that forget and merge never reach), and what its options
    ask for."""
    needs = [str(payload["type"]), Capability.CLIENT_IDS.value]
    if payload.get("user_id") is not None:
        needs.append(Capability.USER_SCOPE.value)
    if payload.get("approval_required"):
        needs.append(Capability.GOVERNANCE.value)
    if payload.get("expires_at") is not None:
        needs.append(Capability.EXPIRY.value)
    return needs


def recall_needs(payload: Mapping[str, Any]) -> list[str]:
    """What honouring every recall option needs (a type the store does not hold matches
    nothing there; a router routes types separately)."""
    needs = []
    if payload.get("user_id") is not None:
        needs.append(Capability.USER_SCOPE.value)
    if payload.get("filter"):
        needs.append(Capability.METADATA_FILTER.value)
    if payload.get("fresher_than_days") is not None:
        needs.append(Capability.FRESHNESS.value)
    return needs


def forget_needs(payload: Mapping[str, Any]) -> list[str]:
    needs = [Capability.FORGET.value]
    if payload.get("hard_delete"):
        needs.append(Capability.HARD_DELETE.value)
    if payload.get("filter"):
        needs.append(Capability.METADATA_FILTER.value)
    if payload.get("user_id") is not None:
        needs.append(Capability.USER_SCOPE.value)
    return needs


def merge_needs(payload: Mapping[str, Any]) -> list[str]:
    return [Capability.MERGE.value]


def expire_needs(payload: Mapping[str, Any]) -> list[str]:
    """An expire whose policy names a type only concerns stores holding that type."""
    needs = [Capability.EXPIRE.value]
    policy = payload["policy"]
    if policy.get("type") is not None:
        needs.append(str(policy["type"]))
    if policy.get("no_recall_in_days") is not None:
        needs.append(Capability.RECALL_TRACKING.value)
    action = payload.get("action", EXPIRE_REQUEST_DEFAULTS["action"])
    if action in (ExpireAction.DEMOTE, ExpireAction.ARCHIVE):
        needs.append(str(action))
    if payload.get("user_id") is not None:
        needs.append(Capability.USER_SCOPE.value)
    return needs


_NEEDS: dict[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "remember": remember_needs,
    "recall": recall_needs,
    "forget": forget_needs,
    "merge": merge_needs,
    "expire": expire_needs,
}


def needs(operation: str, payload: Mapping[str, Any]) -> list[str]:
    """The capabilities serving ``operation`` with this request (wire JSON) needs."""
    return _NEEDS[operation](payload)


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
