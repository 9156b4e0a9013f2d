"""The conformance harness: a correct store passes, every broken miniature is caught by the
check that exists for it, failures come with reproducers, and the reports are well-formed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mnemowire.apps.cli import Exit, cli
from mnemowire.conformance import (
    CHECKS,
    RunOptions,
    certify,
    load_report,
    select_checks,
    url_factory,
    write_outputs,
)
from mnemowire.conformance._harness import TIME_WINDOWS_S, CheckFailed, Harness, Parsed
from mnemowire.conformance.miniatures import DEFECTS, broken
from mnemowire.models import RememberRequest

STORE = "sqlite-vec://:memory:?embedder=hash:64"
QUICK = RunOptions(seed=3, examples=15, stateful_runs=10)
#: the model check as certify runs it by default (50 sequences)
MODEL = RunOptions(seed=3, examples=15, stateful_runs=50)
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
    "matches-everything": "expire.confidence-below",
    "forgets-everyone": "forget.user-scope",
    "demote-compounds": "expire.demote",
    "invalid-responses": "remember.read-your-writes",
    "no-client-ids": "remember.client-id",
    "expire-ignores-user": "expire.user-scope",
    "empty-types-nothing": "recall.empty-types",
    "undeclared-expiry": "store.undeclared-refused",
    "trims-text": "store.fidelity",
    "rounds-numbers": "store.fidelity",
    "keeps-unsupported": "store.fidelity",
    "loses-a-child": "recall.sorted",
    "decides-any-version": "review.version",
    "audit-skips-forget": "audit.chain",
    "audit-keeps-content": "audit.no-content",
}
#: defects the stateful model check catches too (it must, not only the scenario written for it)
MODEL_CATCHES = ["expire-ignores-user", "empty-types-nothing", "forgets-everyone", "leaks-pending"]


def test_there_are_at_least_thirty_scenario_checks_each_citing_a_spec_section() -> None:
    prose = Path(__file__).parents[2] / "docs" / "spec"
    scenarios = [c for c in CHECKS if not c.id.startswith(("fuzz.", "model."))]
    assert len(scenarios) >= 30
    for item in CHECKS:
        spec_text = (prose / item.document).read_text()
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


def test_only_names_a_check_by_its_id_or_checks_by_a_prefix() -> None:
    assert [c.id for c in select_checks(["review.merge"])] == ["review.merge"]
    assert {c.id for c in select_checks(["review.merge", "review.merge-into"])} == {
        "review.merge",
        "review.merge-into",
    }
    recall = select_checks(["recall."])
    assert len(recall) > 5
    assert all(c.id.startswith("recall.") for c in recall)
    assert select_checks([]) == CHECKS
    assert select_checks(["nosuch."]) == []


async def test_the_model_check_shrinks_a_failure_into_a_reproducer() -> None:
    report = await certify(
        broken(url_factory(STORE), "other-agents"), options=MODEL, only=["model.stateful"]
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


class _Declaring:
    """A store that declares only some of what ``inner`` declares (``keep`` picks them)."""

    def __init__(self, inner: object, keep: Callable[[list[str]], list[str]]) -> None:
        self.inner = inner
        self.keep = keep

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def capabilities(self) -> object:
        declared = self.inner.capabilities()  # type: ignore[attr-defined]
        return declared.model_copy(update={"capabilities": self.keep(declared.capabilities)})


def declaring(keep: Callable[[list[str]], list[str]]) -> Callable[[], Any]:
    """A store factory: the reference store, declaring only ``keep(its capabilities)``."""

    @contextlib.asynccontextmanager
    async def factory() -> AsyncIterator[object]:
        async with url_factory(STORE)() as store:
            yield _Declaring(store, keep)

    return factory


async def test_a_store_without_a_capability_is_skipped_with_the_reason() -> None:
    factory = declaring(lambda declared: [c for c in declared if c != "merge"])
    report = await certify(factory, options=QUICK, only=["merge."])
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
    # store.undeclared-refused skips: this store declares every capability a request can need
    assert again.summary == {"PASS": 5, "FAIL": 0, "SKIP": 1, "ERROR": 0}
    header = again.data["header"]
    assert header["spec_digest"].startswith("sha256:")
    assert header["seed"] == 3
    assert json.loads((tmp_path / "badge.json").read_text())["message"] == "5/5 pass, 1 skipped"
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


@pytest.mark.parametrize("defect", MODEL_CATCHES)
async def test_the_model_check_reaches_what_its_rules_send(defect: str) -> None:
    """The model sends user_id on expire and empty types lists, so it catches the toy store's
    planted bugs too (it passed both, 50 runs out of 50, before it sent them)."""
    report = await certify(
        broken(url_factory(STORE), defect), options=MODEL, only=["model.stateful"]
    )
    [result] = report.data["checks"]
    assert result["status"] == "FAIL", result


async def test_a_small_store_still_gets_the_base_model_check() -> None:
    """A store declaring only semantic memories (no forget, merge, expire, users or staging)
    is model-checked on what it has, instead of skipping the model check altogether."""

    factory = declaring(lambda declared: ["semantic", "vector"])
    report = await certify(factory, options=QUICK, only=["model."])
    statuses = {c["id"]: c["status"] for c in report.data["checks"]}
    assert statuses == {"model.base": "PASS", "model.stateful": "SKIP"}


async def test_a_failing_scenario_carries_the_requests_that_show_it() -> None:
    report = await certify(
        broken(url_factory(STORE), "forget-noop"), options=QUICK, only=["forget.by-ids"]
    )
    [result] = report.data["checks"]
    assert result["status"] == "FAIL"
    steps = [json.loads(line) for line in result["reproducer"].splitlines()]
    assert [s["operation"] for s in steps] == [
        "remember",
        "remember",
        "remember",
        "forget",
    ]
    assert steps[3]["request"]["ids"]  # the forget whose answer was wrong is the last step


class _WritesBeforeRefusing:
    """A boundary with the defect the refusal checks exist for: it writes, then refuses."""

    def __init__(self, parsed: Parsed) -> None:
        self.parsed = parsed

    def __getattr__(self, name: str) -> object:
        return getattr(self.parsed, name)

    async def forget(self, request: dict[str, Any]) -> object:
        agent = request.get("agent_id")
        if isinstance(agent, str) and agent.startswith("cf-"):
            await self.parsed.remember({"agent_id": agent, "type": "semantic", "content": "tea"})
        return await self.parsed.forget(request)


async def test_a_refused_request_that_wrote_is_caught_and_named() -> None:
    """The refusals are checked with one recall after all of them; a change found then is
    pinned to the first request that makes it."""
    [fuzz] = select_checks(["fuzz.forget.invalid"])
    async with url_factory(STORE)() as store:
        leaky = _WritesBeforeRefusing(Parsed(store))
        harness = Harness(leaky, fuzz.id, factory=url_factory(STORE), options=QUICK)  # type: ignore[arg-type]
        with pytest.raises(
            CheckFailed, match=r"a refused forget\.request changed the store"
        ) as failed:
            await fuzz.run(harness)
    request = json.loads(failed.value.reproducer or "")
    assert request["agent_id"].startswith(f"cf-{fuzz.id}-witness-")


class _SlowRecall:
    """The reference store with a recall slower than the shortest window of a check on time."""

    def __init__(self, inner: object) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    async def recall(self, request: object, **kwargs: object) -> object:
        await asyncio.sleep(TIME_WINDOWS_S[0] + 0.1)
        return await self.inner.recall(request, **kwargs)  # type: ignore[attr-defined]


async def test_a_store_too_slow_for_a_window_is_checked_in_a_wider_one() -> None:
    """A recall slower than expires_at's first window is inconclusive, not a failure (a
    Cognee router once failed CI so); the next window decides."""

    @contextlib.asynccontextmanager
    async def slow() -> AsyncIterator[object]:
        async with url_factory(STORE)() as store:
            yield _SlowRecall(store)

    report = await certify(slow, options=QUICK, only=["remember.expires-at"])  # type: ignore[arg-type]
    [result] = report.data["checks"]
    assert result["status"] == "PASS", result


def test_the_report_page_links_the_spec_and_shows_every_reason(tmp_path: Path) -> None:
    """Links resolve from where the report is written; reasons and reproducers are on the page
    (not only in a tooltip); skips are not counted as failures."""
    out = tmp_path / "repo" / "docs" / "conformance" / "toy"
    spec_prose = tmp_path / "repo" / "docs" / "spec" / "v0.md"
    spec_prose.parent.mkdir(parents=True)
    spec_prose.write_text('<a id="forget.scope"></a>', encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        [
            "certify",
            STORE,
            "--only",
            "forget.by-ids",
            "--only",
            "store.undeclared",
            "--out",
            str(out),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == Exit.OK, result.output
    page = (out / "report.md").read_text()
    assert "[forget.scope](../../spec/v0.md#forget.scope)" in page
    html_page = (out / "matrix.html").read_text()
    assert "1 of 1 run pass; 1 skipped" in html_page
    assert "declares every capability" in html_page.split("<details>", 1)[1]
    elsewhere = tmp_path / "elsewhere"
    CliRunner().invoke(cli, ["certify", STORE, "--only", "forget.by-ids", "--out", str(elsewhere)])
    assert "v0.md#forget.scope |" in (elsewhere / "report.md").read_text()  # named, no dead link


class UnsortedIds:
    """Mints ids that do not sort by creation: breaks a SHOULD, not a MUST."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.counter = 10_000

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    async def remember(self, request: RememberRequest) -> object:
        self.counter -= 1
        minted = request.model_copy(update={"id": f"id{self.counter}"})
        return await self.inner.remember(minted)  # type: ignore[attr-defined]


def test_a_should_not_met_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    from mnemowire import registry

    @contextlib.asynccontextmanager
    async def opened() -> AsyncIterator[object]:
        async with url_factory(STORE)() as store:
            yield UnsortedIds(store)

    def factory(url: str, **options: object) -> object:
        from mnemowire.adapters.sqlite_vec import SqliteVecStore
        from mnemowire.embedders import HashEmbedder

        return UnsortedIds(SqliteVecStore(":memory:", embedder=HashEmbedder(32)))

    registry.register("unsorted-ids-test", factory)  # type: ignore[arg-type]
    result = CliRunner().invoke(
        cli,
        [
            "certify",
            "unsorted-ids-test://x",
            "--only",
            "remember.sortable-ids",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == Exit.OK, result.output
    assert "WARNING (SHOULD not met) remember.sortable-ids" in result.stderr
    [check] = load_report(tmp_path / "report.json").data["checks"]
    assert (check["status"], check["strength"]) == ("FAIL", "SHOULD")
