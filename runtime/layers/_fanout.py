"""What every routed operation works over: a router's children, what each declares and what the
router promises over them, how long a child may take, and the router's write policy, seal keys
and staging policy; with the three ways an operation reaches children (``plan`` who is asked,
``run`` them at once, ``extra`` for an optional protocol's id operation) and the one remember
every child gets (``outgoing``).

``MemoryRouter`` builds one in its constructor and hands it to the operation modules
(``_router_records``, ``_router_reviews``, ``_router_graph``): functions over a ``FanOut``,
not mixins reaching into the router's attributes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from mnemowire.errors import UnsupportedError
from mnemowire.kit import missing_reason, new_id, refuse_unkept, to_wire
from mnemowire.kit.reviews import staging
from mnemowire.kit.staging import StagingRules
from mnemowire.layers._promises import refuse_withheld
from mnemowire.layers._routing import Outcome, call_child, failure, fan_out_ids, unsupported
from mnemowire.layers._sealing import sealed
from mnemowire.models import Capabilities, RememberRequest
from mnemowire.protocol import BY_CAPABILITY, MemoryStore
from mnemowire.seals import SealKeys

__all__ = ["FanOut", "Plan", "WritePolicy"]

R = TypeVar("R")
WritePolicy = Literal["all", "primary_only"]
#: a child's place in a plan: the store, and why it is skipped (None: it is asked)
Plan = list[tuple[MemoryStore, str | None]]


@dataclass(frozen=True)
class FanOut:
    """A router's children and the promises it made over them (read once, at construction)."""

    name: str
    children: tuple[MemoryStore, ...]
    #: child name -> the capabilities it declares
    capabilities: Mapping[str, frozenset[str]]
    #: child name -> its capabilities as declared, in its order
    declared: Mapping[str, tuple[str, ...]]
    #: what the router promises (in order of first declaration)
    promised: Mapping[str, None]
    #: the spec version every child speaks
    spec_version: str
    #: the router's own ``capabilities`` answer
    declaration: Capabilities
    deadline_s: float
    write_policy: WritePolicy
    seal_keys: SealKeys | None
    policy: StagingRules | None

    @property
    def primary_only(self) -> bool:
        return self.write_policy == "primary_only"

    def plan(self, required: Sequence[str], *, primary_only: bool) -> Plan:
        """Each child with the reason it is skipped, or None when it is asked; unsupported
        when the request needs what some children serve but the router does not promise."""
        refuse_withheld(self.name, required, self.promised, self.declared, self.spec_version)
        plan: Plan = []
        primary: str | None = None
        for child in self.children:
            reason = missing_reason(self.capabilities[child.name], required)
            if reason is None and primary_only:
                if primary is None:
                    primary = child.name
                else:
                    reason = f"write_policy primary_only: written to {primary} only"
            plan.append((child, reason))
        return plan

    async def run(
        self,
        operation: str,
        plan: Plan,
        call: Callable[[Any], Awaitable[Any]],
        answer: Callable[[MemoryStore, Any], R],
    ) -> list[Outcome[R]]:
        """Ask every planned child at once; raise unless at least one succeeded. ``call`` gets
        a child typed ``Any``: a planned child declared what the operation needs (an optional
        operation's capability), and one whose method is missing fails as that child's error."""
        if all(reason is not None for _, reason in plan):
            raise unsupported(
                operation, [Outcome(c.name, "skipped", error=r).result() for c, r in plan]
            )

        async def one(child: MemoryStore, reason: str | None) -> Outcome[R]:
            if reason is not None:
                return Outcome(child.name, "skipped", error=reason)
            return await call_child(
                child.name, lambda: call(child), self.deadline_s, lambda raw: answer(child, raw)
            )

        outcomes = list(await asyncio.gather(*(one(child, reason) for child, reason in plan)))
        if not any(o.status == "ok" for o in outcomes):
            raise failure(operation, outcomes, [o.result() for o in outcomes])
        return outcomes

    async def extra(
        self,
        operation: str,
        capability: str,
        asked: list[str],
        send: Callable[[Any], Awaitable[Any]],
    ) -> list[str]:
        """An optional protocol's id operation (``send`` to one child), fanned out to the
        children whose declared capability promises it (``protocol.BY_CAPABILITY``)."""
        protocol = BY_CAPABILITY[capability]
        able = [
            child
            for child in self.children
            if capability in self.capabilities[child.name] and isinstance(child, protocol)
        ]
        if not able:
            raise UnsupportedError(
                f"no store of {self.name} declares {capability} with {operation}(); "
                f"stores: {', '.join(c.name for c in self.children)}"
            )
        return await fan_out_ids(operation, able, asked, send, self.deadline_s)

    def outgoing(self, req: RememberRequest) -> dict[str, Any]:
        """A remember as every child gets it: refused before any copy is written if a field
        would not be kept, with its one id (the caller's, or one the router mints:
        [router.identity]), sealed when the router holds keys, staged when its policy says
        so ([review.policy])."""
        payload = to_wire(req)
        refuse_unkept(self.declaration, "remember", payload)
        sent = sealed(self.seal_keys, {**payload, "id": req.id or new_id()})
        if staging(self.policy, "remember", req, payload) is not None:
            sent["approval_required"] = True
        return sent
