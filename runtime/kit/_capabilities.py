"""Which capabilities a request needs (docs/spec/v0.md#store.capabilities): the one table a
router routes by and a store refuses by, so the two can never disagree; and how a store keeps
each field (docs/spec/v0.1.md#store.fidelity)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from mnemowire.errors import UnsupportedError
from mnemowire.models import (
    EXPIRE_REQUEST_DEFAULTS,
    FIELD_FIDELITY_FIELDS,
    TYPE_SPECIFIC_FIELDS,
    Capabilities,
    Capability,
    ExpireAction,
    Fidelity,
)

__all__ = [
    "fidelity_of",
    "missing_reason",
    "needs",
    "refuse_undeclared",
    "refuse_unkept",
    "worst_fidelity",
]


#: per operation, the request options that need a capability when asked for (set, not null,
#: not false, not an empty filter), and that capability
_OPTIONS: dict[str, tuple[tuple[str, Capability], ...]] = {
    "remember": (
        ("user_id", Capability.USER_SCOPE),
        ("approval_required", Capability.GOVERNANCE),
        ("expires_at", Capability.EXPIRY),
        ("seal", Capability.SEALS),
        ("dedupe", Capability.DEDUPE),
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
        # a staged forget or merge is only governance when it can be decided on the wire
        ("approval_required", Capability.DECIDE),
        ("review_id", Capability.DECIDE),
    ),
    "merge": (("approval_required", Capability.DECIDE), ("review_id", Capability.DECIDE)),
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
    "reviews": (("user_id", Capability.USER_SCOPE),),
    "decide": (),
    "export_records": (
        ("user_id", Capability.USER_SCOPE),
        ("include_history", Capability.HISTORY),
    ),
    "import_records": (),
    "scopes": (),
    "history": (("user_id", Capability.USER_SCOPE),),
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
    elif operation == "import_records":  # what keeping its records needs, and the operation
        out = [operation, *dict.fromkeys(_kept_needs(payload.get("records", [])))]
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


def _kept_needs(lines: Any) -> Iterator[str]:
    """What a store must serve to keep an import's records as their lines say: each type, and
    users, seals and pending reviews where a line has them."""
    for line in lines:
        record = line["record"]
        yield str(record["type"])
        if record.get("user_id") is not None:
            yield Capability.USER_SCOPE.value
        if record.get("seal") is not None:
            yield Capability.SEALS.value
        if line.get("state") == "pending":
            yield Capability.GOVERNANCE.value


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
    ([store.capabilities]: a store never half-serves a request), or carries a field the store
    declares it cannot keep ([store.fidelity])."""
    reason = missing_reason(declared.capabilities, needs(operation, payload))
    if reason is not None:
        raise UnsupportedError(
            f"{declared.store} {reason}, which this {operation} needs; send it to a store "
            "that declares it (see its capabilities)"
        )
    refuse_unkept(declared, operation, payload)


def refuse_unkept(declared: Capabilities, operation: str, payload: Mapping[str, Any]) -> None:
    """Fail with ``unsupported`` when a remember or update carries a field the store (or a
    router, for every copy) declares it cannot keep ([store.fidelity])."""
    if operation in ("remember", "update") and declared.fidelity:
        kept = fidelity_of(declared)
        refused = [f for f in payload if kept.get(f) == Fidelity.UNSUPPORTED and _asked(payload[f])]
        if refused:
            raise UnsupportedError(
                f"{declared.store} cannot keep {', '.join(refused)} (its capabilities' "
                "fidelity says unsupported); leave the field out or send it to another store"
            )


#: the fields a store keeps only with a capability: without it, a request carrying the field
#: is refused (``needs``), so the field is unsupported whatever ``fidelity`` says
_GATES: dict[str, str] = {
    "id": Capability.CLIENT_IDS,
    "user_id": Capability.USER_SCOPE,
    "expires_at": Capability.EXPIRY,
    "seal": Capability.SEALS,
    **{field: kind for kind, fields in TYPE_SPECIFIC_FIELDS.items() for field in fields},
}


def fidelity_of(declared: Capabilities) -> dict[str, str]:
    """How the store keeps each field a remember carries, in the spec's order: as its
    ``fidelity`` says (a field it does not name is native), and unsupported where the
    capability the field needs is not declared."""
    held = set(declared.capabilities)
    named = declared.fidelity.model_dump(exclude_none=True) if declared.fidelity else {}
    return {
        f: Fidelity.UNSUPPORTED.value
        if f in _GATES and _GATES[f] not in held
        else str(named.get(f, Fidelity.NATIVE))
        for f in FIELD_FIDELITY_FIELDS
    }


def worst_fidelity(declared: Iterable[Capabilities]) -> dict[str, str]:
    """Per field, the least faithful of several stores that take it (a store without the
    field's capability is never sent it): what a router writing every copy can promise. Only
    the fields that are not native."""
    order = list(Fidelity)
    worst: dict[str, str] = {}
    for answer in declared:
        held = set(answer.capabilities)
        for name, how in fidelity_of(answer).items():
            if name in _GATES and _GATES[name] not in held:
                continue
            current = worst.get(name, Fidelity.NATIVE)
            worst[name] = max(current, how, key=lambda f: order.index(Fidelity(f)))
    return {name: how for name, how in worst.items() if how != Fidelity.NATIVE}
