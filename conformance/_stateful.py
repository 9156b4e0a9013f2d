"""Stateful model checking: random sequences of operations against a store and against an
in-memory model of the spec's semantics, compared after every step.

The model only knows what the spec decides (which records are visible, which a forget, merge or
expire touches), not how a store ranks, so recall is checked with k large enough to return every
visible record in scope: the set must equal the model's. A failing sequence is shrunk by
hypothesis and its steps become the check's reproducer.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    precondition,
    rule,
    run_state_machine_as_test,
)

from mnemowire import spec
from mnemowire.conformance._harness import CheckFailed, Harness, StoreFactory, check
from mnemowire.errors import MnemowireError
from mnemowire.kit import now_ms, to_wire
from mnemowire.models import ExpireAction, MemoryType, MergeStrategy

__all__ = ["BASE_FEATURES", "FEATURES", "Model", "features_of", "run_model_check"]

AGENTS = ("alpha", "beta")
USERS = (None, "u1", "u2")
WORDS = ("tea", "coffee", "flight", "invoice", "garden", "piano", "bridge", "winter")
MACHINE = json.dumps(
    {
        "name": "checkout",
        "initial": "cart",
        "states": ["cart", "paid"],
        "transitions": [{"trigger": "pay", "source": "cart", "dest": "paid"}],
    }
)
_runs = itertools.count()


@dataclass
class Record:
    """What the model knows of one record."""

    agent: str
    user: str | None
    type: str
    content: str
    confidence: float
    state: str = "active"  # active | pending | deleted | archived | merged
    merged_into: str | None = None


@dataclass
class Model:
    """The spec's semantics over a dictionary: the oracle the store is compared with."""

    records: dict[str, Record] = field(default_factory=dict)

    def visible(self, agent: str, user: str | None, types: tuple[str, ...]) -> set[str]:
        return {
            rid
            for rid, r in self.records.items()
            if r.agent == agent
            and r.state == "active"
            and (user is None or r.user == user)
            and (not types or r.type in types)
        }

    def forget(self, agent: str, user: str | None, ids: list[str], hard: bool) -> set[str]:
        states = {"active", "pending", "archived"} | ({"deleted", "merged"} if hard else set())
        hit = {
            rid
            for rid in ids
            if rid in self.records
            and self.records[rid].agent == agent
            and self.records[rid].state in states
            and (user is None or self.records[rid].user == user)
        }
        for rid in hit:
            if hard:
                self._erase(rid)
            else:
                self.records[rid].state = "deleted"
        return hit

    def _erase(self, rid: str) -> None:
        """An erasure takes what was merged into the record with it ([forget.soft])."""
        self.records.pop(rid, None)
        for absorbed in [i for i, r in self.records.items() if r.merged_into == rid]:
            self._erase(absorbed)

    def expire(self, agent: str, user: str | None, policy: dict[str, Any], action: str) -> set[str]:
        matched = {
            rid
            for rid, r in self.records.items()
            if r.agent == agent
            and r.state == "active"
            and (user is None or r.user == user)
            and ("type" not in policy or r.type == policy["type"])
            and ("confidence_below" not in policy or r.confidence < policy["confidence_below"])
        }
        if action in ("forget", "archive"):
            for rid in matched:
                self.records[rid].state = "deleted" if action == "forget" else "archived"
        return matched


#: what the full model exercises beyond remember and recall of semantic memories, each named by
#: the capability it needs (``users``: user_scope; ``pending``: governance)
FEATURES = (
    "forget", "merge", "expire", "hard_delete", "archive", "demote", "users", "pending",
    "episodic", "emotional", "procedural",
)  # fmt: skip
#: the base tier: the five operations and the memory types, nothing a small store may lack
BASE_FEATURES = ("forget", "merge", "expire", "episodic", "emotional", "procedural")
_NEEDS = {"users": "user_scope", "pending": "governance"}


def features_of(capabilities: set[str], tier: tuple[str, ...]) -> frozenset[str]:
    """The features of ``tier`` a store with ``capabilities`` can be checked on."""
    return frozenset(f for f in tier if _NEEDS.get(f, f) in capabilities)


def run_model_check(
    factory: StoreFactory,
    *,
    runs: int,
    steps: int,
    seed: int,
    features: frozenset[str] = frozenset(FEATURES),
) -> None:
    """Run the state machine ``runs`` times (blocking: call it from a worker thread), with the
    rules ``features`` allow."""
    loop = asyncio.new_event_loop()
    try:
        _run(_machine(factory, loop, features), runs, steps, seed)
    finally:
        loop.close()


def _run(machine: type[RuleBasedStateMachine], runs: int, steps: int, random_seed: int) -> None:
    configured = settings(
        max_examples=runs,
        stateful_step_count=steps,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
    )
    run_state_machine_as_test(seed(random_seed)(machine), settings=configured)


def _machine(
    factory: StoreFactory, loop: asyncio.AbstractEventLoop, features: frozenset[str]
) -> type[RuleBasedStateMachine]:
    """The state machine class: each run opens a fresh store (and uses agents of its own, so
    a persistent store stays isolated too), so a shrunk failing run reproduces on its own."""

    def sync(awaitable: Any) -> Any:
        return loop.run_until_complete(awaitable)

    class StoreMachine(RuleBasedStateMachine):
        records = Bundle("records")

        def __init__(self) -> None:
            super().__init__()
            self.model = Model()
            self.issued: list[str] = []  # every id the bundle holds (hard deletes included)
            self.prefix = f"m{next(_runs)}-{now_ms()}-"
            self.context = factory()
            self.store = sync(self.context.__aenter__())

        def teardown(self) -> None:
            sync(self.context.__aexit__(None, None, None))

        def agent(self, name: str) -> str:
            return self.prefix + name

        def call(self, operation: str, request: dict[str, Any]) -> Any:
            response = sync(getattr(self.store, operation)(request))
            message = f"{operation}.response"
            envelope = spec.validate(message, to_wire(response))
            if envelope is not None:
                raise CheckFailed(f"invalid {message}: {envelope['details'][:3]}")
            return response

        @rule(
            target=records,
            agent=st.sampled_from(AGENTS),
            user=st.sampled_from(USERS),
            kind=st.sampled_from([t.value for t in MemoryType]),
            words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
            confidence=st.sampled_from([0.1, 0.5, 0.9, 1.0]),
            pending=st.booleans(),
        )
        def remember(
            self,
            agent: str,
            user: str | None,
            kind: str,
            words: list[str],
            confidence: float,
            pending: bool,
        ) -> str:
            if kind != "semantic" and kind not in features:
                kind = "semantic"
            user = user if "users" in features else None
            pending = pending and "pending" in features
            content = MACHINE if kind == "procedural" else " ".join(words)
            request: dict[str, Any] = {
                "agent_id": self.agent(agent),
                "type": kind,
                "content": content,
                "confidence": confidence,
            }
            if user is not None:
                request["user_id"] = user
            if pending:
                request["approval_required"] = True
            response = self.call("remember", request)
            self.model.records[response.id] = Record(
                agent, user, kind, content, confidence, "pending" if pending else "active"
            )
            self.issued.append(str(response.id))
            return str(response.id)

        @rule(
            agent=st.sampled_from(AGENTS),
            user=st.sampled_from(USERS),
            types=st.one_of(
                st.none(),
                st.lists(
                    st.sampled_from([t.value for t in MemoryType]),
                    max_size=2,
                    unique=True,
                ),
            ),
            query=st.sampled_from(WORDS),
        )
        def recall(self, agent: str, user: str | None, types: list[str] | None, query: str) -> None:
            request: dict[str, Any] = {"agent_id": self.agent(agent), "query": query, "k": 1000}
            user = user if "users" in features else None
            if user is not None:
                request["user_id"] = user
            if types is not None:  # [] too: absent or empty, every type ([recall.scope])
                types = [t for t in types if t == "semantic" or t in features]
                request["types"] = types
            types = types or []
            hits = self.call("recall", request).results
            got = {hit.id for hit in hits}
            want = self.model.visible(agent, user, tuple(types))
            if got != want:
                raise CheckFailed(f"recall returned {sorted(got)}, the spec says {sorted(want)}")
            for hit in hits:
                record = self.model.records[hit.id]
                if (hit.type, hit.content) != (record.type, record.content):
                    raise CheckFailed(f"{hit.id} came back as {hit.type} {hit.content!r}")

        @precondition(lambda self: "forget" in features and len(self.model.records) >= 1)
        @rule(
            agent=st.sampled_from(AGENTS),
            user=st.sampled_from(USERS),
            ids=st.lists(records, min_size=1, max_size=3, unique=True),
            hard=st.booleans(),
        )
        def forget(self, agent: str, user: str | None, ids: list[str], hard: bool) -> None:
            user = user if "users" in features else None
            hard = hard and "hard_delete" in features
            request: dict[str, Any] = {
                "agent_id": self.agent(agent),
                "ids": ids,
                "hard_delete": hard,
            }
            if user is not None:
                request["user_id"] = user
            got = set(self.call("forget", request).forgotten_ids)
            want = self.model.forget(agent, user, ids, hard)
            if got != want:
                raise CheckFailed(f"forget reported {sorted(got)}, the spec says {sorted(want)}")

        @precondition(lambda self: "merge" in features and len(self.issued) >= 3)
        @rule(
            agent=st.sampled_from(AGENTS),
            ids=st.lists(records, min_size=2, max_size=3, unique=True),
            strategy=st.sampled_from([s.value for s in MergeStrategy]),
        )
        def merge(self, agent: str, ids: list[str], strategy: str) -> None:
            canonical, *duplicates = ids
            request = {
                "agent_id": self.agent(agent),
                "canonical": canonical,
                "duplicates": duplicates,
                "strategy": strategy,
            }
            involved = [self.model.records.get(i) for i in ids]
            possible = all(
                r is not None and r.agent == agent and r.state == "active" for r in involved
            )
            procedural = any(r is not None and r.type == "procedural" for r in involved)
            # [merge.strategies]: content moves only between records of one type
            mixed = len({r.type for r in involved if r is not None}) > 1
            refusable = (procedural and strategy == "merge_content") or (
                mixed and strategy != "keep_canonical"
            )
            try:
                response = self.call("merge", request)
            except MnemowireError as exc:
                if possible and not refusable:
                    raise CheckFailed(f"a possible merge was refused: {exc}") from exc
                return
            if refusable:
                raise CheckFailed(
                    f"merged with {strategy} records that must not be: "
                    + ", ".join(sorted({r.type for r in involved if r is not None}))
                )
            if not possible:
                raise CheckFailed(f"merged records that are not all visible records of {agent}")
            if response.merged_count != len(duplicates):
                raise CheckFailed(f"merged_count {response.merged_count}")
            records = [self.model.records[i] for i in ids]
            if strategy == "merge_content":
                records[0].content = "\n".join(r.content for r in records)
            elif strategy == "keep_highest_confidence":
                best = max(records, key=lambda r: r.confidence)
                records[0].content, records[0].confidence = best.content, best.confidence
            for duplicate in records[1:]:
                duplicate.state = "merged"
                duplicate.merged_into = canonical

        @precondition(lambda self: "expire" in features)
        @rule(
            agent=st.sampled_from(AGENTS),
            user=st.sampled_from(USERS),
            policy=st.one_of(
                st.fixed_dictionaries({"type": st.sampled_from(["semantic", "episodic"])}),
                st.fixed_dictionaries({"confidence_below": st.sampled_from([0.3, 0.6, 0.95])}),
            ),
            action=st.sampled_from([a.value for a in ExpireAction]),
        )
        def expire(self, agent: str, user: str | None, policy: dict[str, Any], action: str) -> None:
            user = user if "users" in features else None
            if action != "forget" and action not in features:
                action = "forget"
            if policy.get("type", "semantic") != "semantic" and policy["type"] not in features:
                policy = {"type": "semantic"}
            request: dict[str, Any] = {
                "agent_id": self.agent(agent),
                "policy": policy,
                "action": action,
            }
            if user is not None:
                request["user_id"] = user
            response = self.call("expire", request)
            want = self.model.expire(agent, user, policy, action)
            got = set(response.matched_ids) if response.matched_ids is not None else None
            if response.matched_count != len(want) or got not in (None, want):
                raise CheckFailed(
                    f"expire matched {response.matched_count} {got}, the spec says {sorted(want)}"
                )

    return StoreMachine


async def _model_check(h: Harness, tier: tuple[str, ...]) -> None:
    features = features_of(h.capabilities, tier)
    try:
        await asyncio.to_thread(
            run_model_check,
            h.factory,
            runs=h.stateful_runs,
            steps=20,
            seed=h.seed,
            features=features,
        )
    except Exception as failure:  # any failure: report it with the shrunk steps
        message = f"{type(failure).__name__}: {failure}"
        raise CheckFailed(message, _reproducer(failure)) from failure


def _register() -> None:
    @check("model.base", section="recall.visibility")
    async def base(h: Harness) -> None:
        """Random sequences of the five operations (as declared) agree with the model."""
        await _model_check(h, BASE_FEATURES)

    @check(
        "model.stateful",
        section="recall.visibility",
        needs=["forget", "merge", "expire", "governance", "user_scope"],
    )
    async def stateful(h: Harness) -> None:
        """Random operation sequences, users, staging and every expire action the store
        declares (archive and demote when it does) agree with the model."""
        await _model_check(h, FEATURES)


def _reproducer(failure: BaseException) -> str | None:
    """The shrunk steps hypothesis attached to the failure (to each, when it found several)."""
    failures = failure.exceptions if isinstance(failure, BaseExceptionGroup) else (failure,)
    steps = ["\n".join(getattr(f, "__notes__", [])) for f in failures]
    return "\n\n".join(s for s in steps if s) or None


_register()
