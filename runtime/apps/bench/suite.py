"""Run benchmarks by name over the stores given, and write each one's JSON, Markdown and plots.

``mnemowire bench quality|latency|scale|adversarial|all`` call :func:`run_benchmarks`; each
benchmark runs once per store URL and writes ``<name>.json`` (a report valid under
``spec/bench/report.schema.json``), ``<name>.md`` and its PNGs into the output folder. ``all``
runs them in that order and also writes ``summary.md``, every table in one file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemowire.apps.bench._env import environment
from mnemowire.apps.bench._stores import DEFAULT_STORE
from mnemowire.apps.bench.adversarial import BUDGETS, run_adversarial
from mnemowire.apps.bench.latency import run_latency
from mnemowire.apps.bench.quality import (
    CORPORA,
    DEFAULT_FLOORS,
    MAX_RECALL_LOSS,
    corpus_summary,
    load_corpus,
    load_queries,
    run_quality,
    transfer,
)
from mnemowire.apps.bench.report import make_report, write
from mnemowire.apps.bench.scale import DEFAULT_SIZES, run_scale
from mnemowire.embedders import Embedder

__all__ = ["SUITE", "Settings", "run_benchmarks"]

Progress = Callable[[str, int, int], None]
#: what ``all`` runs, in order
SUITE = ("quality", "latency", "scale", "adversarial")


@dataclass(frozen=True)
class Settings:
    """Everything a suite run needs; the defaults are what docs/benchmarks.md publishes."""

    embedder: Embedder
    out: Path
    command: str
    stores: tuple[str, ...] = (DEFAULT_STORE,)
    floors: tuple[float, ...] = DEFAULT_FLOORS
    max_recall_loss: float = MAX_RECALL_LOSS
    rounds: int = 2
    sizes: tuple[int, ...] = DEFAULT_SIZES
    spread_agents: int = 10
    scale_queries: int = 200
    ingest: int = 1_000
    seed: int = 1337
    budgets: tuple[int, ...] = BUDGETS
    adversarial_queries: int = 20
    #: embedders of the two honest stores in the adversarial sweep (default: ``embedder``)
    adversarial_embedders: tuple[Embedder, ...] = field(default=())


async def run_benchmarks(
    names: Sequence[str], settings: Settings, progress: Progress | None = None
) -> list[dict[str, Any]]:
    """Run each named benchmark over every store and write its files; returns the reports."""
    reports = []
    for name in names:
        env = environment(settings.command, embedder=settings.embedder, stores=settings.stores)
        results = await _RUNNERS[name](settings, progress)
        report = make_report(name, env, results)
        write(report, settings.out)
        from mnemowire.apps.bench.plots import plot

        plot(report, settings.out)
        reports.append(report)
    if len(names) > 1:
        (settings.out / "summary.md").write_text(
            "\n".join(
                (settings.out / f"{report['benchmark']}.md").read_text(encoding="utf-8")
                for report in reports
            ),
            encoding="utf-8",
        )
    return reports


async def _quality(settings: Settings, progress: Progress | None) -> dict[str, Any]:
    runs = [
        await run_quality(
            url,
            settings.embedder,
            corpus_name=corpus,
            floors=settings.floors,
            max_recall_loss=settings.max_recall_loss,
            progress=progress,
        )
        for url in settings.stores
        for corpus in CORPORA
    ]
    config = {
        "corpora": {c: corpus_summary(load_corpus(c), load_queries(c)) for c in CORPORA},
        "k": [5, 10],
        "floors": list(settings.floors),
        "max_recall_loss": settings.max_recall_loss,
    }
    return {"config": config, "stores": runs, "transfer": transfer(runs)}


async def _latency(settings: Settings, progress: Progress | None) -> dict[str, Any]:
    runs = [
        await run_latency(url, settings.embedder, rounds=settings.rounds, progress=progress)
        for url in settings.stores
    ]
    config = {
        "rounds": settings.rounds,
        "memories": len(load_corpus()),
        "queries": len(load_queries()),
    }
    return {"config": config, "stores": runs}


async def _scale(settings: Settings, progress: Progress | None) -> dict[str, Any]:
    runs = [
        await run_scale(
            url,
            settings.embedder,
            sizes=settings.sizes,
            spread_agents=settings.spread_agents,
            queries=settings.scale_queries,
            ingest=settings.ingest,
            progress=progress,
        )
        for url in settings.stores
    ]
    config = {
        "sizes": sorted(settings.sizes),
        "spread_agents": settings.spread_agents,
        "queries": settings.scale_queries,
        "ingest": settings.ingest,
    }
    return {"config": config, "stores": runs}


async def _adversarial(settings: Settings, progress: Progress | None) -> dict[str, Any]:
    """The sweep over the first store given (its honest stores are two instances of it)."""
    embedders = settings.adversarial_embedders or (settings.embedder,)
    return await run_adversarial(
        seed=settings.seed,
        budgets=settings.budgets,
        queries=settings.adversarial_queries,
        store=settings.stores[0],
        embedders=embedders,
        progress=progress,
    )


_RUNNERS = {
    "quality": _quality,
    "latency": _latency,
    "scale": _scale,
    "adversarial": _adversarial,
}
