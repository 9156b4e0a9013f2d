"""A document store's spec v0.3 operations (mem0, Cognee, Letta): export_records,
import_records and scopes over the same backend calls as its other operations, under the kit's
archive rules (``kit.archive``).

Such a backend has no transaction, so an import page is written in the order the store's
other writes are: each record's row first (the backend embeds its content itself), then, in
one transaction of the id map's database, every map entry, review, tombstone and audit entry
of the page. A row the map does not name is not a record, so a crash between the two leaves
nothing a read returns, and a rerun writes the page again; a failed transaction erases the
rows it would have named. An overwritten record's old row is erased once the map names the
new one.

What the store does not keep is said in the answer's ``kept`` (docs/spec/v0.3.md#import.
fidelity): the backend embeds the content (an archive's vectors are not reused), and recall
tracking and demotion are declined by every document store. An export carries no vectors,
since a memory library does not hand its vectors out as a store's own (the target embeds)."""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from mnemowire.kit._browse import Cursors
from mnemowire.kit._records import store_result
from mnemowire.kit.archive import (
    ImportPlan,
    agent_scope,
    archive_record,
    export_answer,
    export_states,
    page_items,
    scopes_answer,
)
from mnemowire.models import (
    ExportRecordsRequest,
    ExportRecordsResponse,
    ImportRecordsRequest,
    ImportRecordsResponse,
    ScopesRequest,
    ScopesResponse,
)

if TYPE_CHECKING:
    from mnemowire.kit._id_map import IdMap

__all__ = ["ArchiveHost", "DocumentArchive"]

Record = dict[str, Any]
T = TypeVar("T")
#: what an import line carries beside the record that a document store does not keep, each
#: with why (the capability every document store declines: kit.documents.DECLINED)
_DROPPED = {
    "last_recalled_at": "the store keeps no recall times (it declines recall_tracking)",
    "recall_count": "the store counts no recalls (it declines recall_tracking)",
    "demote": "the store ranks by its backend's relevance alone (it declines demote)",
    "history": "the store keeps a record as its backend's document, not its past versions "
    "(it declines history)",
}
#: the fields of an imported record the backend's row holds (the rest are the line's)
_LINE_ONLY = ("review", "last_recalled_at", "recall_count", "demote")


class ArchiveHost(Protocol):
    """What a ``DocumentArchive`` needs of its ``DocumentStore``: its name, backend, clock and
    id map, and the backend calls, each run on the store's one worker (``_run``)."""

    backend: str
    _name: str
    _clock: Callable[[], int]
    _ids: IdMap

    async def _run(self, work: Callable[[], T]) -> T: ...

    def _listed(
        self, agent_id: str, user_id: str | None, states: Sequence[str] | None = None
    ) -> list[Record]: ...

    def _in_scope(self, record: Record, agent_id: str, user_id: str | None) -> bool: ...

    def _insert_many(self, records: Sequence[Record]) -> list[str]: ...

    def _erase(self, record: Record) -> None: ...


class DocumentArchive:
    """export_records, import_records and scopes of one ``DocumentStore``."""

    def __init__(self, host: ArchiveHost) -> None:
        self._host = host
        self._cursors: Cursors | None = None

    @property
    def _ids(self) -> IdMap:
        return self._host._ids

    def _codec(self) -> Cursors:
        if self._cursors is None:
            self._cursors = Cursors(self._ids.cursor_key())
        return self._cursors

    async def export_records(self, request: ExportRecordsRequest) -> ExportRecordsResponse:
        started = time.perf_counter()
        return await self._host._run(lambda: self._export(request, started))

    async def import_records(self, request: ImportRecordsRequest) -> ImportRecordsResponse:
        started = time.perf_counter()
        return await self._host._run(lambda: self._import(request, started))

    async def scopes(self, request: ScopesRequest) -> ScopesResponse:
        started = time.perf_counter()
        return await self._host._run(lambda: self._scopes(request, started))

    # -- on the worker -------------------------------------------------------------------------

    def _export(self, req: ExportRecordsRequest, started: float) -> ExportRecordsResponse:
        """One page. A document backend lists without order, so every page reads the agent's
        rows and orders them here, as list does (fine for an agent's thousands)."""
        cursors = self._codec()
        start = cursors.after_id(req)
        states = export_states(req)
        types = {str(t) for t in req.types} if req.types else None
        records = sorted(
            (
                r
                for r in self._host._listed(req.agent_id, req.user_id, states)
                if self._host._in_scope(r, req.agent_id, req.user_id)
                and r["state"] in states
                and (types is None or r["type"] in types)
                and r["id"] > start
            ),
            key=lambda r: str(r["id"]),
        )[: req.limit + 1]
        tombstones = []
        if req.user_id is None and not req.types:  # a tombstone keeps neither
            tombstones = self._ids.erased_after(req.agent_id, start, req.limit + 1)
        kept, kept_tombstones, last = page_items(records, tombstones, req.limit)
        reviews = self._ids.reviews.staged([k["id"] for k in kept if k["state"] == "pending"])
        lines = [archive_record(k, review=reviews.get(k["id"])) for k in kept]
        return export_answer(
            lines,
            kept_tombstones,
            None if last is None else cursors.make(req, {"id": last}),
            store_result(self._host._name, len(lines), started),
            audit_head=self._ids.audit_head(),
        )

    def _import(self, req: ImportRecordsRequest, started: float) -> ImportRecordsResponse:
        ids = self._ids
        held, erased = ids.known([line.record.id for line in req.records or []])
        plan = ImportPlan(req, held, erased)
        now = self._host._clock()
        olds = [ids.get(p.target_id) if p.outcome == "overwritten" else None for p in plan.written]
        written = self._host._insert_many([_row_record(p.record) for p in plan.written])
        # (record, its new row, its old row)
        rows = [
            (placed, row, None if old is None else old.backend_id)
            for placed, row, old in zip(plan.written, written, olds, strict=True)
        ]
        try:
            with ids.transaction():  # the page's records, reviews, tombstones and audit
                for placed, row, _ in rows:
                    record = placed.record
                    if placed.outcome == "overwritten":
                        ids.move(placed.target_id, row)
                    else:
                        ids.put(placed.target_id, row, record["agent_id"])
                    ids.reviews.replace_remember(record)
                erasures = [(t.id, ids.tombstone(t.id, t.agent_id)) for t in req.tombstones or []]
                added = [record_id for record_id, outcome in erasures if outcome == "added"]
                for made in plan.audit_entries(added, now):
                    ids.append_entry(made)
        except BaseException:
            for placed, row, _ in rows:  # rows no map entry names: not records, gone
                with contextlib.suppress(Exception):  # the first failure is the one to report
                    self._host._erase({**placed.record, "backend_id": row})
            raise
        for placed, _, old_row in rows:
            if old_row is not None:  # replaced: the map names the new row now
                self._host._erase({**placed.record, "backend_id": old_row})
        outcomes = Counter(outcome for _, outcome in erasures)
        counts = (outcomes["added"], outcomes["known"], outcomes["held"])
        result = store_result(self._host._name, len(rows), started)
        return plan.answer(result, counts, self._kept(req))

    def _kept(self, req: ImportRecordsRequest) -> dict[str, dict[str, str]]:
        """What the page sent that the store keeps other than exactly."""
        lines = req.records or []
        kept: dict[str, dict[str, str]] = {}
        if any(line.vector is not None or line.vector_base64 is not None for line in lines):
            kept["vector"] = {"as": "transformed",
                              "how": f"{self._host.backend} embeds the content itself"}  # fmt: skip
        if any(line.last_recalled_at is not None for line in lines):
            kept["last_recalled_at"] = {"as": "dropped", "how": _DROPPED["last_recalled_at"]}
        if any(line.recall_count for line in lines):
            kept["recall_count"] = {"as": "dropped", "how": _DROPPED["recall_count"]}
        if any(line.demote not in (None, 1.0) for line in lines):
            kept["demote"] = {"as": "dropped", "how": _DROPPED["demote"]}
        if any(line.history for line in lines):
            kept["history"] = {"as": "dropped", "how": _DROPPED["history"]}
        return kept

    def _scopes(self, req: ScopesRequest, started: float) -> ScopesResponse:
        cursors = self._codec()
        agents = self._ids.agents_after(cursors.after_id(req), req.agent_ids, req.limit + 1)
        page = agents[: req.limit]
        entries = []
        for agent in page:
            records = [r for r in self._host._listed(agent, None) if r["agent_id"] == agent]
            counts = Counter((str(r["type"]), str(r["state"])) for r in records)
            users = Counter(r.get("user_id") for r in records)
            ranked = sorted(users.items(), key=lambda u: (-u[1], u[0] is not None, u[0] or ""))
            entries.append(
                agent_scope(
                    agent,
                    [(kind, state, n) for (kind, state), n in counts.items()],
                    ranked[: req.max_users + 1],
                    self._ids.erased_count(agent),
                    req.max_users,
                )
            )
        cursor = cursors.make(req, {"id": page[-1]}) if len(agents) > req.limit else None
        return scopes_answer(entries, cursor, store_result(self._host._name, len(entries), started))


def _row_record(record: Record) -> Record:
    """An imported record as the backend's row holds it: the record's fields and state."""
    return {k: v for k, v in record.items() if k not in _LINE_ONLY and v is not None}
