"""The review queue of a SQL store, written once for SQLite and PostgreSQL (spec v0.2,
docs/spec/v0.2.md#review.list): staging a write, a page of pending reviews with their diffs,
the review a decision names, and ending it exactly once.

The queue is a ``reviews`` table beside ``memories`` (columns ``review_id`` (primary key,
compared byte by byte), ``agent_id``, ``user_id``, ``operation``, ``request`` (JSON),
``staged_by``, ``requested_at``, ``state``, ``decision`` (JSON)). Every function returns
steps (``mnemowire.kit.sql_steps``) that the store runs inside its own transaction, so each
store's crash-safety stays its own: a decision ends its review first thing in the
transaction that applies it, and of two decisions racing the second finds it ended
([review.once]). What only the store knows is a :class:`ReviewTables` value (how it spells
SQL, reads a record and binds JSON) and the answer to :class:`Nearest` (its vector search).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mnemowire.errors import ConflictError
from mnemowire.kit._browse import RecordRows
from mnemowire.kit._rules import forget_states
from mnemowire.kit.reviews import (
    ended_conflict,
    kept_request,
    merge_diff,
    refuse_merge_into,
    review_of_row,
    staged_remember,
    unknown_review,
)
from mnemowire.kit.sql import Clause, Dialect, forget_scope, merge_scope, review_page
from mnemowire.kit.sql_steps import Query, Steps
from mnemowire.models import (
    DecideRequest,
    ForgetRequest,
    MergeRequest,
    ReviewRequest,
    ReviewsRequest,
)

__all__ = ["Nearest", "QueueTable", "ReviewTables"]

#: ids per statement: SQLite binds one parameter per id, and older builds allow 999
_CHUNK = 500


@dataclass(frozen=True)
class Nearest:
    """A step only the store answers: the agent's active records closest to the staged
    record ``record_id``, in its user scope, closest first, as ``(id, cosine similarity)``
    (at most ``k``)."""

    record_id: str
    agent_id: str
    user_id: str | None
    k: int
    now: int


@dataclass(frozen=True, kw_only=True)
class QueueTable:
    """The ``reviews`` table alone: what a store whose records live elsewhere (a memory
    library, ``kit.documents``) keeps in SQL."""

    dialect: Dialect
    #: a JSON value as a parameter, and a JSON column's value as read back
    bind_json: Callable[[Any], Any]
    read_json: Callable[[Any], Any]

    # -- staging -----------------------------------------------------------------------------

    def stage(  # noqa: PLR0917 (a staged write's parts)
        self,
        review_id: str,
        operation: str,
        agent_id: str,
        user_id: str | None,
        payload: Mapping[str, Any],
        staged_by: str,
        now: int,
    ) -> Steps[None]:
        """Queue a staged write ([review.staging]), its request as the review keeps it
        (``kept_request``); a review id already taken (by any agent) is a conflict, so one
        id never names two writes."""
        request = kept_request(operation, payload)
        p = self.dialect.param
        inserted = yield Query(
            "INSERT INTO reviews (review_id, agent_id, user_id, operation, request, "
            f"staged_by, requested_at, state) VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}, "
            "'pending') ON CONFLICT (review_id) DO NOTHING RETURNING 1",
            [review_id, agent_id, user_id, operation, self.bind_json(request), staged_by, now],
        )
        if not inserted:
            raise ConflictError(f"review id {review_id!r} is taken; stage the write under another")

    def stage_imported(self, record: Mapping[str, Any]) -> Steps[None]:
        """Queue the review an imported pending record waits for, as its archive line names
        it (docs/spec/v0.3.md#archive.record: the staged request is the record's own fields)."""
        review = record["review"]
        yield from self.stage(
            review["review_id"], "remember", record["agent_id"], record.get("user_id"),
            staged_remember(record), review["staged_by"], review["requested_at"],
        )  # fmt: skip

    def withdraw(self, ids: Sequence[str], now: int) -> Steps[None]:
        """Staged remembers whose records a forget removed can no longer be decided (a
        pending remember review means its record is still pending)."""
        decision = self.bind_json({"at": now})
        for part in _chunks(ids):
            where = Clause().add("operation = 'remember'").add("state = 'pending'")
            self.dialect.one_of(where, "review_id", part)
            yield Query(
                "UPDATE reviews SET state = 'withdrawn', decision = "
                f"{self.dialect.param} WHERE {where.sql}",
                [decision, *where.args],
                "none",
            )

    def erase_requests(self, ids: Sequence[str]) -> Steps[None]:
        """What an erasure leaves of the reviews of remembers staged as ``ids``: the id, the
        decision, no content (the request becomes ``{}``), whatever state the review is in:
        an approved, merged or rejected review keeps the words it was staged with as long as
        a pending one ([forget.soft], docs/threat-model.md#8)."""
        p, empty = self.dialect.param, self.bind_json({})
        for part in _chunks(ids):
            where = self.dialect.one_of(Clause().add("operation = 'remember'"), "review_id", part)
            where.add(f"request <> {p}", empty)
            yield Query(f"UPDATE reviews SET request = {p} WHERE {where.sql}",
                        [empty, *where.args], "none")  # fmt: skip

    # -- a decision --------------------------------------------------------------------------

    def pending(self, req: DecideRequest) -> Steps[tuple[str, dict[str, Any]]]:
        """The review a decision names, as (operation, request sent), if it is the agent's
        and pending: ``not_found`` if it is not the agent's ([review.list]), a conflict if it
        already ended, and ``merge_into`` refused unless it is a staged remember."""
        p = self.dialect.param
        row = yield Query(
            "SELECT operation, request, state, decision FROM reviews "
            f"WHERE review_id = {p} AND agent_id = {p}",
            [req.review_id, req.agent_id],
            "one",
        )
        if row is None:
            raise unknown_review(req)
        operation, request, state, decision = row
        if state != "pending":
            raise ended_conflict(req.review_id, state, self._decision(decision))
        if req.merge_into is not None:
            refuse_merge_into(operation)
        return operation, self.read_json(request)

    def end(self, req: DecideRequest, outcome: str, decision: dict[str, Any]) -> Steps[None]:
        """End the review, first thing in the decision's transaction: of two decisions racing,
        the second finds it ended and fails with conflict before changing anything
        ([review.once])."""
        p = self.dialect.param
        ended = yield Query(
            f"UPDATE reviews SET state = {p}, decision = {p} "
            f"WHERE review_id = {p} AND agent_id = {p} AND state = 'pending' RETURNING 1",
            [outcome, self.bind_json(decision), req.review_id, req.agent_id],
        )
        if ended:
            return
        row = yield Query(
            f"SELECT state, decision FROM reviews WHERE review_id = {p}", [req.review_id], "one"
        )
        if row is None:
            raise ended_conflict(req.review_id, "withdrawn")
        raise ended_conflict(req.review_id, row[0], self._decision(row[1]))

    def _decision(self, stored: Any) -> Any:
        return None if stored is None else self.read_json(stored)


@dataclass(frozen=True, kw_only=True)
class ReviewTables(QueueTable):
    """The queue beside the ``memories m`` table of the records it reviews (the SQL stores):
    a review's diff and a decision's version are read from there."""

    #: the ``memories m`` columns a record is read with (``m.id``, ...)
    columns: str
    #: those rows as the records get and list return
    records: RecordRows
    #: one of those rows as the store keeps it (what ``MergePlan`` reads)
    stored: Callable[[Sequence[Any]], dict[str, Any]]
    #: the column that orders records by write (a forget reaches them in that order)
    position: str
    #: appended to the read of a staged record's version when a decision reads it: a lock
    #: held to the decision's end, where the backend has row locks (an update racing the
    #: decision then waits, and finds the record decided)
    lock_staged: str = ""

    def forget_targets(
        self, req: ForgetRequest, payload: Mapping[str, Any]
    ) -> Steps[list[tuple[Any, str, str]]]:
        """``(position, id, state)`` of every record ``req`` reaches now ([forget.scope]), in
        write order: what a forget does, and what a staged one would."""
        states = forget_states(req.hard_delete, named=req.ids is not None)
        scope = forget_scope(self.dialect, req, payload.get("filter"), states)
        rows = yield Query(
            f"SELECT m.{self.position}, m.id, m.state FROM memories m WHERE {scope.sql} "
            f"ORDER BY m.{self.position}",
            scope.args,
        )
        return [(position, record_id, state) for position, record_id, state in rows]

    def staged_version(self, req: DecideRequest, operation: str) -> Steps[int]:
        """The version of the staged write a decision names, as it is now: a staged
        remember's record's (updates may change it while it waits), 1 for a forget or
        merge."""
        if operation != "remember":
            return 1
        p = self.dialect.param
        row = yield Query(
            f"SELECT version FROM memories WHERE id = {p} AND agent_id = {p}{self.lock_staged}",
            [req.review_id, req.agent_id],
            "one",
        )
        return 1 if row is None else int(row[0])

    def staged_records(self, agent_id: str, ids: Sequence[str]) -> Steps[dict[str, Any]]:
        """The agent's pending records among ``ids``, as stored (a merge plan reads them)."""
        where = Clause().add(f"m.agent_id = {self.dialect.param}", agent_id)
        self.dialect.one_of(where.add("m.state = 'pending'"), "m.id", ids)
        rows = yield Query(f"SELECT {self.columns} FROM memories m WHERE {where.sql}", where.args)
        return {found["id"]: found for found in map(self.stored, rows)}

    # -- the queue as listed -----------------------------------------------------------------

    def page(self, req: ReviewsRequest, now: int) -> Steps[list[ReviewRequest]]:
        """Up to ``limit + 1`` of the agent's pending reviews after the cursor, in review id
        order, each with its diff against the state now ([review.diff])."""
        rows = yield Query(*review_page(self.dialect, req))
        staged = yield from self._records([r[0] for r in rows if r[1] == "remember"], now)
        out = []
        for row in rows:
            review_id, operation, agent_id, user_id, request = row[:5]
            sent = self.read_json(request)
            seal = None
            if operation == "remember":
                added = staged.get(review_id)
                if added is None:  # cannot happen: a removed record withdraws its review
                    continue
                seal = added.pop("seal", None)
                diff: dict[str, Any] = {"added": [added]}
                if req.related:
                    asked = Nearest(review_id, agent_id, user_id, req.related, now)
                    diff["related"] = yield from self._related(asked)
            elif operation == "forget":
                forget = ForgetRequest.model_validate(sent)
                ids = [i for _, i, _ in (yield from self.forget_targets(forget, sent))]
                records = yield from self._records(ids, now)
                diff = {"removed": [records[i] for i in ids if i in records]}
            else:
                diff = yield from self._merge_diff(MergeRequest.model_validate(sent), now)
            out.append(review_of_row(row, sent, diff, seal))
        return out

    def _records(self, ids: Sequence[str], now: int) -> Steps[dict[str, dict[str, Any]]]:
        """Records by id, as MemoryRecord wire fields."""
        found: dict[str, dict[str, Any]] = {}
        for part in _chunks(ids):
            where = self.dialect.one_of(Clause(), "m.id", part)
            rows = yield Query(
                f"SELECT {self.columns} FROM memories m WHERE {where.sql}", where.args
            )
            found.update((r["id"], r) for r in self.records.records(rows, now))
        return found

    def _related(self, asked: Nearest) -> Steps[list[dict[str, Any]]]:
        """The staged record's nearest neighbours with their relevance (cosine similarity,
        clipped to 0..1)."""
        nearest: list[tuple[str, float]] = yield asked
        records = yield from self._records([record_id for record_id, _ in nearest], asked.now)
        return [
            {"record": records[record_id], "relevance": max(0.0, min(1.0, float(similarity)))}
            for record_id, similarity in nearest
            if record_id in records
        ]

    def _merge_diff(self, req: MergeRequest, now: int) -> Steps[dict[str, Any]]:
        scope = merge_scope(self.dialect, req.agent_id, [req.canonical, *req.duplicates], now)
        rows = yield Query(f"SELECT {self.columns} FROM memories m WHERE {scope.sql}", scope.args)
        stored = {found["id"]: found for found in map(self.stored, rows)}
        return merge_diff(req, stored, (yield from self._records(list(stored), now)))


def _chunks(ids: Sequence[str]) -> list[Sequence[str]]:
    return [ids[start : start + _CHUNK] for start in range(0, len(ids), _CHUNK)]
