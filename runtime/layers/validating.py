"""The validating boundary: where JSON from outside becomes the generated models, and where a
store's answers are held to the spec before anyone outside sees them.

Everything below the boundary (the router, every store) takes and returns generated models and
trusts them; everything that takes requests from outside (the facade, the CLI, the conformance
harness, every transport) goes through :class:`ValidatingStore` or :func:`parse_request`, so a
request is validated against its JSON Schema exactly once per crossing
(docs/architecture.md#boundary).

>>> boundary = ValidatingStore(store)                                  # doctest: +SKIP
>>> await boundary.recall({"agent_id": "a", "query": "tea", "k": 5000})  # doctest: +SKIP
Traceback (most recent call last):
mnemowire.errors.RequestError: invalid recall.request: `/k` 5000 is greater than the maximum of
1000; fix every field listed in details and send it again
"""

from __future__ import annotations

import asyncio
import builtins
import functools
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ValidationError

from mnemowire import spec
from mnemowire.embedders import Vectors
from mnemowire.errors import MnemowireError, RequestError, StoreError, UnsupportedError
from mnemowire.kit import check_vectors, to_wire
from mnemowire.models import (
    Capabilities,
    Health,
    RecallRequest,
    RecallResponse,
    RememberBatchRequest,
    RememberRequest,
    RememberResponse,
)
from mnemowire.models.operations import (
    BY_NAME,
    OPERATIONS,
    RECALL,
    ClientOperations,
    Operation,
    RememberBatchStore,
    Req,
    Resp,
)
from mnemowire.protocol import BY_CAPABILITY, MemoryStore, QueryEmbedding, VectorBatchStore

__all__ = [
    "MESSAGES",
    "Elsewhere",
    "ValidatingStore",
    "batch_ceiling",
    "parse_request",
    "parse_requests",
    "request_bound",
    "spoken_version",
]


@dataclass(frozen=True)
class Elsewhere:
    """Where a request an older version refuses would be accepted: ``template`` with
    ``{version}`` for the first version that accepts it (a server: ``send it to /{version}/
    instead``), for versions up to ``served``."""

    template: str
    served: str


M = TypeVar("M", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)
T = TypeVar("T")
#: the message each request model is validated against (from the generated operation table)
MESSAGES: dict[type[BaseModel], str] = {o.request: o.request_message for o in OPERATIONS}


def spoken_version(store: MemoryStore) -> str:
    """The newest spec version ``store`` declares that this mnemowire ships (the newest of all,
    for a store newer than this package)."""
    declared = store.capabilities().spec_version
    known = spec.available_versions()
    if declared in known:
        return declared
    return known[-1]


def parse_request(
    model: type[M],
    request: BaseModel | Mapping[str, Any],
    *,
    version: str = spec.LATEST,
    newer: Elsewhere | None = None,
) -> M:
    """``request`` as ``model`` (a generated request model), once its JSON is valid under the
    model's message (``RecallRequest``: ``recall.request``) in spec ``version``; raises
    RequestError carrying the spec's error envelope, naming the field and the rule.

    A model is checked too, by its wire form: the schema says more than a model's types do
    (conditionals, well-formed JSON), and a model can be built without validation. An older
    ``version`` (the one a store speaks) refuses what only a newer one has, and says so; what
    it accepts the newest accepts too (the spec diff proves it), so the model is the newest's.
    ``newer`` says, in such a refusal, where the field would be accepted (the first version that
    accepts it, when its holder serves that version; otherwise, and by default: a store
    that declares the newest version)."""
    message = MESSAGES.get(model)
    if message is None:
        raise TypeError(f"{model.__name__} is not a request model of the spec")
    if isinstance(request, BaseModel):
        payload: Any = to_wire(request)
    elif isinstance(request, Mapping):
        payload = dict(request)
    else:
        raise RequestError(
            f"a {message} is a JSON object, not a {type(request).__name__}",
            details=[{"path": "", "rule": "type", "message": "must be an object"}],
        )
    if version == spec.LATEST:
        spec.check(message, payload)
    else:
        _check_older(message, payload, version, newer)
    if isinstance(request, model):
        return request
    try:
        return model.model_validate(payload)
    except ValidationError as exc:  # the schema allowed what the model's types do not
        raise RequestError(
            f"{message} is not valid: {exc.errors()[0]['msg']}",
            details=[
                {"path": "".join(f"/{p}" for p in e["loc"]), "rule": e["type"], "message": e["msg"]}
                for e in exc.errors()
            ],
        ) from None


def _check_older(message: str, payload: Any, version: str, newer: Elsewhere | None) -> None:
    if message not in spec.read_spec(version).messages:
        raise UnsupportedError(
            f"{message.removesuffix('.request')} is a spec {_added_in(message)} operation; this "
            f"store speaks {version}: use a store that declares {_added_in(message)} or later"
        )
    envelope = spec.validate(message, payload, version=version)
    if envelope is None:
        return
    if spec.validate(message, payload) is not None:  # wrong under every version: as it is
        raise RequestError(str(envelope["message"]), details=envelope["details"])
    fields = sorted({d["path"] for d in envelope["details"]})
    held = "this store speaks" if newer is None else "is held to here"
    accepting = _accepted_in(message, payload, version)
    where = f"use a store that declares {accepting} or later"
    if newer is not None and spec.version_key(accepting) <= spec.version_key(newer.served):
        where = newer.template.format(version=accepting)
    raise RequestError(
        f"{', '.join(fields)}: not in spec {version}, which {held} (spec {accepting} has "
        f"it); leave it out, or {where}",
        details=envelope["details"],
    )


def _accepted_in(message: str, payload: Any, version: str) -> str:
    """The first spec version after ``version`` under which ``payload`` is valid (the one
    that added what ``version`` refuses)."""
    later = [
        v for v in spec.available_versions() if spec.version_key(v) > spec.version_key(version)
    ]
    return next(
        (v for v in later if spec.validate(message, payload, version=v) is None), spec.LATEST
    )


def _added_in(message: str) -> str:
    return next(v for v in spec.available_versions() if message in spec.read_spec(v).messages)


def parse_requests(
    model: type[M],
    requests: Sequence[BaseModel | Mapping[str, Any]],
    *,
    version: str = spec.LATEST,
    newer: Elsewhere | None = None,
) -> list[M]:
    """Every request of a batch parsed before any is used, so one bad request sends nothing;
    the error names the request's index in the batch (``/3/content``)."""
    parsed = []
    for index, request in enumerate(requests):
        try:
            parsed.append(parse_request(model, request, version=version, newer=newer))
        except RequestError as exc:
            details = [{**d, "path": f"/{index}{d['path']}"} for d in exc.details]
            raise RequestError(f"request {index}: {exc}", details=details) from None
    return parsed


class ValidatingStore(ClientOperations):
    """A store behind the boundary: takes requests as JSON objects or models, validates each
    once, and holds every answer to its response schema. Whatever the store raises that is not
    a spec error becomes a ``store_error`` envelope, so a caller only ever sees spec errors.

    ``store`` is the store behind it, for what the spec does not define (extras, closing).
    ``version`` holds requests and answers to an older version than the store speaks (a
    server's ``/v0/`` routes), ``newer`` then saying where a newer field is accepted."""

    def __init__(
        self, store: MemoryStore, *, version: str | None = None, newer: Elsewhere | None = None
    ) -> None:
        self.store = store
        spoken = spoken_version(store)
        if version is not None and spec.version_key(version) > spec.version_key(spoken):
            raise ValueError(f"{store.name} speaks spec {spoken}, not {version}")
        #: the spec version requests are held to: the one the store speaks (an older store
        #: refuses, by name, the fields and operations only a newer version has)
        self.version = version or spoken
        self._newer = newer

    @property
    def name(self) -> str:
        return self.store.name

    def capabilities(self) -> Capabilities:
        return self.store.capabilities()

    async def aclose(self) -> None:
        await self.store.aclose()

    async def operate(
        self, operation: Operation[Req, Resp], request: Req | Mapping[str, Any]
    ) -> Resp:
        """Run ``operation`` (an entry of ``mnemowire.models.operations``) on a request given
        as its model or a JSON object: validated, run, its answer held to the response schema."""
        return await self._run(operation, request)

    async def _operate(
        self, operation: Operation[Req, Resp], request: Req | Mapping[str, Any]
    ) -> Resp:
        return await self.operate(operation, request)  # every generated typed method

    async def recall(
        self,
        request: RecallRequest | Mapping[str, Any],
        *,
        query_vector: QueryEmbedding | None = None,
    ) -> RecallResponse:
        """``query_vector``: the query's embedding when the caller already has it (a store
        whose embedder has another name embeds the query itself)."""
        return await self._run(RECALL, request, query_vector)

    # -- for transports: validate, decide who may send it, then run it ----------------------

    def parse(self, operation: str, request: BaseModel | Mapping[str, Any]) -> BaseModel:
        """``request`` validated once as ``operation``'s request message, as its model. A
        transport checks who may send it (the agent ids it names) before
        :meth:`answer_wire` runs it."""
        try:
            model: type[BaseModel] = BY_NAME[operation].request
        except KeyError:
            raise ValueError(f"unknown operation {operation!r}") from None
        return self._parse(model, request)

    async def answer_wire(self, operation: str, request: BaseModel) -> dict[str, Any]:
        """Run a request :meth:`parse` returned; its answer as the wire JSON it was held to
        the response schema in (serialised once)."""
        response = await self._awaited(self._invoke(operation, request))
        return self._hold(f"{operation}.response", response)

    def capabilities_wire(self) -> dict[str, Any]:
        """The store's capabilities as wire JSON, held to the ``capabilities`` message."""
        return self._hold("capabilities", self.store.capabilities())

    async def health_wire(self) -> dict[str, Any]:
        return self._hold("health", await self._awaited(self.store.health()))

    async def _run(
        self,
        operation: Operation[Req, Resp],
        request: BaseModel | Mapping[str, Any],
        query_vector: QueryEmbedding | None = None,
    ) -> Resp:
        req = self._parse(operation.request, request)
        response = await self._awaited(self._invoke(operation.name, req, query_vector))
        self._hold(operation.response_message, response)
        return cast(Resp, response)

    def _invoke(
        self, operation: str, request: BaseModel, query_vector: QueryEmbedding | None = None
    ) -> Awaitable[BaseModel]:
        """The store's call for a parsed request (the optional operations only on a store
        that declares and implements them)."""
        if operation == "recall":
            return self.store.recall(cast(RecallRequest, request), query_vector=query_vector)
        store = self._optional(operation) if operation in BY_CAPABILITY else self.store
        call: Callable[[BaseModel], Awaitable[BaseModel]] = getattr(store, operation)
        return call(request)

    def _optional(
        self,
        operation: str,
        instead: str = "use a store that declares it (see `mnemowire capabilities`)",
    ) -> Any:
        """The store, when it serves ``operation`` (one a later spec version added: it declares
        the capability and implements the protocol); ``unsupported`` otherwise, saying what
        to do ``instead``."""
        store = self.store
        declared = operation in self.store.capabilities().capabilities
        if not declared or not isinstance(store, BY_CAPABILITY[operation]):
            raise UnsupportedError(
                f"{self.name} does not serve {operation} (capability {operation}); {instead}"
            )
        return store

    async def remember_many(
        self,
        requests: Sequence[RememberRequest | Mapping[str, Any]],
        *,
        batch_size: int | None = None,
        vectors: Vectors | None = None,
        concurrency: int = 1,
    ) -> builtins.list[RememberResponse]:
        """A bulk import as ``remember_batch`` messages: every request validated before any is
        sent (one bad request writes nothing), then chunks of ``batch_size`` (at most, and by
        default, the spec's ``maxItems`` of a batch) sent, each all or nothing; the chunks
        written before one fails stay written. Every answer is held to
        ``remember_batch.response``.

        ``vectors`` (one row per request, from the store's embedder) skip the embedding, on a
        store that takes them (``protocol.VectorBatchStore``: not a router or a store over
        HTTP). ``concurrency`` chunks are in flight at once (a database store writes them on
        as many connections); it is 1 when an id repeats, so the repeat replays its first
        write."""
        typed = parse_requests(RememberRequest, requests, version=self.version, newer=self._newer)
        store = self._batch_store(vectors, len(typed))
        ceiling = batch_ceiling(self.version)
        size = ceiling if batch_size is None else batch_size
        if not 1 <= size <= ceiling:
            raise ValueError(
                f"batch_size must be 1..{ceiling} (the most requests one remember_batch holds), "
                f"not {batch_size}"
            )
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {concurrency}")
        ids = [r.id for r in typed if r.id is not None]
        lanes = asyncio.Semaphore(1 if len(set(ids)) < len(ids) else concurrency)

        async def send(start: int) -> builtins.list[RememberResponse]:
            chunk = RememberBatchRequest(requests=typed[start : start + size])
            async with lanes:
                if vectors is None:
                    pending = store.remember_batch(chunk)
                else:
                    rows = vectors[start : start + size]
                    pending = cast(VectorBatchStore, store).remember_batch(chunk, vectors=rows)
                try:
                    answer = await self._answer("remember_batch.response", pending)
                except MnemowireError as exc:
                    raise _in_import(exc, start, len(chunk.requests)) from exc
            if len(answer.results) != len(chunk.requests):
                raise StoreError(
                    f"{self.name} answered {len(answer.results)} results to a remember_batch "
                    f"of {len(chunk.requests)}; this is a bug in that store"
                )
            return answer.results

        try:  # a failing chunk cancels (rolls back) the ones still waiting or running
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(send(s)) for s in range(0, len(typed), size)]
        except ExceptionGroup as failed:
            raise failed.exceptions[0] from None
        return [response for task in tasks for response in task.result()]

    def _batch_store(self, vectors: Vectors | None, count: int) -> RememberBatchStore:
        """The store, when it serves remember_batch (declared, implemented, in the version
        requests are held to) and, for ``vectors``, takes them (checked here, before any
        chunk is sent)."""
        instead = (
            "a bulk import sends it; send the requests one by one (remember), or use a store "
            "that declares remember_batch"
        )
        if "remember_batch.request" not in spec.read_spec(self.version).messages:
            raise UnsupportedError(f"spec {self.version} has no remember_batch; {instead}")
        store: RememberBatchStore = self._optional("remember_batch", instead)
        embedding = self.store  # another name: mypy cannot narrow one to both protocols
        if vectors is not None:
            if not isinstance(embedding, VectorBatchStore):
                raise UnsupportedError(
                    f"{self.name} takes no precomputed vectors (it has no embedder of its own, "
                    "as a router or a store over HTTP); leave vectors out and it embeds the "
                    "content itself"
                )
            check_vectors(vectors, count, embedding.embedder.dimension)
        return store

    async def health(self) -> Health:
        return await self._answer("health", self.store.health())

    def _parse(self, model: type[M], request: BaseModel | Mapping[str, Any]) -> M:
        return parse_request(model, request, version=self.version, newer=self._newer)

    async def _answer(self, message: str, pending: Awaitable[R]) -> R:
        """Await a store's answer and hold it to the spec before handing it out."""
        response = await self._awaited(pending)
        self._hold(message, response)
        return response

    async def _awaited(self, pending: Awaitable[T]) -> T:
        try:
            return await pending
        except MnemowireError:
            raise
        except Exception as exc:  # a store bug must still surface as a spec error envelope
            raise StoreError(f"{self.name} failed: {type(exc).__name__}: {exc}") from exc

    def _hold(self, message: str, response: BaseModel) -> dict[str, Any]:
        """``response`` as wire JSON, once it is a valid ``message``; a store_error if not."""
        try:
            wire = to_wire(response)
            envelope = spec.validate(message, wire, version=self.version)
        except Exception as exc:  # not even serialisable: still the store's bug, as an envelope
            raise StoreError(f"{self.name} answered with an unreadable {message}: {exc}") from exc
        if envelope is not None:
            raise StoreError(
                f"{self.name} answered with an invalid {message}; this is a bug in that store",
                details=envelope["details"],
            )
        return wire


@functools.cache
def request_bound(
    message: str, field: str, keyword: str = "maximum", version: str = spec.LATEST
) -> int:
    """A request field's bound in spec ``version`` (its ``maximum``, or a list's ``maxItems``):
    read from the schema, never typed again."""
    schema = spec.inlined_schema(message, version=version)
    return int(schema["properties"][field][keyword])


def batch_ceiling(version: str = spec.LATEST) -> int:
    """The most requests one ``remember_batch`` holds in spec ``version``."""
    return request_bound("remember_batch.request", "requests", "maxItems", version)


def _in_import(exc: MnemowireError, start: int, count: int) -> MnemowireError:
    """A chunk's error as the import's: its requests numbered in the whole import (``/2003``
    in details, as a request that failed validation is), and which were not written."""
    envelope = exc.envelope
    details = [
        {**d, "path": _rebased(str(d.get("path", "")), start)} for d in envelope.get("details", [])
    ]
    message = re.sub(r"^request (\d+): ", lambda m: f"request {start + int(m[1])}: ", str(exc))
    message = (
        f"{message} (requests {start}..{start + count - 1} were not written; chunks that "
        "finished before them were)"
    )
    return type(exc)({**envelope, "message": message, "details": details})


def _rebased(path: str, start: int) -> str:
    """``/requests/3/id`` of a chunk starting at ``start`` as ``/{start + 3}/id``."""
    return re.sub(r"^/requests/(\d+)", lambda m: f"/{start + int(m[1])}", path)
