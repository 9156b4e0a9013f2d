"""The conformance harness passes the pgvector store: every scenario check, plus a short
stateful model-checking run. The full certification (fuzzing from the schemas, longer model
runs) is ``nox -s conformance``; its report is committed in docs/conformance/pgvector/ and
tests/conformance/test_committed_reports.py holds it to zero skips."""

from __future__ import annotations

from pathlib import Path

from mnemowire.conformance import CHECKS, RunOptions, certify, load_report, url_factory

QUICK = RunOptions(seed=5, examples=10, stateful_runs=5)
#: every scenario check and the model check; fuzzing (minutes on a real server) is left out
CHECK_IDS = [c.id for c in CHECKS if not c.id.startswith("fuzz.")]
COMMITTED = Path(__file__).resolve().parents[3] / "docs/conformance/pgvector/report.json"


async def test_the_store_passes_every_conformance_check(pg_dsn: str, schema: str) -> None:
    url = "pgvector://" + pg_dsn.removeprefix("postgresql://")
    url += ("&" if "?" in url else "?") + f"schema={schema}&embedder=hash:64"
    report = await certify(url_factory(url), options=QUICK, only=CHECK_IDS)
    outcomes = {check["id"]: check["status"] for check in report.data["checks"]}
    failed = {
        check["id"]: check["reason"] for check in report.data["checks"] if check["status"] != "PASS"
    }
    assert failed == {}
    assert len(outcomes) == len(CHECK_IDS) >= 50


def test_the_committed_report_certifies_every_check_this_harness_has() -> None:
    committed = load_report(COMMITTED).data["checks"]
    assert sorted(c["id"] for c in committed) == sorted(c.id for c in CHECKS)
