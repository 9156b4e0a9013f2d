"""Latency samples to percentiles, and the machine's load while they were taken."""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence

__all__ = ["load_average", "percentiles"]


def percentiles(samples_ms: Sequence[float]) -> dict[str, float | int]:
    """p50 (the median), p95 and p99 (nearest rank) of millisecond samples, and their count."""
    if not samples_ms:
        raise ValueError("no samples")
    ordered = sorted(samples_ms)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3)

    return {
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": at(0.95),
        "p99_ms": at(0.99),
        "n": len(ordered),
    }


def load_average() -> list[float]:
    """1, 5 and 15 minute load averages (as ``uptime`` shows them): on a shared machine every
    published latency is read next to these. Empty where the OS has no load average."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except (AttributeError, OSError):
        return []
