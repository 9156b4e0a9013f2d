"""The conformance harness: a correct store passes, every broken miniature is caught by the
check that exists for it, failures come with reproducers, and the reports are well-formed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemowire.cli import Exit, cli
from mnemowire.conformance import (
    CHECKS,
    RunOptions,
    certify,
    load_report,
    url_factory,
    write_outputs,
)
from mnemowire.conformance.miniatures import DEFECTS, broken

STORE = "sqlite-vec://:memory:?embedder=hash:64"
QUICK = RunOptions(seed=3, examples=15, stateful_runs=10)
#: the check that exists to catch each defect
CAUGHT_BY = {
    "ignores-user": "recall.user-scope",
    "leaks-pending": "remember.pending-invisible",
    "forget-noop": "forget.by-ids",
    "loses-type": "remember.lossless-episodic",
    "other-agents": "recall.agent-isolation",
    "crashes-on-metadata": "remember.lossless-semantic",
    "drops-metadata": "remember.lossless-semantic",
    "ignores-k": "recall.k",
    "unsorted": "recall.sorted",
    "matches-everything": "expire.empty-policy",
    "forgets-everyone": "forget.user-scope",
    "demote-compounds": "expire.demote",
    "invalid-responses": "remember.read-your-writes",
    "no-client-ids": "remember.client-id",
}


def test_there_are_at_least_thirty_scenario_checks_each_citing_a_spec_section() -> None:
    spec_text = (Path(__file__).parents[2] / "docs" / "spec" / "v0.md").read_text()
    scenarios = [c for c in CHECKS if not c.id.startswith(("fuzz.", "model."))]
    assert len(scenarios) >= 30
    for item in CHECKS:
        assert f'id="{item.section}"' in spec_text, f"{item.id} cites unknown {item.section}"
        assert item.strength in ("MUST", "SHOULD", "MAY")


def test_every_defect_has_a_catching_check() -> None:
    assert set(CAUGHT_BY) == set(DEFECTS)
    assert set(CAUGHT_BY.values()) <= {c.id for c in CHECKS}


@pytest.mark.parametrize("defect", sorted(DEFECTS))
async def test_each_broken_store_is_caught(defect: str) -> None:
    report = await certify(
        broken(url_factory(STORE), defect), options=QUICK, only=[CAUGHT_BY[defect]]
    )
    [result] = report.data["checks"]
    assert result["status"] in ("FAIL", "ERROR"), f"{defect} slipped through: {result}"
    assert result["reason"]


async def test_the_model_check_shrinks_a_failure_into_a_reproducer() -> None:
    report = await certify(
        broken(url_factory(STORE), "other-agents"), options=QUICK, only=["model.stateful"]
    )
    [result] = report.data["checks"]
    assert result["status"] == "FAIL"
    assert "state.remember(" in (result["reproducer"] or "")
    assert "state.recall(" in result["reproducer"]


async def test_fuzzing_reports_the_offending_request() -> None:
    report = await certify(
        broken(url_factory(STORE), "crashes-on-metadata"),
        options=QUICK,
        only=["fuzz.remember.valid"],
    )
    [result] = report.data["checks"]
    assert result["status"] == "FAIL"
    assert "KeyError" in result["reason"]
    assert json.loads(result["reproducer"])["metadata"]


async def test_a_store_without_a_capability_is_skipped_with_the_reason() -> None:
    class WithoutMerge:
        def __init__(self, inner: object) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

        def capabilities(self) -> object:
            declared = self.inner.capabilities()  # type: ignore[attr-defined]
            kept = [c for c in declared.capabilities if c != "merge"]
            return declared.model_copy(update={"capabilities": kept})

    import contextlib
    from collections.abc import AsyncIterator

    @contextlib.asynccontextmanager
    async def factory() -> AsyncIterator[object]:
        async with url_factory(STORE)() as store:
            yield WithoutMerge(store)

    report = await certify(factory, options=QUICK, only=["merge."])  # type: ignore[arg-type]
    assert {c["status"] for c in report.data["checks"]} == {"SKIP"}
    assert "merge" in report.data["checks"][0]["reason"]
    assert report.summary["SKIP"] == len(report.data["checks"])


async def test_reports_are_written_valid_and_readable(tmp_path: Path) -> None:
    report = await certify(url_factory(STORE), options=QUICK, only=["recall.k", "store."])
    paths = write_outputs(report, tmp_path)
    assert sorted(p.name for p in paths) == [
        "badge.json",
        "matrix.html",
        "report.json",
        "report.md",
    ]
    again = load_report(tmp_path / "report.json")
    assert again.summary == {"PASS": 3, "FAIL": 0, "SKIP": 0, "ERROR": 0}
    header = again.data["header"]
    assert header["spec_digest"].startswith("sha256:")
    assert header["seed"] == 3
    assert json.loads((tmp_path / "badge.json").read_text())["message"] == "3/3 pass"
    assert "recall.k" in (tmp_path / "matrix.html").read_text()


def test_certify_command_exit_codes(tmp_path: Path) -> None:
    good = CliRunner().invoke(
        cli,
        [
            "certify",
            "sqlite-vec://:memory:",
            "--embedder",
            "hash:32",
            "--only",
            "recall.k",
            "--out",
            str(tmp_path / "good"),
        ],
    )
    assert good.exit_code == Exit.OK, good.output
    assert json.loads(good.stdout.splitlines()[-1])["PASS"] == 1


def test_pytest_plugin_runs_the_checks_in_an_adapters_own_suite(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        textwrap.dedent("""
        import contextlib
        import pytest
        from mnemowire.adapters.sqlite_vec import SqliteVecStore
        from mnemowire.embedders import HashEmbedder

        pytest_plugins = ["mnemowire.conformance.pytest_plugin"]

        @pytest.fixture
        def memorywire_store_factory():
            @contextlib.asynccontextmanager
            async def opened():
                store = SqliteVecStore(":memory:", embedder=HashEmbedder(32))
                try:
                    yield store
                finally:
                    await store.aclose()
            return opened
    """)
    )
    (tmp_path / "test_memorywire.py").write_text(
        textwrap.dedent("""
        from mnemowire.conformance.pytest_plugin import conformance_tests
        test_memorywire = conformance_tests(only=["recall.", "forget.by-ids"])
    """)
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout
