"""HTTP connections that must send their request in time (docs/transports.md#http.limits).

uvicorn bounds a connection only while it idles between requests: a connection that never
finishes its request line and headers, or trickles them a byte a second, is held for ever and
holds a file descriptor, no token needed (slowloris). Its httptools protocol is extended here:
a request's line and headers must arrive within ``--header-timeout`` (from the connection's
start, or the request's first byte on a kept-alive one), else the connection is closed, and
may bring at most 64 KiB while incomplete (counted per read; then 431, the error envelope). A body
the server never reads (its request refused first: a 404, a 401) must end within that time
after the answer too; uvicorn would hold the connection for as long as the client trickles it.
A body the server reads has ``--body-timeout`` (apps.server._body).

The cost per request is one timer armed and cancelled, none per byte.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from mnemowire.apps.transport._errors import HttpError
from mnemowire.apps.transport._listening import HEADER_TIMEOUT_S
from mnemowire.kit import json_bytes

__all__ = ["MAX_HEAD_BYTES", "bounded_protocol"]

#: the most a request line and headers may bring while still incomplete (counted per read,
#: so a read's worth more may pass; a browser's cookies for localhost fit easily)
MAX_HEAD_BYTES = 64 * 2**10
_ENVELOPE = json_bytes(
    HttpError(
        431,
        f"the request line and headers went on past {MAX_HEAD_BYTES} bytes, the most this "
        "server reads of them; send fewer or shorter headers",
        "maxBytes",
    ).envelope
)
_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\n"
    b"cache-control: no-store\r\nx-content-type-options: nosniff\r\nconnection: close\r\n"
    b"content-length: " + str(len(_ENVELOPE)).encode() + b"\r\n\r\n" + _ENVELOPE
)


class _Bounded(HttpToolsProtocol):
    """uvicorn's httptools protocol, with the request's arrival bounded."""

    timeout_s = HEADER_TIMEOUT_S
    #: closes the connection unless the request (or the body nobody reads) arrives in time
    _deadline: asyncio.TimerHandle | None = None
    #: bytes received while the request line and headers are still incomplete; None after
    _head_bytes: int | None = None

    def _arm(self, *, head: bool) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(self.timeout_s, self._expired)
        self._head_bytes = 0 if head else None

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._head_bytes = None

    def _expired(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(head=True)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        waiting = self._head_bytes
        super().data_received(data)
        # counted when the head was incomplete before this read and is still the same one after
        # it: a read that ends a head (it may carry a body too) is not counted
        if waiting is not None and self._head_bytes == waiting and not self.transport.is_closing():
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._disarm()
                self.transport.write(_TOO_LARGE)
                self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._head_bytes is None:  # a kept-alive connection's next request
            self._arm(head=True)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        if self._deadline is not None:  # the unread body ended in time
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        answered = self.cycle  # not a pipelined request that is still to run
        if answered.response_complete and answered.more_body and not self.transport.is_closing():
            self._arm(head=False)  # answered before its body ended: the rest must come soon


def bounded_protocol(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's ``http`` protocol class, closing connections whose request (line and headers,
    or a body nobody reads) has not arrived ``seconds`` after it should have."""

    class BoundedHttpToolsProtocol(_Bounded):
        timeout_s = seconds

    return BoundedHttpToolsProtocol
