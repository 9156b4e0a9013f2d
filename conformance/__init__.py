"""mnemowire.conformance: certify that a store speaks memorywire, and say where it does not.

Scenario checks (each citing docs/spec/v0.md), property-based fuzzing from the spec's own
schemas, and stateful model checking, run against any MemoryStore through the protocol only::

    report = await certify(url_factory("sqlite-vec://:memory:"))
    write_outputs(report, Path("report/"))     # report.json, report.md, matrix.html, badge.json

or from the shell: ``mnemowire certify STORE_URL --out report/``; or in an adapter's own test
suite with the pytest plugin (``mnemowire.conformance.pytest_plugin``).
"""

from __future__ import annotations

import contextlib
import datetime
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from mnemowire.conformance import (  # noqa: F401  (register the checks)
    _fuzz,
    _stateful,
    archive,
    audit,
    browse,
    checks,
    consolidation,
    dedupe,
    fidelity,
    forgetting,
    history,
    procedures,
    promotion,
    retention,
    review,
)
from mnemowire.conformance._harness import (
    CHECKS,
    Check,
    Outcome,
    RunOptions,
    StoreFactory,
    run_checks,
    select_checks,
)
from mnemowire.conformance._render import badge, html_matrix, markdown
from mnemowire.conformance.report import Report, load_report, validate_report
from mnemowire.kit import fidelity_of
from mnemowire.protocol import MemoryStore

__all__ = [
    "CHECKS",
    "Check",
    "Outcome",
    "Report",
    "RunOptions",
    "StoreFactory",
    "certify",
    "html_matrix",
    "load_report",
    "select_checks",
    "spec_href",
    "url_factory",
    "validate_report",
    "write_outputs",
]

#: checks that generate many requests: they may run on a faster store (say, a test embedder)
GENERATING = ("fuzz.", "model.")


def spec_href(out: Path) -> str | None:
    """The folder of the spec's prose (docs/spec/, holding v0.md) relative to ``out``, if a
    folder above it holds one; None otherwise."""
    import os

    here = out.resolve()
    for folder in (here, *here.parents):
        prose = folder / "docs" / "spec"
        if (prose / "v0.md").is_file():
            return Path(os.path.relpath(prose, here)).as_posix()
    return None


def url_factory(
    urls: str | Sequence[str],
    *,
    combine: Callable[[list[MemoryStore]], MemoryStore] | None = None,
    **options: Any,
) -> StoreFactory:
    """A factory opening ``urls`` afresh for every check (``:memory:`` stores start empty);
    several URLs are combined into one store by ``combine`` (``mnemowire certify`` passes a
    MemoryRouter), which is then what gets certified."""
    from mnemowire.registry import open_store

    chosen = [urls] if isinstance(urls, str) else list(urls)
    if len(chosen) > 1 and combine is None:
        raise ValueError("several store URLs need combine= (e.g. MemoryRouter) to be one store")

    @contextlib.asynccontextmanager
    async def opened() -> AsyncIterator[MemoryStore]:
        stores = [open_store(url, **options) for url in chosen]
        store = stores[0] if combine is None else combine(stores)
        try:
            yield store
        finally:
            await store.aclose()

    return opened


async def certify(
    factory: StoreFactory,
    *,
    options: RunOptions | None = None,
    fuzz_factory: StoreFactory | None = None,
    fuzz_store: str | None = None,
    only: Sequence[str] | None = None,
    progress: Callable[[Check], None] | None = None,
) -> Report:
    """Run every check (or those ``only`` names: :func:`select_checks`) and build the report.

    ``fuzz_factory`` serves the generating checks (fuzzing, stateful) when the store under
    test is too slow for thousands of requests; ``fuzz_store`` names it in the report header.
    """
    options = options or RunOptions()
    selected = select_checks(only or ())
    async with factory() as store:
        adapter = store.name
        declared = store.capabilities()
        capabilities = list(declared.capabilities)
        kept = fidelity_of(declared)

    def factory_for(item: Check) -> StoreFactory:
        if fuzz_factory is not None and item.id.startswith(GENERATING):
            return fuzz_factory
        return factory

    started_at = datetime.datetime.now(datetime.UTC)
    started = time.perf_counter()
    outcomes = await run_checks(factory_for, selected, options, progress)
    return Report.build(
        outcomes,
        adapter=adapter,
        capabilities=capabilities,
        fidelity=kept,
        options=options,
        fuzz_store=fuzz_store,
        started=started_at,
        duration_s=time.perf_counter() - started,
    )


def write_outputs(report: Report, out: Path) -> list[Path]:
    """report.json, report.md, matrix.html and badge.json under ``out``. The Markdown links
    each section to the spec's prose when ``out`` is inside a checkout (docs/spec/<v>.md
    above it), relative to the report, so the links work where the report is read."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    report.save(out / "report.json")
    files = {
        "report.md": markdown(report, spec_href(out)),
        "matrix.html": html_matrix([report]),
        "badge.json": json.dumps(badge(report), indent=2) + "\n",
    }
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    return [out / "report.json", *(out / name for name in files)]
