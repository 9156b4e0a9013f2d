"""The pgvector store's review queue (spec v0.2: ``reviews``, ``decide``, and staging forget
and merge), kept apart from the operations of ``store.py``; ``PgVectorStore`` inherits it.
The SQL is ``_reviews``'s and ``_changes``', the wire rules ``kit.reviews``'."""

from __future__ import annotations

import builtins
import functools
import time
from typing import Any

from mnemowire.adapters.pgvector import _changes
from mnemowire.adapters.pgvector._host import StoreHost
from mnemowire.adapters.pgvector._reviews import QUEUE, related
from mnemowire.adapters.pgvector._writes import insert_audit
from mnemowire.kit import MergePlan, require_versions, to_wire
from mnemowire.kit.audit import entry
from mnemowire.kit.reviews import (
    decide_answer,
    decided_merge,
    decision_detail,
    decision_record,
    outcome_of,
    refuse_unreviewed_version,
    review_id_for,
    reviews_answer,
    staged_detail,
    staged_forget_answer,
    staged_merge_answer,
)
from mnemowire.kit.sql_steps import arun
from mnemowire.models import (
    DecideRequest,
    DecideResponse,
    ForgetRequest,
    ForgetResponse,
    MergeRequest,
    MergeResponse,
    ReviewDecision,
    ReviewOutcome,
    ReviewsRequest,
    ReviewsResponse,
)

__all__ = ["ReviewOperations"]


class ReviewOperations:
    """Staging forget and merge, listing pending reviews with diffs, deciding one."""

    def __init__(self, host: StoreHost) -> None:
        self._host = host

    async def reviews(self, request: ReviewsRequest) -> ReviewsResponse:
        """The agent's pending reviews, a page at a time, each with its diff now
        ([review.list], [review.diff])."""
        started = time.perf_counter()
        async with self._host._db.transaction("reviews") as conn:  # one snapshot for the page
            nearest = functools.partial(related, dimension=self._host.embedder.dimension)
            found = await arun(conn, QUEUE.page(request, self._host._clock()), nearest)
        count = min(len(found), request.limit)
        return reviews_answer(found, request.limit, self._host._result(count, started))

    async def decide(self, request: DecideRequest) -> DecideResponse:
        """End one pending review ([review.decide]): planned on a read (the merged content
        embedded outside any transaction), applied and ended in one transaction, where a
        decision that lost a race finds the review ended ([review.once])."""
        await self._host._setup()
        started = time.perf_counter()
        async with self._host._db.connection("decide") as conn:
            operation, sent = await arun(conn, QUEUE.pending(request))
            merge = decided_merge(request, operation, sent)
            plan = None
            if merge is not None:
                plan = await self._plan_decided_merge(conn, merge, operation == "remember")
        if plan is not None and plan.new_text is not None:
            plan.vector = (await self._host._embed([plan.new_text]))[0]
        decision, changed = await self._apply(request, operation, sent, merge, plan)
        self._host._sizes.changed([request.agent_id])
        return decide_answer(decision, changed, self._host._result(len(changed), started))

    # -- staging (called by the store's forget and merge) -------------------------------------

    async def stage_forget(
        self, req: ForgetRequest, payload: dict[str, Any], staged_by: str
    ) -> ForgetResponse:
        started = time.perf_counter()
        now = self._host._clock()
        review_id = review_id_for(req.review_id)
        async with self._host._db.transaction("forget") as conn:
            ids = [i for _, i, _ in await arun(conn, QUEUE.forget_targets(req, payload))]
            queued = (review_id, "forget", req.agent_id, req.user_id, payload, staged_by, now)
            await arun(conn, QUEUE.stage(*queued))
            detail = staged_detail(review_id)
            await insert_audit(conn, entry(now, "forget", req.agent_id, ids, payload, detail))
        return staged_forget_answer(req, ids, review_id, self._host._result(len(ids), started))

    async def stage_merge(
        self, req: MergeRequest, payload: dict[str, Any], staged_by: str
    ) -> MergeResponse:
        started = time.perf_counter()
        MergePlan.refuse_self_merge(req)
        now = self._host._clock()
        review_id = review_id_for(req.review_id)
        async with self._host._db.transaction("merge") as conn:
            # the records must be there, at the versions the merge names
            require_versions(req, await _changes.merge_targets(conn, req, now))
            queued = (review_id, "merge", req.agent_id, None, payload, staged_by, now)
            await arun(conn, QUEUE.stage(*queued))
            ids = [req.canonical, *req.duplicates]
            detail = staged_detail(review_id)
            await insert_audit(conn, entry(now, "merge", req.agent_id, ids, payload, detail))
        return staged_merge_answer(req, review_id, self._host._result(0, started))

    async def _plan_decided_merge(
        self, conn: Any, merge: MergeRequest, staged_remember: bool
    ) -> MergePlan:
        """A merge's plan, the staged record read as if it were visible (co-memorize)."""
        MergePlan.refuse_self_merge(merge)
        now = self._host._clock()
        if not staged_remember:
            return MergePlan.of(merge, await _changes.merge_targets(conn, merge, now))
        into = merge.model_copy(update={"duplicates": [merge.canonical]})
        records = await _changes.merge_targets(conn, into, now)  # merge_into: an active record
        records.update(await arun(conn, QUEUE.staged_records(merge.agent_id, merge.duplicates)))
        return MergePlan.of(merge, records)

    async def _apply(
        self,
        req: DecideRequest,
        operation: str,
        sent: dict[str, Any],
        merge: MergeRequest | None,
        plan: MergePlan | None,
    ) -> tuple[ReviewDecision, builtins.list[str]]:
        now = self._host._clock()
        outcome = outcome_of(req)
        decision = decision_record(req, outcome, now)
        changed: builtins.list[str]
        async with self._host._db.transaction("decide") as conn:
            await arun(conn, QUEUE.end(req, outcome.value, to_wire(decision)))
            refuse_unreviewed_version(req, await arun(conn, QUEUE.staged_version(req, operation)))
            if outcome is ReviewOutcome.REJECTED:
                changed = await _changes.reject(conn, req, operation, now)
            elif operation == "remember":
                changed = await _changes.set_visible(
                    conn, req.agent_id, None, [req.review_id], "pending", "approve", now
                )
                if merge is not None and plan is not None:  # co-memorize: now visible, merged
                    plan.versions[req.review_id] = now  # the approval's own change
                    await _changes.merge(conn, merge, to_wire(merge), plan, now)
                    changed = [merge.canonical, *merge.duplicates]
            elif operation == "forget":
                forget = ForgetRequest.model_validate(sent)
                changed = await _changes.forget(conn, forget, sent, now)
            else:
                assert merge is not None
                assert plan is not None
                await _changes.merge(conn, merge, sent, plan, now)
                changed = [merge.canonical, *merge.duplicates]
            detail = decision_detail(req, outcome)
            await insert_audit(
                conn, entry(now, "decide", req.agent_id, changed, to_wire(req), detail)
            )
        return decision, changed
