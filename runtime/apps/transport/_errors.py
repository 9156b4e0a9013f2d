"""A refusal a transport answers with an HTTP status of its own."""

from __future__ import annotations

from mnemowire.errors import RequestError

__all__ = ["HttpError"]


class HttpError(RequestError):
    """An ``invalid_request`` the transport refuses with a status of its own (404, 405, 408,
    413, 415) instead of 400."""

    def __init__(self, status: int, message: str, rule: str, *, path: str = "") -> None:
        super().__init__(message, details=[{"path": path, "rule": rule, "message": message}])
        self.status = status
