"""MemoryRouter: one store in front of several, with one identity per record and fused recall.

The router implements docs/spec/v0.md section 7. It is itself a MemoryStore, so routers nest and
anything that takes a store takes a router. docs/architecture.md ("Router") explains the design;
the class docstring is the reference.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import numpy as np

from mnemowire.errors import ConfigError
from mnemowire.kit import (
    Implements,
    elapsed_ms,
    missing_reason,
    needs,
    now_ms,
    to_wire,
)
from mnemowire.kit.lifecycle import LifecycleOperations
from mnemowire.kit.reviews import staging
from mnemowire.kit.staging import StagingRules
from mnemowire.layers import _router_archive as archive
from mnemowire.layers import _router_graph as graph_routing
from mnemowire.layers import _router_records as records
from mnemowire.layers import _router_reviews as review_queue
from mnemowire.layers._fanout import FanOut, Plan, WritePolicy
from mnemowire.layers._promises import declaration, promised
from mnemowire.layers._recall import fuse, query_vectors, refuse_foreign_vector, vector_for
from mnemowire.layers._router_reviews import check_policy, staged_under
from mnemowire.layers._routing import (
    answering,
    call_child,
    check_expire,
    check_forget,
    check_merge,
    check_recall,
    check_remember,
    child_health,
    declared,
    overall,
    responses,
    results,
    served_types,
    undo_remember,
    untracked,
    validated,
)
from mnemowire.layers._sealing import unsealed_dropped
from mnemowire.models import (
    Capabilities,
    ConsolidateRequest,
    ConsolidateResponse,
    DecideRequest,
    DecideResponse,
    ExpireRequest,
    ExpireResponse,
    ExportRecordsRequest,
    ExportRecordsResponse,
    ForgetRequest,
    ForgetResponse,
    GetRequest,
    GetResponse,
    Health,
    HistoryRequest,
    HistoryResponse,
    ImportRecordsRequest,
    ImportRecordsResponse,
    ListRequest,
    ListResponse,
    MergeRequest,
    MergeResponse,
    PromoteRequest,
    PromoteResponse,
    RecallHit,
    RecallRequest,
    RecallResponse,
    RememberBatchRequest,
    RememberBatchResponse,
    RememberRequest,
    RememberResponse,
    RestoreRequest,
    RestoreResponse,
    ReviewsRequest,
    ReviewsResponse,
    RunFireRequest,
    RunFireResponse,
    RunGetRequest,
    RunGetResponse,
    RunStartRequest,
    RunStartResponse,
    ScopesRequest,
    ScopesResponse,
    UpdateRequest,
    UpdateResponse,
)
from mnemowire.protocol import MemoryStore, QueryEmbedding
from mnemowire.seals import SealKeys
from mnemowire.spec import capability_names, version_key

__all__ = ["HitCheck", "MemoryRouter", "WritePolicy"]

#: ``verify(hit, request)``: why a child's hit is not to be believed, or None (see MemoryRouter)
HitCheck = Callable[[RecallHit, Mapping[str, Any]], str | None]


#: what the router routes, pinned like a store's claim: every capability of spec v0.4 (children
#: may speak newer versions; a version's new capabilities wait until the router is written for
#: them, which tests/adapters/test_implements.py asks for)
ROUTES = Implements("v0.4", capability_names("v0.4"))


class MemoryRouter:
    """A MemoryStore that fans every operation out to N child stores.

    >>> router = MemoryRouter([SqliteVecStore("a.db", embedder=e64, name="a"),
    ...                        SqliteVecStore("b.db", embedder=e48, name="b")])  # doctest: +SKIP
    >>> stored = await router.remember({"agent_id": "a1", "type": "semantic", "content": "tea"})
    >>> found = await router.recall({"agent_id": "a1", "query": "tea", "fusion": "rrf"})
    >>> found.results[0].supporting
    ['a', 'b']

    **One identity.** remember mints the record id once (or keeps the client's ``id``) and sends
    it to every child, so all copies share it: recall deduplicates by id, and forget, merge and
    expire by id reach every copy. A retried remember with the same id replays on the children
    that already hold it and writes to the ones that do not, so a retry heals a partial write.
    Children must declare ``client_ids``; one that cannot keep the router's id is skipped.

    **Capability routing.** Each operation goes only to the children whose ``capabilities()``
    cover it (the memory type, ``forget``/``merge``/``expire``, ``hard_delete``, ``governance``
    for ``approval_required``, ``metadata_filter``, ``user_scope``, ``freshness``, ``expiry``,
    ``recall_tracking`` for ``no_recall_in_days``, ``demote``/``archive``). The others are
    reported as ``skipped`` with the reason, which is not a failure; with no capable child the
    operation raises UnsupportedError. Capabilities are read once, here in the constructor. An
    expire with ``no_recall_in_days`` is refused unless the router returns exactly what its one
    child returned (children mark every over-fetched hit as recalled; see ``capabilities``).

    **Fusion.** recall asks each capable child for ``overfetch * k`` hits and fuses the lists by
    the request's ``fusion``: ``rrf`` (k=60, ranks from 1), ``max`` (highest raw score) or
    ``weighted`` (sum of ``weights[store] * score``, weight 1.0 by default). ``supporting`` lists
    the children that returned a hit and ``source_store`` the one that ranked it best (its copy is
    returned). ``min_relevance`` goes only to the children that declare ``relevance``; the others'
    hits pass unfloored (``stores[]`` says ``floored``). With ``quorum`` q, a hit must come from
    at least q children. With ``hops > 0`` the graph-capable children (``graph`` +
    :class:`~mnemowire.protocol.GraphStore`) are asked for the neighbours of the fused ids, and a
    hit with a fused neighbour d hops away gets ``score * (1 + 0.1 / (1 + d))``; nothing is added
    to the hits. The query is embedded once per distinct embedder among the children that expose
    ``embedder``, and passed as a QueryEmbedding.

    **Copies and trust.** When children's copies of one record differ, the copy most of them
    hold is returned and the others are reported (``disagreed`` on their ``stores[]`` entry);
    under rrf a record's demote factor is the upper median of its supporters' factors; hits
    only one child returned are counted as ``uncorroborated`` on its entry. What a v0 hit does
    not say (whose record it is, that it is a record at all) the router cannot check by
    itself: ``verify(hit, request)``, when given, is asked about every hit a child returns and
    a reason it gives makes that child's answer invalid (docs/threat-model.md, adversary 5:
    an application can keep a keyed digest of agent, id and content in metadata and check it
    here; spec v0.1 makes such seals part of the record).

    **Partial failure.** Children run concurrently, each under ``deadline_s``. A child that
    raises, hangs past the deadline, answers outside the response schema, or lies (a hit of
    another agent or user, a type or filter it was not asked for, too many or unsorted hits, a
    hit without relevance from a store declaring it or below ``min_relevance``, a
    forgotten id it was not asked about, another record id on remember) is reported in
    ``stores[]`` as ``error``, ``timeout`` or ``invalid_response`` and ignored. The operation
    fails only when no capable child succeeded; the error's envelope then lists every child in
    ``stores``. A child that timed out may still finish its write later; remember, forget and
    expire are idempotent by id, so resending is safe.

    **Review queue.** A write staged by the request or by ``policy`` (the router's staging
    policy; a child may not hold one of its own) waits on every child under one review id;
    ``reviews`` merges the children's queues, ``decide`` reaches every copy
    (docs/spec/v0.2.md#review.router).

    **Write policies.** ``all``: remember, merge and expire go to every capable child.
    ``primary_only``: they go to the first capable child only (the others report ``skipped``), and
    fail if it fails; recall still fans out to every child. forget always goes to every capable
    child, whatever the policy: recall reads every child, so a copy left anywhere would bring a
    forgotten record back, and forgetting an id a child does not hold is a harmless no-op.
    """

    def __init__(
        self,
        stores: Sequence[MemoryStore],
        *,
        name: str = "router",
        weights: Mapping[str, float] | None = None,
        quorum: int | None = None,
        deadline_s: float = 5.0,
        write_policy: WritePolicy = "all",
        overfetch: int = 4,
        verify: HitCheck | None = None,
        seal_keys: SealKeys | None = None,
        policy: StagingRules | None = None,
    ) -> None:
        children = tuple(stores)
        if not children:
            raise ConfigError("a router needs at least one store")
        for child in children:
            if not isinstance(child, MemoryStore):
                raise ConfigError(f"{child!r} is not a MemoryStore (see mnemowire.protocol)")
        names = [child.name for child in children]
        if not name:
            raise ConfigError("the router's name must not be empty")
        if len(set(names)) != len(names):
            raise ConfigError(
                f"store names must be unique (stores[] reports them): {names}; give one a "
                "name of its own with ?name= in its URL"
            )
        weights = dict(weights or {})
        unknown = sorted(set(weights) - set(names))
        if unknown:
            raise ConfigError(f"weights name stores the router does not have: {unknown}")
        if any(not math.isfinite(w) or w < 0 for w in weights.values()):
            raise ConfigError("weights must be finite and >= 0")
        if quorum is not None and not 1 <= quorum <= len(names):
            raise ConfigError(f"quorum must be between 1 and the number of stores ({len(names)})")
        if not (math.isfinite(deadline_s) and deadline_s > 0):
            raise ConfigError("deadline_s must be a positive number of seconds")
        if write_policy not in ("all", "primary_only"):
            raise ConfigError(f"write_policy must be 'all' or 'primary_only', not {write_policy!r}")
        if overfetch < 1:
            raise ConfigError("overfetch must be at least 1")
        self._weights = weights
        self._quorum = quorum
        self._overfetch = overfetch
        self._verify = verify
        #: whether the children's recall tracking matches what this router returns: a child
        #: records a recall for every hit it returns, and with over-fetch, several children or
        #: a quorum it returns (and marks) records the router then drops, so
        #: ``no_recall_in_days`` would spare records nobody was shown; the spec says to refuse
        #: it then (docs/spec/v0.md#expire.policy)
        self._tracks_exactly = len(children) == 1 and overfetch == 1 and (quorum or 1) == 1
        answers = {child.name: declared(child) for child in children}
        declared_by = {n: tuple(str(c) for c in a.capabilities) for n, a in answers.items()}
        #: the spec version every child speaks (the oldest any of them declares), and never
        #: newer than the router's own (ROUTES)
        spec_version = min(
            (*(a.spec_version for a in answers.values()), ROUTES.spec_version), key=version_key
        )
        promises = promised(declared_by, spec_version, tracks_exactly=self._tracks_exactly)
        check_policy(policy, promises, declared_by)
        document = None if policy is None else policy.document
        answer = declaration(name, spec_version, promises, answers.values(), document)
        #: what every operation fans out over (``_fanout``)
        self._fan = FanOut(
            name=name,
            children=children,
            capabilities={n: frozenset(caps) for n, caps in declared_by.items()},
            declared=declared_by,
            promised=promises,
            spec_version=spec_version,
            declaration=answer,
            deadline_s=deadline_s,
            write_policy=write_policy,
            seal_keys=seal_keys,
            policy=policy,
        )
        #: consolidate, promote and runs over the router's own operations: one spans every child
        self._lifecycle = LifecycleOperations(self, now_ms)

    @property
    def name(self) -> str:
        return self._fan.name

    @property
    def stores(self) -> tuple[MemoryStore, ...]:
        """The children, in the order they were given (the first capable one is primary)."""
        return self._fan.children

    def __repr__(self) -> str:
        names = ", ".join(child.name for child in self._fan.children)
        policy = self._fan.write_policy
        return f"MemoryRouter({self._fan.name!r}, stores=[{names}], write_policy={policy!r})"

    async def __aenter__(self) -> MemoryRouter:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def capabilities(self) -> Capabilities:
        """What the router promises over its children (``mnemowire.layers._promises``)."""
        return self._fan.declaration

    # -- the five operations ---------------------------------------------------------------

    async def remember(self, request: RememberRequest) -> RememberResponse:
        req = request
        sent = self._fan.outgoing(req)
        record_id = str(sent["id"])
        plan = self._fan.plan(needs("remember", sent), primary_only=self._fan.primary_only)

        answer = answering(
            "remember.response", RememberResponse, lambda r: check_remember(r, record_id)
        )
        sent, first = await records.weighed(self._fan, plan, sent, record_id)  # [remember.dedupe]
        if first is not None and first.duplicate_of is not None and not first.pending_approval:
            return first  # the record it repeats: nothing written anywhere
        outcomes = await self._fan.run(
            "remember", plan, lambda c: c.remember(RememberRequest.model_validate(sent)), answer
        )
        if any((o.envelope or {}).get("code") == "conflict" for o in outcomes):
            raise await undo_remember(
                self._fan.children, record_id, req.agent_id, outcomes, self._fan.deadline_s
            )
        done = responses(outcomes)
        fresh = first is not None and not first.replayed  # the weighing child wrote it
        fields: dict[str, Any] = {
            "id": record_id,
            "stored_at": min(r.stored_at for r in done),
            "stores": results(outcomes, lambda r: 0 if r.replayed and not fresh else 1),
            "pending_approval": any(r.pending_approval for r in done),
        }
        if all(r.replayed for r in done) and not fresh:
            fields["replayed"] = True
        if first is not None and first.duplicate_of is not None:
            fields["duplicate_of"] = first.duplicate_of
        return RememberResponse.model_validate(fields)

    async def recall(
        self,
        request: RecallRequest,
        *,
        query_vector: QueryEmbedding | None = None,
    ) -> RecallResponse:
        """Fused recall; ``query_vector`` (from an outer router) is reused for every child whose
        embedder has the same name."""
        req, payload = request, to_wire(request)
        started = time.perf_counter()
        if req.query_vector is not None:  # the caller's vector: for the children whose
            # embedder made it; the others embed the query themselves, nothing is compared
            payload.pop("query_vector")
            sent_vector = req.query_vector
            takers = [
                c for c in self._fan.children if "query_vector" in self._fan.capabilities[c.name]
            ]
            refuse_foreign_vector(self._fan.name, takers, sent_vector.embedder)
            query_vector = QueryEmbedding(
                sent_vector.embedder, np.asarray(sent_vector.vector, np.float32)[None, :]
            )
        k, fusion, hops = req.k, req.fusion, req.hops
        # the hop boost is applied once, here; children (nested routers too) only recall
        base = {key: value for key, value in payload.items() if key != "hops"}
        base["k"] = min(1000, k * self._overfetch)
        requested = [str(t) for t in payload.get("types") or ()]
        required = needs("recall", payload)
        plan: Plan = []
        sent: dict[str, dict[str, Any]] = {}
        for child in self._fan.children:
            capabilities = self._fan.capabilities[child.name]
            types = served_types(capabilities, requested)
            reason = missing_reason(capabilities, required)
            if reason is None and not types:
                reason = missing_reason(capabilities, requested) or "holds no memory type"
            if reason is None:
                sent[child.name] = {**base, "types": types} if requested else dict(base)
                if "relevance" not in capabilities:
                    # it cannot floor; an older store would even reject the field
                    sent[child.name].pop("min_relevance", None)
            plan.append((child, reason))
        asked = [child for child, reason in plan if reason is None]
        vectors = await query_vectors(asked, req.query, query_vector) if asked else {}

        def call(child: MemoryStore) -> Awaitable[Any]:
            return child.recall(
                RecallRequest.model_validate(sent[child.name]),
                query_vector=vector_for(child, vectors),
            )

        rejected: dict[str, int] = {}

        def answer(child: MemoryStore, raw: Any) -> RecallResponse:
            response = validated("recall.response", RecallResponse, raw)
            relevance = "relevance" in self._fan.capabilities[child.name]
            check_recall(
                response, sent[child.name], reports_relevance=relevance, verify=self._verify
            )
            kept, dropped = unsealed_dropped(self._fan.seal_keys, req.agent_id, response.results)
            if dropped:  # [seals.router]: dropped, and counted against the child
                rejected[child.name] = dropped
                response = response.model_copy(update={"results": kept})
            return response

        outcomes = await self._fan.run("recall", plan, call, answer)
        lists = {o.store: o.response.results for o in outcomes if o.response is not None}
        fused = fuse(fusion, lists, weights=self._weights, quorum=self._quorum)
        notes: dict[str, dict[str, Any]] = {}
        if "min_relevance" in payload:  # docs/spec/v0.md#recall.relevance: say who floored
            notes = {n: {"floored": "min_relevance" in sent[n]} for n in sent}
        for store, count in rejected.items():
            notes.setdefault(store, {})["rejected_seals"] = count
        for store, differing in fused.disagreed.items():  # [router.copies]
            notes.setdefault(store, {})["disagreed"] = sorted(differing)
        if hops > 0 and fused.scores:
            fused.scores, graph = await graph_routing.boost(
                self._fan, req.agent_id, fused.scores, hops, outcomes
            )
            for store, note in graph.items():
                notes.setdefault(store, {}).update(note)
        hits = fused.hits(k)
        if len(lists) > 1:  # what only one child vouched for: [router.verify]
            alone = Counter(h.supporting[0] for h in hits if len(h.supporting) == 1)
            for store, count in alone.items():
                notes.setdefault(store, {})["uncorroborated"] = count
        return RecallResponse(
            results=hits,
            fusion_used=fusion,
            stores_queried=[child.name for child in asked],
            latency_ms=elapsed_ms(started),
            stores=results(outcomes, lambda r: len(r.results), notes),
        )

    async def forget(self, request: ForgetRequest) -> ForgetResponse:
        if request.dry_run:  # [forget.dry-run]: each child previews, and nothing is staged
            req, review_id = request, None
            staged = staging(self._fan.policy, "forget", req, to_wire(req)) is not None
        else:
            req, review_id = staged_under(request, self._fan.policy)
            staged = False
        payload = to_wire(req)
        # forget reaches every copy whatever the write policy (see the class docstring); each
        # child gets a copy of the request, so one that alters it alters nobody else's
        plan = self._fan.plan(needs("forget", payload), primary_only=False)

        answer = answering("forget.response", ForgetResponse, lambda r: check_forget(r, payload))
        outcomes = await self._fan.run(
            "forget", plan, lambda c: c.forget(req.model_copy(deep=True)), answer
        )
        done = responses(outcomes)
        forgotten = dict.fromkeys(i for r in done for i in r.forgotten_ids)
        if not any(r.pending_approval for r in done):
            review_id = None  # a whole scope found empty everywhere: nothing was staged
        said: dict[str, Any] = {} if review_id is None else {"review_id": review_id}
        if req.dry_run:
            said["dry_run"] = True
        return ForgetResponse(
            forgotten_ids=list(forgotten),
            stores=results(outcomes, lambda r: len(r.forgotten_ids)),
            hard_delete=req.hard_delete,
            pending_approval=staged or any(r.pending_approval for r in done),
            **said,
        )

    async def merge(self, request: MergeRequest) -> MergeResponse:
        req, review_id = staged_under(request, self._fan.policy)
        payload = to_wire(req)
        # a staged merge waits on every copy, so one decision applies it everywhere
        staged = review_id is not None
        plan = self._fan.plan(
            needs("merge", payload), primary_only=self._fan.primary_only and not staged
        )

        answer = answering("merge.response", MergeResponse, lambda r: check_merge(r, payload))
        outcomes = await self._fan.run(
            "merge", plan, lambda c: c.merge(req.model_copy(deep=True)), answer
        )
        done = responses(outcomes)
        staged_fields = (
            {} if review_id is None else {"pending_approval": True, "review_id": review_id}
        )
        return MergeResponse.model_validate(
            {
                "canonical": req.canonical,
                "merged_count": max(r.merged_count for r in done),
                "strategy_used": done[0].strategy_used,
                "stores": results(outcomes, lambda r: r.merged_count),
                **staged_fields,
            }
        )

    async def expire(self, request: ExpireRequest) -> ExpireResponse:
        req, payload = request, to_wire(request)
        if "no_recall_in_days" in payload["policy"] and not self._tracks_exactly:
            raise untracked(self._fan.name)
        plan = self._fan.plan(needs("expire", payload), primary_only=self._fan.primary_only)

        answer = answering("expire.response", ExpireResponse, lambda r: check_expire(r, payload))
        outcomes = await self._fan.run(
            "expire", plan, lambda c: c.expire(req.model_copy(deep=True)), answer
        )
        done = responses(outcomes)
        fields: dict[str, Any] = {
            "action_taken": req.action,
            "stores": results(outcomes, lambda r: r.matched_count),
        }
        if all(r.matched_ids is not None for r in done):
            # copies share ids, so the distinct ids are the records matched
            matched = list(dict.fromkeys(i for r in done for i in r.matched_ids or ()))
            fields.update(matched_count=len(matched), matched_ids=matched)
        else:  # a child that does not list ids: the largest count is the best lower bound
            fields["matched_count"] = max(r.matched_count for r in done)
        return ExpireResponse.model_validate(fields)

    # -- health, graph, lifecycle ----------------------------------------------------------

    async def health(self) -> Health:
        """``ok`` when every child is, ``down`` when none serves, ``degraded`` in between."""
        started = time.perf_counter()
        outcomes = await asyncio.gather(
            *(
                call_child(
                    child.name,
                    child.health,
                    self._fan.deadline_s,
                    lambda raw: validated("health", Health, raw),
                )
                for child in self._fan.children
            )
        )
        children = [child_health(outcome) for outcome in outcomes]
        status = overall([child.status for child in children])
        return Health(
            store=self._fan.name,
            status=status,
            latency_ms=elapsed_ms(started),
            details={
                "write_policy": self._fan.write_policy,
                "deadline_s": self._fan.deadline_s,
                "overfetch": self._overfetch,
                "quorum": self._quorum,
            },
            stores=children,
        )

    # -- v0.1's record operations, v0.2's review queue, v0.3's archive, the graph: _router_*

    async def get(self, request: GetRequest) -> GetResponse:
        return await records.get(self._fan, request)

    async def list(self, request: ListRequest) -> ListResponse:
        return await records.list_page(self._fan, request)

    async def update(self, request: UpdateRequest) -> UpdateResponse:
        return await records.update(self._fan, request)

    async def restore(self, request: RestoreRequest) -> RestoreResponse:
        return await records.restore(self._fan, request)

    async def history(self, request: HistoryRequest) -> HistoryResponse:
        return await records.history(self._fan, request)

    async def consolidate(self, request: ConsolidateRequest) -> ConsolidateResponse:
        return await self._lifecycle.consolidate(request)

    async def promote(self, request: PromoteRequest) -> PromoteResponse:
        return await self._lifecycle.promote(request)

    async def run_start(self, request: RunStartRequest) -> RunStartResponse:
        return await self._lifecycle.run_start(request)

    async def run_fire(self, request: RunFireRequest) -> RunFireResponse:
        return await self._lifecycle.run_fire(request)

    async def run_get(self, request: RunGetRequest) -> RunGetResponse:
        return await self._lifecycle.run_get(request)

    async def remember_batch(self, request: RememberBatchRequest) -> RememberBatchResponse:
        return await records.remember_batch(self._fan, request)

    async def reviews(self, request: ReviewsRequest) -> ReviewsResponse:
        return await review_queue.reviews(self._fan, request)

    async def decide(self, request: DecideRequest) -> DecideResponse:
        return await review_queue.decide(self._fan, request)

    async def export_records(self, request: ExportRecordsRequest) -> ExportRecordsResponse:
        return await archive.export_page(self._fan, request)

    async def import_records(self, request: ImportRecordsRequest) -> ImportRecordsResponse:
        return await archive.import_page(self._fan, request)

    async def scopes(self, request: ScopesRequest) -> ScopesResponse:
        return await archive.scopes_page(self._fan, request)

    async def neighbours(
        self, agent_id: str, ids: Sequence[str], *, hops: int
    ) -> dict[str, dict[str, int]]:
        """The graph-capable children's neighbours of ``ids``, nearest distance first wins; a
        router is a GraphStore so that an outer router can boost with an inner one's graph."""
        return await graph_routing.neighbours(self._fan, agent_id, ids, hops=hops)

    async def aclose(self) -> None:
        """Close every child (the router stands for them); the first error is raised after all
        children have been asked to close."""
        closed = await asyncio.gather(
            *(child.aclose() for child in self._fan.children), return_exceptions=True
        )
        for result in closed:
            if isinstance(result, BaseException):
                raise result
