"""The sqlite-vec store's review queue (spec v0.2: ``reviews``, ``decide``, and staging forget
and merge), kept apart from the operations of ``store.py``; ``SqliteVecStore`` inherits it.
The database steps are ``_reviews``'s and ``_writes``'s, the wire rules ``kit.reviews``'."""

from __future__ import annotations

import builtins
import time
from typing import Any

from mnemowire.adapters.sqlite_vec import _writes
from mnemowire.adapters.sqlite_vec._host import StoreHost
from mnemowire.adapters.sqlite_vec._reviews import QUEUE, related
from mnemowire.kit import MergePlan, require_versions, to_wire
from mnemowire.kit.audit import append_sqlite
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
from mnemowire.kit.sql_reviews import Nearest
from mnemowire.kit.sql_steps import run
from mnemowire.models import (
    DecideRequest,
    DecideResponse,
    ForgetRequest,
    ForgetResponse,
    MergeRequest,
    MergeResponse,
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
        found = await self._host._call(self._page, request)
        return reviews_answer(
            found, request.limit, self._host._result(min(len(found), request.limit), started)
        )

    async def decide(self, request: DecideRequest) -> DecideResponse:
        """End one pending review ([review.decide]): planned on a read (and the merged content
        embedded outside the lock), applied and ended in one transaction, where a decision
        that lost a race finds the review ended and fails with conflict ([review.once])."""
        await self._host._setup()
        started = time.perf_counter()
        staged = await self._host._call(self._staged, request)
        operation, sent = staged
        merge = decided_merge(request, operation, sent)
        plan = None
        if merge is not None:
            plan = await self._host._call(self._plan_decided_merge, merge, operation == "remember")
            if plan.new_text is not None:
                plan.vector = (await self._host._embed([plan.new_text]))[0]
        decision, changed = await self._host._call(
            self._decide, request, operation, sent, merge, plan
        )
        return decide_answer(decision, changed, self._host._result(len(changed), started))

    # -- staging (called by the store's forget and merge) -------------------------------------

    async def stage_forget(
        self, req: ForgetRequest, payload: dict[str, Any], staged_by: str
    ) -> ForgetResponse:
        started = time.perf_counter()
        review_id, ids = await self._host._call(self._stage_forget_step, req, payload, staged_by)
        return staged_forget_answer(req, ids, review_id, self._host._result(len(ids), started))

    async def stage_merge(
        self, req: MergeRequest, payload: dict[str, Any], staged_by: str
    ) -> MergeResponse:
        started = time.perf_counter()
        MergePlan.refuse_self_merge(req)
        review_id = await self._host._call(self._stage_merge_step, req, payload, staged_by)
        return staged_merge_answer(req, review_id, self._host._result(0, started))

    # -- the database steps (run by ``_locked``) ------------------------------------------------

    def _stage_forget_step(
        self, req: ForgetRequest, payload: dict[str, Any], staged_by: str
    ) -> tuple[str, builtins.list[str]]:
        now = self._host._clock()
        review_id = review_id_for(req.review_id)
        with self._host._db.transaction() as tx:
            ids = [i for _, i, _ in run(tx, QUEUE.forget_targets(req, payload))]
            queued = (review_id, "forget", req.agent_id, req.user_id, payload, staged_by, now)
            run(tx, QUEUE.stage(*queued))
            append_sqlite(tx, now, "forget", req.agent_id, ids, payload, staged_detail(review_id))
        return review_id, ids

    def _stage_merge_step(self, req: MergeRequest, payload: dict[str, Any], staged_by: str) -> str:
        now = self._host._clock()
        review_id = review_id_for(req.review_id)
        with self._host._db.transaction() as tx:
            # the records must be there to stage it, at the versions the merge names
            require_versions(req, _writes.merge_targets(tx, req, now))
            queued = (review_id, "merge", req.agent_id, None, payload, staged_by, now)
            run(tx, QUEUE.stage(*queued))
            ids = [req.canonical, *req.duplicates]
            append_sqlite(tx, now, "merge", req.agent_id, ids, payload, staged_detail(review_id))
        return review_id

    def _page(self, req: ReviewsRequest) -> builtins.list[Any]:
        now = self._host._clock()
        with self._host._db.transaction(write=False) as tx:
            return run(tx, QUEUE.page(req, now), self._related)

    def _staged(self, req: DecideRequest) -> tuple[str, dict[str, Any]]:
        with self._host._db.transaction(write=False) as tx:
            return run(tx, QUEUE.pending(req))

    def _related(self, tx: Any, asked: Nearest) -> builtins.list[tuple[str, float]]:
        return related(tx, asked, self._host._indexes, self._host._accelerate_above)

    def _plan_decided_merge(self, merge: MergeRequest, staged_remember: bool) -> MergePlan:
        """A merge's plan, the staged record read as if it were visible (co-memorize)."""
        MergePlan.refuse_self_merge(merge)
        now = self._host._clock()
        with self._host._db.transaction(write=False) as tx:
            if not staged_remember:
                return MergePlan.of(merge, _writes.merge_targets(tx, merge, now))
            into = merge.model_copy(update={"duplicates": [merge.canonical]})
            records = _writes.merge_targets(tx, into, now)  # merge_into: an active record
            records.update(run(tx, QUEUE.staged_records(merge.agent_id, merge.duplicates)))
        return MergePlan.of(merge, records)

    def _decide(
        self,
        req: DecideRequest,
        operation: str,
        sent: dict[str, Any],
        merge: MergeRequest | None,
        plan: MergePlan | None,
    ) -> tuple[Any, builtins.list[str]]:
        now = self._host._clock()
        outcome = outcome_of(req)
        decision = decision_record(req, outcome, now)
        changed: builtins.list[str]
        with self._host._db.transaction() as tx:
            run(tx, QUEUE.end(req, outcome.value, to_wire(decision)))
            refuse_unreviewed_version(req, run(tx, QUEUE.staged_version(req, operation)))
            if outcome is ReviewOutcome.REJECTED:
                changed = _writes.reject(tx, req, operation, now)
            elif operation == "remember":
                changed = _writes.set_visible(
                    tx, req.agent_id, None, [req.review_id], "pending", "approve", now,
                    self._host._index,
                )  # fmt: skip
                if merge is not None and plan is not None:  # co-memorize: now visible, merged
                    plan.versions[req.review_id] = now  # the approval's own change
                    _writes.merge(tx, merge, to_wire(merge), plan, now, self._host._index)
                    changed = [merge.canonical, *merge.duplicates]
            elif operation == "forget":
                forget = ForgetRequest.model_validate(sent)
                changed = _writes.forget(tx, forget, sent, now, self._host._index)
            else:
                assert merge is not None
                assert plan is not None
                _writes.merge(tx, merge, sent, plan, now, self._host._index)
                changed = [merge.canonical, *merge.duplicates]
            detail = decision_detail(req, outcome)
            append_sqlite(tx, now, "decide", req.agent_id, changed, to_wire(req), detail)
        if operation == "remember" and outcome is ReviewOutcome.REJECTED and req.hard:
            self._host._db.scrub()
        return decision, changed
