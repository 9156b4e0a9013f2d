"""``mnemowire bench ...``: measured numbers, printed with the machine, date and command."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from mnemowire.apps.cli._app import cli
from mnemowire.errors import ConfigError

Command = TypeVar("Command", bound=Callable[..., Any])


def report_folder(files: str) -> Callable[[Command], Command]:
    """The ``--out`` option of a benchmark that prints its report and can also write ``files``
    into a folder."""
    return click.option(
        "--out",
        type=click.Path(file_okay=False, path_type=Path),
        help=f"Also write {files} into this folder.",
    )


@cli.group("bench")
def bench_group() -> None:
    """Benchmarks (not tests): print measured numbers and where they were measured."""


@bench_group.command("validation")
@click.option("--seconds", default=0.3, show_default=True, help="Sampling time per case.")
@report_folder("validation.json and validation.md")
def validation_command(seconds: float, out: Path | None) -> None:
    """Time spec validation per message (target: < 50 µs for a typical remember)."""
    from mnemowire.apps.bench import environment, run_validation

    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    publish("validation", env, run_validation(seconds), out)


@bench_group.command("records")
@click.option("--records", "count", default=100_000, show_default=True, help="Records listed.")
@click.option("--get-rounds", default=200, show_default=True, help="get requests of 100 ids.")
@report_folder("records.json and records.md")
def records_command(count: int, get_rounds: int, out: Path | None) -> None:
    """Time list (100k records, targets ≥ 20k records/s, flat memory), get of 100 ids (p50
    ≤ 2 ms) and seal verification (≤ 20 µs) on the embedded store."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.records import run_records

    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    publish("records", env, run_records(count, get_rounds), out)


@bench_group.command("portability")
@click.option("--records", "count", default=100_000, show_default=True, help="Records moved.")
@click.option(
    "--dsn",
    help="A PostgreSQL (postgresql://...) to import into; default: a local one for the run.",
)
@report_folder("portability.json and portability.md")
def portability_command(count: int, dsn: str | None, out: Path | None) -> None:
    """Time export (sqlite-vec, vectors, flat memory: target >= 20,000 records/s), the archive's
    verification, import into sqlite-vec and pgvector (>= 5,000 records/s) and migrate
    sqlite-vec -> pgvector (>= 3,000 records/s), each read back and compared."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.portability import run_portability
    from mnemowire.apps.cli._progress import Bars

    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    bars = Bars()
    try:
        results = run_portability(count, dsn, progress=bars)
    finally:
        bars.close()
    publish("portability", env, results, out)


@bench_group.command("reviews")
@click.option("--pending", default=10_000, show_default=True, help="Staged remembers queued.")
@click.option("--existing", default=10_000, show_default=True, help="Active memories beside.")
@click.option("--pages", "page_rounds", default=200, show_default=True, help="Pages listed.")
@click.option("--decisions", default=200, show_default=True, help="Decisions of each kind.")
@report_folder("reviews.json and reviews.md")
def reviews_command(
    pending: int, existing: int, page_rounds: int, decisions: int, out: Path | None
) -> None:
    """Time the review queue (spec v0.2) on the embedded store: a page of 50 pending reviews
    with diffs out of 10k (target p50 ≤ 50 ms), and what a decision adds to the write it
    applies (≤ 5 ms)."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.reviews import run_reviews

    if decisions > pending or decisions * 2 > existing:
        raise click.UsageError("--decisions takes one staged and two active records each")
    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    publish("reviews", env, run_reviews(pending, existing, page_rounds, decisions), out)


@bench_group.command("http")
@click.option("--embedder", default="minilm", show_default=True, help="The servers' embedder.")
@click.option("--rounds", default=3, show_default=True, help="Passes over the 165 queries.")
@click.option("--rate", default=250.0, show_default=True, help="Recalls per second offered.")
@click.option("--seconds", default=60.0, show_default=True, help="Length of the paced run.")
@click.option("--clients", default=16, show_default=True, help="Concurrent connections.")
@click.option("--requests", default=100_000, show_default=True, help="Requests of the memory run.")
@report_folder("http.json, http.md and http.png")
def http_command(
    embedder: str,
    rounds: int,
    rate: float,
    seconds: float,
    clients: int,
    requests: int,
    out: Path | None,
) -> None:
    """The HTTP transport: recall latency in-process vs through a server vs through a router
    over two servers; sustained recalls/s with concurrent clients; server memory over many
    requests (targets: +1 ms p50, >= 250/s at p99 <= 60 ms, router <= 1.3x, flat memory)."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.http import run_http
    from mnemowire.apps.cli._progress import Bars

    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    bars = Bars()
    try:
        results = run_http(
            embedder=embedder,
            rounds=rounds,
            rate=rate,
            seconds=seconds,
            clients=clients,
            requests=requests,
            progress=bars,
        )
    finally:
        bars.close()
    publish("http", env, results, out)
    if out is not None:
        from mnemowire.apps.bench.plots import plot
        from mnemowire.apps.bench.report import load_report

        for path in plot(load_report(out / "http.json"), out):
            click.echo(f"wrote {path}", err=True)


@bench_group.command("adapter")
@click.option(
    "--store",
    "url",
    required=True,
    metavar="URL",
    help="The adapter's store URL; {tmp} becomes a fresh folder (e.g. mem0://{tmp}/mem0).",
)
@click.option("--rounds", default=2, show_default=True, help="Passes over the 165 queries.")
@report_folder("adapter.json and adapter.md")
def adapter_command(url: str, rounds: int, out: Path | None) -> None:
    """An adapter against its backend's own API for the same remember and recall, side by
    side (target: <= 10 % overhead at p50). Knows mem0:// and cognee:// (each needs its
    extra)."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.adapter import BACKENDS, run_adapter
    from mnemowire.apps.cli._progress import Bars

    if url.partition("://")[0] not in BACKENDS:
        known = ", ".join(f"{scheme}://" for scheme in BACKENDS)
        raise click.BadParameter(f"no baseline for it; known: {known}", param_hint="--store")
    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    bars = Bars()
    try:
        results = run_adapter(url, rounds=rounds, progress=bars)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--store") from None
    finally:
        bars.close()
    publish("adapter", env, results, out)


@bench_group.command("facades")
@click.option(
    "--store",
    "url",
    default="sqlite-vec://{tmp}/memory.db",
    show_default=True,
    metavar="URL",
    help="The store every side writes; {tmp} becomes a fresh folder per side.",
)
@click.option("--rounds", default=2, show_default=True, help="Passes over the 165 queries.")
@report_folder("facades.json and facades.md")
def facades_command(url: str, rounds: int, out: Path | None) -> None:
    """Each facade (keyword arguments, mem0's API) against the boundary call it wraps, side by
    side (target: <= 5 % overhead at p50)."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.facades import run_facades
    from mnemowire.apps.cli._progress import Bars

    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    bars = Bars()
    try:
        results = run_facades(url, rounds=rounds, progress=bars)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--store") from None
    finally:
        bars.close()
    publish("facades", env, results, out)


@bench_group.command("lifecycle")
@click.option("--versions", default=100, show_default=True, help="Versions of each record read.")
@click.option("--rounds", default=500, show_default=True, help="History pages read.")
@click.option(
    "--records", "count", default=20_000, show_default=True, help="Records each write side loads."
)
@click.option(
    "--held", default=10_000, show_default=True, help="Records in the stores histories are read in."
)
@click.option(
    "--planned",
    default=100_000,
    show_default=True,
    help="Records of one agent a consolidation plans over (target: <= 60 s).",
)
@report_folder("lifecycle.json and lifecycle.md")
def lifecycle_command(
    versions: int, rounds: int, count: int, held: int, planned: int, out: Path | None
) -> None:
    """Score the duplicate judge on the labelled pairs, time a consolidation plan over 100k
    records (target: <= 60 s), a history page of 100 versions (target: p50 <= 5 ms), a
    procedure run's step (target: p50 <= 2 ms) and what keeping history costs the writes
    (with and without it, side by side)."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.lifecycle import run_lifecycle

    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    results = run_lifecycle(
        versions,
        rounds,
        count,
        held,
        planned,
        progress=lambda step: click.echo(f"mnemowire: {step}", err=True),
    )
    publish("lifecycle", env, results, out)


def publish(benchmark: str, env: dict[str, Any], results: Any, out: Path | None) -> dict[str, Any]:
    """Print the report's Markdown; with ``out``, also write its JSON and Markdown files.
    Returns the report."""
    from mnemowire.apps.bench.markdown import render
    from mnemowire.apps.bench.report import make_report, write

    report = make_report(benchmark, env, results)
    click.echo(render(report))
    if out is not None:
        write(report, out)
    return report


def require_matplotlib() -> None:
    """Fail before a run whose plots need matplotlib, not after it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise click.ClickException(
            "the plots need matplotlib: pip install 'mnemowire[bench]'"
        ) from None


def _setups(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> list[Any]:
    from mnemowire.apps.bench.embedders import DEFAULT_SETUPS, parse_setup

    try:
        return [parse_setup(value) for value in values] or list(DEFAULT_SETUPS)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


@bench_group.command("embedders")
@click.option(
    "--setup",
    "setups",
    multiple=True,
    callback=_setups,
    help="BACKEND[:THREADS|auto][:spin], e.g. onnx:1, torch:auto (repeatable; default: all).",
)
@click.option("--single", default=200, show_default=True, help="One-sentence calls timed.")
@click.option(
    "--batch-size",
    "batch_sizes",
    multiple=True,
    type=click.IntRange(min=1),
    default=(32, 128),
    show_default=True,
    help="Batch sizes for throughput (repeatable).",
)
@click.option("--rounds", default=3, show_default=True, help="Batches timed per batch size.")
@click.option(
    "--busy",
    "busy_levels",
    multiple=True,
    type=click.IntRange(min=0),
    default=(0, 1),
    show_default=True,
    help="CPU-bound competitor processes to run meanwhile (repeatable: one pass per level).",
)
@report_folder("embedders.json and embedders.md")
def embedders_command(
    *,
    setups: list[Any],
    single: int,
    batch_sizes: tuple[int, ...],
    rounds: int,
    busy_levels: tuple[int, ...],
    out: Path | None,
) -> None:
    """Load time, one-sentence latency and batch throughput of each embedder backend."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.embedders import run_embedders

    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    rows = []
    for busy in busy_levels:
        rows += run_embedders(
            setups, single=single, batch_sizes=batch_sizes, rounds=rounds, busy=busy
        )
    publish("embedders", env, rows, out)
