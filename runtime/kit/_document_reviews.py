"""The review queue of a document store (mem0, Cognee, Letta): spec v0.2's ``reviews`` and
``decide``, and staged forget and merge, over the same backend calls as the other operations.

The queue's rows live in the id map's SQLite, beside the backend (``ReviewRows``): the staged
request as the agent sent it, who staged it, and once decided, the decision. A staged
remember's record waits in the backend in state ``pending``, as before; a staged forget or
merge changes nothing until approved. Such a backend has no transaction, so a decision is
made in this order: checked against the state now (a merge that could not apply fails before
anything changes), the review marked ``deciding`` in SQLite with a conditional update and the
decision's intent (of two decisions racing, one marks it and the other gets ``conflict``:
[review.once]), the write applied, the review ended. A write that fails puts the review back
to pending ("a failed approval leaves it pending"); a decision a crash cut between marking and
ending is written again, idempotently, before the queue is next read or decided (``_redo``).
"""

from __future__ import annotations

import builtins
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from mnemowire.errors import MnemowireError
from mnemowire.kit._basics import to_wire
from mnemowire.kit._records import store_result
from mnemowire.kit._rules import MergePlan, require_visible
from mnemowire.kit.reviews import (
    CALLER,
    decide_answer,
    decided_merge,
    decision_detail,
    decision_record,
    merge_diff,
    outcome_of,
    refuse_unreviewed_version,
    review_id_for,
    review_of_row,
    reviews_answer,
    staged_detail,
    staged_forget_answer,
    staged_merge_answer,
    staged_remember,
)
from mnemowire.kit.sql import Dialect, review_page
from mnemowire.kit.sql_reviews import QueueTable
from mnemowire.kit.sql_steps import Steps, run
from mnemowire.models import (
    DecideRequest,
    DecideResponse,
    ForgetRequest,
    ForgetResponse,
    MergeRequest,
    MergeResponse,
    RecallRequest,
    ReviewOutcome,
    ReviewRequest,
    ReviewsRequest,
    ReviewsResponse,
)
from mnemowire.protocol import QueryEmbedding

if TYPE_CHECKING:
    from mnemowire.kit._id_map import IdMap

__all__ = ["DocumentHost", "ReviewQueue", "ReviewRows"]

Record = dict[str, Any]
T = TypeVar("T")


def _no_metadata(column: str, key: str, op: str, arg: Any) -> tuple[str, list[Any]]:
    raise AssertionError("the review queue filters no metadata")


#: SQLite, as the queue's one query (``kit.sql.review_page``) needs it
_SQLITE = Dialect(param="?", operator=_no_metadata)
#: the queue's table in the id map's database
_QUEUE = QueueTable(dialect=_SQLITE, bind_json=json.dumps, read_json=json.loads)


class ReviewRows:
    """The queue's rows, in the id map's database (used from the store's worker thread)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        db.execute(
            "CREATE TABLE IF NOT EXISTS reviews (review_id TEXT PRIMARY KEY, agent_id TEXT NOT "
            "NULL, user_id TEXT, operation TEXT NOT NULL, request TEXT NOT NULL, staged_by TEXT "
            "NOT NULL, requested_at INTEGER NOT NULL, state TEXT NOT NULL, decision TEXT)"
        )
        db.execute("CREATE INDEX IF NOT EXISTS reviews_queue ON reviews (agent_id, state)")
        db.execute("CREATE INDEX IF NOT EXISTS reviews_state ON reviews (state)")

    def run(self, steps: Steps[T]) -> T:
        """Run the queue's steps (``kit.sql_reviews``) on the id map's database."""
        return run(self._db, steps)

    def page(self, req: ReviewsRequest) -> list[tuple[Any, ...]]:
        return self._db.execute(*review_page(_SQLITE, req)).fetchall()

    def pending(self, req: DecideRequest) -> tuple[str, dict[str, Any]]:
        """(operation, request sent) of the agent's pending review (``kit.sql_reviews``:
        ``not_found``, ``conflict`` or a refused ``merge_into`` otherwise)."""
        return run(self._db, _QUEUE.pending(req))

    def end(self, req: DecideRequest, intent: dict[str, Any]) -> None:
        """Mark the review being decided, with what its write will be, before the write
        ([review.once]); ``finish`` ends it once written."""
        run(self._db, _QUEUE.end(req, "deciding", intent))

    def finish(self, review_id: str, outcome: str, decision: dict[str, Any]) -> None:
        self._db.execute(
            "UPDATE reviews SET state = ?, decision = ? WHERE review_id = ?",
            (outcome, json.dumps(decision), review_id),
        )

    def unfinished(self) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
        """(review id, operation, request, intent) of each decision a crash interrupted."""
        rows = self._db.execute(
            "SELECT review_id, operation, request, decision FROM reviews WHERE state = 'deciding'"
        ).fetchall()
        return [(r[0], r[1], json.loads(r[2]), json.loads(r[3])) for r in rows]

    def reopen(self, review_id: str) -> None:
        """A decision whose write failed: the review waits again."""
        self._db.execute(
            "UPDATE reviews SET state = 'pending', decision = NULL WHERE review_id = ?",
            (review_id,),
        )

    def withdraw(self, ids: Sequence[str], now: int) -> None:
        """Staged remembers whose records a forget removed can no longer be decided."""
        run(self._db, _QUEUE.withdraw(ids, now))

    def erase_request(self, review_id: str) -> None:
        """What an erased staged remember leaves of its review: the id and the decision,
        whatever state the review is in (approved, merged or rejected, it kept the words it
        was staged with as long as a pending one)."""
        run(self._db, _QUEUE.erase_requests([review_id]))

    def staged(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The pending reviews of staged remembers among ``ids``, by id, as an archive's
        record line carries them (docs/spec/v0.3.md#archive.record)."""
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            rows = self._db.execute(
                "SELECT review_id, staged_by, requested_at FROM reviews WHERE review_id IN "
                f"({','.join('?' * len(chunk))}) AND state = 'pending' AND operation = 'remember'",
                chunk,
            )
            found.update(
                (r[0], {"review_id": r[0], "staged_by": r[1], "requested_at": r[2]}) for r in rows
            )
        return found

    def replace_remember(self, record: Record) -> None:
        """An imported record's review: the one its archive line names when it is pending,
        none otherwise; whatever row its id had (an overwritten record's) is gone."""
        self._db.execute("DELETE FROM reviews WHERE review_id = ?", (record["id"],))
        if record["state"] == "pending":
            run(self._db, _QUEUE.stage_imported(record))

    def unqueued(self, ids: Iterable[str]) -> list[str]:
        """Which of ``ids`` have no row (records staged before the queue existed)."""
        return [
            i
            for i in ids
            if self._db.execute("SELECT 1 FROM reviews WHERE review_id = ?", (i,)).fetchone()
            is None
        ]


class DocumentHost(Protocol):
    """What a ``ReviewQueue`` needs of its ``DocumentStore``: its name, clock and id map (the
    queue's rows are there), and the backend calls the store's own operations are made of,
    each run on the store's one worker (``_run``)."""

    _name: str
    _clock: Callable[[], int]
    _ids: IdMap

    async def _run(self, work: Callable[[], T]) -> T: ...

    def _named(self, ids: Iterable[str]) -> dict[str, Record]: ...

    def _listed(
        self, agent_id: str, user_id: str | None, states: Sequence[str] | None = None
    ) -> builtins.list[Record]: ...

    def _wire(self, record: Record, now: int) -> dict[str, Any]: ...

    def _visible(self, record: Record, agent_id: str, now: int) -> bool: ...

    def _recall(
        self, req: RecallRequest, payload: dict[str, Any], given: QueryEmbedding | None
    ) -> builtins.list[tuple[Record, float, float]]: ...

    def _forget(self, req: ForgetRequest, payload: dict[str, Any]) -> builtins.list[str]: ...

    def _forget_targets(
        self, req: ForgetRequest, payload: dict[str, Any]
    ) -> builtins.list[Record]: ...

    def _merge(self, req: MergeRequest, planned: MergePlan | None = None) -> MergePlan: ...

    def _approve(self, agent_id: str, ids: Sequence[str]) -> builtins.list[str]: ...

    def _rewrite(self, record: Record, *, text: str | None = None) -> None: ...

    def _erase(self, record: Record) -> None: ...


class ReviewQueue:
    """``reviews``, ``decide`` and staged forget and merge for a ``DocumentStore``, which holds
    one and runs its own operations' backend calls for it (``DocumentHost``)."""

    def __init__(self, host: DocumentHost) -> None:
        self._host = host
        #: agents whose records staged before the queue existed were queued (once per open)
        self._queued_agents: set[str] = set()

    @property
    def _ids(self) -> IdMap:
        """The store's id map: the queue's rows (``reviews``), transactions and audit log."""
        return self._host._ids

    async def reviews(self, request: ReviewsRequest) -> ReviewsResponse:
        """The agent's pending reviews with their diffs now ([review.list], [review.diff])."""
        started = time.perf_counter()
        found: builtins.list[ReviewRequest] = await self._host._run(
            lambda: self._review_page(request)
        )
        result = store_result(self._host._name, min(len(found), request.limit), started)
        return reviews_answer(found, request.limit, result)

    async def decide(self, request: DecideRequest) -> DecideResponse:
        """End one pending review and apply (or drop) its write ([review.decide])."""
        started = time.perf_counter()
        decision, changed = await self._host._run(lambda: self._decide(request))
        return decide_answer(
            decision, changed, store_result(self._host._name, len(changed), started)
        )

    # -- staging (the store's forget and merge call these) ----------------------------------------

    async def stage_forget(
        self, req: ForgetRequest, payload: dict[str, Any], staged_by: str
    ) -> ForgetResponse:
        started = time.perf_counter()

        def stage() -> tuple[str, builtins.list[str]]:
            review_id = review_id_for(req.review_id)
            ids = [r["id"] for r in self._host._forget_targets(req, payload)]
            now = self._host._clock()
            with self._ids.transaction():  # queued and audited at once
                staged = (review_id, "forget", req.agent_id, req.user_id, payload, staged_by, now)
                self._ids.reviews.run(_QUEUE.stage(*staged))
                detail = staged_detail(review_id)
                self._ids.audit(now, "forget", req.agent_id, ids, payload, detail)
            return review_id, ids

        review_id, ids = await self._host._run(stage)
        result = store_result(self._host._name, len(ids), started)
        return staged_forget_answer(req, ids, review_id, result)

    async def stage_merge(
        self, req: MergeRequest, payload: dict[str, Any], staged_by: str
    ) -> MergeResponse:
        started = time.perf_counter()
        MergePlan.refuse_self_merge(req)

        def stage() -> str:
            review_id = review_id_for(req.review_id)
            self._merge_targets(req)  # the records must be there to stage it
            now, ids = self._host._clock(), [req.canonical, *req.duplicates]
            with self._ids.transaction():  # queued and audited at once
                staged = (review_id, "merge", req.agent_id, None, payload, staged_by, now)
                self._ids.reviews.run(_QUEUE.stage(*staged))
                detail = staged_detail(review_id)
                self._ids.audit(now, "merge", req.agent_id, ids, payload, detail)
            return review_id

        review_id = await self._host._run(stage)
        result = store_result(self._host._name, 0, started)
        return staged_merge_answer(req, review_id, result)

    def queue_remember(
        self, record: Record, payload: dict[str, Any], staged_by: str = CALLER
    ) -> None:
        """A staged remember's review, queued once its record is written."""
        self._ids.reviews.run(_QUEUE.stage(
            record["id"], "remember", record["agent_id"], record.get("user_id"), payload,
            staged_by, record["created_at"],
        ))  # fmt: skip

    # -- listing ----------------------------------------------------------------------------------

    def _review_page(self, req: ReviewsRequest) -> builtins.list[ReviewRequest]:
        self._redo()
        self._queue_older(req.agent_id)
        rows = self._ids.reviews.page(req)
        now = self._host._clock()
        staged = self._host._named([r[0] for r in rows if r[1] == "remember"])
        out = []
        for row in rows:
            review_id, operation, sent = row[0], row[1], json.loads(row[4])
            seal = None
            if operation == "remember":
                record = staged.get(review_id)
                if record is None or record["state"] != "pending":
                    continue  # removed under the queue: a forget withdraws its review
                added = self._host._wire(record, now)
                seal = added.pop("seal", None)
                diff: dict[str, Any] = {"added": [added]}
                if req.related:
                    diff["related"] = self._related(record, req.related, now)
            elif operation == "forget":
                forget = ForgetRequest.model_validate(sent)
                diff = {
                    "removed": [
                        self._host._wire(r, now) for r in self._host._forget_targets(forget, sent)
                    ]
                }
            else:
                merge = MergeRequest.model_validate(sent)
                stored = self._visible_named(merge.agent_id, [merge.canonical, *merge.duplicates])
                wired = {i: self._host._wire(r, now) for i, r in stored.items()}
                diff = merge_diff(merge, stored, wired)
            out.append(review_of_row(row, sent, diff, seal))
        return out

    def _related(self, record: Record, k: int, now: int) -> builtins.list[dict[str, Any]]:
        """The agent's visible records closest to a staged one, in its user scope, closest
        first, relevance clamped to [0, 1]."""
        query = RecallRequest(
            agent_id=record["agent_id"], user_id=record.get("user_id"), query=record["content"], k=k
        )
        ranked = self._host._recall(query, to_wire(query), None)
        return [
            {"record": self._host._wire(r, now), "relevance": min(1.0, max(0.0, relevance))}
            for r, relevance, _ in ranked
            if r["id"] != record["id"]
        ]

    def _queue_older(self, agent_id: str) -> None:
        """Records the agent staged before this store had a queue get their review, once."""
        if agent_id in self._queued_agents:
            return
        pending = [
            r
            for r in self._host._listed(agent_id, None, ["pending"])
            if r["agent_id"] == agent_id and r["state"] == "pending"
        ]
        for record_id in self._ids.reviews.unqueued([r["id"] for r in pending]):
            record = next(r for r in pending if r["id"] == record_id)
            self.queue_remember(record, staged_remember(record))
        self._queued_agents.add(agent_id)

    # -- deciding ---------------------------------------------------------------------------------

    def _decide(self, req: DecideRequest) -> tuple[Any, builtins.list[str]]:
        self._redo()
        operation, sent = self._ids.reviews.pending(req)
        refuse_unreviewed_version(req, self._staged_version(req.review_id, operation))
        merge = decided_merge(req, operation, sent)
        plan = None
        if merge is not None:  # one that could not apply fails before anything changes
            staged = req.review_id if operation == "remember" else None
            plan = self._merge_targets(merge, staged=staged)
        outcome = outcome_of(req)
        decision = decision_record(req, outcome, self._host._clock())
        recorded = to_wire(decision)
        intent = {
            "decision": recorded, "agent_id": req.agent_id, "hard": req.hard,
            "plan": plan and plan.intent(),
        }  # fmt: skip
        self._ids.reviews.end(req, intent)
        try:
            changed = self._apply(req, operation, sent, merge, plan)
        except BaseException:
            self._ids.reviews.reopen(req.review_id)
            raise
        self._finish(req, outcome, recorded, changed)
        return decision, changed

    def _staged_version(self, review_id: str, operation: str) -> int:
        """A staged remember's record's version now (updates may change it while it waits;
        the store's one worker runs no update between this read and the decision); 1 for a
        forget or merge."""
        if operation != "remember":
            return 1
        record = self._host._named([review_id]).get(review_id)
        return 1 if record is None else int(record.get("version", 1))

    def _finish(
        self,
        req: DecideRequest,
        outcome: ReviewOutcome,
        recorded: dict[str, Any],
        changed: builtins.list[str],
    ) -> None:
        """End a decided review, and audit the decision in the same transaction."""
        with self._ids.transaction():
            self._ids.reviews.finish(req.review_id, outcome.value, recorded)
            detail = decision_detail(req, outcome)
            self._ids.audit(
                self._host._clock(), "decide", req.agent_id, changed, to_wire(req), detail
            )

    def _redo(self) -> None:
        """Finish the decisions a crash interrupted between ending a review and writing: each
        write again, skipping what was written (an approval, a forget and a rejection are the
        same done twice; a merge knows its plan). One that cannot be written waits again."""
        for review_id, operation, sent, intent in self._ids.reviews.unfinished():
            decision = intent["decision"]
            req = DecideRequest.model_validate(
                {k: decision[k] for k in ("review_id", "approved", "reviewer", "reason",
                                          "merge_into") if k in decision}
                | {"agent_id": intent["agent_id"], "hard": intent["hard"]}
            )  # fmt: skip
            plan = MergePlan.of_intent(intent["plan"]) if intent.get("plan") else None
            try:
                changed = self._apply(
                    req, operation, sent, decided_merge(req, operation, sent), plan
                )
            except MnemowireError:
                self._ids.reviews.reopen(review_id)
                continue
            self._finish(req, ReviewOutcome(decision["outcome"]), decision, changed)

    def _apply(
        self,
        req: DecideRequest,
        operation: str,
        sent: dict[str, Any],
        merge: MergeRequest | None,
        plan: MergePlan | None,
    ) -> builtins.list[str]:
        if not req.approved:
            return self._reject(req, operation)
        if operation == "forget":
            return self._host._forget(ForgetRequest.model_validate(sent), sent)
        if operation == "remember":
            self._host._approve(req.agent_id, [req.review_id])
            if merge is None:
                return [req.review_id]
        assert merge is not None  # a merge, or a remember approved into merge_into
        self._host._merge(merge, plan)
        return [merge.canonical, *merge.duplicates]

    def _reject(self, req: DecideRequest, operation: str) -> builtins.list[str]:
        """A staged remember's record erased (``hard``) or kept forgotten; a staged forget or
        merge changed nothing, so nothing is left to undo."""
        if operation != "remember":
            return []
        record = self._host._named([req.review_id]).get(req.review_id)
        if record is not None and record["state"] == "pending":
            if req.hard:
                self._ids.erase(record["id"])  # first: from now on the row is not a record
                self._host._erase(record)
                self._ids.reviews.erase_request(req.review_id)
            else:
                self._host._rewrite(
                    {**record, "state": "deleted", "updated_at": self._host._clock()}
                )
        return [req.review_id]

    def _visible_named(self, agent_id: str, ids: Sequence[str]) -> dict[str, Record]:
        now = self._host._clock()
        return {
            i: r for i, r in self._host._named(ids).items() if self._host._visible(r, agent_id, now)
        }

    def _merge_targets(self, req: MergeRequest, staged: str | None = None) -> MergePlan:
        """The plan of ``req`` now, or its error: every record visible (``staged``, a staged
        remember approved into a merge, read as if it were)."""
        MergePlan.refuse_self_merge(req)
        ids = [req.canonical, *req.duplicates]
        found = self._visible_named(req.agent_id, ids)
        if staged is not None:
            record = self._host._named([staged]).get(staged)
            if record is not None and record["state"] == "pending":
                found[staged] = {**record, "state": "active"}
        require_visible(req.agent_id, found, ids)
        return MergePlan.of(req, found)
