"""The certification reports committed under docs/conformance/ are honest and current.

``nox -s conformance`` writes them with the real embedder and long runs; here every adapter is
certified again, quickly (hash embedder, few examples), and must pass at least every check its
committed report passes. The adapter matrix in docs/conformance.md must be the one those
reports produce, and so must its capability matrix and fidelity table. (pgvector is
re-certified in tests/adapters/pgvector/test_conformance.py, on the server its fixture starts,
mem0 in tests/adapters/mem0/test_conformance.py, in the mem0 session's virtualenv, cognee
and the router over sqlite-vec, mem0 and Cognee in tests/adapters/cognee/, in the cognee
session's, and Letta and the router over sqlite-vec and Letta in tests/adapters/letta/, against
the server the letta session starts.)
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest

from mnemowire.conformance import RunOptions, certify, load_report, url_factory
from mnemowire.conformance.docs import fidelity_markdown, update_docs
from mnemowire.conformance.report import Report
from mnemowire.layers.router import MemoryRouter
from mnemowire.models import FIELD_FIDELITY_FIELDS

DOCS = Path(__file__).resolve().parents[2] / "docs"
REPORTS = sorted((DOCS / "conformance").glob("*/report.json"))
QUICK = RunOptions(seed=11, examples=15, stateful_runs=5)
#: the in-process adapters, as the quick run opens them
IN_PROCESS = {
    "sqlite-vec": ["sqlite-vec://:memory:?embedder=hash:64"],
    "router-2x-sqlite-vec": [
        "sqlite-vec://:memory:?name=a&embedder=hash:64",
        "sqlite-vec://:memory:?name=b&embedder=hash:48",
    ],
}


def passed(report_path: Path) -> set[str]:
    return {c["id"] for c in load_report(report_path).data["checks"] if c["status"] == "PASS"}


def test_every_adapter_in_the_repository_has_a_committed_report() -> None:
    elsewhere = {"pgvector", "mem0", "cognee", "router-sqlite-vec-mem0-cognee"}
    elsewhere |= {"letta", "router-sqlite-vec-letta"}
    assert {path.parent.name for path in REPORTS} == {*IN_PROCESS, *elsewhere}


@pytest.mark.parametrize("path", REPORTS, ids=[p.parent.name for p in REPORTS])
def test_a_committed_report_fails_nothing_and_explains_every_skip(path: Path) -> None:
    report = load_report(path)  # validates against spec/conformance/report.schema.json
    assert report.summary["FAIL"] == report.summary["ERROR"] == 0
    for check in report.data["checks"]:
        if check["status"] == "SKIP":
            assert check["reason"], check["id"]
    for sibling in ("report.md", "matrix.html", "badge.json"):
        assert (path.parent / sibling).is_file()


def test_the_pgvector_report_skips_only_what_it_cannot_fail() -> None:
    """pgvector declares every capability, so only the check of undeclared ones has nothing
    to send; everything else runs and passes."""
    report = load_report(DOCS / "conformance" / "pgvector" / "report.json")
    skipped = [c["id"] for c in report.data["checks"] if c["status"] == "SKIP"]
    assert skipped == ["store.undeclared-refused"]
    assert report.summary["PASS"] == len(report.data["checks"]) - 1


def test_the_docs_matrix_is_the_one_the_reports_produce(tmp_path: Path) -> None:
    page = tmp_path / "conformance.md"
    shutil.copy(DOCS / "conformance.md", page)
    (tmp_path / "conformance").symlink_to(DOCS / "conformance")
    text = page.read_text(encoding="utf-8")
    names = sorted(  # in the page's order; a missing row sorts first and fails below
        (path.parent.name for path in REPORTS),
        key=lambda name: text.find(f"](conformance/{name}/report.md)"),
    )
    copies = [tmp_path / "conformance" / name / "report.json" for name in names]
    portability = tmp_path / "portability.md"
    shutil.copy(DOCS / "portability.md", portability)
    assert not update_docs(page, copies, portability=portability), (
        "run `nox -s conformance` to rewrite the tables"
    )


@pytest.mark.parametrize("adapter", sorted(IN_PROCESS))
async def test_recertifying_passes_every_check_the_committed_report_passes(adapter: str) -> None:
    urls = IN_PROCESS[adapter]
    combine = MemoryRouter if len(urls) > 1 else None  # as `mnemowire certify` does
    report = await certify(url_factory(urls, combine=combine), options=QUICK)
    now = {c["id"]: c for c in report.data["checks"]}
    lost = {
        check_id: f"{now[check_id]['status']}: {now[check_id]['reason']}"
        for check_id in passed(DOCS / "conformance" / adapter / "report.json")
        if now[check_id]["status"] != "PASS"
    }
    assert lost == {}


@pytest.mark.parametrize("path", REPORTS, ids=[p.parent.name for p in REPORTS])
def test_every_link_of_a_committed_report_resolves(path: Path) -> None:
    import re

    page = path.parent / "report.md"
    links = re.findall(r"\]\(([^)#]+)#([^)]+)\)", page.read_text(encoding="utf-8"))
    assert links, "the report links no spec section"
    for target, anchor in links:
        prose = (page.parent / target).resolve()
        assert prose.is_file(), f"{page.name} links {target}, which is not there"
        assert f'id="{anchor}"' in prose.read_text(encoding="utf-8"), f"no section {anchor}"


def test_the_fidelity_table_marks_a_declaration_its_check_did_not_pass() -> None:
    report = load_report(DOCS / "conformance" / "mem0" / "report.json")
    failing = copy.deepcopy(report.data)
    for check in failing["checks"]:
        if check["id"] == "store.fidelity":
            check["status"] = "FAIL"
    del failing["header"]["adapter"]["fidelity"]["source"]  # a report from before the field
    table = fidelity_markdown([report, Report(failing)], ["mem0", "broken"])
    rows = {line.split(" | ")[0]: line for line in table.splitlines()[2:]}
    assert rows["| `content`"] == "| `content` | native | native (FAIL) |"
    assert rows["| `metadata`"] == "| `metadata` | encoded | encoded (FAIL) |"
    assert rows["| `source`"] == "| `source` | encoded | — |"
    assert len(rows) == len(FIELD_FIDELITY_FIELDS)
