"""Moving memory between stores through spec v0.3's operations: an export to an archive file,
an import from one, and a migration that streams one store's pages straight into another.

Every request goes through the stores' validating boundary (``Memory``), a page at a time, so
memory stays flat. An import keeps the archive's ids, timestamps, versions and states, and is
resumable: with ``on_conflict`` skip, a rerun after a crash skips what the first run wrote and
ends where one run would have. Each run ends with a ``Report``: what each record's import did,
what the target says it keeps other than exactly, and a verification pass that reads every
record written back (``get``) and compares it field by field with the archive."""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from mnemowire.kit import to_wire
from mnemowire.layers.memory import Memory
from mnemowire.models import ImportRecordsResponse, RecordState
from mnemowire.portability._archive import Archive, ArchiveWriter, Page
from mnemowire.portability._foreign import Foreign, mcp_memory_lines
from mnemowire.protocol import BulkImportStore

__all__ = [
    "Progress",
    "Report",
    "export_archive",
    "export_mcp_memory",
    "import_archive",
    "import_foreign",
    "migrate",
]

#: ``progress(done, total, stage)``: records and tombstones handled so far, of ``total`` (0:
#: unknown); ``stage`` is "records" while pages go, then "indexes" once, when the target
#: starts building the indexes it deferred over a bulk import (which can take a while)
Progress = Callable[[int, int, str], None]
#: the kept states ``get`` shows (forgotten and merged records are never shown by it)
_SHOWN = {"active": ("active", "expired"), "pending": ("pending",), "archived": ("archived",)}
_GET_STATES = [str(state) for state in RecordState]


@dataclass
class Report:
    """What a move did, counted per record, per field and per state."""

    records: int = 0
    tombstones: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    #: what the target said it keeps other than exactly (import_records' ``kept``)
    kept: dict[str, dict[str, str]] = field(default_factory=dict)
    #: field -> exact / transformed / dropped, from reading the records back
    fields: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    #: kept state -> exact / transformed / dropped / not shown by get
    states: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    #: a few records that did not come back as the archive has them, with what differed
    differences: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    #: of ``seconds``, what the target took after the last page to build its indexes
    #: (a bulk import: ``protocol.BulkImportStore``)
    indexing_seconds: float | None = None
    sha256: str | None = None

    def add(self, page: Page, answer: ImportRecordsResponse) -> None:
        self.records += len(page.records)
        self.outcomes.update(str(r.outcome) for r in answer.results)
        counts = answer.tombstones.model_dump()
        self.tombstones.update({k: int(v) for k, v in counts.items() if isinstance(v, int)})
        for name, how in (answer.kept or {}).items():
            self.kept[name] = how.model_dump(by_alias=True, exclude_none=True)

    def as_json(self) -> dict[str, Any]:
        rate = self.records / self.seconds if self.seconds else None
        out: dict[str, Any] = {
            "records": self.records,
            "outcomes": dict(sorted(self.outcomes.items())),
            "tombstones": dict(sorted(self.tombstones.items())),
            "kept": self.kept,
            "verified": {
                "fields": {name: dict(c) for name, c in sorted(self.fields.items())},
                "states": {name: dict(c) for name, c in sorted(self.states.items())},
                "differences": self.differences,
            },
            "seconds": round(self.seconds, 3),
            "records_per_second": None if rate is None else round(rate, 1),
        }
        if self.indexing_seconds is not None:
            out["indexing_seconds"] = round(self.indexing_seconds, 3)
        if self.sha256 is not None:
            out["archive_sha256"] = self.sha256
        return out

    @property
    def faithful(self) -> bool:
        """Every record written came back exactly, in its state."""
        return not self.differences and all(
            set(c) <= {"exact", "not shown by get"} for c in self.states.values()
        )


async def _agents_of(memory: Memory, agents: Sequence[str] | None) -> AsyncIterator[str]:
    if agents:
        for agent in agents:
            yield agent
        return
    request: dict[str, Any] = {"max_users": 0, "limit": 1000}
    while True:
        page = await memory.scopes(request)
        for scope in page.agents:
            yield scope.agent_id
        if page.next_cursor is None:
            return
        request = {**request, "cursor": page.next_cursor}


@contextlib.asynccontextmanager
async def _bulk(
    target: Memory, incoming: int, report: Report, indexing: Callable[[], None] | None
) -> AsyncIterator[None]:
    """What the target does around a many-page import (``protocol.BulkImportStore``: e.g.
    pgvector builds its indexes once, at the end), or nothing; when the store deferred its
    indexes, ``indexing`` is told as the build starts, and the report learns how long it took
    (``indexing_seconds``)."""
    store = target.store
    if not isinstance(store, BulkImportStore):
        yield
        return
    async with store.bulk_import(incoming) as deferred:
        yield
        if not deferred:
            return
        if indexing is not None:
            indexing()
        written = time.perf_counter()
    report.indexing_seconds = time.perf_counter() - written


def _announcer(
    progress: Progress | None, done: Callable[[], tuple[int, int]]
) -> Callable[[], None] | None:
    """``_bulk``'s ``indexing`` for ``progress``: the count so far, at the "indexes" stage."""
    if progress is None:
        return None
    return lambda: progress(*done(), "indexes")


async def _records_of(memory: Memory, agents: Sequence[str]) -> int:
    """How many records the agents hold (their scope counts), 0 if the store cannot say."""
    if not agents or "scopes" not in memory.capabilities().capabilities:
        return 0
    total = 0
    for start in range(0, len(agents), 1000):
        request: dict[str, Any] = {"agent_ids": list(agents[start : start + 1000]),
                                   "max_users": 0, "limit": 1000}  # fmt: skip
        page = await memory.scopes(request)
        total += sum(scope.records for scope in page.agents)
    return total


async def _export_pages(
    memory: Memory,
    agent: str,
    scope: Mapping[str, Any],
    page_size: int,
    vectors: str | None,
    *,
    history: bool = False,
) -> AsyncIterator[dict[str, Any]]:
    """An agent's export pages as the wire JSON they were validated in (serialised once: an
    export page with vectors is mostly numbers, and a second model dump of each would cost
    as much as the store's read); ``vectors``: their encoding (base64, float), or None;
    ``history``: each record carries its versions."""
    request: dict[str, Any] = {"agent_id": agent, **scope, "limit": page_size}
    if vectors is not None:
        request["include_vectors"] = True
        request["vector_encoding"] = vectors
    if history:
        request["include_history"] = True
    while True:
        parsed = memory.parse("export_records", request)
        page = await memory.answer_wire("export_records", parsed)
        yield page
        if page.get("next_cursor") is None:
            return
        request = {**request, "cursor": page["next_cursor"]}


def _carries_history(memory: Memory, history: bool | None) -> bool:
    """Whether an export carries history: as asked, or by default whenever the source keeps
    it (an archive is a copy of what the store knows, its past included)."""
    if history is None:
        return "history" in memory.capabilities().capabilities
    return history


def _wire(page: Mapping[str, Any]) -> Page:
    return Page(list(page["records"]), list(page["tombstones"]))


async def export_archive(
    memory: Memory,
    out: IO[bytes],
    *,
    agents: Sequence[str] | None = None,
    scope: Mapping[str, Any] | None = None,
    vectors: str | None = "base64",
    page_size: int = 1000,
    progress: Progress | None = None,
    kind: str | None = None,
    history: bool | None = None,
) -> dict[str, Any]:
    """Write every record and erased id of ``agents`` (every agent ``scopes`` lists when None)
    to ``out`` as an archive; ``scope`` narrows each export (user_id, types, states);
    ``vectors``: how vectors are written (base64: their float32 bytes, exact and a third of
    the text; float: JSON numbers; None: left out); ``kind``: the source store's kind for
    the manifest (its URL's scheme; by default read from its name, which a store opened with
    ``?name=`` chose itself); ``history``: whether records carry their versions (by default
    when the store keeps history)."""
    started = time.perf_counter()
    narrowed = dict(scope or {})
    carried = _carries_history(memory, history)
    listed = [a async for a in _agents_of(memory, agents)]
    writer: ArchiveWriter | None = None
    for agent in listed:
        async for page in _export_pages(
            memory, agent, narrowed, page_size, vectors, history=carried
        ):
            if writer is None:
                writer = ArchiveWriter(out, _manifest(memory, listed, narrowed, page, kind))
            writer.page(_wire(page))
            if progress is not None:
                progress(writer.records + writer.tombstones, 0, "records")
    if writer is None:  # no agent at all: an empty archive still says what it is
        writer = ArchiveWriter(out, _manifest(memory, listed, narrowed, None, kind))
    sha = writer.close()
    seconds = time.perf_counter() - started
    return {
        "agents": len(listed),
        "records": writer.records,
        "tombstones": writer.tombstones,
        "history": carried,
        "sha256": sha,
        "seconds": round(seconds, 3),
        "records_per_second": round(writer.records / seconds, 1) if seconds else None,
    }


def _manifest(
    memory: Memory,
    agents: Sequence[str],
    scope: Mapping[str, Any],
    first: Mapping[str, Any] | None,
    kind: str | None,
) -> dict[str, Any]:
    declared = memory.capabilities()
    store = declared.store
    manifest: dict[str, Any] = {
        "created_at": int(time.time() * 1000),
        "source": {"store": store, "kind": kind or store.partition("://")[0] or store},
        "scope": {"agent_ids": list(agents), **{k: v for k, v in scope.items() if v}},
    }
    if first is not None and "embedder" in first:
        manifest["embedder"] = first["embedder"]
    if first is not None and "audit_head" in first:
        manifest["audit_head"] = first["audit_head"]
    return manifest


def _page_base(
    agents: Sequence[str],
    policies: tuple[str, str],
    source: str,
    described: Mapping[str, Any],
    *,
    sha256: str | None = None,
) -> dict[str, Any]:
    """What every import page of a move says besides its lines: the agents it names, its id
    policy and conflict rule, where it came from (the source, its audit head, the archive's
    digest) and the embedder that made its vectors (``described``: a manifest or an export
    page, which carry the last two)."""
    id_policy, on_conflict = policies
    archive: dict[str, Any] = {"source": source[:256]}
    if sha256 is not None:
        archive["sha256"] = sha256
    if "audit_head" in described:
        archive["audit_head"] = described["audit_head"]
    base: dict[str, Any] = {
        "agents": list(agents[:1000]),
        "id_policy": id_policy,
        "on_conflict": on_conflict,
        "archive": archive,
    }
    if "embedder" in described:
        base["embedder"] = described["embedder"]
    return base


async def _import_page(
    target: Memory,
    page: Page,
    base: Mapping[str, Any],
    report: Report,
    verify: bool,
) -> None:
    named = {line["record"]["agent_id"] for line in page.records}
    named |= {line["agent_id"] for line in page.tombstones}
    agents = sorted(named | set(base["agents"]))
    request = {**base, "agents": agents[:1000], "records": page.records,
               "tombstones": page.tombstones}  # fmt: skip
    answer = await target.import_records(request)
    report.add(page, answer)
    if verify:
        await _verify(target, page, answer, report)


async def _verify(
    target: Memory, page: Page, answer: ImportRecordsResponse, report: Report
) -> None:
    """Read every record the page wrote back, and compare it with its line field by field."""
    written: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for line, result in zip(page.records, answer.results, strict=True):
        if result.outcome in ("imported", "overwritten"):
            target_id = result.new_id or result.id
            written[line["record"]["agent_id"]].append((target_id, line))
    for agent, items in written.items():
        for start in range(0, len(items), 1000):
            chunk = items[start : start + 1000]
            got = await target.get(
                {"agent_id": agent, "ids": [i for i, _ in chunk], "states": _GET_STATES}
            )
            found = {r.id: to_wire(r) for r in got.records}
            for target_id, line in chunk:
                _compare(line, found.get(target_id), target_id, report)


def _compare(
    line: Mapping[str, Any], back: dict[str, Any] | None, target_id: str, report: Report
) -> None:
    state = line["state"]
    if state not in _SHOWN:
        report.states[state]["not shown by get"] += 1
        return
    if back is None:
        report.states[state]["dropped"] += 1
        _differ(report, target_id, {"state": "missing"})
        return
    report.states[state]["exact" if back.get("state") in _SHOWN[state] else "transformed"] += 1
    sent = {k: v for k, v in line["record"].items() if k not in ("state", "id")}
    differed: dict[str, Any] = {}
    for name, value in sent.items():
        if name not in back:
            report.fields[name]["dropped"] += 1
            differed[name] = "dropped"
        elif back[name] != value:
            report.fields[name]["transformed"] += 1
            differed[name] = {"sent": value, "read back": back[name]}
        else:
            report.fields[name]["exact"] += 1
    if differed:
        _differ(report, target_id, differed)


def _differ(report: Report, target_id: str, what: dict[str, Any]) -> None:
    if len(report.differences) < 20:
        report.differences.append({"id": target_id, **what})


async def import_archive(
    target: Memory,
    archive: Archive,
    *,
    id_policy: str = "keep",
    on_conflict: str = "skip",
    page_size: int = 500,
    verify: bool = True,
    progress: Progress | None = None,
) -> Report:
    """Import a verified archive (``Archive.verify``) into ``target``, a page at a time."""
    started = time.perf_counter()
    report = Report(sha256=archive.sha256)
    source = archive.manifest["source"]
    base = _page_base(
        archive.agents, (id_policy, on_conflict), f"{source['store']} ({source['kind']})",
        archive.manifest, sha256=archive.sha256,
    )  # fmt: skip
    total = archive.records + archive.tombstones
    done = 0
    async with _bulk(target, archive.records, report, _announcer(progress, lambda: (done, total))):
        for page in archive.pages(page_size):
            await _import_page(target, page, base, report, verify)
            done += len(page)
            if progress is not None:
                progress(done, total, "records")
    report.seconds = time.perf_counter() - started
    return report


async def migrate(
    source: Memory,
    target: Memory,
    *,
    agents: Sequence[str] | None = None,
    scope: Mapping[str, Any] | None = None,
    id_policy: str = "keep",
    on_conflict: str = "skip",
    page_size: int = 500,
    verify: bool = True,
    progress: Progress | None = None,
    history: bool | None = None,
) -> Report:
    """Stream ``source``'s pages into ``target``: vectors travel, and the target reuses them
    when it embeds with the same embedder (and embeds the content otherwise); so do the
    records' versions (``history``: by default when the source keeps history)."""
    started = time.perf_counter()
    report = Report()
    carried = _carries_history(source, history)
    listed = [a async for a in _agents_of(source, agents)]
    done = 0
    incoming = await _records_of(source, listed)
    async with _bulk(target, incoming, report, _announcer(progress, lambda: (done, 0))):
        for agent in listed:
            narrowed = dict(scope or {})
            pages = _export_pages(source, agent, narrowed, page_size, "base64", history=carried)
            async for page in pages:
                named = listed if len(listed) <= 1000 else [agent]
                base = _page_base(named, (id_policy, on_conflict), source.name, page)
                wire = _wire(page)
                if len(wire):
                    await _import_page(target, wire, base, report, verify)
                done += len(wire)
                if progress is not None:
                    progress(done, 0, "records")
    report.seconds = time.perf_counter() - started
    return report


async def import_foreign(
    target: Memory,
    foreign: Foreign,
    source: str,
    *,
    on_conflict: str = "skip",
    page_size: int = 500,
    verify: bool = True,
    progress: Progress | None = None,
) -> Report:
    """Import another tool's memory (``read_foreign``): its lines as an archive's, ids kept
    (the file's, or derived from the content: a rerun skips), no vectors (the target embeds
    the content); what the format lacks is reported in ``kept``."""
    started = time.perf_counter()
    report = Report()
    base = _page_base(foreign.agents, ("keep", on_conflict), source, {})
    done = 0
    total = len(foreign.records)
    async with _bulk(target, total, report, _announcer(progress, lambda: (done, total))):
        for start in range(0, len(foreign.records), page_size):
            page = Page(foreign.records[start : start + page_size], [])
            await _import_page(target, page, base, report, verify)
            done += len(page)
            if progress is not None:
                progress(done, total, "records")
    for name, why in foreign.lost.items():
        report.kept.setdefault(name, {"as": "transformed", "how": why})
    report.seconds = time.perf_counter() - started
    return report


async def export_mcp_memory(
    memory: Memory,
    out: IO[bytes],
    *,
    agents: Sequence[str] | None = None,
    scope: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The active records of ``agents`` as the MCP memory server's graph file
    (``mcp_memory_lines``: what has no place in the graph is left out, and said so)."""
    listed = [a async for a in _agents_of(memory, agents)]
    records: list[dict[str, Any]] = []
    narrowed = {**dict(scope or {}), "states": ["active"]}
    for agent in listed:
        async for page in _export_pages(memory, agent, narrowed, 1000, None):
            records += [line["record"] for line in page["records"]]
    kinds: Counter[str] = Counter()
    for line in mcp_memory_lines(records):
        out.write(line)
        kinds[json.loads(line)["type"]] += 1
    return {
        "agents": len(listed),
        "records": len(records),
        "entities": kinds["entity"],
        "relations": kinds["relation"],
        "left_out": "ids, times, users, confidence, metadata other than the graph's, and every "
        "record not active: the graph has no place for them",
    }
