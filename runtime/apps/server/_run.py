"""Running the HTTP server under uvicorn, bound and stopped as every transport is
(apps.transport._listening).

SIGINT and SIGTERM stop the server gracefully: it stops accepting connections, lets requests in
flight finish (up to ``grace_s``), waits for every store operation still running (a write is
never cut in half) and closes the store.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

from mnemowire.apps.server._app import MemoryServer, create_app
from mnemowire.apps.server._hosts import Hosts
from mnemowire.apps.transport import Binding, bind, check_binding, serve_announced, uvicorn_config

__all__ = ["run"]

log = logging.getLogger("mnemowire.server")


def run(
    server: MemoryServer,
    binding: Binding,
    *,
    ui: bool = False,
    hosts: Hosts | None = None,
    announce: TextIO = sys.stdout,
) -> None:
    """Serve until SIGINT or SIGTERM; the store is closed on the way out. ``ui``: the
    reviewer UI too, at ``/ui/``; ``hosts``: the names it answers to (default: those of
    ``binding``'s host, apps.server._hosts)."""
    for warning in check_binding(binding, server.tokens is not None):
        log.warning(warning)
    sock = bind(binding)
    host, port = sock.getsockname()[:2]
    scheme = "https" if binding.certfile else "http"
    shown = f"[{host}]" if ":" in host else host
    app = create_app(server, ui=ui, hosts=hosts or Hosts.of(binding.host, ()))
    config = uvicorn_config(app, binding, header_timeout_s=server.limits.header_timeout_s)
    reviewing = f"; reviewer UI at {scheme}://{shown}:{port}/ui/" if ui else ""
    line = (
        f"serving {server.store.name} at {scheme}://{shown}:{port} (spec "
        f"{', '.join(server.versions)}; OpenAPI at /openapi.json{reviewing})"
    )
    serve_announced(config, sock, line, announce)
