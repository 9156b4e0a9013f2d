"""CI certifies the pgvector store on the real server its fixture starts: every conformance
check, fuzzing included, at small example counts (~15 s), and writes the report files. The
longer certification (200 examples, 50 model runs, the real embedder) is ``nox -s
conformance``; its report is committed in docs/conformance/pgvector/ and
tests/conformance/test_committed_reports.py holds it to no skip but that one."""

from __future__ import annotations

from pathlib import Path

from mnemowire.conformance import (
    CHECKS,
    RunOptions,
    certify,
    load_report,
    url_factory,
    write_outputs,
)

QUICK = RunOptions(seed=5, examples=10, stateful_runs=5)
COMMITTED = Path(__file__).resolve().parents[3] / "docs/conformance/pgvector/report.json"


async def test_the_store_passes_every_conformance_check(
    pg_dsn: str, schema: str, tmp_path: Path
) -> None:
    url = "pgvector://" + pg_dsn.removeprefix("postgresql://")
    url += ("&" if "?" in url else "?") + f"schema={schema}&embedder=hash:64"
    report = await certify(url_factory(url), options=QUICK)
    outcomes = {check["id"]: check["status"] for check in report.data["checks"]}
    failed = {
        check["id"]: check["reason"] for check in report.data["checks"] if check["status"] != "PASS"
    }
    # it declares every capability, so the check of undeclared ones has nothing to send
    assert failed == {
        "store.undeclared-refused": "the store declares every capability a request can need"
    }
    assert len(outcomes) == len(CHECKS) >= 50
    written = write_outputs(report, tmp_path / "report")
    assert load_report(written[0]).summary["PASS"] == len(CHECKS) - 1


def test_the_committed_report_certifies_every_check_this_harness_has() -> None:
    committed = load_report(COMMITTED).data["checks"]
    assert sorted(c["id"] for c in committed) == sorted(c.id for c in CHECKS)
