"""Times as people read them, for every application that shows one (the CLI's pretty output,
the reviewer UI): one helper, so a time no calendar can show fails none of them."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["when"]


def when(epoch_ms: object) -> str:
    """EpochMillis as UTC to the second; past year 9999 (EpochMillis runs to 2**53 - 1, year
    287396), the number itself; anything but an integer (an audit entry rewritten behind the
    store's back) as it is, and nothing for None."""
    if epoch_ms is None:
        return ""
    if not isinstance(epoch_ms, int) or isinstance(epoch_ms, bool):
        return str(epoch_ms)
    try:
        return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, ValueError, OSError):
        return f"{epoch_ms} ms after the epoch"
