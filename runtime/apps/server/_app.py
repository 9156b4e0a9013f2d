"""The memorywire HTTP server as a Starlette application (docs/transports.md).

One route per operation and spec version (``mnemowire.spec.routes``). A request goes, in
order: its Host and Origin held to the names the server answers to (421, 403:
apps.server._hosts) → its caller known by bearer token (401) → its body read within the limits
(413, 415, 408) and parsed (400) → validated against the route's version once, at the boundary
(400) → the caller admitted for every agent it names (403) → the store, in a task of its own →
its answer held to the response schema → JSON. Every failure is the spec's error envelope with the
status its code maps to (``mnemowire.spec.ERROR_STATUS``), and every answer, whatever made it
(a route, a refusal, a redirect, a static file, a crash), carries ``no-store`` and ``nosniff``.

Writes are never cut in half: the store's work runs in a task the request only waits on, so a
caller that disconnects, a request that runs out of time and a server that shuts down all leave
the operation to finish (or fail) whole; shutdown waits for every such task before the store
is closed.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mnemowire import spec
from mnemowire.apps.server._body import Limits, read_json
from mnemowire.apps.server._hosts import Hosts
from mnemowire.apps.transport import (
    ANYONE,
    Caller,
    HttpError,
    InFlight,
    Tokens,
    admitted,
    caller_of,
)
from mnemowire.errors import MnemowireError
from mnemowire.kit import json_bytes
from mnemowire.layers.validating import Elsewhere, ValidatingStore, spoken_version
from mnemowire.protocol import MemoryStore

__all__ = ["MemoryServer", "create_app"]

T = TypeVar("T")
log = logging.getLogger("mnemowire.server")
#: on every answer: memories are private, and the body is what it says, whatever a client guesses
HEADERS = ((b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff"))
_MARKS = frozenset(name for name, _ in HEADERS)


class MemoryServer:
    """What a running server holds: the store, a boundary per spec version it serves, the
    callers it knows and the operations in flight."""

    def __init__(
        self, store: MemoryStore, *, tokens: Tokens | None = None, limits: Limits | None = None
    ) -> None:
        self.store = store
        self.tokens = tokens
        self.limits = limits or Limits()
        spoken = spoken_version(store)
        #: every version up to the store's own: a v0 client keeps its routes
        self.versions = [
            v for v in spec.available_versions() if spec.version_key(v) <= spec.version_key(spoken)
        ]
        self.boundaries = {
            v: ValidatingStore(
                store, version=v, newer=Elsewhere("send it to /{version}/ instead", spoken)
            )
            for v in self.versions
        }
        self.inflight = InFlight()
        self._openapi = json.dumps(
            spec.openapi_document([spec.read_spec(v) for v in self.versions]),
            ensure_ascii=False,
        ).encode()

    # -- the request path ----------------------------------------------------------------------

    def caller(self, request: Request) -> Caller:
        return caller_of(self.tokens, request.headers.get("authorization"), otherwise=ANYONE)

    async def operate(self, route: spec.Route, request: Request) -> dict[str, Any]:
        caller = self.caller(request)
        payload = await read_json(request, self.limits)
        boundary = self.boundaries[route.version]
        return await self.finish(admitted(boundary, caller, route.operation, payload))

    async def describe(self, route: spec.Route, request: Request) -> dict[str, Any]:
        self.caller(request)
        boundary = self.boundaries[route.version]
        if route.operation == "capabilities":
            return boundary.capabilities_wire()
        return await self.finish(boundary.health_wire())

    async def finish(self, work: Awaitable[T]) -> T:
        """Run ``work`` to its end, waiting at most the request timeout: on timeout,
        cancellation or shutdown the work still ends whole (apps.transport._inflight)."""
        try:
            return await self.inflight.finish(work, timeout_s=self.limits.request_timeout_s)
        except TimeoutError:
            raise MnemowireError(
                {
                    "code": "timeout",
                    "message": f"{self.store.name} did not answer within "
                    f"{self.limits.request_timeout_s:g} s (the server's --request-timeout); a "
                    "write may still complete: read before you retry it",
                    "details": [],
                }
            ) from None

    # -- answers -------------------------------------------------------------------------------

    def openapi(self) -> Response:
        return Response(self._openapi, media_type="application/json")

    def no_route(self, path: str) -> str:
        """Why ``path`` is not routed, and where the caller may have meant to go."""
        operation = path.rstrip("/").rpartition("/")[2]
        elsewhere = [
            route.path
            for version in self.versions
            for route in spec.routes(spec.read_spec(version))
            if route.operation == operation and route.path != path
        ]
        if elsewhere:
            return f"no route {path}: {operation} is served at {' and '.join(elsewhere)}"
        known = ", ".join(f"/{v}/" for v in self.versions)
        return f"no route {path}: this server serves {known} (see /openapi.json)"

    def index(self) -> dict[str, Any]:
        return {
            "service": "mnemowire",
            "store": self.store.name,
            "spec_versions": self.versions,
            "openapi": "/openapi.json",
            "authentication": "bearer" if self.tokens is not None else "none (loopback only)",
        }


def _json(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json_bytes(payload), status, headers=headers, media_type="application/json")


def error_response(exc: MnemowireError, operation: str | None = None) -> Response:
    """The error envelope with the status its code maps to (a transport refusal: its own)."""
    envelope = dict(exc.envelope)
    if operation is not None:
        envelope.setdefault("operation", operation)
    status = exc.status if isinstance(exc, HttpError) else spec.ERROR_STATUS.get(exc.code, 500)
    headers = {"www-authenticate": 'Bearer realm="mnemowire"'} if status == 401 else None
    return _json(envelope, status, headers)


def _endpoint(
    route: spec.Route, handle: Callable[[spec.Route, Request], Awaitable[dict[str, Any]]]
) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            return _json(await handle(route, request))
        except MnemowireError as exc:
            return error_response(exc, route.operation)

    return endpoint


def _routes(server: MemoryServer) -> list[BaseRoute]:
    async def index(_request: Request) -> Response:
        return _json(server.index())

    async def openapi(_request: Request) -> Response:
        return server.openapi()

    routes: list[BaseRoute] = [
        Route("/", index, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
    ]
    for version in server.versions:
        for route in spec.routes(spec.read_spec(version)):
            handle = server.operate if route.method == "POST" else server.describe
            routes.append(Route(route.path, _endpoint(route, handle), methods=[route.method]))
    return routes


def _marked(headers: Sequence[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` with HEADERS, those already there (the UI's pages set them) not twice."""
    for name, _ in headers:
        if name in _MARKS:  # Starlette's header names are lower case
            present = {name for name, _ in headers}
            return [*headers, *(header for header in HEADERS if header[0] not in present)]
    return [*headers, *HEADERS]


class _Gated(Starlette):
    """A Starlette application behind the gate every request passes first: outside Starlette's
    own error handling, so nothing it answers (a crash's 500 included) goes around it."""

    def __init__(self, hosts: Hosts, **settings: Any) -> None:
        self.hosts = hosts
        super().__init__(**settings)

    def build_middleware_stack(self) -> ASGIApp:
        inner = super().build_middleware_stack()
        hosts = self.hosts

        async def gate(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":  # the lifespan
                await inner(scope, receive, send)
                return

            async def marked(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message = {**message, "headers": _marked(message.get("headers", ()))}
                await send(message)

            refusal = hosts.refusal(scope)
            answer = inner if refusal is None else error_response(refusal)
            await answer(scope, receive, marked)

        return gate


def create_app(server: MemoryServer, *, ui: bool = False, hosts: Hosts | None = None) -> Starlette:
    """The ASGI application of ``server``; it closes the store when it shuts down. ``ui``:
    the reviewer UI under ``/ui/`` too (docs/governance.md#ui); ``hosts``: the names it answers
    to (default: loopback's, apps.server._hosts)."""
    routes = _routes(server)
    if ui:
        from mnemowire.apps.server.ui import ReviewerUI

        routes += ReviewerUI(server).routes()

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        await server.inflight.drain()
        await server.store.aclose()
        log.info("store closed: %s", server.store.name)

    async def not_routed(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        if status == 405:
            headers = exc.headers if isinstance(exc, HTTPException) else None
            allowed = (headers or {}).get("Allow", "")
            refusal = HttpError(
                405,
                f"{request.method} is not served at {request.url.path}; use {allowed}",
                "method",
            )
            return _json(refusal.envelope, 405, {"allow": allowed})
        return _json(HttpError(status, server.no_route(request.url.path), "route").envelope, status)

    async def gone(request: Request, _exc: Exception) -> Response:
        # ordinary (a client's timeout, a killed process) and anyone's to cause at will: one
        # line, at DEBUG as the server logs no request at INFO (it keeps no access log)
        log.debug("%s %s: the caller went away mid-request", request.method, request.url.path)
        return Response(status_code=400)  # never sent: nobody is listening

    async def crashed(_request: Request, exc: Exception) -> Response:
        log.exception("unexpected error while serving a request", exc_info=exc)
        return _json(
            {"code": "internal", "message": "the server failed; this is a bug: please report "
             "it with the server's log", "details": []},
            500,
        )  # fmt: skip

    return _Gated(
        hosts or Hosts(),
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: not_routed, ClientDisconnect: gone, Exception: crashed},
    )
