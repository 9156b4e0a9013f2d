"""How long validating one message takes: the cost of sitting on every request."""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable
from typing import Any

from mnemowire import spec
from mnemowire.spec.lint import reference_validator

CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "remember (typical)": (
        "remember.request",
        {
            "agent_id": "assistant-1",
            "user_id": "alice",
            "type": "semantic",
            "content": "Alice is allergic to peanuts and tree nuts.",
            "metadata": {"topic": "health"},
            "confidence": 0.9,
            "source": "chat",
        },
    ),
    "remember (minimal)": (
        "remember.request",
        {"agent_id": "assistant-1", "type": "semantic", "content": "Alice likes tea."},
    ),
    "recall (filtered)": (
        "recall.request",
        {
            "agent_id": "assistant-1",
            "user_id": "alice",
            "query": "what should I not serve Alice?",
            "k": 10,
            "types": ["semantic", "episodic"],
            "filter": {"topic": "health", "importance": {"$gte": 2}},
        },
    ),
    "remember (invalid, envelope)": (
        "remember.request",
        {"agent_id": "a", "type": "semantic", "content": "x", "confidence": 1.5, "typo": 1},
    ),
}


def _time(call: Callable[[], object], seconds: float = 0.3) -> dict[str, float]:
    """Per-call microseconds over batches: median and p95 of the batch means."""
    loops = 1
    while True:  # size batches to ~10 ms
        start = time.perf_counter()
        for _ in range(loops):
            call()
        if time.perf_counter() - start > 0.01:
            break
        loops *= 2
    samples: list[float] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(samples) < 5:
        start = time.perf_counter()
        for _ in range(loops):
            call()
        samples.append((time.perf_counter() - start) / loops * 1e6)
    samples.sort()
    return {
        "p50_us": round(statistics.median(samples), 2),
        "p95_us": round(samples[int(0.95 * (len(samples) - 1))], 2),
    }


def _all_errors(validator: Any, payload: Any) -> list[Any]:
    return list(validator.iter_errors(payload))


def run_validation(seconds: float = 0.3) -> list[dict[str, Any]]:
    """Time mnemowire.spec.validate, and python-jsonschema on the same payload for scale."""
    rows = []
    for name, (message, payload) in CASES.items():
        oracle = reference_validator(spec.read_spec(), message)
        ours = _time(functools.partial(spec.validate, message, payload), seconds)
        reference = _time(functools.partial(_all_errors, oracle, payload), seconds)
        rows.append(
            {"case": name, "message": message, "mnemowire": ours, "python_jsonschema": reference}
        )
    return rows
