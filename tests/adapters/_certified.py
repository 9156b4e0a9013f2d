"""What a quick certification in an adapter's tests must show: nothing failing, every skip
with its reason, every check run, and every check its committed (long) report passes still
passing. Shared by the adapters certified in sessions of their own (mem0, cognee, Letta)."""

from __future__ import annotations

from pathlib import Path

from mnemowire.conformance import CHECKS, load_report
from mnemowire.conformance.report import Report

__all__ = ["COMMITTED", "assert_certified"]

#: the committed reports, one folder per adapter (docs/conformance.md)
COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "conformance"


def _statuses(report: Report) -> dict[str, str]:
    return {check["id"]: check["status"] for check in report.data["checks"]}


def assert_certified(report: Report, committed: str) -> None:
    """``report`` certifies its store as ``docs/conformance/<committed>/report.json`` did."""
    failing = [
        (c["id"], c["reason"]) for c in report.data["checks"] if c["status"] in ("FAIL", "ERROR")
    ]
    assert not failing, failing
    unexplained = [
        c["id"] for c in report.data["checks"] if c["status"] == "SKIP" and not c["reason"]
    ]
    assert not unexplained, unexplained
    now = _statuses(report)
    assert len(now) == len(CHECKS)
    before = _statuses(load_report(COMMITTED / committed / "report.json"))
    lost = sorted(c for c, status in before.items() if status == "PASS" and now[c] != "PASS")
    assert not lost, f"passed in the committed report, not now: {lost}"
