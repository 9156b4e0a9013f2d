"""Deliberately broken stores, to prove the harness catches what it claims to.

Each wraps a correct store and breaks one thing a real adapter could get wrong. The harness
self-test certifies every one of them: a broken store that passes every check is a harness bug.
They are public so an adapter author can see what each check is for.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from mnemowire.conformance._harness import StoreFactory
from mnemowire.kit import to_wire
from mnemowire.models import (
    Capabilities,
    DecideResponse,
    ExpireResponse,
    FieldFidelity,
    ForgetResponse,
    GetRequest,
    MemoryType,
    RecallHit,
    RecallResponse,
    RememberResponse,
    StoreResult,
)
from mnemowire.protocol import AuditedStore, MemoryStore

__all__ = ["DEFECTS", "broken"]

M = TypeVar("M", bound=BaseModel)


def _wire(request: BaseModel) -> dict[str, Any]:
    return to_wire(request)


def _as(request: M, body: dict[str, Any]) -> M:
    """``body`` (``request``'s wire JSON, broken) as the same kind of model, unchecked: what a
    store could do to a request it was handed."""
    return type(request).model_validate(body)


class _Broken:
    """A store that forwards everything to ``inner`` except what a defect overrides."""

    def __init__(self, inner: MemoryStore) -> None:
        self.inner = inner
        self.agents: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @property
    def name(self) -> str:
        return f"broken:{self.inner.name}"


class IgnoresUser(_Broken):
    """recall ignores user_id: every user of the agent sees everyone's memories."""

    async def recall(self, request: Any, **kwargs: Any) -> RecallResponse:
        body = _wire(request)
        body.pop("user_id", None)
        return await self.inner.recall(_as(request, body), **kwargs)


class LeaksPending(_Broken):
    """remember ignores approval_required: staged writes are live at once."""

    async def remember(self, request: Any) -> RememberResponse:
        body = _wire(request)
        pending = bool(body.pop("approval_required", False))
        response = await self.inner.remember(_as(request, body))
        return response.model_copy(update={"pending_approval": pending})


class ForgetNoop(_Broken):
    """forget answers as if it forgot, and forgets nothing."""

    async def forget(self, request: Any) -> ForgetResponse:
        body = _wire(request)
        return ForgetResponse(
            forgotten_ids=list(body.get("ids", [])),
            stores=[],
            hard_delete=bool(body.get("hard_delete", False)),
        )


class LosesType(_Broken):
    """recall reports every memory as semantic."""

    async def recall(self, request: Any, **kwargs: Any) -> RecallResponse:
        response = await self.inner.recall(request, **kwargs)
        hits = [hit.model_copy(update={"type": "semantic"}) for hit in response.results]
        return response.model_copy(update={"results": hits})


class OtherAgents(_Broken):
    """recall returns the memories of every agent it has seen, not only the caller's."""

    async def remember(self, request: Any) -> RememberResponse:
        self.agents.add(_wire(request).get("agent_id", ""))
        return await self.inner.remember(request)

    async def recall(self, request: Any, **kwargs: Any) -> RecallResponse:
        body = _wire(request)
        response = await self.inner.recall(_as(request, body), **kwargs)
        extra: list[RecallHit] = []
        for agent in sorted(self.agents - {body["agent_id"]}):
            other = await self.inner.recall(_as(request, {**body, "agent_id": agent}), **kwargs)
            extra.extend(other.results)
        limit = body.get("k", 5)
        return response.model_copy(update={"results": [*response.results, *extra][:limit]})


class CrashesOnMetadata(_Broken):
    """remember crashes (KeyError) on a metadata key it does not expect."""

    async def remember(self, request: Any) -> RememberResponse:
        for key in _wire(request).get("metadata", {}):
            if key not in ("topic", "source"):
                raise KeyError(key)
        return await self.inner.remember(request)


class DropsMetadata(_Broken):
    """remember stores no metadata."""

    async def remember(self, request: Any) -> RememberResponse:
        body = _wire(request)
        body.pop("metadata", None)
        return await self.inner.remember(_as(request, body))


class IgnoresK(_Broken):
    """recall returns up to 1000 results whatever k says."""

    async def recall(self, request: Any, **kwargs: Any) -> RecallResponse:
        return await self.inner.recall(_as(request, {**_wire(request), "k": 1000}), **kwargs)


class Unsorted(_Broken):
    """recall returns results worst first."""

    async def recall(self, request: Any, **kwargs: Any) -> RecallResponse:
        response = await self.inner.recall(request, **kwargs)
        return response.model_copy(update={"results": list(reversed(response.results))})


class MatchesEverything(_Broken):
    """expire cannot evaluate confidence_below and matches every record of the agent instead
    (an empty policy, the old way to match everything, never reaches a store: the boundary
    refuses it)."""

    async def expire(self, request: Any) -> ExpireResponse:
        body = _wire(request)
        if "confidence_below" not in body["policy"]:
            return await self.inner.expire(request)
        declared = set(self.inner.capabilities().capabilities)
        answers = [
            await self.inner.expire(_as(request, {**body, "policy": {"type": str(kind)}}))
            for kind in MemoryType
            if kind in declared
        ]
        ids = [i for answer in answers for i in answer.matched_ids or ()]
        return answers[0].model_copy(update={"matched_count": len(ids), "matched_ids": ids})


class ForgetsEveryone(_Broken):
    """forget ignores user_id: a user's erasure request erases other users' memories."""

    async def forget(self, request: Any) -> ForgetResponse:
        body = _wire(request)
        body.pop("user_id", None)
        return await self.inner.forget(_as(request, body))


class DemoteCompounds(_Broken):
    """demote multiplies the existing factor again on every call."""

    def __init__(self, inner: MemoryStore) -> None:
        super().__init__(inner)
        self.applied: dict[str, float] = {}

    async def expire(self, request: Any) -> ExpireResponse:
        body = _wire(request)
        if body.get("action") == "demote":
            factor = float(body.get("demote_factor", 0.5))
            key = body["agent_id"]
            self.applied[key] = self.applied.get(key, 1.0) * factor
            body["demote_factor"] = self.applied[key]
        return await self.inner.expire(_as(request, body))


class InvalidResponses(_Broken):
    """recall answers with hits missing their score: not a valid recall.response."""

    async def recall(self, request: Any, **kwargs: Any) -> RecallResponse:
        response = await self.inner.recall(request, **kwargs)
        hits = [
            RecallHit.model_construct(**{k: v for k, v in hit.model_dump().items() if k != "score"})
            for hit in response.results
        ]
        return response.model_copy(update={"results": hits})


class NoClientIds(_Broken):
    """remember ignores a client-chosen id and mints its own (retries duplicate records)."""

    async def remember(self, request: Any) -> RememberResponse:
        body = _wire(request)
        body.pop("id", None)
        return await self.inner.remember(_as(request, body))


class ExpireIgnoresUser(_Broken):
    """expire ignores user_id: one user's retention policy expires every user's records."""

    async def expire(self, request: Any) -> ExpireResponse:
        body = _wire(request)
        body.pop("user_id", None)
        return await self.inner.expire(_as(request, body))


class EmptyTypesMatchNothing(_Broken):
    """recall reads an empty types list as "none of the types" and returns nothing."""

    async def recall(self, request: Any, **kwargs: Any) -> RecallResponse:
        body = _wire(request)
        response = await self.inner.recall(_as(request, body), **kwargs)
        if body.get("types") == []:
            return response.model_copy(update={"results": []})
        return response


class UndeclaredExpiry(_Broken):
    """Honours expires_at without declaring expiry (the spec wants unsupported instead)."""

    def capabilities(self) -> Capabilities:
        declared = self.inner.capabilities()
        kept = [c for c in declared.capabilities if c != "expiry"]
        return declared.model_copy(update={"capabilities": kept})


class TrimsText(_Broken):
    """remember trims the text it keeps (content, source): what a backend's "clean-up" does."""

    async def remember(self, request: Any) -> RememberResponse:
        body = _wire(request)
        for name in ("content", "source"):
            if isinstance(body.get(name), str):
                body[name] = body[name].strip()
        return await self.inner.remember(_as(request, body))


class RoundsNumbers(_Broken):
    """remember keeps confidence to four decimals and metadata integers as floats (a JSON
    encoder through float64), while declaring both native."""

    async def remember(self, request: Any) -> RememberResponse:
        body = _wire(request)
        body["confidence"] = round(body.get("confidence", 1.0), 4)
        metadata = body.get("metadata") or {}
        body["metadata"] = {
            k: float(v) if isinstance(v, int) and not isinstance(v, bool) else v
            for k, v in metadata.items()
        }
        return await self.inner.remember(_as(request, body))


class KeepsUnsupported(_Broken):
    """Declares location unsupported (fidelity) and keeps it anyway, instead of refusing."""

    def capabilities(self) -> Capabilities:
        declared = self.inner.capabilities()
        return declared.model_copy(update={"fidelity": FieldFidelity(location="unsupported")})


class LosesAChild(_Broken):
    """A router one of whose children fails every recall: it answers with the others' hits
    and says so in stores[] (an adapter's bug the router's answer would otherwise hide)."""

    async def recall(self, request: Any, **kwargs: Any) -> RecallResponse:
        response = await self.inner.recall(request, **kwargs)
        failed = StoreResult(store="child", status="error", count=0, error="store_error: boom")
        return response.model_copy(update={"stores": [*(response.stores or []), failed]})


class DecidesAnyVersion(_Broken):
    """decide approves a staged record at whatever version it is now: an agent that swaps its
    staged text after the reviewer's listing gets the swapped text approved."""

    async def decide(self, request: Any) -> DecideResponse:
        body = _wire(request)
        get = GetRequest(agent_id=body["agent_id"], ids=[body["review_id"]], states=["pending"])
        found = await self.inner.get(get)  # type: ignore[attr-defined]
        if found.records:
            body["expected_version"] = found.records[0].version
        answer: DecideResponse = await self.inner.decide(_as(request, body))  # type: ignore[attr-defined]
        return answer


async def _audit(store: MemoryStore) -> list[dict[str, Any]]:
    if not isinstance(store, AuditedStore):
        raise AttributeError("audit_entries")  # the store under the defect keeps no log
    return await store.audit_entries()


class AuditSkipsForget(_Broken):
    """The audit log has no entry for a forget (a store that audits writes, not removals)."""

    async def audit_entries(self) -> list[dict[str, Any]]:
        return [e for e in await _audit(self.inner) if e["operation"] != "forget"]


class AuditKeepsContent(_Broken):
    """Each audit entry carries the content of the records it names (the log a hard delete
    cannot erase)."""

    def __init__(self, inner: MemoryStore) -> None:
        super().__init__(inner)
        self.contents: dict[str, str] = {}

    async def remember(self, request: Any) -> RememberResponse:
        response = await self.inner.remember(request)
        self.contents[response.id] = _wire(request)["content"]
        return response

    async def audit_entries(self) -> list[dict[str, Any]]:
        entries = await _audit(self.inner)
        return [
            {**e, "detail": {**(e["detail"] or {}), "content": [
                self.contents[i] for i in e["ids"] if i in self.contents]}}
            for e in entries
        ]  # fmt: skip


#: defect name -> wrapper class
DEFECTS: dict[str, type[_Broken]] = {
    "ignores-user": IgnoresUser,
    "leaks-pending": LeaksPending,
    "forget-noop": ForgetNoop,
    "loses-type": LosesType,
    "other-agents": OtherAgents,
    "crashes-on-metadata": CrashesOnMetadata,
    "drops-metadata": DropsMetadata,
    "ignores-k": IgnoresK,
    "unsorted": Unsorted,
    "matches-everything": MatchesEverything,
    "forgets-everyone": ForgetsEveryone,
    "demote-compounds": DemoteCompounds,
    "invalid-responses": InvalidResponses,
    "no-client-ids": NoClientIds,
    "expire-ignores-user": ExpireIgnoresUser,
    "empty-types-nothing": EmptyTypesMatchNothing,
    "undeclared-expiry": UndeclaredExpiry,
    "trims-text": TrimsText,
    "rounds-numbers": RoundsNumbers,
    "keeps-unsupported": KeepsUnsupported,
    "loses-a-child": LosesAChild,
    "decides-any-version": DecidesAnyVersion,
    "audit-skips-forget": AuditSkipsForget,
    "audit-keeps-content": AuditKeepsContent,
}


def broken(factory: StoreFactory, defect: str) -> StoreFactory:
    """A factory of stores from ``factory`` with ``defect`` (a key of DEFECTS) built in."""
    wrap: Callable[[MemoryStore], _Broken] = DEFECTS[defect]

    @contextlib.asynccontextmanager
    async def opened() -> AsyncIterator[MemoryStore]:
        async with factory() as store:
            yield wrap(store)

    return opened
