"""What a quick certification in an adapter's tests must show: nothing failing, every skip
with its reason, every check run, and every check its committed (long) report passes still
passing. Shared by the adapters certified in sessions of their own (mem0, cognee, Letta).

A slow backend's certification is cut into shards of about equal time (:func:`shards`), each
a test of its own, so pytest-xdist's two workers share it instead of one waiting on the
other."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mnemowire.conformance import CHECKS, RunOptions, load_report
from mnemowire.conformance.report import Report

__all__ = ["COMMITTED", "QUICK", "ROUTER_CHECKS", "assert_certified", "shards"]

#: the committed reports, one folder per adapter (docs/conformance.md)
COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "conformance"
#: the certification CI runs: every check, few generated cases
QUICK = RunOptions(seed=7, examples=10, stateful_runs=5)


#: the checks CI runs on a router over a slow backend and sqlite-vec (the heavy sessions): those
#: whose answer the router's fan-out decides (its declaration and fidelity, one id per record,
#: replays and conflicts across copies, fused recall, forget, merge, expire, review, update
#: and restore reaching every copy, a refused request changing no copy). The other checks
#: test each child (certified on its own) or the router's validation (the same layer the
#: router over two sqlite-vec stores is certified through, whole, in the main suite); the
#: committed report (``nox -s <backend> -- certify``) runs every check.
ROUTER_CHECKS = (
    "store.capabilities", "store.fidelity", "store.health", "remember.read-your-writes",
    "remember.client-id", "remember.replay", "remember.id-conflict",
    "remember.lossless-semantic", "remember.pending-invisible", "recall.k", "recall.sorted",
    "recall.agent-isolation", "recall.user-scope", "recall.metadata-filter", "recall.hit-shape",
    "recall.relevance-floor", "forget.by-ids", "forget.by-filter", "forget.hard",
    "forget.idempotent", "merge.keep-canonical", "merge.duplicates-gone", "expire.archive",
    "expire.forget", "get.by-id", "list.pages", "update.version", "restore.archived",
    "review.remember", "review.reject", "batch.atomic", "validation.atomic",
)  # fmt: skip


def shards(
    committed: str,
    count: int,
    leave_out: Sequence[str] = (),
    keep: Sequence[str] | None = None,
) -> list[Any]:
    """Every check's id (or those in ``keep``) but ``leave_out``, in ``count`` groups of
    about equal time at :data:`QUICK`: the parameters (``shard-1``, ...) of a test taking
    the group as ``only``.

    The time of a check is its committed report's, scaled to QUICK's counts for the checks
    that generate requests (fuzzing by examples, model checks by runs); longest first, each
    goes to the group with the least time so far. Checks keep their run order in a group."""
    report = load_report(COMMITTED / committed / "report.json")
    header = report.data["header"]
    scale = {
        "fuzz.": QUICK.examples / header["examples"],
        "model.": QUICK.stateful_runs / header["stateful_runs"],
    }
    seconds = {c["id"]: c["duration_ms"] / 1000 for c in report.data["checks"]}
    for check_id in seconds:
        for prefix, factor in scale.items():
            if check_id.startswith(prefix):
                seconds[check_id] *= factor
    order = [c.id for c in CHECKS if c.id not in leave_out and (keep is None or c.id in keep)]
    groups: list[list[str]] = [[] for _ in range(count)]
    loads = [0.0] * count
    for check_id in sorted(order, key=lambda i: -seconds.get(i, 0.0)):
        lightest = loads.index(min(loads))
        groups[lightest].append(check_id)
        loads[lightest] += seconds.get(check_id, 0.0)
    return [
        pytest.param(sorted(group, key=order.index), id=f"shard-{n}")
        for n, group in enumerate(groups, 1)
    ]


def _statuses(report: Report) -> dict[str, str]:
    return {check["id"]: check["status"] for check in report.data["checks"]}


def assert_certified(report: Report, committed: str, only: Sequence[str] = ()) -> None:
    """``report`` certifies its store as ``docs/conformance/<committed>/report.json`` did, on
    every check or on the ids in ``only`` (a shard)."""
    failing = [
        (c["id"], c["reason"]) for c in report.data["checks"] if c["status"] in ("FAIL", "ERROR")
    ]
    assert not failing, failing
    unexplained = [
        c["id"] for c in report.data["checks"] if c["status"] == "SKIP" and not c["reason"]
    ]
    assert not unexplained, unexplained
    now = _statuses(report)
    assert sorted(now) == sorted(only or [c.id for c in CHECKS])
    before = _statuses(load_report(COMMITTED / committed / "report.json"))
    lost = sorted(c for c in now if before.get(c) == "PASS" and now[c] != "PASS")
    assert not lost, f"passed in the committed report, not now: {lost}"
