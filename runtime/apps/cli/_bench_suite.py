"""``mnemowire bench quality|latency|scale|all`` (and ``store``, the old name of ``scale``)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from mnemowire.apps.cli._bench import bench_group, require_matplotlib
from mnemowire.apps.cli._progress import Bars

F = TypeVar("F", bound=Callable[..., Any])


def _numbers(kind: type[int] | type[float]) -> Callable[..., tuple[Any, ...] | None]:
    def parse(
        _ctx: click.Context, _param: click.Parameter, value: str | None
    ) -> tuple[Any, ...] | None:
        if value is None:
            return None
        try:
            numbers = tuple(kind(part) for part in value.split(",") if part.strip())
        except ValueError:
            raise click.BadParameter(f"a comma-separated list of {kind.__name__}s") from None
        if not numbers or any(n < 0 for n in numbers):
            raise click.BadParameter("at least one number, none negative")
        return numbers

    return parse


def common_options(command: F) -> F:
    """--store, --embedder and --out, shared by every suite command."""
    command = click.option(
        "--out",
        type=click.Path(file_okay=False, path_type=Path),
        default=Path("bench-out"),
        show_default=True,
        help="Folder for the JSON reports, Markdown tables and PNG plots.",
    )(command)
    command = click.option(
        "--embedder",
        envvar="MNEMOWIRE_EMBEDDER",
        default=None,
        help="Embedder name (default: the real all-MiniLM-L6-v2; hash for logic checks only).",
    )(command)
    return click.option(
        "--store",
        "stores",
        multiple=True,
        metavar="URL",
        help="Store URL to measure (repeatable); {tmp} becomes a fresh temporary folder "
        "[default: sqlite-vec://{tmp}/bench.db].",
    )(command)


def quality_options(command: F) -> F:
    return click.option(
        "--floors",
        default=None,
        callback=_numbers(float),
        help="Relevance floors (min_relevance) to sweep, comma-separated  [default: 0 to 0.8 "
        "in steps of 0.05].",
    )(command)


def latency_options(command: F) -> F:
    return click.option(
        "--rounds",
        type=click.IntRange(min=1),
        default=2,
        show_default=True,
        help="Times every corpus query is recalled.",
    )(command)


def scale_options(command: F) -> F:
    for option in reversed(
        [
            click.option(
                "--sizes",
                default="1000,10000,100000",
                show_default=True,
                callback=_numbers(int),
                help="Corpus sizes (one agent each; the largest is also spread over agents).",
            ),
            click.option(
                "--queries",
                "scale_queries",
                type=click.IntRange(min=1),
                default=200,
                show_default=True,
                help="Recalls measured per size.",
            ),
            click.option(
                "--ingest",
                type=click.IntRange(min=1),
                default=1000,
                show_default=True,
                help="Memories for the bulk ingest measurement.",
            ),
            click.option(
                "--spread-agents",
                type=click.IntRange(min=1),
                default=10,
                show_default=True,
                help="Agents the largest size is also spread over (1: not spread).",
            ),
        ]
    ):
        command = option(command)
    return command


def run_suite(
    names: Sequence[str],
    *,
    stores: Sequence[str],
    embedder: str | None,
    out: Path,
    embedder_object: Any = None,
    **options: Any,
) -> None:
    """Run benchmarks, print their Markdown and say where the files went."""
    require_matplotlib()
    from mnemowire.apps.bench._stores import DEFAULT_STORE
    from mnemowire.apps.bench.markdown import render
    from mnemowire.apps.bench.suite import Settings, run_benchmarks
    from mnemowire.embedders import default_embedder, load_embedder

    if embedder_object is not None:
        chosen = embedder_object
    else:
        chosen = load_embedder(embedder) if embedder else default_embedder()
    given = {name: value for name, value in options.items() if value is not None}
    settings = Settings(
        embedder=chosen,
        out=out,
        command=" ".join(["mnemowire", *sys.argv[1:]]),
        stores=tuple(stores) or (DEFAULT_STORE,),
        **given,
    )
    bars = Bars()
    try:
        reports = asyncio.run(run_benchmarks(names, settings, progress=bars))
    finally:
        bars.close()
    for report in reports:
        click.echo(render(report))
    written = sorted(path.name for path in out.iterdir() if path.suffix in {".json", ".md", ".png"})
    click.echo(f"wrote {', '.join(written)} in {out}")


@bench_group.command("quality")
@common_options
@quality_options
def quality_command(stores: tuple[str, ...], embedder: str | None, out: Path,
                    floors: tuple[float, ...]) -> None:  # fmt: skip
    """Recall@1/5/10, precision@5, MRR and nDCG@10 per query class on the bundled corpus,
    and the relevance-floor trade-off for no-match queries."""
    run_suite(["quality"], stores=stores, embedder=embedder, out=out, floors=floors)


@bench_group.command("latency")
@common_options
@latency_options
def latency_command(stores: tuple[str, ...], embedder: str | None, out: Path, rounds: int) -> None:
    """Ingest and recall p50/p95/p99 per store, alone and fused (two stores, one router)."""
    run_suite(["latency"], stores=stores, embedder=embedder, out=out, rounds=rounds)


@bench_group.command("scale")
@common_options
@scale_options
def scale_command(stores: tuple[str, ...], embedder: str | None, out: Path, sizes: tuple[int, ...],
                  scale_queries: int, ingest: int, spread_agents: int) -> None:  # fmt: skip
    """Recall latency and vector recall@10 vs exact search at each corpus size (synthetic
    texts; their embeddings are cached on disk, so reruns are quick)."""
    run_suite(["scale"], stores=stores, embedder=embedder, out=out, sizes=sizes,
              scale_queries=scale_queries, ingest=ingest, spread_agents=spread_agents)  # fmt: skip


@bench_group.command("store")
@common_options
@scale_options
@click.pass_context
def store_command(ctx: click.Context, /, **options: Any) -> None:
    """The old name of ``bench scale`` (same options, same report)."""
    ctx.invoke(scale_command, **options)


@bench_group.command("all")
@common_options
@quality_options
@latency_options
@scale_options
@click.option("--seed", default=1337, show_default=True, help="Seed of the adversarial corpus.")
@click.option(
    "--budgets",
    default="0,5,10,15,20,25,30,35,40,45,50",
    show_default=True,
    callback=_numbers(int),
    help="Attacker budgets K for the adversarial sweep.",
)
def all_command(**options: Any) -> None:
    """quality, latency, scale and adversarial in turn, over every --store (nox -s bench)."""
    from mnemowire.apps.bench.suite import SUITE

    run_suite(SUITE, **options)
