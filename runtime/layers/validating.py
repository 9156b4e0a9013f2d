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

from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from mnemowire import spec
from mnemowire.errors import MnemowireError, RequestError, StoreError, UnsupportedError
from mnemowire.kit import to_wire
from mnemowire.models import (
    Capabilities,
    ExpireRequest,
    ExpireResponse,
    ForgetRequest,
    ForgetResponse,
    Health,
    MergeRequest,
    MergeResponse,
    RecallRequest,
    RecallResponse,
    RememberRequest,
    RememberResponse,
)
from mnemowire.protocol import BulkStore, MemoryStore, QueryVector

__all__ = ["MESSAGES", "OPERATIONS", "ValidatingStore", "parse_request", "parse_requests"]

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)
T = TypeVar("T")
#: operation -> (request model, response model); the messages are ``<operation>.request`` and
#: ``<operation>.response``
OPERATIONS: dict[str, tuple[type[BaseModel], type[BaseModel]]] = {
    "remember": (RememberRequest, RememberResponse),
    "recall": (RecallRequest, RecallResponse),
    "forget": (ForgetRequest, ForgetResponse),
    "merge": (MergeRequest, MergeResponse),
    "expire": (ExpireRequest, ExpireResponse),
}
#: the message each request model is validated against
MESSAGES: dict[type[BaseModel], str] = {
    request: f"{operation}.request" for operation, (request, _) in OPERATIONS.items()
}


def parse_request(model: type[M], request: BaseModel | Mapping[str, Any]) -> M:
    """``request`` as ``model`` (a generated request model), once its JSON is valid under the
    model's message (``RecallRequest``: ``recall.request``); raises RequestError carrying the
    spec's error envelope, naming the field and the rule.

    A model is checked too, by its wire form: the schema says more than a model's types do
    (conditionals, well-formed JSON), and a model can be built without validation."""
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
    spec.check(message, payload)
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


def parse_requests(model: type[M], requests: Sequence[BaseModel | Mapping[str, Any]]) -> list[M]:
    """Every request of a batch parsed before any is used, so one bad request sends nothing;
    the error names the request's index in the batch (``/3/content``)."""
    parsed = []
    for index, request in enumerate(requests):
        try:
            parsed.append(parse_request(model, request))
        except RequestError as exc:
            details = [{**d, "path": f"/{index}{d['path']}"} for d in exc.details]
            raise RequestError(f"request {index}: {exc}", details=details) from None
    return parsed


class ValidatingStore:
    """A store behind the boundary: takes requests as JSON objects or models, validates each
    once, and holds every answer to its response schema. Whatever the store raises that is not
    a spec error becomes a ``store_error`` envelope, so a caller only ever sees spec errors.

    ``store`` is the store behind it, for what the spec does not define (extras, closing)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    @property
    def name(self) -> str:
        return self.store.name

    def capabilities(self) -> Capabilities:
        return self.store.capabilities()

    async def aclose(self) -> None:
        await self.store.aclose()

    async def remember(self, request: RememberRequest | Mapping[str, Any]) -> RememberResponse:
        req = parse_request(RememberRequest, request)
        return await self._answer("remember.response", self.store.remember(req))

    async def recall(
        self,
        request: RecallRequest | Mapping[str, Any],
        *,
        query_vector: QueryVector | None = None,
    ) -> RecallResponse:
        """``query_vector``: the query's embedding when the caller already has it (a store
        whose embedder has another name embeds the query itself)."""
        req = parse_request(RecallRequest, request)
        return await self._answer(
            "recall.response", self.store.recall(req, query_vector=query_vector)
        )

    async def forget(self, request: ForgetRequest | Mapping[str, Any]) -> ForgetResponse:
        req = parse_request(ForgetRequest, request)
        return await self._answer("forget.response", self.store.forget(req))

    async def merge(self, request: MergeRequest | Mapping[str, Any]) -> MergeResponse:
        req = parse_request(MergeRequest, request)
        return await self._answer("merge.response", self.store.merge(req))

    async def expire(self, request: ExpireRequest | Mapping[str, Any]) -> ExpireResponse:
        req = parse_request(ExpireRequest, request)
        return await self._answer("expire.response", self.store.expire(req))

    async def remember_many(
        self, requests: Sequence[RememberRequest | Mapping[str, Any]], **options: Any
    ) -> list[RememberResponse]:
        """A bulk import (the store's :class:`~mnemowire.protocol.BulkStore`; ``options`` are
        its own, e.g. ``vectors``): every request validated before any is written, every
        answer held to ``remember.response``."""
        store = self.store
        if not isinstance(store, BulkStore):
            raise UnsupportedError(
                f"{self.name} has no bulk import; send the requests one by one (remember)"
            )
        typed = parse_requests(RememberRequest, requests)
        return await self._answer_all("remember.response", store.remember_many(typed, **options))

    async def health(self) -> Health:
        return await self._answer("health", self.store.health())

    async def _answer(self, message: str, pending: Awaitable[R]) -> R:
        """Await a store's answer and hold it to the spec before handing it out."""
        response = await self._awaited(pending)
        self._hold(message, response)
        return response

    async def _answer_all(self, message: str, pending: Awaitable[list[R]]) -> list[R]:
        responses = await self._awaited(pending)
        for response in responses:
            self._hold(message, response)
        return responses

    async def _awaited(self, pending: Awaitable[T]) -> T:
        try:
            return await pending
        except MnemowireError:
            raise
        except Exception as exc:  # a store bug must still surface as a spec error envelope
            raise StoreError(f"{self.name} failed: {type(exc).__name__}: {exc}") from exc

    def _hold(self, message: str, response: BaseModel) -> None:
        try:
            envelope = spec.validate(message, to_wire(response))
        except Exception as exc:  # not even serialisable: still the store's bug, as an envelope
            raise StoreError(f"{self.name} answered with an unreadable {message}: {exc}") from exc
        if envelope is not None:
            raise StoreError(
                f"{self.name} answered with an invalid {message}; this is a bug in that store",
                details=envelope["details"],
            )
