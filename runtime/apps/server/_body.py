"""Reading a request's JSON body within the server's limits (docs/transports.md#http.limits).

A body is refused before it is parsed when it is not declared ``application/json`` (415),
declares or turns out to be larger than the limit (413, counted as it streams, so a client
that lies in Content-Length is cut off at the limit, not after), or does not arrive within the
body deadline (408: a client sending one byte a second holds no worker for long). What arrives
is parsed as strict JSON (no NaN or Infinity, UTF-8 only) into the value the boundary
validates; each refusal is the spec's error envelope with a rule naming the limit.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from mnemowire.apps.transport import HEADER_TIMEOUT_S, HttpError
from mnemowire.errors import RequestError
from mnemowire.spec import loads_strict

__all__ = ["Limits", "read_json"]

MIB = 2**20


@dataclass(frozen=True)
class Limits:
    """What one request may cost the server."""

    #: the largest body accepted, in bytes (a full batch of 1000 remembers fits easily)
    max_body_bytes: int = 4 * MIB
    #: how long a body may take to arrive, from the first byte read
    body_timeout_s: float = 10.0
    #: how long a request line and headers may take to arrive, from the connection's start
    #: (or the request's first byte, on a kept-alive one): apps.transport._protocol
    header_timeout_s: float = HEADER_TIMEOUT_S
    #: how long an operation may take before the caller gets ``timeout`` (the operation
    #: itself still runs to its end: a write is never cut in half)
    request_timeout_s: float = 30.0

    def __post_init__(self) -> None:
        if self.max_body_bytes < 1024:
            raise ValueError("max_body_bytes must be at least 1024")
        if min(self.body_timeout_s, self.header_timeout_s, self.request_timeout_s) <= 0:
            raise ValueError("timeouts must be positive")


def _check_media_type(request: Request) -> None:
    declared = request.headers.get("content-type", "")
    media, *params = [part.strip() for part in declared.split(";")]
    charset = next((p.split("=", 1)[1].strip('" ').lower() for p in params if "=" in p and
                    p.split("=", 1)[0].strip().lower() == "charset"), "utf-8")  # fmt: skip
    if media.lower() != "application/json" or charset not in {"utf-8", "utf8"}:
        shown = declared or "no Content-Type"
        raise HttpError(
            415,
            f"the body must be JSON sent as `Content-Type: application/json` (got {shown})",
            "contentType",
        )


async def read_json(request: Request, limits: Limits) -> Any:
    """The request's body as a JSON value, within ``limits``; HttpError or RequestError."""
    _check_media_type(request)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise _too_large(limits)
    body = bytearray()
    try:
        async with asyncio.timeout(limits.body_timeout_s):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limits.max_body_bytes:
                    raise _too_large(limits)
    except TimeoutError:
        raise HttpError(
            408,
            f"the body did not arrive within {limits.body_timeout_s:g} s; send it at once "
            "(the server's --body-timeout)",
            "timeout",
        ) from None
    if not body:
        raise RequestError(
            "the request has no body; send the request message as JSON",
            details=[{"path": "", "rule": "json", "message": "is empty"}],
        )
    try:  # decoded here: json.loads would take UTF-16 and UTF-32 too, which JSON on the wire is not
        return loads_strict(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        reason = f"not UTF-8 ({exc.reason} at byte {exc.start})"
        raise RequestError(
            f"the body is {reason}; send JSON in UTF-8",
            details=[{"path": "", "rule": "json", "message": reason}],
        ) from None
    except ValueError as exc:
        raise RequestError(
            f"the body is not JSON: {exc}; send one JSON object",
            details=[{"path": "", "rule": "json", "message": str(exc)}],
        ) from None


def _too_large(limits: Limits) -> HttpError:
    return HttpError(
        413,
        f"the body is larger than {limits.max_body_bytes} bytes, the most this server accepts "
        "(its --max-body); split a batch into smaller ones",
        "maxBytes",
    )
