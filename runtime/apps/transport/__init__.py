"""What every transport shares and none owns: who may call and as which agents (bearer
``Tokens``, the ``Caller``, ``admitted``), store operations that end whole whatever happens to
the caller (``InFlight``), and where a server listens (``Binding``, the loopback rule, uvicorn
with the request's arrival bounded). The HTTP server (``apps.server``) and MCP (``apps.mcp``)
both build on it and never on each other, so ``mnemowire[mcp]`` needs no Starlette app of ours.

Importing it loads neither Starlette nor uvicorn: uvicorn is imported when a server starts.
"""

from mnemowire.apps.transport._access import (
    ANYONE,
    ENV_TOKENS,
    MIN_TOKEN_LENGTH,
    Caller,
    Tokens,
    admitted,
    agents_named,
    caller_of,
    readable_by_others,
)
from mnemowire.apps.transport._errors import HttpError
from mnemowire.apps.transport._inflight import InFlight
from mnemowire.apps.transport._listening import (
    HEADER_TIMEOUT_S,
    Binding,
    bind,
    check_binding,
    is_loopback,
    serve_announced,
    uvicorn_config,
)

__all__ = [
    "ANYONE",
    "ENV_TOKENS",
    "HEADER_TIMEOUT_S",
    "MIN_TOKEN_LENGTH",
    "Binding",
    "Caller",
    "HttpError",
    "InFlight",
    "Tokens",
    "admitted",
    "agents_named",
    "bind",
    "caller_of",
    "check_binding",
    "is_loopback",
    "readable_by_others",
    "serve_announced",
    "uvicorn_config",
]
