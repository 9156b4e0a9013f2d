"""What a router promises: the capabilities it declares over its children's declarations,
and the refusal of a request that needs one it withholds.

Union, not intersection, because every operation is routed to the children able to serve it:
the router can serve whatever at least one child can (procedural memories held only by a
state-machine store, graph neighbours only by a graph store). Intersection would hide exactly
the specialised stores a router exists to combine; ``stores[]`` shows which children served.

The exceptions, where a promise only holds if every child keeps it: ``recall_tracking`` only
when the router returns exactly what its one child returned; ``relevance`` only when every
child that holds memories reports relevance (otherwise some hits would carry none, and those
children's hits pass ``min_relevance`` unfloored, as docs/spec/v0.md#recall.relevance allows a
router); and what acts on a record's copies (``EVERY_COPY``) only when every child that holds
memories does it, or the copies part ways; and ``remember_batch`` only when every such child
takes a batch (each stores it in one transaction, so a crash leaves none half-written) and
with ``hard_delete``, since the router undoes a failed batch by erasing what it wrote.
Nothing the router's spec version (the oldest its children speak) does not have: a v0 child
beside a v0.1 one makes a v0 router, without v0.1's operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mnemowire.errors import UnsupportedError
from mnemowire.kit import worst_fidelity
from mnemowire.layers._routing import MEMORY_TYPES
from mnemowire.models import Capabilities
from mnemowire.spec import capability_names

__all__ = ["EVERY_COPY", "declaration", "promised", "refuse_withheld"]

#: what acts on every copy of a record: promised only when every child holding memories does
#: it (an expire that archives in one child leaves the other's copy recalled; an update taken
#: by one copy only, a demotion halving one child's score, a restore of one copy only, a hard
#: forget that skips a child unable to erase and leaves its copy recalled, a staged write one
#: child cannot list or decide, so an approval leaves that copy as it was, an import that one
#: child cannot take, so its records have no copy there, a dedupe one child cannot weigh)
EVERY_COPY = (
    "archive", "demote", "update", "restore", "hard_delete", "reviews", "decide",
    "import_records", "dedupe",
)  # fmt: skip


#: what a router never inherits from a child: a child's staging policy (refused: see
#: _router_reviews.check_policy); the router declares its own
NOT_ROUTED = ("staging_policy",)


def promised(
    declared: Mapping[str, Sequence[str]], spec_version: str, *, tracks_exactly: bool
) -> dict[str, None]:
    """The router's capabilities, in order of first declaration, from each child's
    (``declared``: child name -> its capabilities); ``tracks_exactly``: whether the router
    returns exactly what its one child returned."""
    spoken = set(capability_names(spec_version))
    union: dict[str, None] = {}
    for capabilities in declared.values():
        union.update(dict.fromkeys(c for c in capabilities if c in spoken))
    if not tracks_exactly:
        union.pop("recall_tracking", None)
    for name in NOT_ROUTED:
        union.pop(name, None)
    holders = [set(c) for c in declared.values() if set(c) & set(MEMORY_TYPES)]
    for name in ("relevance", *EVERY_COPY):
        if not all(name in c for c in holders):
            union.pop(name, None)
    # a batch goes to every child as one message, stored in one transaction there, and a
    # failed one is undone by erasing what it wrote
    if "hard_delete" not in union or not all("remember_batch" in c for c in holders):
        union.pop("remember_batch", None)
    return union


def declaration(
    name: str,
    spec_version: str,
    promises: Mapping[str, None],
    answers: Iterable[Capabilities],
    policy: Mapping[str, Any] | None = None,
) -> Capabilities:
    """The router's ``capabilities`` answer: what it promises, and, since every copy is
    written, each field kept as well as the least faithful child that takes it keeps it
    (docs/spec/v0.1.md#store.fidelity); with its staging ``policy`` (a document), that policy,
    reported where a client looks for it ([review.policy])."""
    fidelity = worst_fidelity(answers)
    staging = {"staging_policy": dict(policy)} if policy is not None else {}
    return Capabilities.model_validate(
        {
            "store": name,
            "spec_version": spec_version,
            "capabilities": [*promises, *(["staging_policy"] if staging else [])],
            **({"fidelity": fidelity} if fidelity else {}),
            **staging,
        }
    )


def refuse_withheld(
    router: str,
    required: Sequence[str],
    promises: Mapping[str, None],
    declared: Mapping[str, Sequence[str]],
    spec_version: str,
) -> None:
    """Unsupported when the request needs what some children serve but the router does not
    promise (what no child serves, the routing itself reports, child by child)."""
    withheld = [
        c for c in required
        if c not in promises and any(c in capabilities for capabilities in declared.values())
    ]  # fmt: skip
    if withheld:
        raise UnsupportedError(
            f"{router} does not serve {', '.join(withheld)}: not every store holding the "
            "records does (their copies would part ways), or the spec version every store "
            f"speaks ({spec_version}) does not have it"
        )
