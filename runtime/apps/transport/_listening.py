"""Where a transport listens: binding, the loopback rule, and uvicorn started so that its
announcement comes once it serves (the HTTP server, MCP over HTTP and the embeddings tool).

A server with no tokens answers anyone who can reach it as any agent, so it binds only to a
loopback address (``127.0.0.1``, ``::1``, ``localhost``); another host is refused at start with
what to do instead. The socket is bound here, before uvicorn starts, so ``--port 0`` works and
the line announcing the server carries the real port (``serving <store> at http://HOST:PORT``),
which scripts and tests read; it is printed once the server serves (``serve_announced``).
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from mnemowire.errors import ConfigError

if TYPE_CHECKING:
    import uvicorn

#: how long a request line and headers may take by default (``--header-timeout``): a
#: connection that never finishes them is closed (apps.transport._protocol)
HEADER_TIMEOUT_S = 10.0

__all__ = [
    "HEADER_TIMEOUT_S",
    "Binding",
    "bind",
    "check_binding",
    "is_loopback",
    "serve_announced",
    "uvicorn_config",
]


@dataclass(frozen=True)
class Binding:
    host: str = "127.0.0.1"
    port: int = 8765
    #: TLS: both files, or neither
    certfile: str | None = None
    keyfile: str | None = None
    #: seconds in-flight requests may take to finish once a stop was asked for
    grace_s: int = 30


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_binding(binding: Binding, authenticated: bool) -> list[str]:
    """Refuse a binding that would expose an unauthenticated server; the warnings to print
    for one that is allowed."""
    if (binding.certfile is None) != (binding.keyfile is None):
        raise ConfigError("TLS needs both --tls-cert and --tls-key")
    if not authenticated and not is_loopback(binding.host):
        raise ConfigError(
            f"refusing to serve on {binding.host} without tokens: anyone who can reach it could "
            "read and write every agent's memories. Give --tokens FILE (or "
            "$MNEMOWIRE_SERVER_TOKENS), or serve on --host 127.0.0.1"
        )
    warnings = []
    if not authenticated:
        warnings.append("no tokens: serving without authentication, on loopback only")
    elif binding.certfile is None and not is_loopback(binding.host):
        warnings.append(
            "tokens travel in clear text without TLS: give --tls-cert and --tls-key, or put a "
            "TLS proxy in front"
        )
    return warnings


def bind(binding: Binding) -> socket.socket:
    family = socket.AF_INET6 if ":" in binding.host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say so, and without it
    # a kept-alive connection waits ~40 ms for a delayed ACK between a response's two writes
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((binding.host.strip("[]"), binding.port))
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"cannot listen on {binding.host}:{binding.port}: {exc.strerror}; choose another "
            "--port (0 picks a free one)"
        ) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def uvicorn_config(
    app: Any,
    binding: Binding,
    *,
    header_timeout_s: float = HEADER_TIMEOUT_S,
    **overrides: Any,
) -> uvicorn.Config:
    """How uvicorn runs a server's ASGI ``app`` (the MCP server's too; tests run the same
    configuration in a thread): its connections must send each request line and headers
    within ``header_timeout_s`` (apps.transport._protocol)."""
    import uvicorn

    from mnemowire.apps.transport._protocol import bounded_protocol

    settings: dict[str, Any] = {
        "http": bounded_protocol(header_timeout_s),
        "log_level": "info",
        "access_log": False,
        "timeout_graceful_shutdown": binding.grace_s,
        "ssl_certfile": binding.certfile,
        "ssl_keyfile": binding.keyfile,
        "server_header": False,
        "lifespan": "on",
        **overrides,
    }
    return uvicorn.Config(app, **settings)


def serve_announced(
    config: uvicorn.Config, sock: socket.socket, line: str, announce: TextIO = sys.stdout
) -> None:
    """Run uvicorn on ``sock`` and print ``line`` once it serves: after its startup, when its
    own SIGINT and SIGTERM handlers are in place. Announced earlier, a Ctrl-C right after the
    line could land in asyncio's handler instead, which cancels the starting server without
    stopping it (seen once in CI: a server that never stopped)."""
    import uvicorn

    class Announcing(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if not self.should_exit:
                print(line, file=announce, flush=True)

    Announcing(config).run(sockets=[sock])
