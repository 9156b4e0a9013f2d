"""``mnemowire serve``: the memorywire operations over HTTP (docs/transports.md).

Starlette on uvicorn; one route per operation and spec version, bodies validated at the one
boundary, bearer tokens mapped to the agents each may act as, OpenAPI at ``/openapi.json``.

>>> server = MemoryServer(store, tokens=Tokens.load(Path("tokens.json")))   # doctest: +SKIP
>>> run(server, Binding(host="0.0.0.0", port=8765),
...     hosts=Hosts.of("0.0.0.0", ["memory.example.com"]))                 # doctest: +SKIP
"""

from mnemowire.apps.server._app import MemoryServer, create_app, error_response
from mnemowire.apps.server._auth import (
    ANYONE,
    ENV_TOKENS,
    Caller,
    Tokens,
    admitted,
    agents_named,
    caller_of,
)
from mnemowire.apps.server._body import Limits
from mnemowire.apps.server._hosts import Hosts
from mnemowire.apps.server._inflight import InFlight
from mnemowire.apps.server._run import (
    Binding,
    bind,
    check_binding,
    is_loopback,
    run,
    serve_announced,
    uvicorn_config,
)

__all__ = [
    "ANYONE",
    "ENV_TOKENS",
    "Binding",
    "Caller",
    "Hosts",
    "InFlight",
    "Limits",
    "MemoryServer",
    "Tokens",
    "admitted",
    "agents_named",
    "bind",
    "caller_of",
    "check_binding",
    "create_app",
    "error_response",
    "is_loopback",
    "run",
    "serve_announced",
    "uvicorn_config",
]
