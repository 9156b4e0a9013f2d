"""``cognee://FOLDER``: a memorywire store over the real Cognee library (cognee 1.6.5), offline
(docs/adapters/cognee.md).

Each record is one Cognee data item of the store's dataset, added with ``literal_text=True``
(else a text that looks like a path or URL is read or fetched) under a ``data_id`` the store
chooses, then cut into chunks and embedded by cognee's own LLM-free tasks (``cognify`` builds
a graph with an LLM, which is not reachable here: no ``graph``). Search is cognee's chunk
search; a record's best chunk ranks it.

What Cognee holds natively: the content (the text it chunks, embeds and searches) and the
record's scope as node sets, which cognee's search filters on before it ranks: the agent,
agent + type, agent + user and agent + user + type, each as a digest, so a recall narrows to
exactly its agent, user and types inside cognee. Everything else the wire carries travels in
cognee's ``external_metadata`` as one JSON text, ``mw_record`` (with the content, so it reads
back exactly), returned with every chunk and row.

Cognee cannot change an item's metadata (re-adding an id keeps the old item, and ``update``
needs an LLM), so a record that changes is written as a new item, the id map moved to it, then
the old item forgotten: a crash between leaves an item no id names, never a half-changed
record. Items are chunked before the next search, not on every write (one pipeline run per
batch of writes). The operations themselves are the kit's ``DocumentStore``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from mnemowire import kit
from mnemowire.adapters.cognee._backend import COGNEE, offline_tasks
from mnemowire.embedders import MINILM_NAME, Embedder
from mnemowire.errors import ConfigError, MnemowireError
from mnemowire.kit.documents import DECLINED, DocumentStore, Hit, IdMap, Record
from mnemowire.kit.staging import StagingRules
from mnemowire.models import (
    FIELD_FIDELITY_FIELDS,
    Capabilities,
    Fidelity,
    Health,
    HealthStatus,
    RecallRequest,
)
from mnemowire.protocol import QueryEmbedding

__all__ = ["CogneeStore"]

#: written against spec v0.3: what the kit's DocumentStore serves, and what it declines,
#: erasure included: cognee keeps every added text in its pipeline-run log and every search's
#: chunks in its search history, and ``forget`` reaches neither (docs/adapters/cognee.md,
#: "Erasure")
IMPLEMENTS = kit.Implements(
    "v0.3",
    (
        *("semantic", "episodic", "procedural", "emotional", "vector", "user_scope"),
        *("metadata_filter", "freshness", "expiry", "forget", "merge", "expire", "governance"),
        *("relevance", "client_ids", "get", "list", "update", "seals", "reviews"),
        *("decide", "staging_policy", "export_records", "import_records", "scopes"),
    ),
    declined={
        **DECLINED,
        "fts": "cognee offers no keyword search over chunks",
        "graph": "cognee's cognify needs an LLM",
        "hard_delete": "cognee keeps the words in its run log and search history",
    },
)
#: cognee's own field is the text; the scope's node sets are digests, so the agent, user and
#: type read back from ``mw_record`` like everything else
FIDELITY = {f: Fidelity.ENCODED for f in FIELD_FIDELITY_FIELDS if f != "content"}
URL_OPTIONS = {"name": kit.text, "dataset": kit.text, "policy": kit.text}
#: the dataset of a folder's store, when the URL names none
DATASET = "mnemowire"
#: cognee's chunk search returns at most this many chunks per call
_MOST = 10_000
#: runs of cognee's chunking before its failure is the store's (see CogneeStore._chunk)
_CHUNK_TRIES = 3
log = logging.getLogger("mnemowire.cognee")


def _key(*parts: str) -> str:
    """A node-set name for a scope: a digest, since cognee names must be non-blank text and
    agent and user ids are any text."""
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=12).hexdigest()
    return f"mw{len(parts)}{digest}"


def _scopes(record: Record) -> list[str]:
    """The node sets a record is filed under (see the module's docstring)."""
    agent, kind, user = record["agent_id"], record["type"], record.get("user_id")
    names = [_key("a", agent), _key("at", agent, kind)]
    if user is not None:
        names += [_key("au", agent, user), _key("aut", agent, user, kind)]
    return names


def _wanted(req: RecallRequest) -> list[str]:
    """The node sets a recall searches: any of them is exactly its agent, user and types."""
    agent, user, kinds = req.agent_id, req.user_id, [str(t) for t in req.types or ()]
    if user is None:
        return [_key("at", agent, k) for k in kinds] if kinds else [_key("a", agent)]
    return [_key("aut", agent, user, k) for k in kinds] if kinds else [_key("au", agent, user)]


def _record_of(metadata: Any, backend_id: str, owners: dict[str, str]) -> Record | None:
    """A record from an item's ``external_metadata`` (a dict, or JSON text in a chunk), when
    the id map names the item."""
    if isinstance(metadata, str):
        metadata = json.loads(metadata)
    record_id = owners.get(backend_id)
    if record_id is None or not isinstance(metadata, dict) or "mw_record" not in metadata:
        return None
    record: Record = json.loads(metadata["mw_record"])
    if record.get("id") != record_id:
        return None
    return {**record, "backend_id": backend_id, "demote": 1.0}


class CogneeStore(DocumentStore):
    """Records in Cognee, under ``folder`` (``:memory:``: a temporary one, gone on close). One
    folder per process at a time (cognee's configuration is the process's): stores opened
    together share it, each in its own dataset."""

    backend = "cognee"

    def __init__(
        self,
        folder: str | Path,
        *,
        name: str | None = None,
        dataset: str | None = None,
        embedder: Embedder | None = None,
        policy: StagingRules | None = None,
        clock: Callable[[], int] = kit.now_ms,
    ) -> None:
        self._temporary = str(folder) == ":memory:"
        super().__init__(
            name or ("cognee://:memory:" if self._temporary else f"cognee://{folder}"),
            clock,
            worker=COGNEE.worker,
            policy=policy,
        )
        if self._temporary:
            self._dataset = dataset or f"mnemowire_{uuid.uuid4().hex[:12]}"
        else:
            self._dataset = dataset or DATASET
        self._root = COGNEE.scratch() if self._temporary else Path(folder)
        self._ids_file = self._root / f"mnemowire-ids-{self._dataset}.db"  # the id map
        self._stale = True  # items added since the last chunking run (unknown after an open)
        self._dataset_id: uuid.UUID | None = None
        try:
            self._worker.submit(self._open, embedder).result()
        except MnemowireError:
            raise
        except Exception as exc:  # cognee's own failures too
            raise ConfigError(f"{self._name}: cognee would not open: {exc}") from exc

    def _open(self, embedder: Embedder | None) -> None:
        COGNEE.attach(self._root, embedder)
        try:
            self._ids = IdMap(self._ids_file)
            self._user = COGNEE.user()
        except Exception:
            COGNEE.detach()
            raise

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        embedder: Embedder | None = None,
        clock: Callable[[], int] = kit.now_ms,
    ) -> CogneeStore:
        """``cognee://FOLDER`` or ``cognee://:memory:``; options ``name``, ``dataset`` (the
        Cognee dataset the records live in; default ``mnemowire``) and ``policy`` (a staging
        policy's JSON file: docs/governance.md#policy). An ``embedder`` is
        accepted when it is all-MiniLM-L6-v2, the model cognee is given."""
        location, _, query = url.removeprefix("cognee://").partition("?")
        if not location:
            raise ConfigError(f"{url!r}: write cognee://FOLDER or cognee://:memory:")
        options, _ = kit.url_options(url, query, URL_OPTIONS)
        if embedder is not None and embedder.name != MINILM_NAME:
            raise ConfigError(
                f"the cognee store embeds with all-MiniLM-L6-v2, not {embedder.name}; leave "
                "out --embedder"
            )
        dataset = options.get("dataset")
        if dataset is not None and re.fullmatch(r"[A-Za-z0-9_]+", dataset) is None:
            raise ConfigError(
                f"{url!r}: a cognee dataset name is letters, digits and underscores "
                f"(?dataset={dataset!r})"
            )
        return cls(
            location,
            name=options.get("name"),
            dataset=dataset,
            embedder=embedder,
            policy=StagingRules.named_by(options),
            clock=clock,
        )

    def capabilities(self) -> Capabilities:
        return self._declare(IMPLEMENTS, FIDELITY)

    async def health(self) -> Health:
        started = time.perf_counter()
        try:
            rows = await self._run(lambda: len(self._rows()))
        except MnemowireError as exc:
            return Health(store=self._name, status=HealthStatus.DOWN, details={"error": str(exc)})
        return Health(
            store=self._name,
            status=HealthStatus.OK,
            latency_ms=kit.elapsed_ms(started),
            details={"backend": "cognee 1.6.5 (LanceDB, SQLite)", "items": rows},
        )

    def _close(self) -> None:
        try:
            if self._temporary and self._dataset_ref() is not None:
                import cognee

                COGNEE.run(cognee.forget(dataset=self._dataset, user=self._user))
        finally:
            self._ids.close(delete=self._temporary)
            COGNEE.detach()

    # -- cognee's calls --------------------------------------------------------------------------

    def _dataset_ref(self) -> uuid.UUID | None:
        """The dataset's id, once it exists (cognee makes it on the first add)."""
        if self._dataset_id is None:
            import cognee

            found = COGNEE.run(cognee.datasets.list_datasets(user=self._user))
            ids = [d.id for d in found if d.name == self._dataset]
            self._dataset_id = ids[0] if ids else None
        return self._dataset_id

    def _rows(self) -> list[Any]:
        dataset_id = self._dataset_ref()
        if dataset_id is None:
            return []
        import cognee

        return list(COGNEE.run(cognee.datasets.list_data(dataset_id, user=self._user)))

    def _records(self, items: Iterable[tuple[Any, str]]) -> list[Record]:
        """Records of (external_metadata, data id) pairs the id map names."""
        items = list(items)
        owners = self._ids.owners([backend_id for _, backend_id in items])
        found = (_record_of(meta, backend_id, owners) for meta, backend_id in items)
        return [r for r in found if r is not None]

    def _listed(
        self, agent_id: str, user_id: str | None, states: Sequence[str] | None = None
    ) -> list[Record]:
        return self._records((row.external_metadata, str(row.id)) for row in self._rows())

    def _named(self, ids: Iterable[str]) -> dict[str, Record]:
        from cognee.modules.data.methods import get_data

        dataset_id = self._dataset_ref()
        found: dict[str, Record] = {}
        for record_id in dict.fromkeys(ids):
            mapped = self._ids.get(record_id)
            if mapped is None or mapped.backend_id is None or dataset_id is None:
                continue
            row = COGNEE.run(get_data(self._user.id, uuid.UUID(mapped.backend_id), dataset_id))
            if row is None:
                continue
            owners = {mapped.backend_id: record_id}
            record = _record_of(row.external_metadata, mapped.backend_id, owners)
            if record is not None:
                found[record_id] = record
        return found

    def _add(self, record: Record) -> str:
        """``record`` as a new item of the dataset; its data id."""
        return self._add_items([record])[0]

    def _add_items(self, records: Sequence[Record]) -> list[str]:
        """``records`` as new items of the dataset, in one ``cognee.add`` (its ingestion costs
        ~145 ms a call for one item, ~45 ms an item for 50 or 100: measured, 2026-12-05); their
        data ids, which are ours, so a failed add forgets every one it may have written."""
        import cognee
        from cognee.tasks.ingestion.data_item import DataItem

        data_ids = [uuid.uuid4() for _ in records]
        items = [
            DataItem(
                data=record["content"],
                data_id=data_id,
                external_metadata={"mw_record": json.dumps(
                    {k: v for k, v in record.items() if k not in ("backend_id", "demote")},
                    ensure_ascii=False,
                )},
                node_set=_scopes(record),
                literal_text=True,
            )
            for record, data_id in zip(records, data_ids, strict=True)
        ]  # fmt: skip
        try:
            COGNEE.run(cognee.add(items, dataset_name=self._dataset, user=self._user))
        except BaseException:
            for data_id in data_ids:
                with contextlib.suppress(Exception):  # the add's failure is the one to report
                    self._forget_item(str(data_id))
            raise
        finally:
            self._stale = True
        return [str(data_id) for data_id in data_ids]

    def _insert(self, record: Record) -> str:
        return self._add(record)

    def _insert_many(self, records: Sequence[Record]) -> list[str]:
        """An import page in one ``cognee.add`` (~5x faster than one call a record: 27.7
        against 5.1 records/s for the dev corpus in pages of 100, side by side)."""
        return self._add_items(records) if records else []

    def _rewrite(self, record: Record, *, text: str | None = None) -> None:
        changed = {**record, "content": text} if text is not None else record
        new_id = self._add(changed)
        self._ids.move(record["id"], new_id)  # from now on the new item is the record
        self._forget_item(record["backend_id"])

    def _erase(self, record: Record) -> None:
        self._forget_item(record["backend_id"])

    def _forget_item(self, backend_id: str) -> None:
        import cognee

        COGNEE.run(
            cognee.forget(data_id=uuid.UUID(backend_id), dataset=self._dataset, user=self._user)
        )

    def _chunk(self) -> None:
        """Cut, embed and index the items added since the last run.

        cognee indexes a run's batches of one LanceDB table concurrently, and LanceDB lists a
        table a moment before it can open it: a run that creates a table (the dataset's first)
        fails now and then with ``Table '...' was not found`` (about one certification in
        three hit it). The run is incremental, so running it again indexes what the first
        left, once the table is whole; any other failure, or a third one, is the store's."""
        import cognee

        for attempt in range(1, _CHUNK_TRIES + 1):
            try:
                COGNEE.run(
                    cognee.run_custom_pipeline(
                        tasks=offline_tasks(),
                        dataset=self._dataset,
                        user=self._user,
                        incremental_loading=True,
                        pipeline_name="mnemowire_chunks",
                    )
                )
            except ValueError as exc:
                if "was not found" not in str(exc) or attempt == _CHUNK_TRIES:
                    raise
                log.info("%s: cognee's chunking met a half-made table (%s); again", self._name, exc)
            else:
                break
        self._stale = False

    def _first_depth(self, k: int) -> int:
        """k: cognee filters the scope before it ranks, and each chunk it returns costs it a
        graph lookup, so the first search asks for what a recall wants; one that the state
        or metadata filters leave short searches deeper."""
        return k

    def _query(self, req: RecallRequest, given: QueryEmbedding | None) -> str:
        return req.query

    def _search(self, query: str, req: RecallRequest, depth: int) -> tuple[list[Hit], bool]:
        import cognee
        from cognee.modules.search.types import SearchType

        if self._ids.empty() or self._dataset_ref() is None:
            return [], True  # cognee would raise NoDataError (and log it) for a dataset
            # whose items are all gone
        if self._stale:  # chunk and embed what was added since the last run
            self._chunk()
        groups = COGNEE.run(
            cognee.search(
                query,
                query_type=SearchType.CHUNKS,
                datasets=[self._dataset],
                user=self._user,
                top_k=min(depth, _MOST),
                node_name=_wanted(req),
                node_name_filter_operator="OR",
            )
        )
        chunks = [hit for group in groups for hit in group["search_result"]]
        best: dict[str, tuple[Any, float]] = {}  # a record's best chunk ranks it
        for chunk in chunks:
            backend_id = str(chunk["document_id"])
            relevance = max(-1.0, min(1.0, 1.0 - float(chunk["score"])))  # cosine distance
            if backend_id not in best or relevance > best[backend_id][1]:
                best[backend_id] = (chunk["external_metadata"], relevance)
        records = self._records((meta, backend_id) for backend_id, (meta, _) in best.items())
        hits = [(r, best[r["backend_id"]][1]) for r in records]
        return hits, len(chunks) < min(depth, _MOST) or depth >= _MOST
