"""The names a server answers to, against DNS rebinding (docs/transports.md#http.hosts).

A web page the user visits can make its own name resolve to 127.0.0.1; its scripts then reach a
server on loopback as their own origin, and a server without tokens answers them as any agent.
What the browser cannot forge is the ``Host`` header: it names the page's name, not the
server's. So a server answers only the names it is reached by: the address it is bound to and
the loopback names (``localhost``, ``127.0.0.1``, ``[::1]``), at the port of the connection, and
the names of ``--allowed-host NAME[:PORT]`` (any port when none is given: the name a proxy in
front passes on). A browser's ``Origin``, when sent, must be one of these too, so a page on
another origin (another port of localhost included) gets nothing either.

A server listening on every address (``0.0.0.0``, ``::``), which needs tokens, cannot know the
names its callers use: given none, it answers any ``Host`` (a rebound page holds no token; a
browser never sends a bearer token on its own) and an ``Origin`` must name the ``Host``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from mnemowire.apps.transport import HttpError
from mnemowire.errors import ConfigError

__all__ = ["Hosts"]

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
EVERY_ADDRESS = frozenset({"0.0.0.0", "::", "[::]", ""})
DEFAULT_PORTS = {"http": 80, "https": 443}
#: a DNS name or an IPv4 address, or (once out of its brackets) an IPv6 address
NAME = re.compile(r"[a-z0-9_][a-z0-9._-]*|[0-9a-f:.]+")
HELP = "start the server with --allowed-host NAME (docs/transports.md#http.hosts)"
#: how many answered (Host, Origin, scheme, address) a server remembers, to pass them at once
KEPT = 1024


def authority(text: str, default_port: int | None) -> tuple[str, int | None] | None:
    """``(name, port)`` of ``host[:port]`` (``[v6]:port`` too), the name lowercased and out of
    its brackets; None when it is not one."""
    if ":" in text and not text.endswith("]"):
        text, _, digits = text.rpartition(":")
        if not (digits.isascii() and digits.isdigit() and 0 < int(digits) < 65536):
            return None
        port: int | None = int(digits)
    else:
        port = default_port
    name = text.lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    return (name, port) if NAME.fullmatch(name) else None


@dataclass(frozen=True)
class Hosts:
    """Which ``Host`` and ``Origin`` a server answers (:meth:`refusal` says why not)."""

    #: the bound name, answered at the connection's port with the loopback names
    bound: str = "127.0.0.1"
    #: ``--allowed-host`` names, each with its port, or None: any port
    named: frozenset[tuple[str, int | None]] = frozenset()
    #: requests answered before, by their raw Host, Origin, scheme and local address
    _passed: set[tuple[Any, ...]] = field(default_factory=set, init=False, compare=False)

    @classmethod
    def of(cls, host: str, allowed: Iterable[str]) -> Hosts:
        """The names a server bound to ``host`` answers, with ``allowed`` (``--allowed-host``
        values, ``NAME`` or ``NAME:PORT``); a ConfigError naming the flag for a bad one."""
        named = set()
        for value in allowed:
            parsed = authority(value.strip(), None)
            if parsed is None:
                raise ConfigError(
                    f"--allowed-host {value!r} is not a host name with an optional :PORT "
                    "(e.g. memory.example.com, or memory.example.com:443)"
                )
            named.add(parsed)
        bound = host.lower().strip("[]")
        return cls(bound, frozenset(named))

    @property
    def anywhere(self) -> bool:
        """Any Host: bound to every address with no names given (tokens guard it)."""
        return self.bound in EVERY_ADDRESS and not self.named

    def answers(self, name: str, port: int | None, local: Any) -> bool:
        """Whether ``name:port`` is this server's, on a connection to ``local`` (ASGI's
        ``server``: the address and port the caller reached)."""
        if (name, None) in self.named or (name, port) in self.named:
            return True
        if not local or port != local[1]:
            return False
        return name in LOOPBACK_NAMES or name == self.bound or name == str(local[0]).lower()

    def refusal(self, scope: MutableMapping[str, Any]) -> HttpError | None:
        """Why the request of ``scope`` is refused (421 ``host``, 403 ``origin``), or None."""
        raw_host = raw_origin = None
        hosts = 0
        for key, value in scope["headers"]:
            if key == b"host":
                raw_host, hosts = value, hosts + 1
            elif key == b"origin":
                raw_origin = value
        local = scope.get("server")
        seen = (raw_host, raw_origin, scope["scheme"], local and tuple(local))
        if hosts == 1 and seen in self._passed:  # a client's every request but its first
            return None
        host = raw_host.decode("latin-1") if raw_host is not None else None
        origin = raw_origin.decode("latin-1") if raw_origin is not None else None
        refused = self._judged(scope["scheme"], hosts, host, origin, local)
        if refused is None and hosts == 1:
            if len(self._passed) >= KEPT:
                self._passed.clear()
            self._passed.add(seen)
        return refused

    def _judged(
        self, scheme: str, hosts: int, host: str | None, origin: str | None, local: Any
    ) -> HttpError | None:
        reached = authority(host, DEFAULT_PORTS.get(scheme, 80)) if host else None
        if hosts != 1 or reached is None or not (self.anywhere or self.answers(*reached, local)):
            shown = "no Host" if hosts == 0 else "two Hosts" if hosts > 1 else f"Host {host!r}"
            return HttpError(
                421,
                f"this server does not answer requests naming {shown} (a web page may be trying "
                f"DNS rebinding): reach it by the address it listens on, or {HELP}",
                "host",
            )
        if origin is not None and not self._from_here(origin, reached, local):
            return HttpError(
                403,
                f"requests from web pages at {origin} are refused: a browser's Origin must be "
                f"this server's own (no cross-site requests, CSRF); if that page is yours, {HELP}",
                "origin",
            )
        return None

    def _from_here(self, origin: str, reached: tuple[str, int | None], local: Any) -> bool:
        scheme, _, rest = origin.partition("://")
        if scheme not in DEFAULT_PORTS:
            return False  # `null` (a sandboxed or file page), or not a web page at all
        page = authority(rest, DEFAULT_PORTS[scheme])
        if page is None:
            return False
        if self.anywhere:
            return page[0] == reached[0]
        return self.answers(*page, local)
