"""A mnemowire server as a store: ``http://host:port`` and ``https://...`` URLs
(docs/transports.md#http.client). This is how ``Memory`` and the router reach a store on
another machine: every operation is one POST to the server's route for the newest spec version
both sides speak, and an error envelope from the server is raised as the same MnemowireError
(its code, message and details unchanged).

aiohttp carries the requests: on this project's 2-core machines it spends ~0.23 ms of CPU per
request where httpx spends ~0.71 ms (measured, docs/transports.md#http.client), and a router
over several servers pays that once per server per operation. The one blocking call, asking a
server for its capabilities when the store is opened (``capabilities()`` is synchronous in the
protocol), uses the standard library.

An answer is read as it arrives and refused past ``max_answer`` bytes (16 MiB by default), so a
server that answers too much, by mistake or on purpose, costs a router no more than that (the
router reports it as that child's error); decompressed bytes are what count.

Requests and answers are validated where they cross a boundary: by the caller's ``Memory`` on
this side and by the server on the other, so this module only moves JSON. It is written
against the store kit and the protocol alone, as a third party's adapter would be.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import numpy as np
from pydantic import BaseModel, ValidationError

from mnemowire.embedders import Embedder
from mnemowire.errors import ConfigError, MnemowireError, StoreError, UnavailableError, error_for
from mnemowire.kit import elapsed_ms, integer, json_bytes, number, text, to_wire, url_options
from mnemowire.models import (
    Capabilities,
    Health,
    HealthStatus,
    RecallRequest,
    RecallResponse,
)
from mnemowire.models.operations import SPEC_VERSIONS, Operation, Req, Resp, StoreOperations
from mnemowire.protocol import QueryEmbedding

__all__ = ["TOKEN_VARIABLE", "HttpStore"]

#: where the client finds its bearer token by default (never in the URL: URLs end up in logs)
TOKEN_VARIABLE = "MNEMOWIRE_TOKEN"
#: the most an answer may take, in bytes. The largest legitimate answers hold 1,000 records
#: (recall's k, list's limit, get's ids): a recall of 1,000 hits whose records just fit a full
#: batch in a server's default --max-body (4 MiB) measured 4.39 MB; the cap allows 3.8 times that
MAX_ANSWER_BYTES = 16 * 2**20
URL_OPTIONS = {
    "timeout": number(minimum=0.001),
    "token_env": text,
    "embedder": text,
    "name": text,
    "max_answer": integer(minimum=1024, maximum=2**40),
}
R = TypeVar("R", bound=BaseModel)
log = logging.getLogger("mnemowire.http")


class HttpStore(StoreOperations):
    """The store a mnemowire server serves, reached over HTTP and named as the server names it,
    so its answers and its name agree as any store's do. Two servers whose stores share a name
    (the same default path on two machines) cannot sit under one router as they are: give one
    a ``?name=`` in its URL (here, or in the server's store URL).

    ``embedder``: the server's embedder, run here too, so a router over several servers embeds
    a query once and sends the vector (spec v0.1 ``query_vector``); a server whose embedder is
    another refuses it, and from then on the query is sent alone.

    >>> store = HttpStore.from_url("http://127.0.0.1:8765")        # doctest: +SKIP
    >>> await Memory(store).recall({"agent_id": "a", "query": "tea"})   # doctest: +SKIP
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout_s: float = 30.0,
        embedder: Embedder | None = None,
        name: str | None = None,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        self._base = base_url.rstrip("/")
        self._name = name or self._base  # until the server says its store's name
        self._headers = {"authorization": f"Bearer {token}"} if token else {}
        self._timeout = timeout_s
        self._max_answer = max_answer_bytes
        self.embedder = embedder
        self._version, served = self._discover()
        self._name = name or served.store
        #: what the served store declares, under this store's name
        self._capabilities = served.model_copy(update={"store": self._name})
        self._client: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: embedder names the server refused a query vector of (sent alone from then on)
        self._foreign: set[str] = set()

    @classmethod
    def from_url(cls, url: str, *, embedder: Embedder | None = None) -> HttpStore:
        """Open ``http://host:port[/prefix]`` (or ``https://``); query options: ``timeout``
        (seconds, default 30), ``token_env`` (the variable holding the bearer token, default
        ``MNEMOWIRE_TOKEN``), ``embedder`` (the server's, to embed queries here once),
        ``name`` (default: the name the server gives its store), ``max_answer`` (the most bytes
        an answer may take, default 16 MiB)."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"not an HTTP store URL: {url!r}; write http://host:port")
        if parts.username or parts.password:
            raise ConfigError(
                f"{parts.scheme}://{parts.hostname}: credentials do not go in the URL (URLs end "
                f"up in logs); put the bearer token in ${TOKEN_VARIABLE}"
            )
        options, _ = url_options(url, parts.query, URL_OPTIONS)
        if embedder is None and "embedder" in options:
            from mnemowire.embedders import load_embedder

            embedder = load_embedder(options["embedder"])
        token = os.environ.get(options.get("token_env", TOKEN_VARIABLE)) or None
        base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        return cls(
            base,
            token=token,
            timeout_s=options.get("timeout", 30.0),
            embedder=embedder,
            name=options.get("name"),
            max_answer_bytes=options.get("max_answer", MAX_ANSWER_BYTES),
        )

    @property
    def name(self) -> str:
        return self._name

    @property
    def spec_version(self) -> str:
        """The spec version this client and the server both speak (its routes are used)."""
        return self._version

    def capabilities(self) -> Capabilities:
        return self._capabilities

    def _discover(self) -> tuple[str, Capabilities]:
        """The newest version both sides serve, and the store's capabilities there."""
        # no proxy from the environment, as aiohttp does not take one either
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        for version in reversed(SPEC_VERSIONS):  # the newest the server serves
            url = f"{self._base}/{version}/capabilities"
            request = urllib.request.Request(url, headers=self._headers)
            try:
                with direct.open(request, timeout=self._timeout) as answer:
                    status, content = answer.status, answer.read(self._max_answer + 1)
            except urllib.error.HTTPError as exc:
                status, content = exc.code, exc.read(self._max_answer + 1)
            except (urllib.error.URLError, OSError) as exc:
                raise self._unreachable(exc) from None
            if status == 404:
                continue
            if len(content) > self._max_answer:
                raise self._too_large()
            return version, self._parse(Capabilities, status, content)
        raise ConfigError(
            f"{self._base} serves none of the spec versions this mnemowire speaks "
            f"({', '.join(reversed(SPEC_VERSIONS))}); is it a mnemowire server?"
        )

    async def _operate(self, operation: Operation[Req, Resp], request: Req) -> Resp:
        """Every operation but recall (``StoreOperations``, generated): the request's wire JSON
        posted to the operation's route, the answer parsed as its response model."""
        return await self._post(operation.name, to_wire(request), operation.response)

    async def recall(
        self, request: RecallRequest, *, query_vector: QueryEmbedding | None = None
    ) -> RecallResponse:
        payload = to_wire(request)
        if (
            query_vector is not None
            and "query_vector" not in payload
            and "query_vector" in self._capabilities.capabilities
            and query_vector.embedder not in self._foreign
        ):
            vector = np.asarray(query_vector.vector, np.float32).reshape(-1)
            sent = {
                **payload,
                "query_vector": {"embedder": query_vector.embedder, "vector": vector},
            }
            try:
                return await self._post("recall", sent, RecallResponse)
            except MnemowireError as exc:
                if exc.code != "unsupported" or not _about_query_vector(exc):
                    raise
                log.warning("%s refused query vectors of %s: queries now go alone",
                            self._name, query_vector.embedder)  # fmt: skip
                self._foreign.add(query_vector.embedder)
        return await self._post("recall", payload, RecallResponse)

    async def health(self) -> Health:
        """The server's health; ``down`` (with the reason) when it cannot be reached."""
        started = time.perf_counter()
        try:
            served = await self._call("GET", "health", None, Health)
        except MnemowireError as exc:
            return Health(store=self._name, status=HealthStatus.DOWN, details={"error": str(exc)})
        return Health(
            store=self._name,
            status=served.status,
            latency_ms=elapsed_ms(started),
            details={"server": self._base, "served": to_wire(served)},
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _session(self) -> aiohttp.ClientSession:
        """The connection pool of the running event loop (a pool cannot cross loops)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client.closed or self._loop is not loop:
            self._client = aiohttp.ClientSession(
                headers=self._headers,
                timeout=aiohttp.ClientTimeout(total=self._timeout),
            )
            self._loop = loop
        return self._client

    async def _post(self, operation: str, payload: Mapping[str, Any], model: type[R]) -> R:
        return await self._call("POST", operation, json_bytes(payload), model)

    async def _call(self, method: str, operation: str, body: bytes | None, model: type[R]) -> R:
        url = f"{self._base}/{self._version}/{operation}"
        headers = {"content-type": "application/json"} if body is not None else None
        try:
            async with self._session().request(method, url, data=body, headers=headers) as answer:
                status, content = answer.status, await self._read(answer)
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise self._unreachable(exc) from None
        return self._parse(model, status, content)

    async def _read(self, answer: aiohttp.ClientResponse) -> bytearray:
        """The answer's body, counted as it arrives: StoreError past ``max_answer`` bytes, before
        reading any of it when its Content-Length says so."""
        declared = answer.content_length
        if declared is not None and declared > self._max_answer:
            raise self._too_large()
        content = bytearray()
        async for chunk in answer.content.iter_any():
            content += chunk
            if len(content) > self._max_answer:
                raise self._too_large()
        return content

    def _too_large(self) -> StoreError:
        return StoreError(
            f"{self._name} answered more than {self._max_answer} bytes, the most this client "
            "reads (the URL's max_answer option); raise it if the server's memories are that large"
        )

    def _parse(self, model: type[R], status: int, content: bytes | bytearray) -> R:
        """The answer as ``model``; an error envelope raised as its MnemowireError."""
        if status == 200:
            try:
                return model.model_validate_json(content)
            except ValidationError as exc:
                raise StoreError(
                    f"{self._name} answered with a body that is not a valid "
                    f"{model.__name__}: {exc.errors()[0]['msg']}; is it a mnemowire server?"
                ) from None
        try:  # NaN or Infinity, which json takes, the caller's boundary refuses
            payload = json.loads(content)
        except ValueError:
            payload = None
        if isinstance(payload, dict) and isinstance(payload.get("code"), str):
            payload.setdefault("details", [])
            if not isinstance(payload.get("message"), str) or not payload["message"]:
                payload["message"] = f"HTTP {status}"
            raise error_for(payload)
        raise StoreError(f"{self._name} answered HTTP {status}: {bytes(content[:200])!r}")

    def _unreachable(self, exc: BaseException) -> MnemowireError:
        if isinstance(exc, TimeoutError):
            return MnemowireError(
                {
                    "code": "timeout",
                    "message": f"{self._name} did not answer within {self._timeout:g} s (the "
                    "URL's timeout option); a write may still complete: read before you retry",
                    "details": [],
                }
            )
        return UnavailableError(
            f"{self._name}: cannot reach the server ({type(exc).__name__}: {exc}); is "
            "`mnemowire serve` running there?"
        )


def _about_query_vector(exc: MnemowireError) -> bool:
    return any(str(d.get("path", "")).startswith("/query_vector") for d in exc.details)
