"""``mnemowire mcp``: the memorywire operations as MCP tools, and recall as an MCP resource
template, on the official ``mcp`` SDK (docs/transports.md#mcp). Needs the ``mcp`` extra."""

from mnemowire.apps.mcp._run import http_app, run_http, serve_stdio
from mnemowire.apps.mcp._server import RECALL_TEMPLATE, MemoryTools, build_server

__all__ = ["RECALL_TEMPLATE", "MemoryTools", "build_server", "http_app", "run_http", "serve_stdio"]
