"""Running the MCP server: over stdio (a host starts ``mnemowire mcp`` as its child) or over
streamable HTTP (uvicorn, the same binding rules as ``mnemowire serve``).

Over stdio, stdout is the protocol: nothing else may be printed there, so every log line goes
to stderr. Over HTTP the endpoint is ``/mcp`` (a Route, not a Mount: a Mount answers each POST
with a redirect to ``/mcp/``), with the SDK's DNS-rebinding protection limited to the host the
server was started on.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from typing import TextIO

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route

from mnemowire.apps.mcp._server import MemoryTools, build_server
from mnemowire.apps.transport import Binding, bind, check_binding, serve_announced, uvicorn_config

__all__ = ["http_app", "run_http", "serve_stdio"]

log = logging.getLogger("mnemowire.mcp")


async def serve_stdio(tools: MemoryTools) -> None:
    """Serve one host over this process's stdin and stdout until it closes them."""
    from mcp.server.stdio import stdio_server

    server = build_server(tools)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await tools.inflight.drain()
        await tools.store.aclose()


def http_app(tools: MemoryTools, host: str = "127.0.0.1") -> Starlette:
    """The streamable HTTP endpoint ``/mcp`` as an ASGI app; it closes the store on shutdown."""
    shown = f"[{host}]" if ":" in host else host
    hosts = {shown, "127.0.0.1", "localhost"} if host not in ("0.0.0.0", "::") else {"*"}
    manager = StreamableHTTPSessionManager(
        app=build_server(tools),
        stateless=True,
        json_response=True,
        security_settings=TransportSecuritySettings(
            enable_dns_rebinding_protection="*" not in hosts,
            allowed_hosts=sorted(f"{h}:*" for h in hosts),
            allowed_origins=sorted(f"http://{h}:*" for h in hosts),
        ),
    )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield
        await tools.inflight.drain()
        await tools.store.aclose()

    return Starlette(routes=[Route("/mcp", StreamableHTTPASGIApp(manager))], lifespan=lifespan)


def run_http(tools: MemoryTools, binding: Binding, *, announce: TextIO = sys.stdout) -> None:
    """Serve MCP over streamable HTTP until SIGINT or SIGTERM."""

    for warning in check_binding(binding, tools.tokens is not None):
        log.warning(warning)
    sock = bind(binding)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    config = uvicorn_config(http_app(tools, binding.host), binding, log_level="warning")
    scheme = "https" if binding.certfile else "http"
    line = (
        f"serving MCP for {tools.store.name} at {scheme}://{shown}:{port}/mcp (spec "
        f"{tools.version}; tools: {', '.join(tools.operations)})"
    )
    serve_announced(config, sock, line, announce)
