"""``mnemowire serve``: the memorywire operations over HTTP (docs/transports.md).

Starlette on uvicorn; one route per operation and spec version, bodies validated at the one
boundary, bearer tokens mapped to the agents each may act as (``apps.transport``, shared with
MCP), OpenAPI at ``/openapi.json``.

>>> server = MemoryServer(store, tokens=Tokens.load(Path("tokens.json")))   # doctest: +SKIP
>>> run(server, Binding(host="0.0.0.0", port=8765),
...     hosts=Hosts.of("0.0.0.0", ["memory.example.com"]))                 # doctest: +SKIP
"""

from mnemowire.apps.server._app import MemoryServer, create_app, error_response
from mnemowire.apps.server._body import Limits
from mnemowire.apps.server._hosts import Hosts
from mnemowire.apps.server._run import run

__all__ = ["Hosts", "Limits", "MemoryServer", "create_app", "error_response", "run"]
