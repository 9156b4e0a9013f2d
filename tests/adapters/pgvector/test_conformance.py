"""The conformance harness passes the pgvector store: every scenario check, plus a short
stateful model-checking run. The full certification (fuzzing from the schemas, longer model
runs) is ``mnemowire certify pgvector://...``; docs/adapters/pgvector.md has its result."""

from __future__ import annotations

from mnemowire.conformance import CHECKS, RunOptions, certify, url_factory

QUICK = RunOptions(seed=5, examples=10, stateful_runs=5)
#: every scenario check and the model check; fuzzing (minutes on a real server) is left out
CHECK_IDS = [c.id for c in CHECKS if not c.id.startswith("fuzz.")]


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
