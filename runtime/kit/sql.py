"""The spec's scopes as SQL, for stores that keep records in a relational table.

Both SQL stores keep one row per record in a table read as ``memories m`` with the same columns
(``agent_id``, ``user_id``, ``type``, ``state``, ``created_at``, ``expires_at``, ``metadata``,
``id``, ...) and the record states the kit names (``active``, ``pending``, ``archived``,
``deleted``, ``merged``). What a recall, forget, expire or merge may touch is written here once
(docs/spec/v0.md#recall.scope, #forget.scope, #expire.policy, #merge.ownership); a ``Dialect``
says how the backend spells a parameter, a list membership and a metadata filter condition.

Every value is a bound parameter; only column references (trusted) are SQL text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mnemowire.filters import operators_of
from mnemowire.kit._rules import cutoff
from mnemowire.models import (
    ExpireRequest,
    ForgetRequest,
    GetRequest,
    ListRequest,
    RecallRequest,
    RecordState,
    ReviewsRequest,
)

__all__ = [
    "NO_EXPIRY",
    "Clause",
    "Dialect",
    "expire_scope",
    "forget_scope",
    "get_scope",
    "list_page",
    "merge_scope",
    "recall_scope",
    "review_page",
    "unexpired",
    "update_scope",
]

#: expires_at compared as if this when absent (never): above every valid time
NO_EXPIRY = 2**53
#: one metadata condition as SQL: (metadata column, key, operator, argument) -> (sql, params)
Operator = Callable[[str, str, str, Any], tuple[str, list[Any]]]


@dataclass
class Clause:
    """A WHERE clause being built: conditions ANDed, and their parameters in order."""

    parts: list[str] = field(default_factory=list)
    args: list[Any] = field(default_factory=list)

    def add(self, sql: str, *args: Any) -> Clause:
        self.parts.append(sql)
        self.args.extend(args)
        return self

    @property
    def sql(self) -> str:
        return " AND ".join(self.parts) or "1 = 1"


@dataclass(frozen=True)
class Dialect:
    """How one SQL backend spells what the scopes need."""

    #: the parameter placeholder: ``?`` (SQLite) or ``%s`` (psycopg)
    param: str
    #: one metadata condition over a JSON column (the store's filter compiler)
    operator: Operator
    #: a list membership: ``in`` (``col IN (?, ?)``, one parameter per value) or ``any``
    #: (``col = ANY(%s)``, the list as one array parameter)
    membership: str = "in"
    #: the SQL literal for "no condition" inside a filter
    true: str = "true"
    #: what makes a text comparison byte (code point) order, e.g. `` COLLATE "C"``
    code_point_order: str = ""

    def one_of(self, clause: Clause, column: str, values: Sequence[Any]) -> Clause:
        """``column`` is one of ``values`` (a non-empty list)."""
        if self.membership == "any":
            return clause.add(f"{column} = ANY({self.param})", list(values))
        return clause.add(f"{column} IN ({','.join([self.param] * len(values))})", *values)

    def metadata_filter(
        self, spec_filter: Mapping[str, Any], column: str = "m.metadata"
    ) -> tuple[str, list[Any]]:
        """``(sql, params)``: a boolean true exactly when the spec filter matches
        (docs/spec/v0.md#filters; the reference meaning is ``mnemowire.kit.matches``)."""
        clauses: list[str] = []
        params: list[Any] = []
        for key, condition in spec_filter.items():
            for op, arg in operators_of(condition).items():
                sql, args = self.operator(column, key, op, arg)
                clauses.append(sql)
                params.extend(args)
        return (" AND ".join(clauses) or self.true), params


def unexpired(column: str = "m.") -> str:
    """A comparison, missing its ``now`` parameter, true while a record has not expired
    (``column`` prefixes the memories columns): [remember.expires]."""
    return f"coalesce({column}expires_at, {NO_EXPIRY}) >"


def recall_scope(
    dialect: Dialect, req: RecallRequest, spec_filter: Mapping[str, Any] | None, now: int
) -> Clause:
    """The records a recall may see ([recall.scope], [recall.visibility]): the agent's active,
    unexpired records, narrowed by user, types, freshness and the metadata filter.
    ``spec_filter`` is the request's filter as wire JSON (numbers keep the type the client
    sent)."""
    p = dialect.param
    clause = Clause().add(f"m.agent_id = {p}", req.agent_id).add("m.state = 'active'")
    clause.add(f"(m.expires_at IS NULL OR m.expires_at > {p})", now)
    if req.user_id is not None:
        clause.add(f"m.user_id = {p}", req.user_id)
    if req.types:
        dialect.one_of(clause, "m.type", [str(t) for t in req.types])
    created_min = cutoff(now, req.fresher_than_days)
    if created_min is not None:
        clause.add(f"m.created_at >= {p}", created_min)
    if spec_filter:
        sql, args = dialect.metadata_filter(spec_filter)
        clause.add(sql, *args)
    return clause


def forget_scope(
    dialect: Dialect,
    req: ForgetRequest,
    spec_filter: Mapping[str, Any] | None,
    states: Sequence[str],
) -> Clause:
    """The records a forget reaches ([forget.scope]): the agent's records in ``states``
    (``forget_states``), narrowed by user, ids and the metadata filter."""
    p = dialect.param
    clause = Clause().add(f"m.agent_id = {p}", req.agent_id)
    dialect.one_of(clause, "m.state", states)
    if req.user_id is not None:
        clause.add(f"m.user_id = {p}", req.user_id)
    if req.ids:
        dialect.one_of(clause, "m.id", req.ids)
    if spec_filter:
        sql, args = dialect.metadata_filter(spec_filter)
        clause.add(sql, *args)
    return clause


def expire_scope(dialect: Dialect, req: ExpireRequest, now: int, *, last_recalled: str) -> Clause:
    """The records an expire policy matches ([expire.policy]): the agent's visible records
    meeting every predicate. ``last_recalled`` is the backend's expression for when a record
    was last recalled (null: never)."""
    p = dialect.param
    policy = req.policy
    clause = Clause().add(f"m.agent_id = {p}", req.agent_id).add("m.state = 'active'")
    clause.add(f"{unexpired()} {p}", now)  # expired is not visible
    if req.user_id is not None:
        clause.add(f"m.user_id = {p}", req.user_id)
    if policy.older_than_days is not None:
        clause.add(f"m.created_at < {p}", cutoff(now, policy.older_than_days))
    if policy.type is not None:
        clause.add(f"m.type = {p}", policy.type)
    if policy.confidence_below is not None:
        clause.add(f"m.confidence < {p}", policy.confidence_below)
    if policy.no_recall_in_days is not None:
        since = cutoff(now, policy.no_recall_in_days)
        clause.add(f"coalesce({last_recalled}, m.created_at) < {p}", since)
    if policy.records is not None:  # [expire.records]: each named record at its version
        named = policy.records.root
        pairs = " OR ".join(f"(m.id = {p} AND m.version = {p})" for _ in named)
        clause.add(f"({pairs})", *(v for pair in named.items() for v in pair))
    return clause


def merge_scope(dialect: Dialect, agent_id: str, ids: Sequence[str], now: int) -> Clause:
    """The records a merge may name ([merge.ownership]): visible records of the agent."""
    p = dialect.param
    clause = Clause().add(f"m.agent_id = {p}", agent_id).add("m.state = 'active'")
    clause.add(f"{unexpired()} {p}", now)
    return dialect.one_of(clause, "m.id", ids)


def _states(dialect: Dialect, clause: Clause, states: Sequence[str], now: int) -> Clause:
    """The records in any of ``states`` as a caller names them ([records.state]): ``active``
    and ``expired`` are the stored ``active`` on either side of ``expires_at``."""
    p = dialect.param
    parts: list[str] = []
    args: list[Any] = []
    for state in states:
        if state == RecordState.ACTIVE:
            parts.append(f"(m.state = 'active' AND {unexpired()} {p})")
            args.append(now)
        elif state == RecordState.EXPIRED:
            parts.append(f"(m.state = 'active' AND m.expires_at <= {p})")
            args.append(now)
        else:
            parts.append(f"m.state = {p}")
            args.append(str(state))
    return clause.add("(" + " OR ".join(parts) + ")", *args)


def get_scope(dialect: Dialect, req: GetRequest, now: int) -> Clause:
    """The records a get may return ([get.scope]): the agent's (and user's) records among the
    ids, in the requested states."""
    p = dialect.param
    clause = Clause().add(f"m.agent_id = {p}", req.agent_id)
    if req.user_id is not None:
        clause.add(f"m.user_id = {p}", req.user_id)
    dialect.one_of(clause, "m.id", req.ids)
    return _states(dialect, clause, req.states, now)


def list_page(
    dialect: Dialect,
    req: ListRequest,
    spec_filter: Mapping[str, Any] | None,
    now: int,
    after: Sequence[Any] | None,
) -> tuple[str, list[Any]]:
    """``(where and order, params)`` of one list page ([list.order], [list.cursor]): the
    records in scope strictly after ``after`` (the cursor's position), in the request's order,
    one more than the page holds (so the store knows whether another page follows)."""
    p = dialect.param
    clause = Clause().add(f"m.agent_id = {p}", req.agent_id)
    if req.user_id is not None:
        clause.add(f"m.user_id = {p}", req.user_id)
    if req.types:
        dialect.one_of(clause, "m.type", [str(t) for t in req.types])
    _states(dialect, clause, req.states, now)
    if spec_filter:
        sql, args = dialect.metadata_filter(spec_filter)
        clause.add(sql, *args)
    by_id = f"m.id{dialect.code_point_order}"
    if req.order == "id":
        if after is not None:
            clause.add(f"{by_id} > {p}", after[0])
        order = f"{by_id} ASC"
    else:
        if after is not None:
            created_at, record_id = after
            clause.add(
                f"(m.created_at < {p} OR (m.created_at = {p} AND {by_id} < {p}))",
                created_at,
                created_at,
                record_id,
            )
        order = f"m.created_at DESC, {by_id} DESC"
    return f"{clause.sql} ORDER BY {order} LIMIT {int(req.limit) + 1}", clause.args


def update_scope(dialect: Dialect, agent_id: str, user_id: str | None, record_id: str) -> Clause:
    """The record an update may change ([update.version]): the agent's (and user's) active or
    pending record with that id; an expired one too (an update may extend its expiry)."""
    p = dialect.param
    clause = Clause().add(f"m.agent_id = {p}", agent_id).add(f"m.id = {p}", record_id)
    if user_id is not None:
        clause.add(f"m.user_id = {p}", user_id)
    return clause.add("m.state IN ('active', 'pending')")


#: the columns a review is listed with, in order
REVIEW_COLUMNS = "review_id, operation, agent_id, user_id, request, staged_by, requested_at"


def review_page(dialect: Dialect, req: ReviewsRequest) -> tuple[str, list[Any]]:
    """``(sql, params)`` selecting ``REVIEW_COLUMNS`` of a page of the agent's pending reviews
    after the cursor, in review id order, one more than ``limit`` (a next page follows when it
    comes back): docs/spec/v0.2.md#review.list. The table's review ids must compare byte by
    byte (SQLite's default; ``COLLATE "C"`` in PostgreSQL)."""
    p = dialect.param
    clause = Clause().add(f"agent_id = {p}", req.agent_id).add("state = 'pending'")
    if req.user_id is not None:
        clause.add(f"user_id = {p}", req.user_id)
    if req.ids:
        dialect.one_of(clause, "review_id", req.ids)
    if req.operations:
        dialect.one_of(clause, "operation", req.operations)
    if req.cursor is not None:
        clause.add(f"review_id > {p}", req.cursor)
    sql = f"SELECT {REVIEW_COLUMNS} FROM reviews WHERE {clause.sql} ORDER BY review_id LIMIT {p}"
    return sql, [*clause.args, req.limit + 1]
