"""What a store implements, pinned to the spec version its author wrote it against.

A store names its capabilities one by one and the spec version they come from, and names the
capabilities it declines with the reason. Nothing is derived from the newest generated
vocabulary: regenerating the bindings for a new spec version changes no store's claim, and
``undecided`` lists what the new version adds that a store has neither opted into nor declined
(tests/adapters/test_implements.py fails on it, store by store).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mnemowire.kit._rules import declare
from mnemowire.models import Capabilities, Capability
from mnemowire.spec import available_versions, capability_names

__all__ = ["Implements"]


@dataclass(frozen=True)
class Implements:
    """A store's pinned claim: ``spec_version``, the ``capabilities`` it serves (each of that
    version), and the capabilities it ``declined`` (of any version), each with why.

    ``staging_policy`` among the capabilities means the store *can* apply a policy; it is
    declared only while one is set ([review.policy]).

    >>> IMPLEMENTS = Implements("v0.2", ["semantic", "vector", "forget"],
    ...                         declined={"graph": "the store knows no neighbours"})
    """

    spec_version: str
    capabilities: frozenset[str]
    declined: Mapping[str, str]

    def __init__(
        self,
        spec_version: str,
        capabilities: Iterable[str],
        *,
        declined: Mapping[str, str] | None = None,
    ) -> None:
        served = frozenset(str(c) for c in capabilities)
        refused = {str(c): why for c, why in (declined or {}).items()}
        spoken = set(capability_names(spec_version))  # SpecError for an unknown version
        if served - spoken:
            raise ValueError(
                f"not capabilities of spec {spec_version}: {sorted(served - spoken)} "
                "(pin the store to the version that defines them)"
            )
        known = {c for v in available_versions() for c in capability_names(v)}
        if set(refused) - known:
            raise ValueError(
                f"declined capabilities no spec defines: {sorted(set(refused) - known)}"
            )
        if served & set(refused):
            raise ValueError(f"both served and declined: {sorted(served & set(refused))}")
        if any(not why.strip() for why in refused.values()):
            raise ValueError("every declined capability needs its reason")
        object.__setattr__(self, "spec_version", spec_version)
        object.__setattr__(self, "capabilities", served)
        object.__setattr__(self, "declined", refused)

    def undecided(self, version: str) -> tuple[str, ...]:
        """The capabilities of ``version`` this store neither serves nor declines, in spec order:
        what its author has to decide on before the store can speak ``version``."""
        decided = self.capabilities | set(self.declined)
        return tuple(c for c in capability_names(version) if c not in decided)

    def declaration(
        self,
        store: str,
        fidelity: Mapping[str, str] | None = None,
        staging_policy: Mapping[str, Any] | None = None,
    ) -> Capabilities:
        """The store's ``capabilities`` answer: what it serves, with ``staging_policy`` only
        while a policy is set."""
        policy = Capability.STAGING_POLICY.value
        if staging_policy is not None and policy not in self.capabilities:
            raise ValueError(f"store {store!r} does not implement a staging policy")
        served = (c for c in self.capabilities if c != policy)
        return declare(store, self.spec_version, served, fidelity, staging_policy)
