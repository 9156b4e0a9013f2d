"""Calling a Letta server: the client as the store configures it, and Letta's failures as the
spec's errors (the server's address in every message, never a traceback)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from mnemowire.errors import MnemowireError, StoreError, UnavailableError

__all__ = ["RETRIES", "connect", "gone", "letta_errors"]

#: how often the client retries a request that failed with 408, 409, 429, 5xx or no connection
RETRIES = 2


def connect(base_url: str, timeout_s: float, token_env: str | None) -> Any:
    """A letta-client for ``base_url`` whose retries fit in ``timeout_s``: each of the
    ``RETRIES + 1`` attempts gets an even share (its backoff between adds at most ~2 s)."""
    from letta_client import Letta

    key = os.environ.get(token_env, "") if token_env else ""
    return Letta(
        base_url=base_url,
        api_key=key or "unused",  # a server started without --secure checks no key
        timeout=timeout_s / (RETRIES + 1),
        max_retries=RETRIES,
    )


def gone(exc: BaseException) -> bool:
    """Whether Letta answered 404 (a passage deleted already)."""
    from letta_client import NotFoundError

    return isinstance(exc, NotFoundError)


@contextlib.contextmanager
def letta_errors(store: str, base_url: str, timeout_s: float) -> Iterator[None]:
    """Letta's exceptions inside the block as the spec's errors."""
    import letta_client

    try:
        yield
    except MnemowireError:
        raise
    except letta_client.APITimeoutError:
        raise MnemowireError(
            {
                "code": "timeout",
                "message": f"{store}: Letta at {base_url} did not answer within {timeout_s:g} s "
                "(the URL's timeout option); a write may still land: read before you retry",
                "details": [],
            }
        ) from None
    except letta_client.APIConnectionError as exc:
        raise UnavailableError(
            f"{store}: cannot reach Letta at {base_url} ({exc}); is the server running? "
            "(python -m mnemowire.apps.tools.letta start starts one)"
        ) from None
    except letta_client.APIStatusError as exc:
        detail = _detail(exc)
        if exc.status_code >= 500:
            raise UnavailableError(
                f"{store}: Letta at {base_url} failed (HTTP {exc.status_code}): {detail}"
            ) from None
        raise StoreError(
            f"{store}: Letta at {base_url} refused a request (HTTP {exc.status_code}): {detail}"
        ) from None


def _detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and "detail" in body:
        return str(body["detail"])[:500]
    return str(exc)[:500]
